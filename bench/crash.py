"""kill -9 at random moments during single-row INSERTs, multi-row COPY, transactions and DDL (issue 12, item 6).

Run: `python -m bench.crash [--trials 20] [--seed S] [--data-dir DIR]`.

One `sparkwire serve` process on one data directory that persists across trials. In each trial, client threads
(`bench.crash_clients`) write concurrently through psycopg — single-row INSERTs, 500-row `COPY … FROM STDIN` batches,
BEGIN … COMMIT transactions of five rows, CREATE / DROP of tables, views and indexes — recording every statement the
server acknowledged; at a random moment the server is killed with SIGKILL and restarted on the same data directory
(on a new port). After the restart (`bench.crash_checks`): every acknowledged row, batch, transaction, CREATE and DROP
is there; no batch, transaction or DDL statement is there in part; mz_tables / mz_views / mz_indexes, mz_objects and
pg_class agree and hold exactly the objects the clients created; every table and view answers a SELECT (on Spark),
every index a lookup; the server log holds no traceback. The next trial's clients start once the rows are checked
(Spark is up) and write while the other relations are read; the kill comes at a random moment a few seconds later.
The tables of a trial are counted again after the next restart, then dropped. A trial takes 20-30 s, most of it
Spark starting again (the row checks need it).

Prints one line per trial and the totals; exits 1 if anything was lost, torn, duplicated or inconsistent.
"""

from __future__ import annotations

import argparse
import logging
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from bench.crash_checks import Findings, Listed, check_catalog, check_queryable, check_rows, log_problems
from bench.crash_clients import COPY_ROWS, Clients, Conn, DdlOp, Model, Pace, data_tables
from tests.support.server import SparkwireServer

SERVER_ARGS = ("--spark-master", "local[1]")
# Spark starts again after every kill and never runs long: with the JVM's quick (C1) compiler alone it answers its
# first query in ~2/3 of the time on a busy 2-core machine. Durability does not depend on it.
SERVER_ENV = {"JAVA_TOOL_OPTIONS": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"}


@dataclass
class TrialResult:
    """Trial `trial`: what its clients had acknowledged when the server was killed `kill_after` seconds after they
    started, how long the restart took (until it answered a query; until Spark answered) and what the checks found."""

    trial: int
    inserts: int
    batches: int
    ddl: int
    txns: int
    kill_after: float
    restart_s: float = 0.0
    spark_s: float = 0.0
    checks_s: float = 0.0
    found: Findings = field(default_factory=Findings)

    @property
    def ok(self) -> bool:
        return next(self.found.all(), None) is None


@dataclass(frozen=True, slots=True)
class Timing:
    """The kill comes `min_run` + uniform(0, `jitter`) seconds after the clients start, or uniform(0, 1) seconds
    after the restarted server has been checked, whichever is later."""

    min_run: float = 2.0
    jitter: float = 4.0


DEFAULT_TIMING = Timing()
DEFAULT_PACE = Pace()


def _connect(dsn: str) -> Conn:
    return psycopg.connect(dsn, autocommit=True, connect_timeout=30)


def _cleanup(conn: Conn, model: Model, trial: int) -> None:
    """Drop what trial `trial` left standing (acknowledged: the next restart checks it is gone)."""
    for name, expected in sorted(model.objects.items()):
        if expected.trial == trial and expected.state == "present":
            kind = expected.kind.upper()
            op = DdlOp(f"DROP {kind} {name}{' CASCADE' if kind == 'TABLE' else ''}", drops=(name,), cascade=True)
            conn.execute(op.sql)
            model.apply(op, trial)


class CrashRun:
    def __init__(self, data_dir: Path, seed: int, timing: Timing = DEFAULT_TIMING, pace: Pace = DEFAULT_PACE) -> None:
        self.data_dir = data_dir
        self.rng = random.Random(seed)
        self.timing = timing
        self.pace = pace
        self.model = Model()
        self.server: SparkwireServer | None = None

    def _start(self) -> tuple[SparkwireServer, int, float]:
        log = self.data_dir / "server.log"
        offset = log.stat().st_size if log.exists() else 0
        began = time.monotonic()
        server = SparkwireServer.start(self.data_dir, *SERVER_ARGS, env=SERVER_ENV, wait=120)
        self.server = server
        with _connect(server.dsn) as conn:
            conn.execute("SELECT 1")
        return server, offset, began

    def _check_log(self, server: SparkwireServer, offset: int, found: Findings) -> None:
        with server.log_path.open("rb") as log:
            log.seek(offset)
            found.errors.extend(log_problems(log.read().decode(errors="replace")))

    def _check_rows(self, conn: Conn, verify: Clients, result: TrialResult, began: float) -> None:
        try:
            check_rows(conn, verify, self.model, result.found)
        except psycopg.Error as exc:
            result.found.inconsistent.append(f"reading trial {verify.trial}'s rows: {exc}")
        result.spark_s = time.monotonic() - began

    def _check_rest(
        self, conn: Conn, verify: Clients, listed: dict[str, Listed], result: TrialResult, began: float
    ) -> None:
        check_queryable(conn, listed, self.model, result.found, frozenset(data_tables(verify.trial)))
        try:
            _cleanup(conn, self.model, verify.trial - 1)
        except psycopg.Error as exc:
            result.found.errors.append(f"dropping trial {verify.trial - 1}'s objects: {exc}")
        result.checks_s = time.monotonic() - began

    def lifetime(self, verify: Clients | None, trial: int | None) -> tuple[TrialResult | None, Clients | None]:
        """Start the server; if `verify`, check it after the crash of `verify`'s trial; if `trial`, run that trial's
        clients and kill the server at a random moment. Returns the checked result and the killed trial's clients."""
        server, offset, began = self._start()
        restart_s = time.monotonic() - began
        result = None
        if verify is not None:
            result = TrialResult(
                verify.trial,
                len(verify.inserts.acked),
                len(verify.batches.acked),
                sum(op.writes is None for op in verify.ddl_acked) + len(verify.setup_ops()),
                len(verify.txns.acked),
                verify.kill_after,
                restart_s,
            )
        clients = None
        try:
            with _connect(server.dsn) as conn:
                listed = check_catalog(conn, self.model, result.found) if result else {}
                if verify is not None and result is not None:
                    self._check_rows(conn, verify, result, began)  # waits for Spark
                if trial is not None:
                    clients = Clients(server.dsn, trial, self.pace)
                    clients.start(conn, self.model)
                if verify is not None and result is not None:
                    self._check_rest(conn, verify, listed, result, began)  # while the clients write
                if clients is not None:
                    kill_at = clients.started + self.timing.min_run + self.rng.uniform(0, self.timing.jitter)
                    kill_at = max(kill_at, time.monotonic() + self.rng.uniform(0, 1))
                    time.sleep(max(0.0, kill_at - time.monotonic()))
                    clients.killing.set()
                    server.kill()
                    clients.kill_after = time.monotonic() - clients.started
        finally:
            server.kill()  # after the last checks too: a clean stop would only wait for Spark to stop
            self.server = None
        if clients is not None:
            clients.join()
            clients.record(self.model)
        if result is not None:
            self._check_log(server, offset, result.found)
            result.found.errors.extend(verify.errors if verify else [])
        return result, clients

    def trials(self, count: int) -> Iterator[TrialResult]:
        """Run `count` trials, yielding each one's result once the restart after it has been checked."""
        pending: Clients | None = None
        for lifetime in range(count + 1):
            result, pending = self.lifetime(pending, lifetime + 1 if lifetime < count else None)
            if result is not None:
                yield result

    def stop(self) -> None:
        if self.server is not None:
            self.server.kill()


def run_trials(
    data_dir: Path, count: int, seed: int, timing: Timing = DEFAULT_TIMING, pace: Pace = DEFAULT_PACE
) -> Iterator[TrialResult]:
    run = CrashRun(data_dir, seed, timing, pace)
    try:
        yield from run.trials(count)
    finally:
        run.stop()


_ACKED = ("inserts", "copies", "ddl", "txns")
_PROBLEMS = ("lost", "torn", "extra", "incons", "errors")
COLUMNS = ("trial", "kill@s", *_ACKED, "unacked", *_PROBLEMS, "restart s", "spark s", "checked s")


def _row(values: tuple[object, ...]) -> str:
    return "  ".join(f"{v:>{len(c)}}" for v, c in zip(values, COLUMNS, strict=True))


def _counts(r: TrialResult) -> tuple[int, ...]:
    f = r.found
    return (
        r.inserts,
        r.batches,
        r.ddl,
        r.txns,
        f.unacked_applied,
        f.unacked,
        len(f.lost),
        len(f.torn),
        len(f.extra),
        len(f.inconsistent),
        len(f.errors),
    )


def _line(label: object, kill: str, counts: tuple[int, ...], times: tuple[float, float, float]) -> str:
    acked, (applied, unacked), problems = counts[:4], counts[4:6], counts[6:]
    restart, spark, checked = times
    return _row(
        (label, kill, *acked, f"{applied}/{unacked}", *problems, f"{restart:.2f}", f"{spark:.1f}", f"{checked:.1f}")
    )


def trial_line(r: TrialResult) -> str:
    return _line(r.trial, f"{r.kill_after:.1f}", _counts(r), (r.restart_s, r.spark_s, r.checks_s))


def report(results: list[TrialResult], out: Callable[[str], None] = print) -> bool:
    """Print the totals (times: medians) and every problem; True if there were none."""
    totals = tuple(sum(column) for column in zip(*(_counts(r) for r in results), strict=True)) or (0,) * 11
    restart, spark, checked = (
        statistics.median([getattr(r, name) for r in results] or [0.0]) for name in ("restart_s", "spark_s", "checks_s")
    )
    out(_line("total", "", totals, (restart, spark, checked)))
    inserts, batches, ddl, txns, applied, unacked, lost, torn, extra, inconsistent, errors = totals
    out(
        f"{len(results)} trials; acknowledged: {inserts} single-row INSERTs, {batches} COPY batches "
        f"({batches * COPY_ROWS} rows), {ddl} DDL statements, {txns} transactions; in flight at the kill: {unacked} "
        f"statements, {applied} of them applied (whole); lost {lost}, torn {torn}, extra {extra}, catalog "
        f"inconsistencies {inconsistent}, errors {errors}; restart (until a query is answered) median {restart:.2f} s,"
        f" max {max((r.restart_s for r in results), default=0.0):.2f} s; Spark answering median {spark:.1f} s"
    )
    for r in results:
        for problem in r.found.all():
            out(f"trial {r.trial}: {problem}")
    return all(r.ok for r in results)


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    args.add_argument("--trials", type=int, default=20)
    args.add_argument("--seed", type=int, default=None, help="random seed (default: from the clock, printed)")
    args.add_argument("--data-dir", type=Path, default=None, help="default: a temp dir, removed if all went well")
    opts = args.parse_args()
    logging.getLogger("psycopg").setLevel(logging.ERROR)  # "error ignored terminating Copy": the kill, expected
    seed = opts.seed if opts.seed is not None else time.time_ns() % 1_000_000
    data_dir = opts.data_dir or Path(tempfile.mkdtemp(prefix="sparkwire-crash-")) / "data"
    print(f"seed {seed}, data dir {data_dir}", flush=True)
    print(_row(COLUMNS), flush=True)
    results: list[TrialResult] = []
    try:
        for r in run_trials(data_dir, opts.trials, seed):
            results.append(r)
            print(trial_line(r), flush=True)
    except RuntimeError as exc:  # the server did not come back
        print(f"after trial {len(results) + 1}: {exc}", flush=True)
        report(results)
        sys.exit(1)
    ok = report(results)
    if ok and opts.data_dir is None:
        shutil.rmtree(data_dir.parent, ignore_errors=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
