"""Introspection latency while Spark is saturated (issue 14, seed 000): the same five catalog queries idle and under
load, in one run, with the ratio.

Run: `python -m bench.introspection_under_load [--iterations N] [--min-load-seconds S] [--heavy-sessions K]
[--rows R] [--cluster-applications] [--max-sample-rate F]` (`--cluster-applications`: the server runs with that
flag, so the load runs in quickstart's own Spark application, a separate JVM in its own autogroup, whose jobs
mz_spark_jobs reads from its UI's REST API; `--max-sample-rate 0`: no statement is logged, so the statement
history's writer takes no share of either phase).

Starts `sparkwire serve` (embedded Spark) in a temp dir, waits for Spark, and loads a table of R rows written in 8
batches (8 Parquet files, so a scan has 8 tasks). Then, from one psycopg connection, it times N rounds of five
introspection queries — the activity log's last 100 rows, the Spark job relation (`mz_internal.mz_spark_jobs`,
when the server has it), pg_stat_activity, psql 15's `\\dt` query and `SELECT * FROM mz_catalog.mz_objects` — first
with the server idle, then while K sessions each run a long multi-stage Spark job in a loop (a self-join on a
low-cardinality key with an aggregate: a shuffle, a join and a second shuffle on every core) and one session
INSERTs a row every 50 ms, for at least S seconds (20 by default, so that the heavy jobs run their course while it
measures; the machine's CPU use in each phase is printed). Prints p50 / p99 per query and phase, the ratio
load / idle, and the target (p99 under load ≤ 2× idle and ≤ 10 ms). Exits 0 either way: it reports, it does not
gate; tests never assert on time.

Reference (`--no-postgres` skips it): PostgreSQL 15 on a loopback port, timed by the same code in the same two
phases (idle, then under the same Spark load), its queries interleaved with sparkwire's (each round runs
sparkwire's five, then PostgreSQL's four, so both are timed through the same moments of the load — its stages,
its shuffles, the JVM's collections): the activity log query over a table holding a copy of sparkwire's log
(`mirror_log`), pg_stat_activity, psql's `\\dt` and `SELECT * FROM pg_class`. It shows what a server in a process
of its own (and, started by pg_ctl, a Linux autogroup of its own) gets from the same machine under the same load.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import psycopg

from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer

Conn = psycopg.Connection[tuple[Any, ...]]

DT_QUERY = """SELECT n.nspname as "Schema",
  c.relname as "Name",
  CASE c.relkind WHEN 'r' THEN 'table' WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' WHEN 'i' THEN 'index' \
WHEN 'S' THEN 'sequence' WHEN 't' THEN 'TOAST table' WHEN 'f' THEN 'foreign table' WHEN 'p' THEN 'partitioned table' \
WHEN 'I' THEN 'partitioned index' END as "Type",
  pg_catalog.pg_get_userbyid(c.relowner) as "Owner"
FROM pg_catalog.pg_class c
     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     LEFT JOIN pg_catalog.pg_am am ON am.oid = c.relam
WHERE c.relkind IN ('r','p','')
      AND n.nspname <> 'pg_catalog'
      AND n.nspname !~ '^pg_toast'
      AND n.nspname <> 'information_schema'
  AND pg_catalog.pg_table_is_visible(c.oid)
ORDER BY 1,2;"""
QUERIES = {
    "activity log, last 100": "SELECT * FROM mz_internal.mz_recent_activity_log ORDER BY began_at DESC LIMIT 100",
    "spark jobs": "SELECT * FROM mz_internal.mz_spark_jobs",
    "pg_stat_activity": "SELECT * FROM pg_catalog.pg_stat_activity",
    "psql \\dt": DT_QUERY,
    "mz_objects": "SELECT * FROM mz_catalog.mz_objects",
}
# PostgreSQL 15's answers to the same client code, idle and while the same Spark load runs on the machine
PG_QUERIES = {
    "activity log, last 100": QUERIES["activity log, last 100"],  # over a copy of sparkwire's log (mirror_log)
    "pg_stat_activity": QUERIES["pg_stat_activity"],
    "psql \\dt": DT_QUERY,
    "pg_class": "SELECT * FROM pg_catalog.pg_class",
}
HEAVY = (
    "SELECT a.g, count(*), sum(a.v * b.v) FROM load_t a JOIN load_t b ON a.g = b.g "
    "GROUP BY a.g ORDER BY a.g"
)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


Side = tuple[Conn, dict[str, str]]


def measure(sides: list[Side], iterations: int, min_seconds: float = 0.0) -> list[dict[str, list[float]]]:
    """At least `iterations` rounds, and rounds until `min_seconds` have passed; a round runs every query of each
    side in turn (sparkwire's, then PostgreSQL's), so both servers are timed through the same moments of the load."""
    times: list[dict[str, list[float]]] = [{name: [] for name in queries} for _, queries in sides]
    deadline = time.monotonic() + min_seconds
    rounds = 0
    while rounds < iterations or time.monotonic() < deadline:
        rounds += 1
        for (conn, queries), side in zip(sides, times, strict=True):
            for name, sql in queries.items():
                started = time.perf_counter()
                conn.execute(sql).fetchall()
                side[name].append((time.perf_counter() - started) * 1000)
    return times


class CpuBusy:
    """The machine's CPU time not idle (all cores, /proc/stat) between `__init__` and `share()`: the proof that the
    load phase ran on saturated cores."""

    def __init__(self) -> None:
        self._start = self._read()

    @staticmethod
    def _read() -> tuple[int, int]:
        fields = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
        return sum(fields), fields[3] + fields[4]  # total, idle + iowait

    def share(self) -> float:
        total, idle = self._read()
        spent = total - self._start[0]
        return 0.0 if spent <= 0 else 1.0 - (idle - self._start[1]) / spent


class Load:
    """K sessions looping the heavy Spark query and one steady writer, until stopped."""

    def __init__(self, dsn: str, sessions: int) -> None:
        self._dsn = dsn
        self._stop = threading.Event()
        self.jobs = 0
        self.writes = 0
        self.errors: list[str] = []
        self._threads = [threading.Thread(target=self._heavy) for _ in range(sessions)]
        self._threads.append(threading.Thread(target=self._writer))

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        self._stop.set()
        with psycopg.connect(self._dsn, autocommit=True) as conn:  # end the jobs in flight: cancel them all
            conn.execute(
                "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE 'SELECT a.g, count(*)%%' "
                "AND pid <> pg_backend_pid()"
            ).fetchall()
        for thread in self._threads:
            thread.join()

    def _heavy(self) -> None:
        with psycopg.connect(self._dsn, autocommit=True) as conn:
            while not self._stop.is_set():
                try:
                    conn.execute(HEAVY).fetchall()
                    self.jobs += 1
                except psycopg.errors.QueryCanceled:
                    return
                except psycopg.Error as exc:
                    self.errors.append(str(exc))
                    return

    def _writer(self) -> None:
        with psycopg.connect(self._dsn, autocommit=True) as conn:
            n = 0
            while not self._stop.is_set():
                conn.execute("INSERT INTO load_w VALUES (%s, now())", (n,))
                n += 1
                self.writes += 1
                self._stop.wait(0.05)


def mirror_log(sw: Conn, pg: Conn) -> int:
    """Copy sparkwire's activity log, as it is now, into a PostgreSQL table of the same name and columns (types
    PostgreSQL lacks, uint8 and `text list`, as the text sparkwire sends), so that the reference answers the same
    query over the same rows."""
    cur = sw.execute("SELECT * FROM mz_internal.mz_recent_activity_log")
    rows = cur.fetchall()
    columns = []
    for col in cur.description or []:
        info = psycopg.adapters.types.get(col.type_code)
        kind = "text" if info is None else info.name + ("[]" if info.array_oid == col.type_code else "")
        columns.append(f"{col.name} {kind}")
    pg.execute("CREATE SCHEMA mz_internal")
    pg.execute(f"CREATE TABLE mz_internal.mz_recent_activity_log ({', '.join(columns)})")
    with pg.cursor().copy("COPY mz_internal.mz_recent_activity_log FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)
    pg.execute("ANALYZE mz_internal.mz_recent_activity_log")
    return len(rows)


def setup(conn: Conn, rows: int) -> None:
    conn.execute("CREATE TABLE load_t (g integer, v bigint)")
    conn.execute("CREATE TABLE load_w (n integer, at timestamp with time zone)")
    per_file = rows // 8
    for batch in range(8):
        with conn.cursor().copy("COPY load_t (g, v) FROM STDIN") as copy:
            for i in range(batch * per_file, (batch + 1) * per_file):
                copy.write_row((i % 8, i))
    conn.execute("SELECT count(*) FROM load_t").fetchall()  # waits for Spark


def _report(label: str, idle: dict[str, list[float]], busy: dict[str, list[float]], gate: bool) -> bool:
    print(f"{label:<24} {'idle p50':>9} {'idle p99':>9} {'load p50':>9} {'load p99':>9} {'p99 ratio':>9}"
          + ("  target" if gate else ""))
    met = True
    for name in idle:
        i50, i99 = statistics.median(idle[name]), pct(idle[name], 0.99)
        l50, l99 = statistics.median(busy[name]), pct(busy[name], 0.99)
        ok = l99 <= 2 * i99 and l99 <= 10.0
        met = met and ok
        verdict = f"  {'met' if ok else 'NOT met'}" if gate else ""
        print(f"{name:<24} {i50:>8.2f}ms {i99:>8.2f}ms {l50:>8.2f}ms {l99:>8.2f}ms {l99 / i99:>8.2f}x{verdict}")
    return met


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--heavy-sessions", type=int, default=3)
    parser.add_argument("--rows", type=int, default=16_000)
    parser.add_argument(
        "--min-load-seconds",
        type=float,
        default=20.0,
        help="measure under load for at least this long (more rounds than --iterations if they are quick)",
    )
    parser.add_argument("--no-postgres", action="store_true", help="skip the PostgreSQL 15 reference")
    parser.add_argument(
        "--max-sample-rate",
        type=float,
        help="ALTER SYSTEM SET statement_logging_max_sample_rate to this first (0: the statement history's writer "
        "idle, to see its share of either phase's tail)",
    )
    parser.add_argument(
        "--cluster-applications",
        action="store_true",
        help="serve with that flag: the load runs in quickstart's own Spark application (a JVM of its own)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sparkwire-bench-") as tmp:
        oracle = None if args.no_postgres else PostgresOracle.start(Path(tmp) / "pg")
        flags = ["--cluster-applications"] if args.cluster_applications else []
        server = SparkwireServer.start(Path(tmp) / "sparkwire", *flags, wait=120)
        try:
            with contextlib.ExitStack() as stack:
                conn = stack.enter_context(psycopg.connect(server.dsn, autocommit=True))
                pg = None if oracle is None else stack.enter_context(psycopg.connect(oracle.dsn, autocommit=True))
                setup(conn, args.rows)
                if args.max_sample_rate is not None:
                    conn.execute(f"ALTER SYSTEM SET statement_logging_max_sample_rate = {args.max_sample_rate:g}")
                queries = dict(QUERIES)
                try:
                    conn.execute(queries["spark jobs"]).fetchall()
                except psycopg.errors.UndefinedTable:  # a server without the Spark job relation
                    del queries["spark jobs"]
                sides: list[Side] = [(conn, queries)]
                mirrored = 0
                if pg is not None:
                    measure(sides, 10)  # sparkwire's log as the warm-up leaves it, copied to PostgreSQL
                    mirrored = mirror_log(conn, pg)
                    sides.append((pg, PG_QUERIES))
                measure(sides, 10)  # warm-up: plans cached, store warm
                idle_cpu = CpuBusy()
                idle, pg_idle = [*measure(sides, args.iterations), {}][:2]
                idle_busy = idle_cpu.share()
                load = Load(server.dsn, args.heavy_sessions)
                load.start()
                time.sleep(3.0)  # the jobs are on every core before the clock starts
                started, load_cpu = time.monotonic(), CpuBusy()
                busy, pg_busy = [*measure(sides, args.iterations, args.min_load_seconds), {}][:2]
                elapsed, load_busy = time.monotonic() - started, load_cpu.share()
                load.stop()
        finally:
            server.stop()
            if oracle is not None:
                oracle.stop()
    print(f"load: {args.heavy_sessions} sessions of `{HEAVY}` over {args.rows} rows, one INSERT every 50 ms")
    if args.max_sample_rate is not None:
        print(f"statement_logging_max_sample_rate = {args.max_sample_rate:g}: that share of statements is logged")
    print(f"during the {elapsed:.1f} s under load: {load.jobs} heavy jobs finished, {load.writes} INSERTs, "
          f"{len(load.errors)} errors {load.errors[:1]}; CPU busy (all cores): {load_busy:.0%} under load, "
          f"{idle_busy:.0%} idle")
    met = _report("sparkwire", idle, busy, gate=True)
    print(f"target (p99 under load ≤ 2× idle and ≤ 10 ms): {'met for every query' if met else 'NOT met for all'}")
    if pg_idle:
        print("\nreference: PostgreSQL 15 on loopback, the same psycopg code, idle and under the same Spark load, its "
              "queries after sparkwire's in every round (both through the same moments of the load); its activity "
              f"log is a table holding the {mirrored} rows sparkwire's had after the warm-up")
        _report("PostgreSQL 15", pg_idle, pg_busy, gate=False)


if __name__ == "__main__":
    main()
