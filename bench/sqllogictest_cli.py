"""`python -m bench.sqllogictest`: SQLite's sqllogictest files against sparkwire and PostgreSQL 15, side by side.

Run: `python -m bench.sqllogictest [FILE ...] [--queries N] [--later-statements N] [--seconds S]
[--only sparkwire|postgresql] [--sparkwire-dsn DSN] [--postgres-dsn DSN] [--failures N] [--server-arg=...]`.

Starts its own PostgreSQL 15 (tests/support/postgres.py) and `sparkwire serve` (tests/support/server.py) in a temp
dir unless given DSNs, then runs each file (default: every `*.test` in ../shared/sqllogictest beside the repository,
or the names / paths given) on both through the very same psycopg code (bench/sqllogictest.py), the engine being
`postgresql`.
Each file runs on a clean slate: what it creates is dropped before and after (`reset`). `--queries N` runs a
deterministic sample (every statement and about N queries spread over the file, `sample`), `--seconds S` a
time-bounded prefix of each file on each server. Prints, per file and in total, the records run, passed, the pass
rate and records/s for each server, and the first `--failures` failures of sparkwire per file (with the
SQLSTATE or the differing values). It reports; it asserts nothing and exits 0.
"""

from __future__ import annotations

import argparse
import tempfile
from contextlib import ExitStack
from pathlib import Path

import psycopg

from bench.sqllogictest import CORPUS, FileResult, Record, parse, reset, run, sample
from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer


def run_file(dsn: str, records: list[Record], chosen: list[Record], name: str, seconds: float | None) -> FileResult:
    with psycopg.connect(dsn, autocommit=True) as conn:
        reset(conn, records)
        result = run(chosen, conn, name, reconnect=dsn, seconds=seconds)
    with psycopg.connect(dsn, autocommit=True) as conn:
        reset(conn, records)
    return result


def _cells(result: FileResult | None) -> str:
    if result is None:
        return f"{'-':>7} {'-':>7} {'-':>8} {'-':>9}"
    return f"{result.total:>7} {result.passed:>7} {result.rate:>8.2%} {result.per_second:>9.1f}"


def _total(results: list[FileResult]) -> FileResult:
    total = FileResult("total")
    for result in results:
        total.passed += result.passed
        total.failures.extend(result.failures)
        total.seconds += result.seconds
    return total


def files_of(given: list[str]) -> list[Path]:
    if not given:
        return sorted(CORPUS.glob("*.test"))
    return [Path(g) if Path(g).exists() else CORPUS / g for g in given]


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    args.add_argument("files", nargs="*", help="test files (names in the corpus or paths); default: all")
    args.add_argument("--queries", type=int, help="sample about N queries per file (default: every record)")
    args.add_argument("--later-statements", type=int, help="with --queries: stop the window that many statements "
                      "after the first query (files that interleave thousands of statements)")
    args.add_argument("--seconds", type=float, help="time bound per file and server (a prefix is run)")
    args.add_argument("--only", choices=("sparkwire", "postgresql"), help="run one server only")
    args.add_argument("--sparkwire-dsn", help="use this sparkwire server instead of starting one")
    args.add_argument("--postgres-dsn", help="use this PostgreSQL instead of starting one")
    args.add_argument("--failures", type=int, default=10, help="sparkwire failures to print per file")
    args.add_argument("--server-arg", action="append", default=[], help="an argument for `sparkwire serve`")
    opts = args.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-slt-") as tmp, ExitStack() as stack:
        sw_dsn, pg_dsn = opts.sparkwire_dsn, opts.postgres_dsn
        if opts.only != "sparkwire" and pg_dsn is None:
            oracle = PostgresOracle.start(Path(tmp) / "pg")
            stack.callback(oracle.stop)
            pg_dsn = oracle.dsn
        if opts.only != "postgresql" and sw_dsn is None:
            server = SparkwireServer.start(Path(tmp) / "sparkwire", "--spark-warm-up", "on", *opts.server_arg)
            stack.callback(server.stop)
            sw_dsn = server.dsn
        if opts.only == "sparkwire":
            pg_dsn = None
        if opts.only == "postgresql":
            sw_dsn = None
        ours: list[FileResult] = []
        theirs: list[FileResult] = []
        columns = f"{'run':>7} {'passed':>7} {'rate':>8} {'rec/s':>9}"
        print(f"{'':<30} | {'sparkwire':<34} | {'PostgreSQL 15':<34}", flush=True)
        print(f"{'file':<30} | {columns} | {columns}", flush=True)
        for path in files_of(opts.files):
            records = parse(path)
            chosen = records if opts.queries is None else sample(records, opts.queries, opts.later_statements)
            mine = run_file(sw_dsn, records, chosen, path.name, opts.seconds) if sw_dsn else None
            ref = run_file(pg_dsn, records, chosen, path.name, opts.seconds) if pg_dsn else None
            ours.extend([mine] if mine else [])
            theirs.extend([ref] if ref else [])
            print(f"{path.name:<30} | {_cells(mine)} | {_cells(ref)}", flush=True)
            for failure in (mine.failures if mine else [])[: opts.failures]:
                print(f"    {failure}", flush=True)
        print(f"{'total':<30} | {_cells(_total(ours) if ours else None)} | "
              f"{_cells(_total(theirs) if theirs else None)}", flush=True)


if __name__ == "__main__":
    main()
