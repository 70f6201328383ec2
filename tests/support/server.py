"""Run a real `sparkwire serve` process on a loopback port for tests and benchmarks.

`SparkwireServer.start(data_dir)` launches `python -m sparkwire serve` as a subprocess with its own data dir and a
free port, waits until it accepts connections, and `stop()` terminates it (SIGTERM, then SIGKILL). Extra CLI
arguments and environment variables pass through, so tests can start password-auth or TLS servers too. The web
console is off (`--http-port 0`) unless the arguments name an `--http-port`: test servers run side by side and would
all want the console's default port.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.postgres import free_port


@dataclass
class SparkwireServer:
    data_dir: Path
    port: int
    process: subprocess.Popen[bytes]
    log_path: Path
    user: str = "materialize"
    extra_env: dict[str, str] = field(default_factory=dict)

    @property
    def dsn(self) -> str:
        return f"host=127.0.0.1 port={self.port} user={self.user} dbname=materialize"

    @classmethod
    def start(
        cls,
        data_dir: Path,
        *args: str,
        env: dict[str, str] | None = None,
        port: int | None = None,
        wait: float = 60.0,
        cwd: Path | None = None,
    ) -> SparkwireServer:
        """`cwd`: run there and name `data_dir` relative to it (as `./scripts/serve` names `./data`)."""
        data_dir.mkdir(parents=True, exist_ok=True)
        port = port or free_port()
        log_path = data_dir / "server.log"
        full_env = {**os.environ, **(env or {})}
        log = log_path.open("ab")
        if "--http-port" not in args:
            args = (*args, "--http-port", "0")
        if "--spark-warm-up" not in args:  # dozens of servers start in a test run: each warming up costs seconds
            args = (*args, "--spark-warm-up", "off")
        process = subprocess.Popen(
            [sys.executable, "-m", "sparkwire", "serve", "--host", "127.0.0.1", "--port", str(port),
             "--data-dir", os.path.relpath(data_dir, cwd) if cwd else str(data_dir), *args],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=full_env,
            cwd=cwd,
        )
        server = cls(data_dir, port, process, log_path, extra_env=env or {})
        server.wait_ready(wait)
        return server

    def wait_ready(self, timeout: float) -> None:
        import socket

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"sparkwire exited with {self.process.returncode}:\n{self.log()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"sparkwire did not listen on {self.port}:\n{self.log()}")

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-20000:]
        except OSError:
            return ""

    def kill(self) -> None:
        """kill -9 of the server and of the processes it started (its Spark JVM): no shutdown hooks run, and nothing
        of this server writes to its log after `kill` returns (a JVM left to notice its parent's death on its own
        would log its shutdown into the next server's lifetime)."""
        if self.process.poll() is None:
            children = _descendants(self.process.pid)
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
            for pid in children:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            deadline = time.monotonic() + 10
            while any(os.path.exists(f"/proc/{pid}") and not _zombie(pid) for pid in children):
                if time.monotonic() > deadline:
                    break
                time.sleep(0.05)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()


def _descendants(pid: int) -> list[int]:
    """Every process below `pid` (Linux /proc), children before grandchildren."""
    found: list[int] = []
    frontier = [pid]
    while frontier:
        current = frontier.pop()
        try:
            tasks = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{current}/task/{task}/children") as listing:
                    children = [int(child) for child in listing.read().split()]
            except OSError:
                continue
            found += children
            frontier += children
    return found


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True
