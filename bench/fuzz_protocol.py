"""Protocol fuzzing (issue 12, item 6): mutated frames from a corpus of real sessions, against a live server.

Run: `python -m bench.fuzz_protocol [--frames 100000] [--clients 24] [--seed 1] [--data-dir DIR]`.

Starts a `sparkwire serve` (trust auth) and a second one with `--auth password` (both `--spark-start on-demand`: no
corpus statement needs Spark, so no JVM competes for the CPU), records the corpus through a proxy
(bench/fuzz_corpus.py), then:
1. limits: typed frames claiming 2 GiB (0x7fffffff, and 0x80000000, negative as int32) and 1 GiB + 1, and startup
   packets claiming 2 GiB and 10,001 bytes, are each answered with FATAL 08P01 and the connection closes, while the
   server's RSS does not grow; a frame claiming 1 GiB (allowed) of which 8 MiB arrive before EOF costs about those
   8 MiB, not 1 GiB;
2. fuzzing: `--clients` threads each open connection after connection; each connection is a `Case` of
   bench/fuzz_mutate.py (mutated session, startup, CancelRequest or password login) sent step by step, reading
   the answers (bench/fuzz_check.py: every message well-formed, nothing after FATAL, no traceback or Java stack
   trace, internal errors XX000 counted) until `--frames` frames went out. A hang: after the client half-closed,
   the server neither closed nor sent a byte for `--hang-timeout` seconds;
3. all along, a bystander session opened before the fuzzing runs `SELECT 1` and a pg_class count every 0.25 s
   (each must succeed within 5 s), the server's RSS is sampled, and the processes are watched;
4. afterwards a fresh psycopg connection must work and the server log must hold no traceback.
Prints a summary; exits 1 on a crash, hang, malformed answer, leaked traceback, internal error, server-side
traceback, bystander failure, failed limit check or failed final connection.
`run_fuzz(server, auth, frames=…)` is the same against running servers (tests/server/test_fuzz_corpus.py).
"""

from __future__ import annotations

import argparse
import random
import socket
import struct
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg

from bench.fuzz_check import ResponseReader
from bench.fuzz_corpus import CANCEL_REQUEST_CODE, SETUP_SQL, Corpus, record_corpus
from bench.fuzz_limits import check_limits
from bench.fuzz_mutate import Case, Step, mutate_packet, plan_case
from bench.pgwire import rss_bytes
from tests.support.server import SparkwireServer

SERVER_ARGS = ("--spark-start", "on-demand")
PASSWORD = "fuzz pässword"
PASSWORD_ENV = "SPARKWIRE_SUPERUSER_PASSWORD"
BYSTANDER_LIMIT = 5.0
MIB = 1 << 20


@dataclass
class FuzzReport:
    target: int
    frames: int = 0
    mutated: int = 0
    connections: Counter[str] = field(default_factory=Counter)
    answers: int = 0
    sqlstates: Counter[str] = field(default_factory=Counter)
    fatal_closes: int = 0
    hangs: list[str] = field(default_factory=list)
    malformed: list[str] = field(default_factory=list)
    leaks: list[str] = field(default_factory=list)
    internal: Counter[str] = field(default_factory=Counter)
    connect_failures: list[str] = field(default_factory=list)
    crashes: list[str] = field(default_factory=list)
    bystander_queries: int = 0
    bystander_max: float = 0.0
    bystander_failures: list[str] = field(default_factory=list)
    server_tracebacks: list[str] = field(default_factory=list)
    limits: list[str] = field(default_factory=list)
    limit_failures: list[str] = field(default_factory=list)
    final_connection: str = "not tried"
    corpus_frames: int = 0
    rss: list[int] = field(default_factory=list)
    elapsed: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def failures(self) -> dict[str, int]:
        return {
            "server crashes": len(self.crashes),
            "hangs": len(self.hangs),
            "malformed responses": len(self.malformed),
            "tracebacks leaked": len(self.leaks),
            "internal errors (XX000)": sum(self.internal.values()),
            "server-side tracebacks": len(self.server_tracebacks),
            "bystander failures": len(self.bystander_failures),
            "failed connects": len(self.connect_failures),
            "limit check failures": len(self.limit_failures),
            "final connection failed": int(self.final_connection != "ok"),
        }

    @property
    def ok(self) -> bool:
        return not any(self.failures.values())

    def print(self) -> None:
        print("memory limits:")
        for line in self.limits:
            print(f"  {line}")
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(self.connections.items()))
        print(f"corpus: {self.corpus_frames} recorded frames")
        print(f"frames sent: {self.frames} ({self.mutated} mutated or inserted) in {self.elapsed:.0f} s")
        print(f"connections: {sum(self.connections.values())} ({kinds}); closed by FATAL: {self.fatal_closes}")
        print(f"ReadyForQuery answers: {self.answers}")
        print("errors by SQLSTATE:", ", ".join(f"{code} {n}" for code, n in self.sqlstates.most_common()))
        for name, count in self.failures.items():
            print(f"{name}: {count}")
        details: list[tuple[str, list[str]]] = [
            ("crash", self.crashes), ("hang", self.hangs), ("malformed", self.malformed), ("leak", self.leaks),
            ("internal", [f"{n} x {m}" for m, n in self.internal.most_common()]),
            ("server traceback", self.server_tracebacks), ("bystander", self.bystander_failures),
            ("connect", self.connect_failures), ("limit", self.limit_failures),
        ]
        for label, items in details:
            for item in items[:10]:
                print(f"  {label}: {item[:600]}")
        print(f"bystander: {self.bystander_queries} round trips, slowest {self.bystander_max * 1e3:.0f} ms")
        print(f"final fresh connection: {self.final_connection}")
        if self.rss:
            print(
                f"server RSS: start {self.rss[0] / MIB:.0f} MiB, peak {max(self.rss) / MIB:.0f} MiB, "
                f"end {self.rss[-1] / MIB:.0f} MiB"
            )
        print("RESULT:", "PASS" if self.ok else "FAIL")


# ---- one connection -----------------------------------------------------------------------------------------


def run_case(port: int, case: Case, report: FuzzReport, quiet: float, hang_timeout: float) -> None:
    """Send `case` step by step, reading the answers; record what it found in `report`."""
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    except OSError as exc:
        with report.lock:
            report.connect_failures.append(f"{case.kind}: {exc}")
        return
    reader = ResponseReader(sock)
    sent = mutated = 0
    with sock:
        for i, step in enumerate(case.steps):
            sock.settimeout(hang_timeout)
            try:
                sock.sendall(step.data)
            except OSError:  # the server closed (or stopped reading: then `finish` tells whether it hangs)
                break
            sent += step.frames
            mutated += step.mutated
            if i == case.cancel_after and reader.key is not None:
                _cancel_own(port, case, reader.key, report, hang_timeout)
            if step.wait:
                reader.wait_ready(quiet)
            if reader.eof:
                break
        hung = not reader.finish(hang_timeout)
    with report.lock:
        report.frames += sent
        report.mutated += mutated
        report.connections[case.kind] += 1
        report.answers += reader.ready
        report.sqlstates.update(reader.sqlstates)
        report.fatal_closes += reader.fatal
        report.malformed += [f"{case.kind}: {p} (case {_show(case)})" for p in reader.problems]
        report.leaks += reader.leaks
        report.internal.update(reader.internal)
        if hung:
            report.hangs.append(f"{case.kind} after {sent} frames: {_show(case)}")


def _cancel_own(port: int, case: Case, key: bytes, report: FuzzReport, hang_timeout: float) -> None:
    """A CancelRequest for the session of `case` (BackendKeyData `key`), as `case` says, on its own connection."""
    pid, secret = struct.unpack("!iI", key)
    packet = struct.pack("!iiiI", 16, CANCEL_REQUEST_CODE, pid, secret ^ case.cancel_secret)
    if case.cancel_mutated:
        packet = mutate_packet(random.Random(secret), packet)
    cancel = Case("cancel-live", [Step(packet, 1, int(case.cancel_mutated or case.cancel_secret != 0))])
    run_case(port, cancel, report, 0.0, hang_timeout)


def _show(case: Case) -> str:
    return " | ".join(step.data[:160].hex() for step in case.steps)[:2000]


# ---- the watchers -------------------------------------------------------------------------------------------


def _bystander(conn: psycopg.Connection[Any], dsn: str, report: FuzzReport, stop: threading.Event) -> None:
    while not stop.wait(0.25):
        started = time.monotonic()
        try:
            one = conn.execute("SELECT 1").fetchone()
            count = conn.execute("SELECT count(*) FROM pg_catalog.pg_class").fetchone()
            if one != (1,) or count is None or count[0] <= 0:
                raise AssertionError(f"wrong answers {one}, {count}")
        except Exception as exc:
            with report.lock:
                report.bystander_failures.append(f"{type(exc).__name__}: {exc}")
            if conn.closed:
                conn = psycopg.connect(dsn, autocommit=True)
            continue
        elapsed = time.monotonic() - started
        with report.lock:
            report.bystander_queries += 1
            report.bystander_max = max(report.bystander_max, elapsed)
            if elapsed > BYSTANDER_LIMIT:
                report.bystander_failures.append(f"SELECT 1 + pg_class count took {elapsed:.1f} s")
    conn.close()


def _watch(servers: list[SparkwireServer], report: FuzzReport, stop: threading.Event) -> None:
    while not stop.wait(0.2):
        for server in servers:
            if server.process.poll() is not None:
                with report.lock:
                    report.crashes.append(f"server on port {server.port} exited with {server.process.returncode}")
                stop.set()
                return
        report.rss.append(rss_bytes(servers[0].process.pid))


def server_tracebacks(path: Path, offset: int) -> list[str]:
    """The exception line of every traceback in the log after byte `offset`."""
    with path.open("rb") as f:
        f.seek(offset)
        lines = f.read().decode(errors="replace").splitlines()
    found: list[str] = []
    for i, line in enumerate(lines):
        if line.startswith("Traceback (most recent call last)"):
            rest = (x for x in lines[i + 1 :] if x and not x.startswith(" "))
            found.append(f"{lines[i - 1][:200] if i else ''} → {next(rest, '?')[:300]}")
    return found


def _log_size(server: SparkwireServer) -> int:
    return server.log_path.stat().st_size if server.log_path.exists() else 0


# ---- the run --------------------------------------------------------------------------------------------------


def _worker(
    n: int, corpus: Corpus, ports: tuple[int, int | None], report: FuzzReport, seed: int, quiet: float,
    hang_timeout: float, stop: threading.Event,
) -> None:
    rng = random.Random(seed * 7919 + n)
    port, auth_port = ports
    while not stop.is_set() and report.frames < report.target:
        case = plan_case(rng, corpus, auth_port is not None)
        run_case(auth_port if case.kind == "auth" and auth_port else port, case, report, quiet, hang_timeout)


def run_fuzz(
    server: SparkwireServer,
    auth: SparkwireServer | None = None,
    *,
    frames: int = 100_000,
    clients: int = 24,
    seed: int = 1,
    quiet: float = 0.15,
    hang_timeout: float = 10.0,
    password: str = PASSWORD,
) -> FuzzReport:
    """Fuzz `server` (and the password server `auth`, whose superuser password is `password`)."""
    report = FuzzReport(frames)
    started = time.monotonic()
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        for sql in SETUP_SQL:
            conn.execute(sql)
    corpus = record_corpus(server.port, (auth.port, password) if auth else None)
    report.corpus_frames = corpus.frame_count()
    servers = [server] + ([auth] if auth else [])
    offsets = [_log_size(s) for s in servers]
    report.limits, report.limit_failures = check_limits(server.port, server.process.pid)
    stop = threading.Event()
    bystander = psycopg.connect(server.dsn, autocommit=True)
    threads = [
        threading.Thread(target=_watch, args=(servers, report, stop), daemon=True),
        threading.Thread(target=_bystander, args=(bystander, server.dsn, report, stop), daemon=True),
    ]
    ports = (server.port, auth.port if auth else None)
    workers = [
        threading.Thread(
            target=_worker, args=(n, corpus, ports, report, seed, quiet, hang_timeout, stop), daemon=True
        )
        for n in range(clients)
    ]
    for thread in threads + workers:
        thread.start()
    for thread in workers:
        thread.join()
    stop.set()
    for thread in threads:
        thread.join(30)
    report.elapsed = time.monotonic() - started
    try:
        with psycopg.connect(server.dsn, autocommit=True, connect_timeout=10) as conn:
            report.final_connection = "ok" if conn.execute("SELECT 42").fetchone() == (42,) else "wrong answer"
    except psycopg.Error as exc:
        report.final_connection = f"{type(exc).__name__}: {exc}"
    for srv, offset in zip(servers, offsets, strict=True):
        report.server_tracebacks += server_tracebacks(srv.log_path, offset)
    report.rss.append(rss_bytes(server.process.pid))
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--frames", type=int, default=100_000)
    parser.add_argument("--clients", type=int, default=24)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quiet", type=float, default=0.15, help="seconds without an answer before moving on")
    parser.add_argument("--hang-timeout", type=float, default=10.0)
    parser.add_argument("--data-dir", type=Path, help="where the servers' temporary data dirs go")
    args = parser.parse_args(argv)
    if args.data_dir:
        args.data_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="sparkwire-fuzz-", dir=args.data_dir) as tmp:
        server = SparkwireServer.start(Path(tmp) / "trust", *SERVER_ARGS)
        auth = None
        try:
            auth = SparkwireServer.start(
                Path(tmp) / "password", *SERVER_ARGS, "--auth", "password", env={PASSWORD_ENV: PASSWORD}
            )
            report = run_fuzz(
                server, auth, frames=args.frames, clients=args.clients, seed=args.seed, quiet=args.quiet,
                hang_timeout=args.hang_timeout,
            )
        finally:
            server.stop()
            if auth is not None:
                auth.stop()
    report.print()
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
