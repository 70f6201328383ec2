"""Sources (issue 16): how fast load generators land rows in storage, and how long a generated row takes to be
visible to a SELECT.

`python -m bench.sources [--seconds S] [--only NAME …] [--dsn DSN]` starts a real `sparkwire serve` in a temporary
directory (or uses `--dsn`) and runs each measurement in `MEASUREMENTS` in turn, then prints one table:
measurement, value, unit, note. A measurement is a function `(conn, args) -> list[Result]`; add one by writing the
function and listing it in `MEASUREMENTS` (the PostgreSQL CDC measurements live in bench/sources_cdc.py and add
theirs the same way).

Load generator measurements:
- `counter_rows_per_s`, `auction_rows_per_s`: a COUNTER / AUCTION with TICK INTERVAL '10us' (100,000 ticks/s asked
  for): committed updates per second over `--seconds`, from mz_source_statistics. Ticks that are due when the
  previous commit ends go into one batch (at most 10,000), so this is how many rows ingestion lands per second when
  the upstream outruns it; each batch is one storage commit (a Parquet file per subsource, the progress row
  replaced, one SQLite manifest transaction).
- `tpch_snapshot_rows_per_s`: TPCH (SCALE FACTOR 0.01 and 0.1) snapshots: rows of the eight tables over the time
  from CREATE SOURCE to the snapshot's commit (one batch).
- `auction_visible_lag_ms`: end-to-end lag, AUCTION at TICK INTERVAL '50ms': a client polls
  `SELECT max(id), max(end_time) FROM auctions` back to back; each new auction it sees gives one sample, now minus
  the auction's generation time (end_time - 10 s, the generator's rule). p50 / p99 include the SELECT's own
  latency (a Spark query), as a user would see it.
"""

from __future__ import annotations

import argparse
import datetime
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

from tests.support.server import SparkwireServer

Conn = psycopg.Connection[tuple[Any, ...]]


@dataclass(frozen=True, slots=True)
class Result:
    name: str
    value: float
    unit: str
    note: str = ""


Measurement = Callable[[Conn, argparse.Namespace], list[Result]]


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def statistics_of(conn: Conn, source: str) -> tuple[int, int]:
    """(updates_committed, offset_committed) of a source, 0 before its first commit."""
    rows = conn.execute(
        "SELECT st.updates_committed, st.offset_committed FROM mz_internal.mz_source_statistics st "
        "JOIN mz_sources s ON s.id = st.id WHERE s.name = %s",
        (source,),
    ).fetchall()
    return (int(rows[0][0] or 0), int(rows[0][1] or 0)) if rows else (0, 0)


def wait_offset(conn: Conn, source: str, offset: int, timeout: float = 600.0) -> None:
    deadline = time.monotonic() + timeout
    while statistics_of(conn, source)[1] < offset:
        if time.monotonic() > deadline:
            raise TimeoutError(f"{source} did not reach offset {offset}")
        time.sleep(0.01)


def _rate(conn: Conn, args: argparse.Namespace, name: str, ddl: str) -> list[Result]:
    conn.execute(ddl)
    try:
        wait_offset(conn, name, 2)  # past the snapshot
        rows0, ticks0 = statistics_of(conn, name)
        started = time.monotonic()
        time.sleep(args.seconds)
        rows1, ticks1 = statistics_of(conn, name)
        elapsed = time.monotonic() - started
    finally:
        conn.execute(f"DROP SOURCE {name} CASCADE")
    note = f"{ticks1 - ticks0:,} ticks in {elapsed:.1f} s"
    return [Result(f"{name}_rows_per_s", (rows1 - rows0) / elapsed, "rows/s", note)]


def counter_rows_per_s(conn: Conn, args: argparse.Namespace) -> list[Result]:
    return _rate(conn, args, "counter", "CREATE SOURCE counter FROM LOAD GENERATOR COUNTER (TICK INTERVAL '10us')")


def auction_rows_per_s(conn: Conn, args: argparse.Namespace) -> list[Result]:
    return _rate(
        conn, args, "auction", "CREATE SOURCE auction FROM LOAD GENERATOR AUCTION (TICK INTERVAL '10us') FOR ALL TABLES"
    )


def tpch_snapshot_rows_per_s(conn: Conn, args: argparse.Namespace) -> list[Result]:
    results: list[Result] = []
    for scale in args.tpch_scales:
        started = time.monotonic()
        conn.execute(f"CREATE SOURCE tpch FROM LOAD GENERATOR TPCH (SCALE FACTOR {scale}, UP TO 1) FOR ALL TABLES")
        try:
            wait_offset(conn, "tpch", 1)
            elapsed = time.monotonic() - started
            rows = statistics_of(conn, "tpch")[0]
        finally:
            conn.execute("DROP SOURCE tpch CASCADE")
        results.append(Result(f"tpch_sf{scale}_snapshot_rows_per_s", rows / elapsed, "rows/s",
                              f"{rows:,} rows in {elapsed:.2f} s"))  # fmt: skip
    return results


def auction_visible_lag_ms(conn: Conn, args: argparse.Namespace) -> list[Result]:
    conn.execute("CREATE SOURCE lag FROM LOAD GENERATOR AUCTION (TICK INTERVAL '50ms') FOR ALL TABLES")
    samples: list[float] = []
    queries: list[float] = []
    try:
        wait_offset(conn, "lag", 2)
        conn.execute("SELECT count(*) FROM auctions").fetchall()  # Spark is up before the clock starts
        seen = 0
        deadline = time.monotonic() + max(args.seconds, 5.0) * 2
        while time.monotonic() < deadline and len(samples) < args.samples:
            started = time.perf_counter()
            found, end_time = conn.execute("SELECT max(id), max(end_time) FROM auctions").fetchall()[0]
            queries.append((time.perf_counter() - started) * 1000)
            if found is not None and found > seen:
                if seen:
                    generated = end_time - datetime.timedelta(seconds=10)
                    samples.append((datetime.datetime.now(datetime.UTC) - generated).total_seconds() * 1000)
                seen = found
    finally:
        conn.execute("DROP SOURCE lag CASCADE")
    if not samples:
        raise RuntimeError("no new auction was seen")
    note = f"{len(samples)} samples; the SELECT alone: p50 {percentile(queries, 50):.0f} ms"
    return [
        Result("auction_visible_lag_p50", percentile(samples, 50), "ms", note),
        Result("auction_visible_lag_p99", percentile(samples, 99), "ms", note),
    ]


MEASUREMENTS: dict[str, Measurement] = {
    "counter_rows_per_s": counter_rows_per_s,
    "auction_rows_per_s": auction_rows_per_s,
    "tpch_snapshot_rows_per_s": tpch_snapshot_rows_per_s,
    "auction_visible_lag_ms": auction_visible_lag_ms,
}


def print_table(results: list[Result]) -> None:
    width = max(len(r.name) for r in results)
    print(f"{'measurement':<{width}}  {'value':>12}  unit    note")
    for r in results:
        print(f"{r.name:<{width}}  {r.value:>12,.1f}  {r.unit:<6}  {r.note}")


def run(conn: Conn, args: argparse.Namespace, measurements: dict[str, Measurement]) -> list[Result]:
    results: list[Result] = []
    for name, measure in measurements.items():
        if args.only and name not in args.only:
            continue
        results += measure(conn, args)
        print(f"# {name} done", flush=True)
    return results


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10.0, help="how long each rate is measured")
    parser.add_argument("--samples", type=int, default=60, help="lag samples")
    parser.add_argument("--tpch-scales", type=float, nargs="+", default=[0.01, 0.1])
    parser.add_argument("--only", nargs="*", default=[], help="measurement names to run")
    parser.add_argument("--dsn", help="an already running sparkwire (default: start one in a temporary directory)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None, measurements: dict[str, Measurement] = MEASUREMENTS) -> None:
    args = arguments(argv)
    if args.dsn:
        with psycopg.connect(args.dsn, autocommit=True) as conn:
            print_table(run(conn, args, measurements))
        return
    with tempfile.TemporaryDirectory() as tmp:
        server = SparkwireServer.start(Path(tmp) / "data")
        try:
            with psycopg.connect(server.dsn, autocommit=True) as conn:
                print_table(run(conn, args, measurements))
        finally:
            server.stop()


if __name__ == "__main__":
    main()
