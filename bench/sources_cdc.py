"""PostgreSQL CDC (issue 16): how fast upstream changes land in sparkwire, and how long one takes to be visible.

`python -m bench.sources_cdc [--rows N] [--txns N] [--samples N] [--only NAME …]` starts a PostgreSQL 15 with
wal_level=logical and a `sparkwire serve` (both in temporary directories), creates a secret, a connection and a
source over one publication, and prints bench/sources.py's table. Measurements:

- `cdc_snapshot_rows_per_s`: `--rows` rows already upstream; CREATE SOURCE until the snapshot's commit (the slot's
  exported snapshot copied with COPY and committed as one batch), from mz_source_statistics.
- `cdc_bulk_rows_per_s`: one upstream transaction inserting `--rows` rows; from its COMMIT until sparkwire has
  committed it (the slot's confirmed flush LSN passes it), then a `SELECT count(*)` confirms the rows are visible
  (the first Spark query of the run: it may wait for Spark to finish starting).
- `cdc_txn_rows_per_s`: `--txns` upstream transactions of one row each, sent back to back; from the first COMMIT until
  the last is committed in sparkwire (each transaction is one storage commit).
- `cdc_visible_lag_p50` / `_p99`: one-row transactions, one at a time: from the upstream COMMIT until a client that
  polls `SELECT count(*) FROM lag WHERE id = n` back to back sees it. Includes the SELECT's own latency (a Spark
  query), as a user would see it; the note gives the lag to the storage commit alone (the replication slot's
  confirmed flush LSN, which the reader advances only after ingestion committed the transaction).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

import psycopg

from bench.sources import Result, percentile, print_table
from tests.support.postgres import LOGICAL_REPLICATION, PostgresOracle
from tests.support.server import SparkwireServer

Conn = psycopg.Connection[tuple[Any, ...]]
SCHEMA = """
CREATE TABLE bulk (id bigint PRIMARY KEY, name text, amount numeric(12,2), at timestamptz);
ALTER TABLE bulk REPLICA IDENTITY FULL;
CREATE TABLE lag (id bigint PRIMARY KEY, at timestamptz);
ALTER TABLE lag REPLICA IDENTITY FULL;
CREATE PUBLICATION cdc FOR TABLE bulk, lag;
"""


def committed_lsn(sw: Conn) -> int:
    rows = sw.execute(
        "SELECT st.offset_committed FROM mz_internal.mz_source_statistics st JOIN mz_sources s ON s.id = st.id "
        "WHERE s.name = 'cdc'"
    ).fetchall()
    return int(rows[0][0] or 0) if rows else 0


def flushed_lsn(up: Conn) -> int:
    """The slot's confirmed flush LSN: the reader acknowledges a transaction only once sparkwire committed it."""
    row = up.execute(
        "SELECT confirmed_flush_lsn - '0/0'::pg_lsn FROM pg_replication_slots WHERE slot_name LIKE 'materialize_%'"
    ).fetchone()
    return int(row[0] or 0) if row else 0


def upstream_lsn(up: Conn) -> int:
    """The upstream's current WAL insert position as a number: every transaction committed before is below it."""
    row = up.execute("SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn").fetchone()
    return int(row[0]) if row else 0


def wait_lsn(up: Conn, lsn: int, timeout: float = 600.0) -> float:
    """Poll until sparkwire committed every upstream transaction that committed before `lsn`; the time it was seen."""
    deadline = time.monotonic() + timeout
    while True:
        if flushed_lsn(up) >= lsn:
            return time.perf_counter()
        if time.monotonic() > deadline:
            raise TimeoutError(f"sparkwire did not reach LSN {lsn} (at {flushed_lsn(up)})")
        time.sleep(0.002)


def snapshot(sw: Conn, up: Conn, args: argparse.Namespace, port: int) -> list[Result]:
    up.execute(
        "INSERT INTO bulk SELECT i, 'name ' || i, i / 100.0, now() FROM generate_series(1, %s) i", (args.rows,)
    )
    sw.execute(
        f"CREATE CONNECTION up TO POSTGRES (HOST '127.0.0.1', PORT {port}, USER 'postgres', "
        "PASSWORD SECRET pw, DATABASE 'postgres')"
    )
    started = time.perf_counter()
    sw.execute("CREATE SOURCE cdc FROM POSTGRES CONNECTION up (PUBLICATION 'cdc') FOR ALL TABLES")
    while committed_lsn(sw) == 0:
        time.sleep(0.005)
    elapsed = time.perf_counter() - started
    return [Result("cdc_snapshot_rows_per_s", args.rows / elapsed, "rows/s", f"{args.rows:,} rows in {elapsed:.2f} s")]


def bulk(sw: Conn, up: Conn, args: argparse.Namespace) -> list[Result]:
    first = args.rows + 1
    up.execute(
        "INSERT INTO bulk SELECT i, 'name ' || i, i / 100.0, now() FROM generate_series(%s, %s) i",
        (first, first + args.rows - 1),
    )
    committed = time.perf_counter()
    seen = wait_lsn(up, upstream_lsn(up))
    row = sw.execute("SELECT count(*) FROM bulk").fetchone()
    visible = time.perf_counter()
    assert row is not None and row[0] == 2 * args.rows, row
    return [
        Result("cdc_bulk_rows_per_s", args.rows / (seen - committed), "rows/s",
               f"{args.rows:,} rows in one transaction: {seen - committed:.2f} s to commit, "
               f"{visible - committed:.2f} s to a SELECT that sees them")
    ]  # fmt: skip


def transactions(sw: Conn, up: Conn, args: argparse.Namespace) -> list[Result]:
    base = 10 * args.rows
    started = time.perf_counter()
    for i in range(args.txns):
        up.execute("INSERT INTO bulk VALUES (%s, 'txn', 1, now())", (base + i,))
    sent = time.perf_counter()
    seen = wait_lsn(up, upstream_lsn(up))
    elapsed = seen - started
    return [
        Result("cdc_txn_rows_per_s", args.txns / elapsed, "rows/s",
               f"{args.txns:,} one-row transactions ({args.txns / (sent - started):,.0f}/s sent) in {elapsed:.2f} s")
    ]  # fmt: skip


def lag(sw: Conn, up: Conn, args: argparse.Namespace) -> list[Result]:
    sw.execute("SELECT count(*) FROM lag WHERE id = 0").fetchall()  # warm: Spark registers the relation
    visible: list[float] = []
    stored: list[float] = []
    for n in range(1, args.samples + 1):
        up.execute("INSERT INTO lag VALUES (%s, now())", (n,))
        committed = time.perf_counter()
        target = upstream_lsn(up)
        while flushed_lsn(up) < target:  # the storage commit, polled alone (a cheap query upstream)
            pass
        stored.append((time.perf_counter() - committed) * 1000)
        while True:  # then the first SELECT that sees the row
            row = sw.execute("SELECT count(*) FROM lag WHERE id = %s", (n,)).fetchone()
            if row is not None and row[0] == 1:
                visible.append((time.perf_counter() - committed) * 1000)
                break
        time.sleep(0.05)
    note = f"{len(visible)} samples; to the storage commit alone: p50 {percentile(stored, 50):.0f} ms, " + (
        f"p99 {percentile(stored, 99):.0f} ms"
    )
    return [
        Result("cdc_visible_lag_p50", percentile(visible, 50), "ms", note),
        Result("cdc_visible_lag_p99", percentile(visible, 99), "ms", note),
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=200_000, help="rows of the snapshot and of the bulk transaction")
    parser.add_argument("--txns", type=int, default=2_000, help="one-row transactions")
    parser.add_argument("--samples", type=int, default=50, help="lag samples")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        upstream = PostgresOracle.start(Path(tmp) / "pg", settings=LOGICAL_REPLICATION)
        server = None
        try:
            server = SparkwireServer.start(Path(tmp) / "data")
            sw_conn = psycopg.connect(server.dsn, autocommit=True)
            with sw_conn as sw, psycopg.connect(upstream.dsn, autocommit=True) as up:
                up.execute("SET synchronous_commit = on")  # the oracle's default is off: WAL would reach the
                up.execute(SCHEMA)  # walsender only at the WAL writer's next flush (wal_writer_delay, 200 ms)
                sw.execute("CREATE SECRET pw AS 'unused: trust auth upstream'")
                results = snapshot(sw, up, args, upstream.port)
                results += bulk(sw, up, args)
                results += transactions(sw, up, args)
                results += lag(sw, up, args)
                sw.execute("DROP SOURCE cdc CASCADE")
            print_table(results)
        finally:
            if server is not None:
                server.stop()
            upstream.stop()


if __name__ == "__main__":
    main()
