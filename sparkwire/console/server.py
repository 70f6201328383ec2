"""Serve the console with Uvicorn on a thread of the server process, next to the pgwire listener.

Contract: `ConsoleServer(app, host, port, tls=None)` binds its socket at construction (so a port in use fails at
start with OSError, and `port` 0 picks a free one; `.port` tells which); `tls` is `(cert, key)`, the same files as
pgwire's. `start()` runs Uvicorn's event loop on a daemon thread named `sparkwire-console` (Uvicorn installs no
signal handlers off the main thread: the CLI's SIGTERM handling stays in charge) and returns once it serves or
raises if it could not start; `stop()` asks it to finish the requests in flight and waits up to `STOP_GRACE`
seconds. Uvicorn logs through the `uvicorn.*` loggers; access logs are off.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from pathlib import Path

import uvicorn
from starlette.types import ASGIApp

log = logging.getLogger(__name__)

STOP_GRACE = 5.0
START_TIMEOUT = 30.0


class ConsoleServer:
    def __init__(self, app: ASGIApp, host: str, port: int, tls: tuple[Path, Path] | None = None) -> None:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._sock = socket.create_server((host, port), family=family, backlog=128)
        self.host = host
        self.port: int = self._sock.getsockname()[1]
        self.tls = tls is not None
        config = uvicorn.Config(
            app,
            log_config=None,
            access_log=False,
            lifespan="off",
            server_header=False,
            proxy_headers=False,
            timeout_graceful_shutdown=int(STOP_GRACE),
            ssl_certfile=str(tls[0]) if tls else None,
            ssl_keyfile=str(tls[1]) if tls else None,
        )
        self._server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None
        self._failed: BaseException | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'https' if self.tls else 'http'}://{host}:{self.port}/"

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="sparkwire-console", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT
        while not self._server.started:
            if self._failed is not None or not self._thread.is_alive():
                raise RuntimeError(f"the console did not start: {self._failed!r}")
            if time.monotonic() > deadline:
                raise RuntimeError("the console did not start in time")
            time.sleep(0.01)

    def _run(self) -> None:
        try:
            self._server.run(sockets=[self._sock])
        except BaseException as exc:  # reported by start(); the pgwire server keeps running
            self._failed = exc
            log.exception("the console stopped")

    def stop(self) -> None:
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(STOP_GRACE + 1)
        self._sock.close()
