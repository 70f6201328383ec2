"""Continual views (issue 17): a materialized view (join + GROUP BY) over a large table, kept current by its
maintainer, against the full recompute that a stale view used to cost, in the same run on the same server.

`python -m bench.continual [--rows N] [--samples K] [--dsn DSN]` starts a real `sparkwire serve` in a temporary
directory (or uses `--dsn`), loads `fact` (N rows, default 10,000,000: id, k in 1..100, v) and `dim` (100 rows),
creates `mv AS SELECT d.name, count(*), sum(f.v), min(f.v), max(f.v), avg(f.v) FROM fact f JOIN dim d ON f.k = d.k
GROUP BY d.name` with an index on `mv (name)`, and measures, with psycopg on both sides:
- `full_recompute_ms`: the view's definition run as a query (the Spark job a recompute is), p50 of 3 runs;
- `insert_to_visible_ms`: K times, a 1-row INSERT is committed, then `SELECT n FROM mv WHERE name = …` (an index
  lookup) is run until it shows the new count; the time from the INSERT's acknowledgement to that SELECT's answer,
  p50 / p99. Reads are strict serializable: the first SELECT after the commit already sees it (it waits for the
  maintainer, it never computes), so this is the maintenance lag plus one lookup;
- `speedup`: full_recompute_ms / insert_to_visible_ms p50 (target ≥ 20);
- `read_ms_idle`, `read_ms_under_writes`: the lookup's latency, p50 / p99, with no writes, then while another
  connection inserts a row every 20 ms.
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

from bench.sources import percentile
from tests.support.server import SparkwireServer

Conn = psycopg.Connection[tuple[Any, ...]]
DEFINITION = (
    "SELECT d.name, count(*) AS n, sum(f.v) AS s, min(f.v) AS lo, max(f.v) AS hi, avg(f.v) AS a "
    "FROM fact f JOIN dim d ON f.k = d.k GROUP BY d.name"
)


def load(conn: Conn, rows: int) -> None:
    conn.execute("CREATE TABLE dim (k int, name text)")
    conn.execute("INSERT INTO dim SELECT g, 'n' || g FROM generate_series(1, 100) g")
    conn.execute("CREATE TABLE fact (id bigint, k int, v int)")
    step = 2_000_000
    for start in range(1, rows + 1, step):
        end = min(rows, start + step - 1)
        conn.execute(f"INSERT INTO fact SELECT g, (g % 100) + 1, g % 1000 FROM generate_series({start}, {end}) g")


def count_of(conn: Conn, name: str) -> int:
    return int(conn.execute("SELECT n FROM mv WHERE name = %s", (name,)).fetchall()[0][0])


def reads(conn: Conn, seconds: float) -> list[float]:
    out: list[float] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        started = time.perf_counter()
        count_of(conn, "n7")
        out.append((time.perf_counter() - started) * 1000)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.continual")
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--samples", type=int, default=50)
    parser.add_argument("--dsn")
    args = parser.parse_args(argv)
    if args.dsn:
        run(args.dsn, args)
        return
    with tempfile.TemporaryDirectory() as tmp:
        server = SparkwireServer.start(Path(tmp) / "data")
        try:
            run(server.dsn, args)
        finally:
            server.stop()


def run(dsn: str, args: argparse.Namespace) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        started = time.perf_counter()
        load(conn, args.rows)
        print(f"loaded {args.rows:,} rows in {time.perf_counter() - started:.1f} s")
        started = time.perf_counter()
        conn.execute(f"CREATE MATERIALIZED VIEW mv AS {DEFINITION}")
        conn.execute("CREATE INDEX mv_name ON mv (name)")
        count_of(conn, "n1")
        print(f"view hydrated and indexed in {time.perf_counter() - started:.1f} s")
        full = []
        for _ in range(3):
            started = time.perf_counter()
            conn.execute(DEFINITION).fetchall()
            full.append((time.perf_counter() - started) * 1000)
        lags = []
        next_id = args.rows + 1
        for i in range(args.samples):
            name = f"n{i % 100 + 1}"
            before = count_of(conn, name)
            conn.execute("INSERT INTO fact VALUES (%s, %s, %s)", (next_id, i % 100 + 1, i))
            next_id += 1
            acked = time.perf_counter()
            while count_of(conn, name) != before + 1:
                pass
            lags.append((time.perf_counter() - acked) * 1000)
        idle = reads(conn, 5.0)
        stop = threading.Event()

        def writer() -> None:
            with psycopg.connect(dsn, autocommit=True) as w:
                n = next_id + 1_000_000
                while not stop.is_set():
                    w.execute("INSERT INTO fact VALUES (%s, 7, 1)", (n,))
                    n += 1
                    time.sleep(0.02)

        thread = threading.Thread(target=writer)
        thread.start()
        try:
            busy = reads(conn, 5.0)
        finally:
            stop.set()
            thread.join()
    p50_full = statistics.median(full)
    rows = [
        ("full_recompute_ms p50", p50_full),
        ("insert_to_visible_ms p50", percentile(lags, 50)),
        ("insert_to_visible_ms p99", percentile(lags, 99)),
        ("speedup (full / incremental p50)", p50_full / percentile(lags, 50)),
        ("read_ms_idle p50", percentile(idle, 50)),
        ("read_ms_idle p99", percentile(idle, 99)),
        ("read_ms_under_writes p50", percentile(busy, 50)),
        ("read_ms_under_writes p99", percentile(busy, 99)),
    ]
    print(f"{'measurement':<36} {'value':>10}")
    for name, value in rows:
        print(f"{name:<36} {value:>10.2f}")


if __name__ == "__main__":
    main()
