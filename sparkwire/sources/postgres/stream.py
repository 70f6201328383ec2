"""The replication connection: slot commands and the COPY BOTH stream of a logical replication slot.

Why psycopg 3's `pq` layer and not psycopg2's `LogicalReplicationConnection`: psycopg 3 (already a dependency) has
no replication API, but its documented libpq wrapper (`psycopg.pq.PGconn`) exposes what the streaming replication
protocol needs — a `replication=database` connection, `exec_` for the replication commands, `get_copy_data` /
`put_copy_data` on the COPY BOTH stream and the socket to wait on. The protocol on top is small (XLogData,
primary keepalive, standby status update; pgoutput is decoded in `pgoutput.py`), so this costs ~150 lines and no
second PostgreSQL driver with its own libpq build, type system and connection handling.

Contract: `ReplicationConnection(conninfo)` connects (`replication=database`); `create_slot(name)` →
(consistent_point LSN, exported snapshot name), the snapshot valid until the next command on this connection;
`start(slot, lsn, publication)` enters COPY BOTH; `messages(timeout)` yields (wal_start, payload) for each XLogData
received within `timeout` seconds and answers keepalives that ask for a reply; `acknowledge(lsn)` sends a standby
status update with write = flush = apply = `lsn`. Server errors raise `psycopg.Error` subclasses with SQLSTATE.
"""

from __future__ import annotations

import select
import struct
import time
from collections.abc import Iterator

import psycopg
from psycopg import pq

from sparkwire.sources.postgres.pgoutput import parse_lsn

_PG_EPOCH_US = 946_684_800_000_000  # 2000-01-01 in µs since the Unix epoch
_XLOG = struct.Struct("!QQq")
_KEEPALIVE = struct.Struct("!Qqb")
_STATUS = struct.Struct("!cQQQqb")
STATUS_INTERVAL = 10.0  # send a standby status update at least this often (wal_sender_timeout defaults to 60 s)


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def quote_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class ReplicationConnection:
    def __init__(self, conninfo: str, connect_timeout: int = 10) -> None:
        info = psycopg.conninfo.make_conninfo(
            conninfo, replication="database", connect_timeout=connect_timeout, application_name="sparkwire"
        )
        self._conn = pq.PGconn.connect(info.encode())
        if self._conn.status != pq.ConnStatus.OK:
            message = self._conn.get_error_message(encoding="utf-8")
            self._conn.finish()
            raise psycopg.OperationalError(message)
        self._acked = 0
        self._last_status = 0.0

    def close(self) -> None:
        self._conn.finish()

    def command(self, sql: str) -> list[tuple[str | None, ...]]:
        result = self._conn.exec_(sql.encode())
        if result.status == pq.ExecStatus.FATAL_ERROR:
            raise _error(result)
        return [
            tuple(
                None if result.get_value(row, col) is None else bytes(result.get_value(row, col) or b"").decode()
                for col in range(result.nfields)
            )
            for row in range(result.ntuples)
        ]

    def create_slot(self, slot: str) -> tuple[int, str]:
        (row,) = self.command(f"CREATE_REPLICATION_SLOT {quote_ident(slot)} LOGICAL pgoutput (SNAPSHOT 'export')")
        return parse_lsn(row[1] or "0/0"), row[2] or ""

    def start(self, slot: str, lsn: str, publication: str) -> None:
        options = f"proto_version '1', publication_names {quote_literal(quote_ident(publication))}"
        result = self._conn.exec_(f"START_REPLICATION SLOT {quote_ident(slot)} LOGICAL {lsn} ({options})".encode())
        if result.status != pq.ExecStatus.COPY_BOTH:
            raise _error(result)
        self._conn.nonblocking = 1

    def messages(self, timeout: float) -> Iterator[tuple[int, bytes]]:
        """XLogData payloads as they arrive, for at most `timeout` seconds without any."""
        deadline = time.monotonic() + timeout
        while True:
            if time.monotonic() - self._last_status > STATUS_INTERVAL:
                self.acknowledge(self._acked)
            size, data = self._conn.get_copy_data(1)
            if size == 0:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                select.select([self._conn.socket], [], [], remaining)
                self._conn.consume_input()
                continue
            if size < 0:
                result = self._conn.get_result()
                if result is not None and result.status == pq.ExecStatus.FATAL_ERROR:
                    raise _error(result)
                raise psycopg.OperationalError(
                    "the upstream PostgreSQL ended the replication stream: "
                    + (self._conn.get_error_message(encoding="utf-8") or "connection closed")
                )
            payload = bytes(data)
            if payload[:1] == b"w":
                wal_start, _end, _time = _XLOG.unpack_from(payload, 1)
                yield wal_start, payload[1 + _XLOG.size :]
                deadline = time.monotonic() + timeout
            elif payload[:1] == b"k":
                wal_end, _time, reply = _KEEPALIVE.unpack_from(payload, 1)
                yield wal_end, b""  # an empty payload: a keepalive, WAL sent up to wal_end
                if reply:
                    self.acknowledge(self._acked)

    def acknowledge(self, lsn: int) -> None:
        self._acked = max(self._acked, lsn)
        now = int(time.time() * 1_000_000) - _PG_EPOCH_US
        self._conn.put_copy_data(_STATUS.pack(b"r", self._acked, self._acked, self._acked, now, 0))
        while self._conn.flush() == 1:
            select.select([], [self._conn.socket], [], 1.0)
        self._last_status = time.monotonic()


def _error(result: pq.abc.PGresult) -> psycopg.Error:
    """The psycopg exception for a failed command's result, with its SQLSTATE (`.sqlstate`)."""
    state = result.error_field(pq.DiagnosticField.SQLSTATE)
    try:
        cls = psycopg.errors.lookup(state.decode() if state else "XX000")
    except KeyError:
        cls = psycopg.DatabaseError
    error: psycopg.Error = cls(result.get_error_message(encoding="utf-8").strip())
    return error
