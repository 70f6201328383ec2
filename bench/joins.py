"""Multi-way join latency: sparkwire against PostgreSQL 15, same client code (psycopg) on both sides (issue 21).

Run: `python -m bench.joins [--ways 5,10,20,50] [--repeat 5] [--rows N] [--server-arg=--spark-memory=2g ...]`.

Starts its own PostgreSQL 15 (tests/support/postgres.py) and `sparkwire serve` (tests/support/server.py) on
loopback ports in a temp dir and creates, on both, tables `j1` … `jN` (N = the largest join) of 10, 100 or 1,000
rows (`j<i>` has 10 × 10^(i mod 3) rows, or `--rows` rows each: `a` = 1 … rows, `b` = (7a mod 10) + 1). The query
for `k` relations is a chain of equalities written the way sqllogictest's select5 writes them: the FROM list and
the WHERE conjuncts in a shuffled (seeded) order,

    SELECT count(*), sum(j1.a), max(jk.b) FROM j7, j2, …, j1, … WHERE j3.b = j4.a AND j1.b = j2.a AND …

so a planner that joins in FROM order without reordering meets cross products. Every join is a lookup on a unique
key, so the result has as many rows as the first table (counted, not returned). For each k it first checks that
both servers return the same row, then times `--repeat` runs per server, alternating, and prints the median and
best latency of each, the ratio sparkwire / PostgreSQL (median), and the sparkwire Spark settings in force (from
the server log). It reports; it asserts nothing and exits 0.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import psycopg

from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer

DEFAULT_WAYS = (5, 10, 20, 50)


def rows_of(i: int, rows: int | None = None) -> int:
    return rows if rows is not None else int(10 * 10 ** (i % 3))


def create_tables(conn: psycopg.Connection[Any], count: int, rows: int | None = None) -> None:
    for i in range(1, count + 1):
        conn.execute(f"DROP TABLE IF EXISTS j{i}")
        conn.execute(f"CREATE TABLE j{i} (a integer NOT NULL, b integer NOT NULL)")
        conn.execute(f"INSERT INTO j{i} SELECT g, (g * 7) % 10 + 1 FROM generate_series(1, {rows_of(i, rows)}) g")


def join_query(ways: int, seed: int = 21) -> str:
    """The chain j1.b = j2.a, …, j(k-1).b = jk.a with FROM list and conjuncts shuffled (see the docstring)."""
    shuffle = random.Random(seed * 1000 + ways)
    relations = [f"j{i}" for i in range(1, ways + 1)]
    conditions = [f"j{i}.b = j{i + 1}.a" for i in range(1, ways)]
    shuffle.shuffle(relations)
    shuffle.shuffle(conditions)
    return (
        f"SELECT count(*), sum(j1.a), max(j{ways}.b) FROM {', '.join(relations)} WHERE {' AND '.join(conditions)}"
    )


def timed(conn: psycopg.Connection[Any], sql: str) -> tuple[float, tuple[Any, ...] | None]:
    start = time.perf_counter()
    row = conn.execute(sql).fetchone()
    return (time.perf_counter() - start) * 1000.0, row


def spark_settings(server: SparkwireServer) -> str:
    for line in server.log().splitlines():
        if "Spark sized" in line:
            return line.split("Spark sized", 1)[1].strip(" :")
    return "(no sizing line in the server log)"


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    args.add_argument("--ways", default=",".join(map(str, DEFAULT_WAYS)), help="join sizes, comma-separated")
    args.add_argument("--repeat", type=int, default=5, help="timed runs per server and join size (median counts)")
    args.add_argument("--rows", type=int, help="rows in every table (default: 10, 100 or 1,000 by table)")
    args.add_argument("--server-arg", action="append", default=[], help="an argument for `sparkwire serve`")
    opts = args.parse_args()
    ways = [int(w) for w in opts.ways.split(",") if w.strip()]

    with tempfile.TemporaryDirectory(prefix="bench-joins-") as tmp, ExitStack() as stack:
        oracle = PostgresOracle.start(Path(tmp) / "pg")
        stack.callback(oracle.stop)
        server = SparkwireServer.start(Path(tmp) / "sparkwire", *opts.server_arg)
        stack.callback(server.stop)
        pg = stack.enter_context(psycopg.connect(oracle.dsn, autocommit=True))
        sw = stack.enter_context(psycopg.connect(server.dsn, autocommit=True))
        print(f"PostgreSQL on :{oracle.port}, sparkwire on :{server.port}; creating {max(ways)} tables …", flush=True)
        create_tables(pg, max(ways), opts.rows)
        pg.execute("ANALYZE")  # what autovacuum would have done by now
        create_tables(sw, max(ways), opts.rows)
        sw.execute("SELECT count(*) FROM j1").fetchone()  # waits for Spark to be up
        print(f"sparkwire Spark: {spark_settings(server)}")
        header = f"{'relations':>9}  {'postgres ms (median/best)':>26}  {'sparkwire ms (median/best)':>27}"
        header += f"  {'ratio':>7}"
        lines = [header]
        for k in ways:
            sql = join_query(k)
            first_sw, sw_row = timed(sw, sql)  # the first run: planning caches cold, JIT cold
            _, pg_row = timed(pg, sql)
            same = "" if sw_row == pg_row else f"  RESULTS DIFFER: postgres {pg_row}, sparkwire {sw_row}"
            pg_ms: list[float] = []
            sw_ms: list[float] = []
            for _ in range(opts.repeat):
                pg_ms.append(timed(pg, sql)[0])
                sw_ms.append(timed(sw, sql)[0])
            pg_med, sw_med = statistics.median(pg_ms), statistics.median(sw_ms)
            lines.append(
                f"{k:>9}  {pg_med:>15.1f} / {min(pg_ms):>8.1f}  {sw_med:>16.1f} / {min(sw_ms):>8.1f}"
                f"  {sw_med / pg_med:>6.0f}×  (sparkwire first run {first_sw:.0f} ms){same}"
            )
            print(lines[-1], flush=True)
    print()
    print("\n".join(lines))


if __name__ == "__main__":
    main()
