"""Catalog-query latency with 1,000 user objects: sparkwire's introspection store vs PostgreSQL 15, side by side.

Run: `python -m bench.introspection [--objects N] [--iterations I]`.

Starts its own PostgreSQL 15 (tests/support/postgres.py) and `sparkwire serve --spark-start on-demand`
(tests/support/server.py; catalog queries never start Spark) in a temp dir, creates the same N user objects on both
(a quarter each: tables of 5 columns, indexes on them, views, more tables) through psycopg, timing each CREATE,
then measures from one psycopg connection per server, I iterations each after a warm-up:
  - `\\d`-style: the column query psql 15 runs for `\\d t` (pg_attribute ⋈ pg_attrdef ⋈ pg_collation ⋈ pg_type
    with format_type, for one table's OID), sent over the extended protocol as psql does with a literal OID;
    repeated for the same table (what a client re-sending its catalog queries sees: sparkwire answers repeats from
    its result cache, planner/execute/result_cache.py), and once for each of the other tables (every query new to the
    server, so it is planned and run by DuckDB);
  - `SELECT * FROM mz_catalog.mz_objects` on sparkwire, `SELECT * FROM pg_catalog.pg_class` on PostgreSQL (its
    closest relation: one row per object), fetched into Python rows.
Prints p50 / p99 per query and server, the goal (sparkwire p99 ≤ 10 ms) and the p50 / max of a CREATE at the end
of the load (the store's listener runs inside each DDL transaction). Exits 0 either way: it reports, it does not
gate; tests never assert on time.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg

from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer

Conn = psycopg.Connection[tuple[Any, ...]]

D_QUERY = """SELECT a.attname,
  pg_catalog.format_type(a.atttypid, a.atttypmod),
  (SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid, true)
   FROM pg_catalog.pg_attrdef d
   WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum AND a.atthasdef),
  a.attnotnull,
  (SELECT c.collname FROM pg_catalog.pg_collation c, pg_catalog.pg_type t
   WHERE c.oid = a.attcollation AND t.oid = a.atttypid AND a.attcollation <> t.typcollation) AS attcollation,
  a.attidentity,
  a.attgenerated
FROM pg_catalog.pg_attribute a
WHERE a.attrelid = '{oid}' AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum"""


def ddl(n: int) -> list[str]:
    quarter = max(n // 4, 1)
    statements: list[str] = []
    for i in range(quarter):
        statements.append(f"CREATE TABLE bt{i} (id integer NOT NULL, amount numeric(10,2), name text, "
                          f"ts timestamp with time zone, flag boolean)")
    statements += [f"CREATE INDEX bt{i}_idx ON bt{i} (id)" for i in range(quarter)]
    statements += [f"CREATE VIEW bv{i} AS SELECT id, name FROM bt{i}" for i in range(quarter)]
    statements += [f"CREATE TABLE bu{i} (a integer, b text)" for i in range(n - 3 * quarter)]
    return statements


def load(conn: Conn, statements: list[str]) -> list[float]:
    """Run the DDL, returning each statement's seconds."""
    took: list[float] = []
    for statement in statements:
        start = time.perf_counter()
        conn.execute(statement)
        took.append(time.perf_counter() - start)
    return took


def timings(run: Callable[[], object], iterations: int) -> list[float]:
    for _ in range(min(20, iterations)):
        run()
    out: list[float] = []
    for _ in range(iterations):
        start = time.perf_counter()
        run()
        out.append(time.perf_counter() - start)
    return out


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


@contextmanager
def servers(tmp: Path) -> Iterator[tuple[SparkwireServer, PostgresOracle]]:
    oracle = PostgresOracle.start(tmp / "pg")
    try:
        server = SparkwireServer.start(tmp / "sw", "--spark-start", "on-demand")
        try:
            yield server, oracle
        finally:
            server.stop()
    finally:
        oracle.stop()


def measure(conn: Conn, objects: str, iterations: int) -> list[tuple[str, list[float]]]:
    """The two queries' timings on one server; `objects` is the relation with one row per object."""
    row = conn.execute("SELECT 'bt0'::regclass::oid").fetchone()
    assert row is not None
    d_query = D_QUERY.format(oid=row[0])
    assert len(conn.execute(d_query).fetchall()) == 5

    def describe() -> object:
        return conn.execute(d_query).fetchall()

    def scan() -> object:
        return conn.execute(f"SELECT * FROM {objects}").fetchall()

    oids = [oid for (oid,) in conn.execute("SELECT oid FROM pg_class WHERE relname ~ '^bt[0-9]+$' ORDER BY oid")]
    distinct = iter([D_QUERY.format(oid=oid) for oid in oids])

    def describe_another() -> object:
        return conn.execute(next(distinct)).fetchall()

    return [(r"\d bt0 columns", timings(describe, iterations)),
            (r"\d, another table each run", timings(describe_another, min(iterations, len(oids) - 20))),
            (f"SELECT * FROM {objects}", timings(scan, iterations))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--objects", type=int, default=1000)
    parser.add_argument("--iterations", type=int, default=300)
    args = parser.parse_args()
    statements = ddl(args.objects)
    results: list[tuple[str, str, list[float]]] = []
    with (
        tempfile.TemporaryDirectory() as tmp,
        servers(Path(tmp)) as (server, oracle),
        psycopg.connect(server.dsn, autocommit=True) as sw,
        psycopg.connect(oracle.dsn, autocommit=True) as pg,
    ):
        sw_ddl, pg_ddl = load(sw, statements), load(pg, statements)
        servers_ = (("sparkwire", sw, "mz_catalog.mz_objects"), ("postgres", pg, "pg_catalog.pg_class"))
        for label, conn, objects in servers_:
            results += [(label, query, values) for query, values in measure(conn, objects, args.iterations)]
    print(f"{args.objects} user objects, {args.iterations} iterations per query (ms)")
    print(f"{'server':10} {'query':40} {'p50':>8} {'p99':>8}")
    for label, query, values in results:
        print(f"{label:10} {query:40} {pct(values, 0.5):8.2f} {pct(values, 0.99):8.2f}")
    worst = max(pct(values, 0.99) for label, _, values in results if label == "sparkwire")
    print(f"goal: sparkwire p99 <= 10 ms: {'met' if worst <= 10 else 'missed'} (worst p99 {worst:.2f} ms)")
    tail = max(len(statements) // 10, 1)
    for label, took in (("sparkwire", sw_ddl), ("postgres", pg_ddl)):
        last = took[-tail:]
        print(f"{label:10} CREATE, last {tail} of the load: p50 {statistics.median(last) * 1000:.2f} ms, "
              f"max {max(last) * 1000:.2f} ms")


if __name__ == "__main__":
    main()
