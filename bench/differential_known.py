"""The known-disagreements file of the differential suite (tests/differential/known_disagreements.txt): reasons
and rewriting.

Contract: `reason(outcome)` says in one line how the two answers differ (result types by name, SQLSTATEs and
messages, or the first differing value), for a disagreement that has no hand-written reason yet.
`write_known(outcomes, known, path)` rewrites the file from a run: every query of the run that disagrees is listed
(keeping its existing reason), every query that now agrees is dropped, and entries for queries the run did not
cover are kept. Used by `python -m bench.differential --update-known`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from bench.differential import KNOWN, Answer, Outcome

HEADER = (
    "# Known disagreements of the differential suite (bench/differential.py): one line per query,\n"
    '# "<topic>:<n> <reason>". Listed by class in docs/sql-compatibility.md; remove a line when its query agrees\n'
    "# (`python -m bench.differential --update-known` rewrites the file from a full run).\n"
)
TYPE_NAMES = {
    16: "boolean", 20: "bigint", 21: "smallint", 23: "integer", 25: "text", 26: "oid", 700: "real",
    701: "double precision", 1043: "varchar", 1042: "char", 1082: "date", 1114: "timestamp", 1184: "timestamptz",
    1186: "interval", 1083: "time", 1700: "numeric", 1007: "integer[]", 1009: "text[]", 2206: "regtype",
}


def _types(answer: Answer) -> str:
    return ", ".join(TYPE_NAMES.get(oid, str(oid)) for oid in answer.oids)


def _first_difference(postgres: Answer, sparkwire: Answer) -> str:
    if len(postgres.rows) != len(sparkwire.rows):
        return f"{len(postgres.rows)} rows in PostgreSQL, {len(sparkwire.rows)} in sparkwire"
    for expected, actual in zip(sorted(postgres.rows, key=repr), sorted(sparkwire.rows, key=repr), strict=True):
        for e, a in zip(expected, actual, strict=True):
            if e != a:
                return f"value {e!r} in PostgreSQL, {a!r} in sparkwire"
    return "same rows in another order"


def reason(outcome: Outcome) -> str:
    pg, sw = outcome.postgres, outcome.sparkwire
    if pg.sqlstate is not None and sw.sqlstate is not None:
        return f"SQLSTATE {sw.sqlstate} ({sw.message[:80]}) where PostgreSQL raises {pg.sqlstate} ({pg.message[:80]})"
    if pg.sqlstate is not None:
        return f"returns a result where PostgreSQL raises {pg.sqlstate} ({pg.message[:100]})"
    if sw.sqlstate is not None:
        return f"fails with {sw.sqlstate} ({sw.message[:120]})"
    if pg.oids != sw.oids:
        return f"result types ({_types(sw)}) where PostgreSQL has ({_types(pg)})"
    return _first_difference(pg, sw)


def _order(qid: str) -> tuple[str, int]:
    topic, _, n = qid.rpartition(":")
    return topic, int(n)


def write_known(outcomes: Sequence[Outcome], known: dict[str, str], path: Path = KNOWN) -> dict[str, str]:
    ran = {o.query.id for o in outcomes}
    updated = {qid: why for qid, why in known.items() if qid not in ran}
    for outcome in outcomes:
        if not outcome.agrees:
            updated[outcome.query.id] = known.get(outcome.query.id) or reason(outcome)

    lines = [f"{qid} {updated[qid]}" for qid in sorted(updated, key=_order)]
    path.write_text(HEADER + "\n".join(lines) + "\n")
    return updated


DOC = Path(__file__).resolve().parent.parent / "docs" / "sql-compatibility.md"
DOC_START, DOC_END = "<!-- known disagreements: start -->", "<!-- known disagreements: end -->"


def doc_listing(known: dict[str, str]) -> str:
    """Every known disagreement for the doc: one bullet per reason, with the queries that have it."""
    by_reason: dict[str, list[str]] = {}
    for qid in sorted(known, key=_order):
        by_reason.setdefault(known[qid], []).append(qid)
    bullets = [f"- {why}: {', '.join(ids)}" for why, ids in sorted(by_reason.items(), key=lambda kv: _order(kv[1][0]))]
    return "\n".join([DOC_START, *bullets, DOC_END])


def write_doc_listing(known: dict[str, str], path: Path = DOC) -> None:
    text = path.read_text()
    start, end = text.index(DOC_START), text.index(DOC_END) + len(DOC_END)
    path.write_text(text[:start] + doc_listing(known) + text[end:])
