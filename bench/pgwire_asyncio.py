"""The asyncio driver experiment (docs/architecture.md, threading): sparkwire's QueryProtocol driven by asyncio.

Run: `python -m bench.pgwire_asyncio [--seconds S] [--repeat R]`. Measures `SELECT 1` round trips/s (simple and
prepared, psycopg) of the thread-per-connection server and of the same `QueryProtocol` generator driven by asyncio
streams, in two variants: "hop" advances the generator on the connection's worker thread (correct: Session calls
block), "inline" advances it on the event loop (an upper bound only: it would stall every connection while the
engine runs). That driver lives here, not in sparkwire, because it lost (trust auth, no TLS — enough to measure).
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import psycopg

from sparkwire.api import Notice, StartupInfo
from sparkwire.server import backend as be
from sparkwire.server.frontend import Framer, StartupMessage, decode_startup, startup_length
from sparkwire.server.protocol import QueryProtocol, Wait
from sparkwire.server.startup import interpret_startup
from sparkwire.session.service import PlannerService
from tests.support.postgres import free_port
from tests.support.server import SparkwireServer

MAX_ROUND_TRIPS = 200_000


def round_trips(conn: psycopg.Connection[Any], prepare: bool, seconds: float) -> float:
    for _ in range(200):  # warm up (and let psycopg prepare the statement)
        conn.execute("SELECT 1", prepare=prepare)
    count = 0
    start = time.perf_counter()
    deadline = start + seconds
    while count < MAX_ROUND_TRIPS:
        for _ in range(100):
            conn.execute("SELECT 1", prepare=prepare)
        count += 100
        if time.perf_counter() >= deadline:
            break
    return count / (time.perf_counter() - start)


def serve_asyncio(data_dir: Path, port: int, inline: bool) -> None:
    """The asyncio driver measured by `--asyncio`: one task per connection, asyncio streams for the bytes."""
    service = PlannerService(data_dir)

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        loop = asyncio.get_running_loop()
        worker = ThreadPoolExecutor(1)  # the connection's worker thread
        while True:  # startup: SSLRequest → 'N', then StartupMessage (trust)
            header = await reader.readexactly(4)
            packet = decode_startup(await reader.readexactly(startup_length(header) - 4))
            if isinstance(packet, StartupMessage):
                break
            writer.write(be.SSL_NO)
        request = interpret_startup(packet)
        notices: deque[Notice] = deque()
        statuses: deque[tuple[str, str]] = deque()
        info = StartupInfo(request.user, request.database, request.application_name, request.settings)
        session = await loop.run_in_executor(
            worker, service.new_session, info, notices.append, lambda k, v: statuses.append((k, v))
        )
        protocol = QueryProtocol(session, notices, statuses)
        protocol.out += be.AUTH_OK
        protocol.out += b"".join(be.parameter_status(k, v) for k, v in session.reported_parameters().items())
        protocol.out += be.backend_key_data(0, 0)
        protocol.ready()
        steps, framer, out = protocol.run(), Framer(), protocol.out
        try:
            while True:
                wait = next(steps, None) if inline else await loop.run_in_executor(worker, next, steps, None)
                writer.write(bytes(out))
                out.clear()
                if wait is None:
                    break
                if wait is Wait.FLUSH:
                    await writer.drain()
                    continue
                data = await reader.read(256 * 1024)
                if not data:
                    break
                protocol.inbox.extend(framer.feed(data))
        finally:
            await loop.run_in_executor(worker, session.terminate)
            worker.shutdown()
            writer.close()

    async def main() -> None:
        server = await asyncio.start_server(connection, "127.0.0.1", port)
        async with server:
            await server.serve_forever()

    try:
        asyncio.run(main())
    finally:
        service.close()


@contextmanager
def asyncio_server(data_dir: Path, inline: bool) -> Iterator[str]:
    """`serve_asyncio` in a subprocess; yields its DSN once it accepts connections."""
    port = free_port()
    data_dir.mkdir(parents=True)
    command = [sys.executable, "-m", "bench.pgwire_asyncio", "--serve-asyncio", str(data_dir), str(port)]
    process = subprocess.Popen([*command, "--inline"] if inline else command)
    dsn = f"host=127.0.0.1 port={port} user=materialize dbname=materialize"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                psycopg.connect(dsn).close()
                break
            except psycopg.OperationalError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise
                time.sleep(0.1)
        yield dsn
    finally:
        process.terminate()
        process.wait(10)


def measure_round_trips(dsn: str, seconds: float) -> tuple[float, float]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        return round_trips(conn, prepare=False, seconds=seconds), round_trips(conn, prepare=True, seconds=seconds)


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    args.add_argument("--seconds", type=float, default=3.0, help="duration of each round-trip test")
    args.add_argument("--repeat", type=int, default=3, help="rounds per server; the best round counts")
    args.add_argument("--serve-asyncio", nargs=2, metavar=("DATA_DIR", "PORT"), help=argparse.SUPPRESS)
    args.add_argument("--inline", action="store_true", help=argparse.SUPPRESS)
    opts = args.parse_args()
    if opts.serve_asyncio:
        serve_asyncio(Path(opts.serve_asyncio[0]), int(opts.serve_asyncio[1]), opts.inline)
        return
    with tempfile.TemporaryDirectory(prefix="bench-asyncio-") as tmp, ExitStack() as stack:
        server = SparkwireServer.start(Path(tmp) / "sparkwire")
        stack.callback(server.stop)
        drivers = {"threads (sparkwire serve)": server.dsn}
        for name, inline in (("asyncio + thread hop", False), ("asyncio inline (unsafe)", True)):
            drivers[name] = stack.enter_context(asyncio_server(Path(tmp) / f"asyncio-{inline}", inline))
        best: dict[str, tuple[float, float]] = {}
        for _ in range(opts.repeat):
            for name, dsn in drivers.items():
                simple, prepared = measure_round_trips(dsn, opts.seconds)
                old = best.get(name, (0.0, 0.0))
                best[name] = (max(old[0], simple), max(old[1], prepared))
    print(f"{'driver':<28}{'simple rt/s':>14}{'prepared rt/s':>15}")
    for name, (simple, prepared) in best.items():
        print(f"{name:<28}{simple:>14,.0f}{prepared:>15,.0f}")


if __name__ == "__main__":
    main()
