"""Accept TCP connections and serve each on its own thread; stop gracefully on request.

Contract: `Listener(ctx, host, port)` binds at construction (`port` 0 picks a free one; `.port` tells which).
`serve_forever()` accepts until `stop()` is called (from any thread or a signal handler), then closes the
listening socket, shuts every open connection down (running statements are cancelled; clients get FATAL 57P01)
and waits up to `SHUTDOWN_GRACE` seconds for their threads. Past `MAX_CONNECTIONS` open connections a new
client gets FATAL 53300 "sorry, too many clients already".
"""

from __future__ import annotations

import contextlib
import logging
import os
import selectors
import socket
import threading
import time

from sparkwire.errors import TooManyConnections
from sparkwire.server import backend as be
from sparkwire.server.connection import Connection, ServerContext

log = logging.getLogger(__name__)

SHUTDOWN_GRACE = 10.0
BACKLOG = 1024
MAX_CONNECTIONS = 5000  # Materialize's max_connections default
_TOO_MANY = TooManyConnections("sorry, too many clients already", severity="FATAL")


class Listener:
    def __init__(self, ctx: ServerContext, host: str, port: int) -> None:
        self._ctx = ctx
        self._sock = socket.create_server((host, port), backlog=BACKLOG, reuse_port=False)
        self.port: int = self._sock.getsockname()[1]
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        self._stopping = False
        self._lock = threading.Lock()
        self._open: dict[Connection, threading.Thread] = {}

    def stop(self) -> None:
        self._stopping = True
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")

    def serve_forever(self) -> None:
        with selectors.DefaultSelector() as sel:
            sel.register(self._sock, selectors.EVENT_READ)
            sel.register(self._wake_r, selectors.EVENT_READ)
            while not self._stopping:
                for key, _ in sel.select():
                    if key.fileobj is self._sock and not self._stopping:
                        self._accept()
        self._sock.close()
        self._shutdown_connections()
        os.close(self._wake_r)
        os.close(self._wake_w)

    def _accept(self) -> None:
        try:
            sock, _ = self._sock.accept()
        except OSError as exc:
            log.warning("accept failed: %s", exc)
            return
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self._lock:
            if len(self._open) >= MAX_CONNECTIONS:
                self._refuse(sock)
                return
            conn = Connection(sock, self._ctx)
            thread = threading.Thread(target=self._serve, args=(conn,), name="sparkwire-conn", daemon=True)
            self._open[conn] = thread
        thread.start()

    def _serve(self, conn: Connection) -> None:
        try:
            conn.serve()
        finally:
            with self._lock:
                self._open.pop(conn, None)

    @staticmethod
    def _refuse(sock: socket.socket) -> None:
        try:
            sock.settimeout(1)
            sock.sendall(be.error_response(_TOO_MANY))
        except OSError:
            pass
        finally:
            sock.close()

    def _shutdown_connections(self) -> None:
        with self._lock:
            open_now = list(self._open.items())
        log.info("shutting down: %d open connections", len(open_now))
        for conn, _ in open_now:
            conn.shutdown()
        deadline = time.monotonic() + SHUTDOWN_GRACE
        for _, thread in open_now:
            thread.join(max(0.0, deadline - time.monotonic()))
