"""Per-query overhead of `SparkEngine.execute_arrow` against calling Spark directly, on one warm session.

Run: `.venv/bin/python -m bench.spark_direct [--repeat N] [--rows N]`. Starts an embedded local[*] Spark in a temp
data dir, warms it up, then for a trivial query and for an aggregation over `--rows` rows (1M by default) times
`engine.execute_arrow(sql)` (tagging, pool, error mapping, batch slicing), `engine.prepare(sql)` +
`execute_arrow(prepared)` (the Describe + Execute path: one analysis) and `spark.sql(sql).toArrow()`, interleaved,
and prints the median and best latency of each in milliseconds.
It reports; it asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from sparkwire.engine.spark import SparkEngine


def _timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return (time.perf_counter() - start) * 1000.0


def measure(engine: SparkEngine, sql: str, repeat: int) -> tuple[list[float], list[float], list[float]]:
    """Latencies (ms) of execute_arrow(sql), prepare + execute_arrow and spark.sql(sql).toArrow(), interleaved."""
    spark = engine.session
    via_engine: list[float] = []
    via_prepared: list[float] = []
    direct: list[float] = []
    for _ in range(repeat):
        via_engine.append(_timed(lambda: list(engine.execute_arrow(sql, job_tag="bench"))))
        via_prepared.append(_timed(lambda: list(engine.execute_arrow(engine.prepare(sql), job_tag="bench"))))
        direct.append(_timed(lambda: spark.sql(sql).toArrow()))
    return via_engine, via_prepared, direct


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    queries = {
        "trivial (SELECT 1)": "SELECT 1",
        f"aggregate over {args.rows:,} rows": (
            f"SELECT id % 10 AS k, count(*) AS n, sum(id) AS s, avg(id * 1.5) AS a "
            f"FROM range({args.rows}) GROUP BY id % 10 ORDER BY k"
        ),
    }
    with tempfile.TemporaryDirectory(prefix="sparkwire-bench-") as tmp:
        engine = SparkEngine(Path(tmp))
        started = time.perf_counter()
        engine.start_background()
        if not engine.wait_ready(300):
            raise SystemExit("Spark did not start")
        print(f"Spark ready in {time.perf_counter() - started:.1f} s (cold start, incl. warm-up query)")
        try:
            for sql in queries.values():  # warm the code paths of both queries
                measure(engine, sql, 3)
            print(
                f"{'ms: median / best':32} {'execute_arrow(sql)':>20} {'prepare+execute_arrow':>24} "
                f"{'spark.sql().toArrow()':>22}"
            )
            for label, sql in queries.items():
                cells = [f"{statistics.median(xs):.1f} / {min(xs):.1f}" for xs in measure(engine, sql, args.repeat)]
                print(f"{label:32} {cells[0]:>20} {cells[1]:>24} {cells[2]:>22}")
        finally:
            engine.stop()


if __name__ == "__main__":
    main()
