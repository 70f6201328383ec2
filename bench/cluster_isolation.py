"""Cluster isolation on one embedded Spark (issue 15): how much does cluster `a`'s heavy work slow cluster `b`'s
small queries?

`python -m bench.cluster_isolation [--rows N] [--queries N] [--rounds R] [--heavy-sessions K] [--size-a 200cc]
[--size-b 50cc]` starts a real `sparkwire serve` in a temporary directory, creates clusters `a` and `b`, a large
table (`--rows`, default 3M) and a small one, then measures b's small Spark query (`SELECT k, count(*), sum(v) FROM
small WHERE v > $1 GROUP BY k`, each run with a new literal so it is a new Spark job) three ways:

1. idle: nothing else runs;
2. isolated: K connections (default: one per core, so that a's tasks hold every task slot) on cluster `a` run a
   long multi-stage query (a self-join and aggregation of the large table) over and over, while b's queries run on
   cluster `b`;
3. shared (the baseline without clusters): the same load, but b's queries also run on cluster `a`'s pool.

b's first 40 queries are not measured (the JVM compiles their code paths: they are slower, and measuring idle
first would make the load look cheap); then the three phases are interleaved in R rounds (idle, isolated, shared,
idle, …; the load is cancelled between rounds), so drift over the run hits every phase alike. It prints p50 / p99
(ms) of each and the ratios to idle. Target (issue 15): isolated p99 ≤ 1.5 × idle p99.

`--cluster-applications` starts the server with that flag: each replica (a, b, quickstart) is a Spark application
of its own (docs/clusters.md), so "isolated" is b's own JVM beside a's, and "shared" is b's query on a's.
"""

from __future__ import annotations

import argparse
import os
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


WARM_UP = 40  # b's queries before measuring: the first few dozen are slower (JIT) and would flatter the load phases


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
    """Runs the heavy query on cluster `a` in a loop from `sessions` connections until stopped; stopping cancels
    the queries in flight (CancelRequest), so a round does not wait for a heavy query to end."""

    def __init__(self, dsn: str, sessions: int) -> None:
        self._dsn = dsn
        self._stop = threading.Event()
        self.runs: list[float] = []
        self._conns: list[psycopg.Connection[Any]] = []
        self._threads = [threading.Thread(target=self._run, daemon=True) for _ in range(sessions)]

    def _run(self) -> None:
        with psycopg.connect(self._dsn, autocommit=True) as conn:
            self._conns.append(conn)
            conn.execute("SET cluster = a")
            n = 0
            while not self._stop.is_set():
                started = time.perf_counter()
                try:
                    conn.execute(HEAVY_QUERY.format(n=-n)).fetchall()
                except psycopg.errors.QueryCanceled:
                    break
                self.runs.append(time.perf_counter() - started)
                n += 1

    def __enter__(self) -> _Load:
        for thread in self._threads:
            thread.start()
        time.sleep(3.0)  # let the first heavy jobs fill the task slots
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for conn in self._conns:
            conn.cancel()
        for thread in self._threads:
            thread.join(timeout=600)


def run(
    rows: int, queries: int, size_a: str, size_b: str, rounds: int, sessions: int, applications: bool = False
) -> dict[str, list[float]]:
    per_round = max(1, queries // rounds)
    with tempfile.TemporaryDirectory(prefix="sw-iso-") as tmp:
        flags = ["--cluster-applications"] if applications else []
        server = SparkwireServer.start(Path(tmp) / "data", *flags, wait=120)
        try:
            with psycopg.connect(server.dsn, autocommit=True) as conn:
                conn.execute(f"CREATE CLUSTER a (SIZE = '{size_a}')")
                conn.execute(f"CREATE CLUSTER b (SIZE = '{size_b}')")
                conn.execute("CREATE TABLE iso_big (id bigint, v bigint)")
                conn.execute(f"INSERT INTO iso_big SELECT g, g % 97 FROM generate_series(1, {rows}) AS g")
                conn.execute("CREATE TABLE iso_small (k int, v int)")
                conn.execute("INSERT INTO iso_small SELECT g % 10, g FROM generate_series(1, 1000) AS g")
                conn.execute("SET cluster = b")
                _measure(conn, WARM_UP, 10_000_000)  # warm up Spark's JIT and the translation caches
                results: dict[str, list[float]] = {"idle": [], "isolated": [], "shared": []}
                runs: list[float] = []
                offset = 0
                for _ in range(rounds):  # phases interleaved, so that drift (JIT, caches, the machine) hits all
                    results["idle"] += _measure(conn, per_round, offset)
                    with _Load(server.dsn, sessions) as load:
                        results["isolated"] += _measure(conn, per_round, offset + 100_000)
                        conn.execute("SET cluster = a")
                        results["shared"] += _measure(conn, per_round, offset + 200_000)
                        conn.execute("SET cluster = b")
                    runs += load.runs
                    offset += per_round
                heavy = statistics.median(runs) if runs else float("nan")
                print(f"heavy query on cluster a: {len(runs)} runs finished, median {heavy:.1f} s")
        finally:
            server.stop()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=3_000_000)
    parser.add_argument("--queries", type=int, default=120, help="b's queries per phase, over all rounds")
    parser.add_argument(
        "--heavy-sessions", type=int, default=os.cpu_count() or 2, help="connections running a's heavy query"
    )
    parser.add_argument("--rounds", type=int, default=4, help="idle / isolated / shared rounds, interleaved")
    parser.add_argument("--size-a", default="200cc")
    parser.add_argument("--size-b", default="50cc")
    parser.add_argument(
        "--cluster-applications", action="store_true", help="each replica its own Spark application (serve's flag)"
    )
    args = parser.parse_args()
    results = run(
        args.rows, args.queries, args.size_a, args.size_b, args.rounds, args.heavy_sessions, args.cluster_applications
    )
    mode = "own applications" if args.cluster_applications else "FAIR pools of one application"
    print(f"clusters as {mode}")
    idle = results["idle"]
    print(f"{'b small queries':<22}{'p50 ms':>10}{'p99 ms':>10}{'p50 ×idle':>12}{'p99 ×idle':>12}")
    for name, times in results.items():
        p50, p99 = _pct(times, 50), _pct(times, 99)
        print(f"{name:<22}{p50:>10.1f}{p99:>10.1f}{p50 / _pct(idle, 50):>12.2f}{p99 / _pct(idle, 99):>12.2f}")
    verdict = _pct(results["isolated"], 99) <= 1.5 * _pct(idle, 99)
    print(f"target isolated p99 <= 1.5 x idle p99: {'met' if verdict else 'NOT met'}")


if __name__ == "__main__":
    main()
