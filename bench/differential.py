"""The differential suite: every query of tests/differential/corpus/ on PostgreSQL 15 and on sparkwire, compared.

Run: `python -m bench.differential [--topic T ...] [--every K] [--verbose]`.

Starts its own PostgreSQL 15 (tests/support/postgres.py) and `sparkwire serve` (tests/support/server.py), loads
tests/differential/schema.sql into both through the same psycopg code (`load_schema`), runs every corpus query on
both over the simple query protocol and compares what a client sees (`compare`): a query **agrees** when both
return the same column type OIDs and the same rows with the same text form of every value (in order when the query's
top level has ORDER BY, rows whose sort keys tie in any order among themselves; as multisets otherwise), or when both
fail with the same SQLSTATE. Prints agreement per topic and overall, then every disagreement (query, both answers),
marking those listed in tests/differential/known_disagreements.txt. Exits 1 when a disagreement is not a known one.
tests/differential/test_differential.py runs every K-th query the same way against the test session's servers.

Corpus format: one file per topic, `corpus/<topic>.sql`; a query ends at a line that ends with `;`; lines starting
with `--` are comments. A query's id is `<topic>:<n>`, n counting from 1 in its file (add queries at the end of a
file so ids stay put). A known disagreement is a line `<id> <reason>` in known_disagreements.txt.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import psycopg
import sqlglot
from psycopg import pq
from sqlglot import exp

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "tests" / "differential"
CORPUS = SUITE / "corpus"
SCHEMA = SUITE / "schema.sql"
KNOWN = SUITE / "known_disagreements.txt"
SESSION_SETUP = ("SET TimeZone = 'UTC'", "SET statement_timeout = '120s'")
MAX_ROWS_SHOWN = 8

Row = tuple[str | None, ...]


@dataclass(frozen=True)
class Query:
    id: str
    topic: str
    sql: str


@dataclass(frozen=True)
class Answer:
    """What a client sees: column type OIDs and rows of text values, or an error's SQLSTATE and message."""

    oids: tuple[int, ...] = ()
    rows: tuple[Row, ...] = ()
    sqlstate: str | None = None
    message: str = ""

    def show(self) -> str:
        if self.sqlstate is not None:
            return f"ERROR {self.sqlstate}: {self.message}"
        shown = ", ".join(repr(r) for r in self.rows[:MAX_ROWS_SHOWN])
        more = f" … ({len(self.rows)} rows)" if len(self.rows) > MAX_ROWS_SHOWN else ""
        return f"oids {list(self.oids)} rows [{shown}{more}]"


@dataclass(frozen=True)
class Outcome:
    query: Query
    postgres: Answer
    sparkwire: Answer
    agrees: bool


# ---- corpus ----------------------------------------------------------------------------------------------------


def split_statements(text: str) -> list[str]:
    """Statements of a corpus or schema file: each ends at a line ending with `;`; `--` lines are comments."""
    statements: list[str] = []
    current: list[str] = []
    for line in text.splitlines():
        if not current and (not line.strip() or line.lstrip().startswith("--")):
            continue
        current.append(line)
        if line.rstrip().endswith(";"):
            statements.append("\n".join(current).rstrip().removesuffix(";").strip())
            current = []
    if current and "\n".join(current).strip():
        statements.append("\n".join(current).strip())
    return statements


def load_corpus(topics: Iterable[str] | None = None) -> list[Query]:
    wanted = set(topics) if topics else None
    queries: list[Query] = []
    for path in sorted(CORPUS.glob("*.sql")):
        topic = path.stem
        if wanted is not None and topic not in wanted:
            continue
        for n, sql in enumerate(split_statements(path.read_text()), start=1):
            queries.append(Query(f"{topic}:{n}", topic, sql))
    return queries


def subset(queries: Sequence[Query], every: int) -> list[Query]:
    """Every `every`-th query of each topic, starting with its first: deterministic, and every topic is in it."""
    return [q for q in queries if (int(q.id.rsplit(":", 1)[1]) - 1) % every == 0]


def load_known(path: Path = KNOWN) -> dict[str, str]:
    known: dict[str, str] = {}
    for line in path.read_text().splitlines() if path.exists() else []:
        if line.strip() and not line.startswith("#"):
            qid, _, reason = line.strip().partition(" ")
            known[qid] = reason.strip()
    return known


# ---- running ---------------------------------------------------------------------------------------------------


def connect(dsn: str) -> psycopg.Connection[tuple[object, ...]]:
    conn = psycopg.connect(dsn, autocommit=True)
    for statement in SESSION_SETUP:
        conn.execute(statement)
    return conn


def load_schema(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    """The shared schema, statement by statement (the same code for PostgreSQL and sparkwire)."""
    for statement in split_statements(SCHEMA.read_text()):
        conn.execute(statement)


def run(conn: psycopg.Connection[tuple[object, ...]], sql: str) -> Answer:
    """One statement over the simple query protocol (libpq's PQexec): the text of every value as sent."""
    result = conn.pgconn.exec_(sql.encode())
    if result.status == pq.ExecStatus.FATAL_ERROR:
        state = (result.error_field(pq.DiagnosticField.SQLSTATE) or b"").decode()
        message = (result.error_field(pq.DiagnosticField.MESSAGE_PRIMARY) or b"").decode(errors="replace")
        return Answer(sqlstate=state, message=message)
    if result.status != pq.ExecStatus.TUPLES_OK:
        return Answer(message=pq.ExecStatus(result.status).name)
    oids = tuple(result.ftype(c) for c in range(result.nfields))
    rows = tuple(
        tuple(
            None if (v := result.get_value(r, c)) is None else v.decode(errors="replace")
            for c in range(result.nfields)
        )
        for r in range(result.ntuples)
    )
    return Answer(oids=oids, rows=rows)


def is_ordered(sql: str) -> bool:
    """Whether the query's top level has ORDER BY (then row order is compared; otherwise rows are a multiset)."""
    try:
        tree = sqlglot.parse_one(sql, read="postgres")
    except (sqlglot.errors.SqlglotError, ValueError):
        return "order by" in sql.lower().rsplit(")", 1)[-1]
    return isinstance(tree, exp.Query) and tree.args.get("order") is not None


_TRAILING_POSITIONS = re.compile(r"\bORDER\s+BY\s+(\d+(?:\s*,\s*\d+)*)\s*$", re.I)


def order_columns(sql: str) -> list[int] | None:
    """The output columns the top-level ORDER BY sorts by (positions from 0), when every key is one: a position
    (`ORDER BY 2`), an output name or alias (`ORDER BY k`), or the text of a select item. None when a key is anything
    else (an expression that is not output): then the whole row order is compared."""
    try:
        tree = sqlglot.parse_one(sql, read="postgres")
    except (sqlglot.errors.SqlglotError, ValueError):
        positions = _TRAILING_POSITIONS.search(sql)  # sqlglot cannot parse e.g. ROLLUP over a comparison
        return [int(p) - 1 for p in positions.group(1).split(",")] if positions else None
    order = tree.args.get("order") if isinstance(tree, exp.Select) else None
    if order is None:
        return None
    items = tree.expressions
    if any(isinstance(item, exp.Star) or (isinstance(item, exp.Column) and item.is_star) for item in items):
        return None
    names = [item.alias_or_name for item in items]
    texts = [item.unalias().sql("postgres") for item in items]
    columns: list[int] = []
    for ordered in order.expressions:
        key = ordered.this
        if isinstance(key, exp.Literal) and key.is_int:
            columns.append(int(key.name) - 1)
        elif isinstance(key, exp.Column) and not key.table and names.count(key.name) == 1:
            columns.append(names.index(key.name))
        elif texts.count(key.sql("postgres")) == 1:
            columns.append(texts.index(key.sql("postgres")))
        else:
            return None
    return columns


def _runs(rows: Sequence[Row], columns: Sequence[int]) -> list[tuple[Row, list[Row]]]:
    """Consecutive rows with equal sort keys, as (key, rows sorted) pairs."""
    runs: list[tuple[Row, list[Row]]] = []
    for row in rows:
        key = tuple(row[c] for c in columns)
        if runs and runs[-1][0] == key:
            runs[-1][1].append(row)
        else:
            runs.append((key, [row]))
    return [(key, sorted(group, key=_sort_key)) for key, group in runs]


def same_order(sql: str, postgres: Sequence[Row], sparkwire: Sequence[Row]) -> bool:
    """Rows in the order the query asks for: the same sequence of sort keys, and within rows whose keys tie (which
    ORDER BY leaves in any order, in PostgreSQL as anywhere) the same rows in any order."""
    if list(postgres) == list(sparkwire):
        return True
    columns = order_columns(sql)
    return columns is not None and _runs(postgres, columns) == _runs(sparkwire, columns)


def _sort_key(row: Row) -> tuple[tuple[bool, str], ...]:
    return tuple((v is None, v or "") for v in row)


def compare(sql: str, postgres: Answer, sparkwire: Answer) -> bool:
    if postgres.sqlstate is not None or sparkwire.sqlstate is not None:
        return postgres.sqlstate == sparkwire.sqlstate
    if postgres.oids != sparkwire.oids or len(postgres.rows) != len(sparkwire.rows):
        return False
    if is_ordered(sql):
        return same_order(sql, postgres.rows, sparkwire.rows)
    return sorted(postgres.rows, key=_sort_key) == sorted(sparkwire.rows, key=_sort_key)


def run_all(
    pg_dsn: str, sw_dsn: str, queries: Sequence[Query], load: bool = True, progress: bool = False
) -> list[Outcome]:
    with connect(pg_dsn) as pg, connect(sw_dsn) as sw:
        if load:
            load_schema(pg)
            load_schema(sw)
        outcomes: list[Outcome] = []
        for query in queries:
            expected, actual = run(pg, query.sql), run(sw, query.sql)
            outcomes.append(Outcome(query, expected, actual, compare(query.sql, expected, actual)))
            if progress and not outcomes[-1].agrees:
                print(f"disagrees: {query.id}", file=sys.stderr, flush=True)
        return outcomes


# ---- reporting ---------------------------------------------------------------------------------------------------


def unexpected(outcomes: Sequence[Outcome], known: dict[str, str]) -> list[Outcome]:
    return [o for o in outcomes if not o.agrees and o.query.id not in known]


def describe(outcome: Outcome, known: dict[str, str]) -> str:
    note = f"  [known: {known[outcome.query.id]}]" if outcome.query.id in known else ""
    return (
        f"--- {outcome.query.id}{note}\n{outcome.query.sql}\n"
        f"  postgres:  {outcome.postgres.show()}\n  sparkwire: {outcome.sparkwire.show()}"
    )


def report(outcomes: Sequence[Outcome], known: dict[str, str], verbose: bool = True) -> str:
    lines: list[str] = []
    topics = sorted({o.query.topic for o in outcomes})
    lines.append(f"{'topic':<24}{'queries':>8}{'agree':>8}{'%':>8}")
    for topic in topics:
        mine = [o for o in outcomes if o.query.topic == topic]
        good = sum(o.agrees for o in mine)
        lines.append(f"{topic:<24}{len(mine):>8}{good:>8}{100 * good / len(mine):>8.1f}")
    good = sum(o.agrees for o in outcomes)
    total = max(len(outcomes), 1)
    lines.append(f"{'overall':<24}{len(outcomes):>8}{good:>8}{100 * good / total:>8.2f}")
    bad = [o for o in outcomes if not o.agrees]
    new = unexpected(outcomes, known)
    lines.append(f"disagreements: {len(bad)} ({len(bad) - len(new)} known, {len(new)} not in the known list)")
    if verbose:
        lines.extend(describe(o, known) for o in bad)
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--topic", action="append", help="only these topics (repeatable)")
    parser.add_argument("--every", type=int, default=1, help="every K-th query of each topic (the CI subset: 15)")
    parser.add_argument("--quiet", action="store_true", help="figures only, not each disagreement")
    parser.add_argument("--pg-dsn", help="use a running PostgreSQL 15 instead of starting one")
    parser.add_argument("--sw-dsn", help="use a running sparkwire instead of starting one")
    parser.add_argument("--update-known", action="store_true", help="rewrite known_disagreements.txt from this run")
    args = parser.parse_args(argv)

    from tests.support.postgres import PostgresOracle
    from tests.support.server import SparkwireServer

    queries = subset(load_corpus(args.topic), args.every)
    with tempfile.TemporaryDirectory(prefix="sparkwire-differential-") as tmp:
        oracle = None if args.pg_dsn else PostgresOracle.start(Path(tmp) / "pg")
        server = None if args.sw_dsn else SparkwireServer.start(Path(tmp) / "sw", "--spark-memory", "2g")
        try:
            pg_dsn = args.pg_dsn or (oracle.dsn if oracle else "")
            sw_dsn = args.sw_dsn or (server.dsn if server else "")
            started = time.monotonic()
            outcomes = run_all(pg_dsn, sw_dsn, queries, progress=True)
            elapsed = time.monotonic() - started
        finally:
            if server is not None:
                server.stop()
            if oracle is not None:
                oracle.stop()
    known = load_known()
    if args.update_known:
        from bench.differential_known import write_doc_listing, write_known

        known = write_known(outcomes, known)
        write_doc_listing(known)
    print(report(outcomes, known, verbose=not args.quiet))
    print(f"{len(queries)} queries in {elapsed:.0f} s")
    return 1 if unexpected(outcomes, known) else 0


if __name__ == "__main__":
    sys.exit(main())
