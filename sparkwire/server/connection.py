"""One client connection, served by its own thread with blocking socket I/O around the I/O-free protocol code.

Why a thread per connection and not asyncio: every Session call may block, so an asyncio design pays a hop to
a worker thread and back per round trip. Measured with `python -m bench.pgwire_asyncio` (same QueryProtocol,
same run): this design 11,700 simple / 8,600 prepared `SELECT 1` round trips/s, asyncio with the hop 4,400 /
4,000, asyncio advancing the generator on the loop (which would stall every client while the engine runs)
9,300 / 7,700; PostgreSQL 14,300 / 16,300. See docs/architecture.md, "Threading model". PostgreSQL too
serves each connection with its own process.

Contract:
- Startup phase, bounded as a whole by `STARTUP_TIMEOUT` seconds: SSLRequest → 'S' and a TLS handshake when a
  TLS context is configured, else 'N'; GSSENCRequest → 'N'; CancelRequest → look up (pid, secret) in the
  registry and close without reply; StartupMessage → NegotiateProtocolVersion if needed, authentication,
  session creation, ParameterStatus for `session.reported_parameters()`, BackendKeyData, ReadyForQuery.
  Startup packets are read with exact-size reads, so nothing is consumed past an SSLRequest before the TLS
  handshake.
- Query phase: frames go to `QueryProtocol.run()`; its output is sent (blocking `sendall`, which is the
  backpressure) whenever it waits for input or asks for a flush while streaming. Waiting for a new message while
  the session is in a transaction block lasts at most `session.idle_timeout()` (idle_in_transaction_session_timeout):
  then FATAL 25P03 and the connection closes, rolling the transaction back.
- Notices: those the session queues on the connection's own thread are written by the protocol (before the next
  result message); one queued from another thread (a running statement's progress) is written at once when the
  connection thread is inside the protocol (a statement runs, so nothing else writes to the socket then: a lock
  keeps the two writers apart), else at the protocol's next drain. NoticeResponse is an asynchronous message, so a
  client takes it between any two messages.
- Any error of this layer reaches the client as FATAL ErrorResponse and closes only this connection.
  `session.terminate()` always runs once a session exists. `cancel()` and `shutdown()` may be called from any
  thread.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import ssl
import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field

from sparkwire.api import Notice, NoticeSink, ParameterStatusSink, StartupInfo
from sparkwire.errors import (
    IdleInTransactionSessionTimeout,
    InternalError,
    PgError,
    ProtocolViolation,
    QueryCanceled,
)
from sparkwire.server import backend as be
from sparkwire.server.auth import AuthMethod
from sparkwire.server.cancel import CancelRegistry
from sparkwire.server.frontend import (
    CancelRequest,
    Framer,
    GSSENCRequest,
    SSLRequest,
    StartupMessage,
    decode_startup,
    startup_length,
)
from sparkwire.server.protocol import ADMIN_SHUTDOWN, QueryProtocol, ServerSession, Wait
from sparkwire.server.startup import NEWEST_MINOR, StartupRequest, interpret_startup

log = logging.getLogger(__name__)

STARTUP_TIMEOUT = 60.0
READ_SIZE = 256 * 1024
LINGER_SECONDS = 1.0
_PASSWORD = ord("p")

SessionFactory = Callable[[StartupInfo, NoticeSink, ParameterStatusSink], ServerSession]


@dataclass
class ServerContext:
    """Everything connections share: set up once by the listener's owner."""

    session_factory: SessionFactory
    auth: AuthMethod
    tls: ssl.SSLContext | None = None
    cancels: CancelRegistry = field(default_factory=CancelRegistry)


IDLE_IN_TRANSACTION = IdleInTransactionSessionTimeout(
    "terminating connection due to idle-in-transaction timeout", severity="FATAL"
)


class _Closed(Exception):
    """The client went away (EOF), or the server is shutting down this connection."""


class Connection:
    def __init__(self, sock: socket.socket, ctx: ServerContext) -> None:
        self._sock = sock
        self._ctx = ctx
        self._framer = Framer()
        # reads go into this one buffer: allocating a fresh READ_SIZE bytes object per recv costs ≈ 15 µs
        self._read_buffer = memoryview(bytearray(READ_SIZE))
        self._frames: deque[tuple[int, bytes]] = deque()
        self._session: ServerSession | None = None
        self._steps: Generator[Wait, None, None] | None = None
        self._protocol: QueryProtocol | None = None
        self._pid = 0
        self._deadline: float | None = None
        self._shutting_down = threading.Event()
        self._thread: threading.Thread | None = None
        self._notices: deque[Notice] = deque()
        self._send_lock = threading.Lock()  # the socket, between this thread and a notice from another one
        self._advancing = False  # this thread is inside the protocol, not touching the socket

    # ---- entry points -------------------------------------------------------------------------------------

    def serve(self) -> None:
        """Run the whole connection on the calling thread; returns when it is closed."""
        try:
            self._deadline = time.monotonic() + STARTUP_TIMEOUT
            request = self._startup()
            if request is None:
                return
            self._authenticate(request)
            protocol = self._open_session(request)
            self._deadline = None
            self._sock.settimeout(None)
            self._query_loop(protocol)
        except _Closed:
            pass
        except TimeoutError:
            self._fatal(QueryCanceled("canceling authentication due to timeout", severity="FATAL"))
        except PgError as err:
            err.severity = "FATAL"
            self._fatal(err)
        except OSError as exc:
            log.debug("connection lost: %s", exc)
        except Exception:
            log.exception("internal error in connection")
            self._fatal(InternalError("internal error", severity="FATAL"))
        finally:
            self._cleanup()

    def cancel(self) -> None:
        """CancelRequest target: interrupt the running statement, if any."""
        session = self._session
        if session is not None:
            session.cancel()

    def shutdown(self) -> None:
        """Server shutdown: interrupt what runs and stop reading; the client gets FATAL 57P01."""
        self._shutting_down.set()
        if self._protocol is not None:
            self._protocol.shutting_down = True
        self.cancel()
        with contextlib.suppress(OSError):
            socket.socket.shutdown(self._sock, socket.SHUT_RD)  # the plain-socket method, also under TLS

    # ---- socket helpers -----------------------------------------------------------------------------------

    def _recv(self, size: int) -> memoryview:
        """Up to `size` bytes, as a view of the reusable read buffer: valid until the next call."""
        if self._deadline is not None:
            self._sock.settimeout(max(0.001, self._deadline - time.monotonic()))
        count = self._sock.recv_into(self._read_buffer, size)
        if self._shutting_down.is_set():
            self._fatal(ADMIN_SHUTDOWN)
            raise _Closed
        if not count:
            raise _Closed
        return self._read_buffer[:count]

    def _read_exactly(self, size: int) -> bytes:
        chunks = bytearray()
        while len(chunks) < size:
            chunks += self._recv(size - len(chunks))
        return bytes(chunks)

    def _read_frame(self) -> tuple[int, bytes]:
        while not self._frames:
            self._frames.extend(self._framer.feed(self._recv(READ_SIZE)))
        return self._frames.popleft()

    def _fatal(self, err: PgError) -> None:
        try:
            self._sock.settimeout(5)
            self._sock.sendall(be.error_response(err))
        except OSError:
            pass

    # ---- startup ------------------------------------------------------------------------------------------

    def _startup(self) -> StartupRequest | None:
        tls_done = False
        while True:
            header = self._read_exactly(4)
            packet = decode_startup(self._read_exactly(startup_length(header) - 4))
            match packet:
                case SSLRequest() if self._ctx.tls is not None and not tls_done:
                    self._sock.sendall(be.SSL_YES)
                    self._sock = self._ctx.tls.wrap_socket(self._sock, server_side=True)
                    tls_done = True
                case SSLRequest() | GSSENCRequest():
                    self._sock.sendall(be.SSL_NO)
                case CancelRequest(pid=pid, secret=secret):
                    self._ctx.cancels.cancel(pid, secret)
                    return None
                case StartupMessage():
                    request = interpret_startup(packet)
                    if request.needs_negotiation:
                        self._sock.sendall(
                            be.negotiate_protocol_version(NEWEST_MINOR, request.unrecognized_protocol_options)
                        )
                    return request

    def _authenticate(self, request: StartupRequest) -> None:
        exchange = self._ctx.auth.exchange(request.user)
        try:
            message = next(exchange)
            while True:
                self._sock.sendall(message)
                type_byte, body = self._read_frame()
                if type_byte != _PASSWORD:
                    raise ProtocolViolation(
                        f"expected password response, got message type {type_byte}", severity="FATAL"
                    )
                message = exchange.send(body)
        except StopIteration as done:
            final: bytes = done.value
            self._sock.sendall(final + be.AUTH_OK)

    def _open_session(self, request: StartupRequest) -> QueryProtocol:
        notices = self._notices
        self._thread = threading.current_thread()
        statuses: deque[tuple[str, str]] = deque()
        self._pid, secret = self._ctx.cancels.register(self)
        info = StartupInfo(
            user=request.user,
            database=request.database,
            application_name=request.application_name,
            options=request.settings,
            backend_pid=self._pid,
        )

        def status_sink(name: str, value: str) -> None:
            statuses.append((name, value))

        session = self._ctx.session_factory(info, self._notice, status_sink)
        self._session = session
        reported = session.reported_parameters()
        statuses.clear()
        protocol = QueryProtocol(session, notices, statuses)
        protocol.out += b"".join(be.parameter_status(k, v) for k, v in reported.items())
        protocol.out += be.backend_key_data(self._pid, secret)
        protocol.ready()
        self._protocol = protocol
        return protocol

    # ---- query phase --------------------------------------------------------------------------------------

    def _query_loop(self, protocol: QueryProtocol) -> None:
        sock = self._sock
        out = protocol.out
        inbox = protocol.inbox
        inbox.extend(self._frames)
        self._frames.clear()
        steps = self._steps = protocol.run()
        for wait in self._advanced(steps):
            if out:
                sock.sendall(out)
                out.clear()
            elif wait is Wait.FLUSH:  # a live result's heartbeat (a SUBSCRIBE waiting for changes)
                self._check_client(sock)
            if wait is Wait.INPUT:
                inbox.extend(self._framer.feed(self._recv_next(protocol)))
        if out:
            sock.sendall(out)
            out.clear()

    @staticmethod
    def _check_client(sock: socket.socket) -> None:
        """End a live result whose client has gone: a closed socket reads as EOF (peeked, nothing consumed)."""
        if isinstance(sock, ssl.SSLSocket):
            return  # TLS has no peek; the next write finds out
        try:
            data = sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        except (BlockingIOError, InterruptedError):
            return
        if not data:
            raise ConnectionResetError("the client closed the connection")

    def _advanced(self, steps: Generator[Wait, None, None]) -> Iterator[Wait]:
        """`steps`, marking the time spent inside the protocol, when a notice from another thread may be sent."""
        while True:
            with self._send_lock:
                self._advancing = True
            try:
                wait = next(steps)
            except StopIteration:
                return
            finally:
                with self._send_lock:
                    self._advancing = False
            yield wait

    def _notice(self, notice: Notice) -> None:
        """The session's notice sink (any thread)."""
        self._notices.append(notice)
        if threading.current_thread() is self._thread:
            return
        with self._send_lock:
            if not self._advancing:
                return  # the protocol writes it at its next drain
            data = bytearray()
            while self._notices:
                try:
                    data += be.notice_response(self._notices.popleft())
                except IndexError:  # the protocol drained it meanwhile
                    break
            with contextlib.suppress(OSError):  # a lost client is noticed by the connection thread
                self._sock.sendall(data)

    def _recv_next(self, protocol: QueryProtocol) -> memoryview:
        """The next bytes from the client; idle in a transaction block longer than the session allows, the
        connection ends with FATAL 25P03 as in PostgreSQL (the session's transaction is rolled back on close)."""
        idle = protocol.session.idle_timeout() if not protocol.inbox else None
        if idle is None:
            return self._recv(READ_SIZE)
        self._sock.settimeout(idle)
        try:
            return self._recv(READ_SIZE)
        except TimeoutError:
            self._fatal(IDLE_IN_TRANSACTION)
            raise _Closed from None
        finally:
            with contextlib.suppress(OSError):
                self._sock.settimeout(None)

    # ---- end ----------------------------------------------------------------------------------------------

    def _cleanup(self) -> None:
        if self._pid:
            self._ctx.cancels.unregister(self._pid)
        try:
            if self._steps is not None:
                self._steps.close()
            if self._session is not None:
                self._session.terminate()
        except Exception:
            log.exception("closing the session failed")
        self._linger_close()

    def _linger_close(self) -> None:
        """Close without a reset: unread client bytes at close() make the kernel send RST, which can destroy a
        FATAL ErrorResponse still in flight. So: stop sending, discard input briefly, then close."""
        sock = self._sock
        with contextlib.suppress(OSError, ValueError):
            socket.socket.shutdown(sock, socket.SHUT_WR)
            deadline = time.monotonic() + LINGER_SECONDS
            while (left := deadline - time.monotonic()) > 0:
                sock.settimeout(left)
                if not socket.socket.recv(sock, 65536):
                    break
        with contextlib.suppress(OSError):
            sock.close()
