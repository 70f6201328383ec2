"""What `bench.crash` checks after a restart: the catalog, the rows, every relation answering, the server log.

Each check appends what it finds to a `Findings`: `lost` (an acknowledged row, COPY batch, transaction, CREATE or
DROP that the restarted server does not show), `torn` (a COPY batch, transaction or DDL statement partly applied),
`extra` (rows never sent, or sent once and present twice), `inconsistent` (catalog relations that disagree, objects
nobody created, relations that cannot be read) and `errors` (client errors before the kill, tracebacks in the log).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import psycopg

from bench.crash_clients import COPY_ROWS, TXN_ROWS, Clients, Conn, Kind, Ledger, Model, data_tables

_RELKINDS: dict[str, str] = {"r": "table", "v": "view", "i": "index", "m": "materialized-view"}
_LOG_PROBLEM = re.compile(r"Traceback|^\S+ \S+ (ERROR|CRITICAL) ", re.MULTILINE)


@dataclass
class Findings:
    lost: list[str] = field(default_factory=list)
    torn: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    inconsistent: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    unacked: int = 0  # statements in flight at the kill (sent, not acknowledged) ...
    unacked_applied: int = 0  # ... and how many of them the restarted server shows (all of it: never in part)

    def in_flight(self, attempted: set[str], acked: set[str], present: set[str]) -> None:
        self.unacked += len(attempted - acked)
        self.unacked_applied += len((attempted - acked) & present)

    def all(self) -> Iterator[str]:
        for label in ("lost", "torn", "extra", "inconsistent", "errors"):
            for item in getattr(self, label):
                yield f"{label}: {item}"


@dataclass(frozen=True, slots=True)
class Listed:
    id: str
    oid: int
    kind: Kind
    on: str | None  # the relation an index is on (by name)


def check_catalog(conn: Conn, model: Model, found: Findings) -> dict[str, Listed]:
    """Compare mz_tables / mz_views / mz_indexes, mz_objects and pg_class with each other and with `model`
    (resolving the unknown objects); returns the user relations listed, by name."""
    user = "WHERE id LIKE 'u%'"
    rows: list[tuple[str, int, str, Kind, str | None]] = [
        *(
            (i, o, n, "table", None)
            for i, o, n in conn.execute(f"SELECT id, oid, name FROM mz_catalog.mz_tables {user}")
        ),
        *((i, o, n, "view", None) for i, o, n in conn.execute(f"SELECT id, oid, name FROM mz_catalog.mz_views {user}")),
        *(
            (i, o, n, "index", on)
            for i, o, n, on in conn.execute(f"SELECT id, oid, name, on_id FROM mz_catalog.mz_indexes {user}")
        ),
    ]
    objects = conn.execute(
        f"SELECT oid, name, type FROM mz_catalog.mz_objects {user} AND type IN ('table', 'view', 'index')"
    ).fetchall()
    pg_class = conn.execute(
        "SELECT c.oid, c.relname, c.relkind FROM pg_catalog.pg_class c "
        "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public'"
    ).fetchall()

    names = {i: n for i, _, n, _, _ in rows}
    listed: dict[str, Listed] = {}
    by_oid: dict[int, tuple[str, str]] = {}
    for id_, oid, name, kind, on in rows:
        if name in listed or oid in by_oid:
            found.inconsistent.append(f"{kind} {name} ({id_}, oid {oid}) listed twice")
        if on is not None and on not in names:
            found.inconsistent.append(f"index {name} is on {on}, which mz_tables / mz_views do not list")
        listed[name] = Listed(id_, oid, kind, names.get(on) if on else None)
        by_oid[oid] = (name, kind)
    for label, other in (
        ("mz_objects", {oid: (name, kind) for oid, name, kind in objects}),
        ("pg_class", {oid: (name, _RELKINDS.get(relkind, relkind)) for oid, name, relkind in pg_class}),
    ):
        for oid in sorted(by_oid.keys() | other.keys()):
            if by_oid.get(oid) != other.get(oid):
                found.inconsistent.append(
                    f"oid {oid}: mz_tables/mz_views/mz_indexes say {by_oid.get(oid)}, {label} says {other.get(oid)}"
                )

    for group, creates in model.groups:
        states = {name in listed for name in group}
        found.unacked += 1
        found.unacked_applied += states == {creates}
        if len(states) > 1:
            found.torn.append(
                f"DDL statement half applied: {sorted(n for n in group if n in listed)} present, "
                f"{sorted(n for n in group if n not in listed)} absent"
            )
        for name in group:
            model.objects[name].state = "present" if name in listed else "absent"
    model.groups.clear()
    for name, expected in sorted(model.objects.items()):
        there = listed.get(name)
        if expected.state == "present" and there is None:
            found.lost.append(f"acknowledged CREATE {expected.kind.upper()} {name} is missing")
        elif expected.state == "absent" and there is not None:
            found.lost.append(f"acknowledged DROP of {expected.kind} {name} is undone")
        elif there is not None and there.kind != expected.kind:
            found.inconsistent.append(f"{name} is a {there.kind}, created as a {expected.kind}")
    for name in sorted(listed.keys() - model.objects.keys()):
        found.inconsistent.append(f"{listed[name].kind} {name} was never created")
    return listed


def _groups(conn: Conn, table: str, column: str) -> dict[str, tuple[int, int, int, int]]:
    sql = f"SELECT {column}, count(*), count(DISTINCT s), min(s), max(s) FROM {table} GROUP BY {column}"
    return {key: (n, distinct, low, high) for key, n, distinct, low, high in conn.execute(sql)}


def _all_or_nothing(conn: Conn, table: str, column: str, ledger: Ledger, size: int, label: str, found: Findings) -> int:
    groups = _groups(conn, table, column)
    found.in_flight(ledger.attempted, ledger.acked, set(groups))
    for key in sorted(ledger.acked - groups.keys()):
        found.lost.append(f"acknowledged {label} {key}")
    for key, (n, distinct, low, high) in sorted(groups.items()):
        if key not in ledger.attempted:
            found.extra.append(f"{label} {key} was never sent ({n} rows)")
        elif (n, distinct, low, high) != (size, size, 0, size - 1):
            found.torn.append(f"{label} {key}: {n} rows ({distinct} distinct, seq {low}..{high}) of {size}")
    return sum(n for n, _, _, _ in groups.values())


def check_rows(conn: Conn, clients: Clients, model: Model, found: Findings) -> None:
    """Every acknowledged row, batch and transaction of `clients`' trial is there, each batch and transaction whole;
    records the tables' row counts in `model` (recounted after later restarts)."""
    ins, cp, tx = data_tables(clients.trial)
    keys: dict[str, int] = dict(conn.execute(f"SELECT k, count(*) FROM {ins} GROUP BY k").fetchall())
    found.in_flight(clients.inserts.attempted, clients.inserts.acked, set(keys))
    for key in sorted(clients.inserts.acked - keys.keys()):
        found.lost.append(f"acknowledged INSERT {key}")
    for key, n in sorted(keys.items()):
        if key not in clients.inserts.attempted:
            found.extra.append(f"INSERT {key} was never sent")
        elif n != 1:
            found.extra.append(f"INSERT {key} is there {n} times")
    model.objects[ins].rows = sum(keys.values())
    model.objects[cp].rows = _all_or_nothing(conn, cp, "b", clients.batches, COPY_ROWS, "COPY batch", found)
    model.objects[tx].rows = _all_or_nothing(conn, tx, "x", clients.txns, TXN_ROWS, "transaction", found)


def check_queryable(
    conn: Conn, listed: dict[str, Listed], model: Model, found: Findings, done: frozenset[str] = frozenset()
) -> None:
    """Every listed table and view answers SELECT count(*), every index a lookup of a = 1, with the rows the model
    expects (when it knows: not after an INSERT in flight at the kill); `done`: tables already read."""
    for name, obj in sorted(listed.items()):
        if name in done:
            continue
        sql = f"SELECT count(*) FROM {name}" if obj.kind != "index" else f"SELECT * FROM {obj.on} WHERE a = 1"
        try:
            rows = conn.execute(sql).fetchall()
        except psycopg.Error as exc:
            found.inconsistent.append(f"{sql}: {type(exc).__name__}: {exc}")
            continue
        expected = model.objects[name].rows if name in model.objects else None
        count = len(rows) if obj.kind == "index" else rows[0][0]
        if expected is not None and count != expected:
            target = found.lost if count < expected else found.extra
            target.append(f"{sql}: {count} rows, {expected} acknowledged")


def log_problems(text: str) -> list[str]:
    """Tracebacks and ERROR / CRITICAL lines in (a part of) the server log."""
    lines = text.splitlines()
    problems = []
    for match in _LOG_PROBLEM.finditer(text):
        line_no = text.count("\n", 0, match.start())
        problems.append("server log: " + " | ".join(lines[line_no : line_no + 6])[:600])
    return problems
