"""sparkwire against PostgreSQL 15 on the wire (issue 19): every ratio from one run, the same client code on both.

Run: `python -m bench.pgwire [--runs 5] [--rows 1000000] [--big-rows 10000000] [--quick] [--no-spark]`.

Starts its own PostgreSQL 15 (tests/support/postgres.py, with PostgreSQL's default durability: fsync and
synchronous_commit on, as sparkwire's commits are durable) and `sparkwire serve`, both on loopback in a temp dir,
plus a second sparkwire with SCRAM authentication (Spark on demand: it is only connected to). Then, alternating
between the servers for `--runs` rounds after a warm-up round, through `bench/wire_client.py` (one function per
measurement, blind to the server):

| metric | target (sparkwire / PostgreSQL) |
|---|---|
| `SELECT 1` round trips/s, extended protocol (`conn.execute` in a loop) | ≥ 0.6 |
| `SELECT 1` round trips/s, simple protocol (`pgconn.exec_`) | ≥ 0.6 |
| streaming `--rows` (int8, text, numeric) rows, `fetchmany(10_000)` | ≥ 0.8 |
| COPY FROM STDIN `--rows` rows, 1 MiB `copy.write` blocks (time) | ≤ 1.5× |
| COPY TO STDOUT `--rows` rows | ≥ 0.8 |
| parameterised primary-key lookup (sparkwire: an index, the fast path) | ≥ 0.5 |
| connection set-up, trust and SCRAM (time) | ≤ 2× |
| 64 active clients, aggregate `SELECT 1` round trips/s | ≥ 0.5 |

Each figure is the median of the runs. Then, on sparkwire alone: the memory of 1,000 idle connections (bytes per
connection, target ≤ 1 MB), the RSS growth streaming `--big-rows` rows (≤ 256 MB) and under a slow reader (flat),
and finally `bench.spark_overhead` (Spark path overhead ≤ 5 ms median) in a subprocess. It reports; it never gates.
The asyncio driver experiment is `bench/pgwire_asyncio.py`.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import psycopg

from bench import wire_client as wc
from bench.wire_connections import active_clients, idle_connections
from bench.wire_memory import rss_bytes, slow_reader_growth, stream_growth
from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer

__all__ = ["rss_bytes"]  # other benches measure memory with it
SCRAM_USER = "bench_scram"
SCRAM_PASSWORD = "bench scram pässword"
LOOKUP_ROWS = 100_000
MIB = 1024 * 1024


@dataclass(frozen=True)
class Metric:
    name: str
    unit: str
    target: float
    higher_is_better: bool  # a rate (ratio = sparkwire / PostgreSQL ≥ target) or a time (ratio ≤ target)


METRICS = [
    Metric("SELECT 1, extended protocol", "rt/s", 0.6, True),
    Metric("SELECT 1, simple protocol", "rt/s", 0.6, True),
    Metric("streaming rows, fetchmany(10k)", "rows/s", 0.8, True),
    Metric("COPY FROM STDIN", "s", 1.5, False),
    Metric("COPY TO STDOUT", "rows/s", 0.8, True),
    Metric("primary-key lookup, parameterised", "q/s", 0.5, True),
    Metric("connection set-up, trust", "ms", 2.0, False),
    Metric("connection set-up, SCRAM", "ms", 2.0, False),
    Metric("64 active clients, SELECT 1", "rt/s", 0.5, True),
]


def process_tree_rss(pid: int) -> int:
    """RSS of `pid` and its children (sparkwire's JVM is a child of the server process)."""
    children = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    return rss_bytes(pid) + sum(rss_bytes(int(child)) for child in children)


def one_round(dsn: str, scram_dsn: str, blocks: list[bytes], opts: argparse.Namespace) -> dict[str, float]:
    rows = opts.rows
    out: dict[str, float] = {}
    with psycopg.connect(dsn, autocommit=True) as conn:
        out[METRICS[0].name] = wc.extended_round_trips(conn, opts.seconds)
        out[METRICS[1].name] = wc.simple_round_trips(conn, opts.seconds)
        out[METRICS[2].name] = wc.stream(conn, rows)[0]
        wc.create_copy_table(conn, "copy_bench")
        out[METRICS[3].name] = wc.copy_in(conn, "copy_bench", blocks)
        out[METRICS[4].name] = wc.copy_out(conn, "copy_bench", rows)
        conn.execute("DROP TABLE copy_bench")
        out[METRICS[5].name] = wc.pk_lookups(conn, LOOKUP_ROWS, opts.seconds)
    out[METRICS[6].name] = wc.connect_seconds(dsn, opts.connects) * 1000
    out[METRICS[7].name] = wc.connect_seconds(scram_dsn, opts.connects) * 1000
    out[METRICS[8].name] = active_clients(dsn, opts.clients, opts.seconds)
    return out


def enable_scram_on_postgres(oracle: PostgresOracle) -> str:
    with psycopg.connect(oracle.dsn, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {SCRAM_USER} LOGIN SUPERUSER PASSWORD '{SCRAM_PASSWORD}'")
        hba = oracle.datadir / "pg_hba.conf"
        hba.write_text(f"host all {SCRAM_USER} 127.0.0.1/32 scram-sha-256\n" + hba.read_text())
        conn.execute("SELECT pg_reload_conf()")
    time.sleep(0.5)
    return f"host=127.0.0.1 port={oracle.port} user={SCRAM_USER} dbname=postgres password='{SCRAM_PASSWORD}'"


def ratio_line(metric: Metric, pg: list[float], sw: list[float]) -> str:
    pg_med, sw_med = statistics.median(pg), statistics.median(sw)
    ratio = sw_med / pg_med if pg_med else 0.0
    met = ratio >= metric.target if metric.higher_is_better else ratio <= metric.target
    target = f"{'≥' if metric.higher_is_better else '≤'}{metric.target:g}"
    name = f"{metric.name} ({metric.unit})"
    return f"{name:<44}{pg_med:>14,.1f}{sw_med:>14,.1f}{ratio:>9.2f}{target:>7}  {'ok' if met else 'MISSED'}"


def sparkwire_alone(server: SparkwireServer, opts: argparse.Namespace) -> list[str]:
    def rss() -> int:
        return process_tree_rss(server.process.pid)

    per_conn, held = idle_connections(server.dsn, opts.idle, rss)
    growth, rate = stream_growth(server.dsn, opts.big_rows, rss)
    slow, read = slow_reader_growth(server.dsn, opts.big_rows, rss, opts.slow_seconds)
    return [
        f"{held:,} idle connections: {per_conn / 1024:,.0f} KiB of server memory each (target ≤ 1 MB): "
        + ("ok" if per_conn <= MIB else "MISSED"),
        f"streaming {opts.big_rows:,} rows with cursor.stream(): RSS grew {growth / MIB:,.0f} MiB at "
        f"{rate:,.0f} rows/s (target ≤ 256 MB): " + ("ok" if growth <= 256 * MIB else "MISSED"),
        f"slow reader ({read:,} rows in {opts.slow_seconds:g} s): RSS grew {slow / MIB:,.0f} MiB "
        f"(target: flat, ≤ 64 MB): " + ("ok" if slow <= 64 * MIB else "MISSED"),
    ]


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    args.add_argument("--runs", type=int, default=5, help="measured rounds per server (median)")
    args.add_argument("--rows", type=int, default=1_000_000, help="rows streamed and copied")
    args.add_argument("--big-rows", type=int, default=10_000_000, help="rows of the memory test")
    args.add_argument("--seconds", type=float, default=2.0, help="duration of each rate loop")
    args.add_argument("--connects", type=int, default=50, help="connections timed per round")
    args.add_argument("--clients", type=int, default=64, help="active clients")
    args.add_argument("--idle", type=int, default=1000, help="idle connections held")
    args.add_argument("--slow-seconds", type=float, default=10.0, help="duration of the slow reader")
    args.add_argument("--quick", action="store_true", help="3 runs of 200k rows, 1 s loops, 2M-row memory test")
    args.add_argument("--no-spark", action="store_true", help="skip bench.spark_overhead")
    opts = args.parse_args()
    if opts.quick:
        opts.runs, opts.rows, opts.big_rows, opts.seconds, opts.slow_seconds = 3, 200_000, 2_000_000, 1.0, 5.0

    with tempfile.TemporaryDirectory(prefix="bench-pgwire-") as tmp, ExitStack() as stack:
        settings = {"fsync": "on", "synchronous_commit": "on", "full_page_writes": "on", "max_connections": "200"}
        oracle = PostgresOracle.start(Path(tmp) / "pg", settings=settings)
        stack.callback(oracle.stop)
        pg_scram = enable_scram_on_postgres(oracle)
        server = SparkwireServer.start(Path(tmp) / "sparkwire")
        stack.callback(server.stop)
        scram_server = SparkwireServer.start(
            Path(tmp) / "sparkwire-scram", "--auth", "password", "--spark-start", "on-demand",
            env={"SPARKWIRE_SUPERUSER_PASSWORD": SCRAM_PASSWORD},
        )
        stack.callback(scram_server.stop)
        sw_scram = f"{scram_server.dsn} password='{SCRAM_PASSWORD}'"
        print(f"PostgreSQL 15 on :{oracle.port}, sparkwire on :{server.port} (SCRAM :{scram_server.port})", flush=True)

        blocks = wc.copy_rows(opts.rows)
        sums = {}
        for name, dsn in (("postgres", oracle.dsn), ("sparkwire", server.dsn)):
            with psycopg.connect(dsn, autocommit=True) as conn:
                wc.create_lookup_table(conn, LOOKUP_ROWS)
                sums[name] = wc.stream(conn, opts.rows)[1]
        print("same streamed rows from both servers:", "yes" if sums["postgres"] == sums["sparkwire"] else "NO")

        sides: dict[str, tuple[str, str]] = {"postgres": (oracle.dsn, pg_scram), "sparkwire": (server.dsn, sw_scram)}
        samples: dict[str, dict[str, list[float]]] = {side: {m.name: [] for m in METRICS} for side in sides}
        for run in range(opts.runs + 1):  # round 0 warms both up and is not counted
            for side, (dsn, scram) in sides.items():
                figures = one_round(dsn, scram, blocks, opts)
                if run:
                    for key, value in figures.items():
                        samples[side][key].append(value)
            print(f"round {run}/{opts.runs} done", flush=True)

        print(f"\n{'metric (median of ' + str(opts.runs) + ' runs)':<44}{'postgres':>14}{'sparkwire':>14}"
              f"{'ratio':>9}{'target':>7}")
        for metric in METRICS:
            print(ratio_line(metric, samples["postgres"][metric.name], samples["sparkwire"][metric.name]))
        print()
        for line in sparkwire_alone(server, opts):
            print(line)
    if not opts.no_spark:
        print("\nbench.spark_overhead:", flush=True)
        subprocess.run([sys.executable, "-m", "bench.spark_overhead", "--repeat", "11"], check=False)


if __name__ == "__main__":
    main()
