"""Cluster isolation on one embedded Spark (issue 15): how much does cluster `a`'s heavy work slow cluster `b`'s
small queries?

`python -m bench.cluster_isolation [--rows N] [--queries N] [--size-a 200cc] [--size-b 50cc]` starts a real
`sparkwire serve` in a temporary directory, creates clusters `a` and `b`, a large table (`--rows`, default 3M) and a
small one, then measures b's small Spark query (`SELECT k, count(*), sum(v) FROM small WHERE v > $1 GROUP BY k`,
each run with a new literal so it is a new Spark job) three ways, in one run:

1. idle: nothing else runs;
2. isolated: one connection on cluster `a` runs a long multi-stage query (a self-join and aggregation of the large
   table, many tasks per stage) over and over, on all the task slots, while b's queries run on cluster `b`;
3. shared (the baseline without clusters): the same load, but b's queries also run on cluster `a`'s pool.

It prints p50 / p99 (ms) of each and the ratios to idle. Target (issue 15): isolated p99 ≤ 1.5 × idle p99.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import psycopg

from tests.support.server import SparkwireServer

SMALL_QUERY = "SELECT k, count(*), sum(v) FROM iso_small WHERE v > {n} GROUP BY k ORDER BY k"
HEAVY_QUERY = (
    "SELECT x.g, count(*), sum(y.v) FROM (SELECT id % 5000 AS g, id FROM iso_big) x "
    "JOIN (SELECT id, v FROM iso_big) y ON x.id = y.id WHERE y.v > {n} GROUP BY x.g ORDER BY 2 DESC LIMIT 5"
)


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def _measure(conn: psycopg.Connection[Any], queries: int, offset: int) -> list[float]:
    times: list[float] = []
    for i in range(queries):
        started = time.perf_counter()
        conn.execute(SMALL_QUERY.format(n=-(offset + i))).fetchall()
        times.append((time.perf_counter() - started) * 1000)
    return times


class _Load:
    """Runs the heavy query on cluster `a` in a loop until stopped."""

    def __init__(self, dsn: str) -> None:
        self._dsn = dsn
        self._stop = threading.Event()
        self.runs: list[float] = []
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with psycopg.connect(self._dsn, autocommit=True) as conn:
            conn.execute("SET cluster = a")
            n = 0
            while not self._stop.is_set():
                started = time.perf_counter()
                conn.execute(HEAVY_QUERY.format(n=-n)).fetchall()
                self.runs.append(time.perf_counter() - started)
                n += 1

    def __enter__(self) -> _Load:
        self._thread.start()
        time.sleep(3.0)  # let the first heavy job fill the task slots
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=600)


def run(rows: int, queries: int, size_a: str, size_b: str) -> dict[str, list[float]]:
    with tempfile.TemporaryDirectory(prefix="sw-iso-") as tmp:
        server = SparkwireServer.start(Path(tmp) / "data", wait=120)
        try:
            with psycopg.connect(server.dsn, autocommit=True) as conn:
                conn.execute(f"CREATE CLUSTER a (SIZE = '{size_a}')")
                conn.execute(f"CREATE CLUSTER b (SIZE = '{size_b}')")
                conn.execute("CREATE TABLE iso_big (id bigint, v bigint)")
                conn.execute(f"INSERT INTO iso_big SELECT g, g % 97 FROM generate_series(1, {rows}) AS g")
                conn.execute("CREATE TABLE iso_small (k int, v int)")
                conn.execute("INSERT INTO iso_small SELECT g % 10, g FROM generate_series(1, 1000) AS g")
                conn.execute("SET cluster = b")
                _measure(conn, 5, 10_000)  # warm up Spark and the translation caches
                results = {"idle": _measure(conn, queries, 0)}
                with _Load(server.dsn) as load:
                    results["isolated"] = _measure(conn, queries, 100_000)
                    conn.execute("SET cluster = a")
                    results["shared"] = _measure(conn, queries, 200_000)
                    conn.execute("SET cluster = b")
                heavy = statistics.median(load.runs) if load.runs else float("nan")
                print(f"heavy query on cluster a: {len(load.runs)} runs, median {heavy:.1f} s")
        finally:
            server.stop()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=3_000_000)
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--size-a", default="200cc")
    parser.add_argument("--size-b", default="50cc")
    args = parser.parse_args()
    results = run(args.rows, args.queries, args.size_a, args.size_b)
    idle = results["idle"]
    print(f"{'b small queries':<22}{'p50 ms':>10}{'p99 ms':>10}{'p50 ×idle':>12}{'p99 ×idle':>12}")
    for name, times in results.items():
        p50, p99 = _pct(times, 50), _pct(times, 99)
        print(f"{name:<22}{p50:>10.1f}{p99:>10.1f}{p50 / _pct(idle, 50):>12.2f}{p99 / _pct(idle, 99):>12.2f}")
    verdict = _pct(results["isolated"], 99) <= 1.5 * _pct(idle, 99)
    print(f"target isolated p99 <= 1.5 x idle p99: {'met' if verdict else 'NOT met'}")


if __name__ == "__main__":
    main()
