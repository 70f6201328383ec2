"""The corpus of bench/fuzz_protocol.py: client → server byte streams of real client sessions, cut into frames.

`record_corpus(port, auth=None)` puts a loopback `RecordingProxy` in front of a running server and drives real
sessions through it — psycopg (simple queries, a multi-statement query, extended queries with text, binary and NULL
parameters, a prepared statement, a pipeline, a server-side cursor, COPY FROM STDIN in text and binary format, a COPY
that the client aborts (CopyFail), COPY TO STDOUT, a transaction with an error and ROLLBACK both ways, CancelRequests
old and new style; psycopg's default sslmode=prefer sends SSLRequest before its startup packet, one session uses
sslmode=disable), a hand-written session for what drivers rarely send (Describe of statements and portals, Close,
Execute with a row limit, Flush, an empty query) and, when `auth` names a password server (port, password), a
SCRAM login. Each recorded stream is split into its untyped packets (SSLRequest, StartupMessage, CancelRequest) and
its typed frames. The server needs the table `fz_t (a int, b text)` (`setup_sql`).
"""

from __future__ import annotations

import contextlib
import socket
import struct
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import psycopg

from tests.fixtures import wire
from tests.fixtures.wire import RawClient

SSL_REQUEST_CODE = 80877103
GSSENC_REQUEST_CODE = 80877104
CANCEL_REQUEST_CODE = 80877102
SETUP_SQL = ("CREATE TABLE IF NOT EXISTS fz_t (a int, b text)",)
CATALOG_QUERY = (
    "SELECT n.nspname, c.relname FROM pg_catalog.pg_class c "
    "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.relname LIKE 'fz%' ORDER BY 1, 2"
)
# what ends a unit: the frame after which the server answers ReadyForQuery (Query, unless COPY data follows)
_ENDS_UNIT = frozenset(b"SXcf")
_COPY_FRAMES = frozenset(b"dcf")


@dataclass(frozen=True)
class RecordedSession:
    """One recorded connection: its startup-family packets in order, then its typed frames (each complete: type
    byte, length, body). `auth`: recorded against the password server."""

    untyped: tuple[bytes, ...]
    frames: tuple[bytes, ...]
    auth: bool = False

    @property
    def is_cancel(self) -> bool:
        return bool(self.untyped) and _code(self.untyped[-1]) == CANCEL_REQUEST_CODE

    def units(self) -> list[list[bytes]]:
        """The frames in round trips: each unit ends with Sync, Terminate, CopyDone, CopyFail or a Query that no
        COPY data follows, so an intact unit gets its ReadyForQuery."""
        units: list[list[bytes]] = []
        current: list[bytes] = []
        for i, frame in enumerate(self.frames):
            current.append(frame)
            following = self.frames[i + 1][0] if i + 1 < len(self.frames) else None
            if frame[0] in _ENDS_UNIT or (frame[0] == ord("Q") and following not in _COPY_FRAMES):
                units.append(current)
                current = []
        if current:
            units.append(current)
        return units


@dataclass(frozen=True)
class Corpus:
    sessions: tuple[RecordedSession, ...]

    def startups(self, auth: bool = False) -> list[tuple[bytes, ...]]:
        return [s.untyped for s in self.sessions if s.auth == auth and s.untyped and not s.is_cancel]

    def cancels(self) -> list[bytes]:
        return [s.untyped[-1] for s in self.sessions if s.is_cancel]

    def query_sessions(self) -> list[RecordedSession]:
        return [s for s in self.sessions if not s.auth and not s.is_cancel and s.frames]

    def auth_sessions(self) -> list[RecordedSession]:
        return [s for s in self.sessions if s.auth and s.frames]

    def frame_count(self) -> int:
        return sum(len(s.untyped) + len(s.frames) for s in self.sessions)


def _code(packet: bytes) -> int:
    return struct.unpack_from("!i", packet, 4)[0] if len(packet) >= 8 else 0


def split_stream(data: bytes, auth: bool = False) -> RecordedSession:
    """Cut a client → server stream into startup-family packets and typed frames."""
    untyped: list[bytes] = []
    pos = 0
    while pos + 8 <= len(data):
        (length,) = struct.unpack_from("!i", data, pos)
        packet = data[pos : pos + length]
        untyped.append(packet)
        pos += length
        if _code(packet) not in (SSL_REQUEST_CODE, GSSENC_REQUEST_CODE):
            break
    frames: list[bytes] = []
    while pos + 5 <= len(data):
        (length,) = struct.unpack_from("!i", data, pos + 1)
        frames.append(data[pos : pos + 1 + length])
        pos += 1 + length
    return RecordedSession(tuple(untyped), tuple(frames), auth)


# ---- the recording proxy --------------------------------------------------------------------------------------


def _pump(src: socket.socket, dst: socket.socket, record: bytearray | None) -> None:
    try:
        while data := src.recv(65536):
            if record is not None:
                record += data
            dst.sendall(data)
    except OSError:
        pass
    with contextlib.suppress(OSError):
        dst.shutdown(socket.SHUT_WR)


class RecordingProxy:
    """A loopback TCP relay to `upstream_port` that keeps each connection's client → server bytes (`streams`, in
    the order the connections ended)."""

    def __init__(self, upstream_port: int) -> None:
        self._upstream = upstream_port
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.1)
        self._stopping = threading.Event()
        self.port: int = self._listener.getsockname()[1]
        self.streams: list[bytes] = []
        self._lock = threading.Lock()
        self._relays: list[threading.Thread] = []
        self._acceptor = threading.Thread(target=self._accept_loop, daemon=True)
        self._acceptor.start()

    def _accept_loop(self) -> None:
        while not self._stopping.is_set():
            try:
                client, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            client.settimeout(None)
            relay = threading.Thread(target=self._relay, args=(client,), daemon=True)
            with self._lock:
                self._relays.append(relay)
            relay.start()

    def _relay(self, client: socket.socket) -> None:
        recorded = bytearray()
        with client, socket.create_connection(("127.0.0.1", self._upstream)) as upstream:
            back = threading.Thread(target=_pump, args=(upstream, client, None), daemon=True)
            back.start()
            _pump(client, upstream, recorded)
            back.join(30)
        with self._lock:
            self.streams.append(bytes(recorded))

    def close(self) -> list[bytes]:
        """Stop accepting, wait for the open relays; the recorded streams."""
        self._stopping.set()
        self._acceptor.join(10)
        self._listener.close()
        with self._lock:
            relays = list(self._relays)
        for relay in relays:
            relay.join(30)
        with self._lock:
            return list(self.streams)


# ---- the sessions -------------------------------------------------------------------------------------------


def _dsn(port: int, **extra: str) -> str:
    return " ".join([f"host=127.0.0.1 port={port} user=materialize dbname=materialize"] + [
        f"{k}={v}" for k, v in extra.items()
    ])


class _Abort(Exception):
    pass


def _simple_session(port: int) -> None:
    with psycopg.connect(_dsn(port, application_name="fuzz-corpus"), autocommit=True) as conn:
        conn.execute("SELECT 1").fetchall()
        conn.execute("SELECT 1 AS a, 'two' AS b; SELECT 3")
        conn.execute("SET application_name = 'fuzz'")
        conn.execute("SHOW application_name").fetchall()
        conn.execute(CATALOG_QUERY).fetchall()
        conn.execute("SELECT i, 'row ' || i, i * 1.5 FROM generate_series(1, 5) i").fetchall()
        conn.execute("INSERT INTO fz_t VALUES (1, 'simple'), (2, NULL)")
        with contextlib.suppress(psycopg.Error):
            conn.execute("SELECT * FROM fz_missing")
        conn.execute("BEGIN")
        conn.execute("INSERT INTO fz_t VALUES (3, 'in a block')")
        with contextlib.suppress(psycopg.Error):
            conn.execute("SELECT 1 / 0")
        conn.execute("ROLLBACK")


def _extended_session(port: int) -> None:
    with psycopg.connect(_dsn(port, sslmode="disable", options="'-c search_path=public'"), autocommit=True) as conn:
        conn.execute("SELECT %s::int + %s::int, %s::text, %s::text IS NULL", [1, 2, "é", None]).fetchall()
        conn.cursor(binary=True).execute("SELECT %s::bigint, %s::text", [2**40, "binary"]).fetchall()
        for i in range(3):
            conn.execute("SELECT %s::int * 2, %s::text", [i, f"prepared {i}"], prepare=True).fetchone()
        conn.execute("INSERT INTO fz_t VALUES (%s, %s)", [4, "extended"])
        with conn.pipeline():
            conn.execute("SELECT %s::int", [5])
            conn.execute("SELECT %s::text || 'x'", ["pipe"])
        with contextlib.suppress(psycopg.Error):
            conn.execute("SELECT %s::int / 0", [7]).fetchall()
    with psycopg.connect(_dsn(port)) as conn:  # not autocommit: an implicit BEGIN, an error, ROLLBACK
        conn.execute("INSERT INTO fz_t VALUES (%s, %s)", [5, "tx"])
        with contextlib.suppress(psycopg.Error):
            conn.execute("SELECT %s::int / 0", [1])
        conn.rollback()
        with contextlib.suppress(psycopg.Error), conn.cursor(name="fz_cursor") as cur:
            cur.execute("SELECT generate_series(1, 10)")
            cur.fetchmany(3)
        conn.rollback()


def _copy_session(port: int) -> None:
    with psycopg.connect(_dsn(port), autocommit=True) as conn, conn.cursor() as cur:
        with cur.copy("COPY fz_t (a, b) FROM STDIN") as copy:
            for i in range(5):
                copy.write_row((i, f"copy {i}"))
            copy.write_row((9, None))
        with contextlib.suppress(psycopg.Error), cur.copy("COPY fz_t (a, b) FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types(["int4", "text"])
            copy.write_row((10, "binary copy"))
        with contextlib.suppress(_Abort, psycopg.Error), cur.copy("COPY fz_t FROM STDIN") as copy:
            copy.write(b"11\taborted\n")
            raise _Abort
        with cur.copy("COPY (SELECT i, 'row ' || i FROM generate_series(1, 5) i) TO STDOUT") as out:
            for _ in out:
                pass
        with cur.copy("COPY (SELECT 1 AS a, 'x' AS b) TO STDOUT (FORMAT CSV, HEADER)") as out:
            for _ in out:
                pass


def _cancel_session(port: int) -> None:
    with psycopg.connect(_dsn(port, sslmode="disable"), autocommit=True) as conn:
        conn.cancel()
        conn.cancel_safe()
        conn.execute("SELECT 1")


def _raw_session(port: int) -> None:
    client = RawClient(port, timeout=10)
    try:
        client.connect({"user": "materialize", "database": "materialize", "application_name": "raw"})
        client.send(
            wire.parse("fz_s", "SELECT $1::int + 1, $2::text", [23, 25]),
            wire.describe("S", "fz_s"),
            wire.bind("fz_p", "fz_s", [b"41", b"text"], [1]),
            wire.describe("P", "fz_p"),
            wire.execute("fz_p", 1),
            wire.FLUSH,
            wire.close("P", "fz_p"),
            wire.close("S", "fz_s"),
            wire.SYNC,
        )
        client.until_ready()
        client.send(wire.parse("", "SELECT generate_series(1, 4)"), wire.bind("", ""), wire.execute("", 2))
        client.send(wire.execute("", 0), wire.SYNC)
        client.until_ready()
        client.send(wire.query(""))
        client.until_ready()
        client.send(wire.TERMINATE)
        client.read_all()
    finally:
        client.close()


def _auth_session(port: int, password: str) -> None:
    with psycopg.connect(_dsn(port), password=password, autocommit=True) as conn:
        conn.execute("SELECT 1")


def _drive(args: list[str]) -> None:
    """Run in a child process (libpq's old-style cancel holds the GIL while it waits for the server, so the
    proxy's threads must live in another process): the sessions through proxy port(s)."""
    port = int(args[0])
    for session in (_simple_session, _extended_session, _copy_session, _cancel_session, _raw_session):
        session(port)
    if len(args) == 3:
        _auth_session(int(args[1]), args[2])


def record_corpus(port: int, auth: tuple[int, str] | None = None) -> Corpus:
    """Record the sessions against the server on `port` (and the password server `auth`: port, password)."""
    proxy = RecordingProxy(port)
    auth_proxy = RecordingProxy(auth[0]) if auth else None
    args = [str(proxy.port)] + ([str(auth_proxy.port), auth[1]] if auth and auth_proxy else [])
    try:
        subprocess.run(
            [sys.executable, "-m", "bench.fuzz_corpus", *args], cwd=Path(__file__).resolve().parents[1],
            check=True, timeout=120,
        )
    finally:
        sessions = [split_stream(s) for s in proxy.close() if s]
        if auth_proxy is not None:
            sessions += [split_stream(s, auth=True) for s in auth_proxy.close() if s]
    return Corpus(tuple(sessions))


if __name__ == "__main__":
    _drive(sys.argv[1:])
