"""The query-phase protocol state machine of one connection, with no socket I/O.

Contract:
- Frames `(type_byte, body)` go into `inbox`; backend bytes accumulate in `out`. `run()` is a generator that
  processes frames and yields `Wait.INPUT` when it needs more frames (the driver writes `out`, reads, refills
  `inbox`, resumes) and `Wait.FLUSH` when `out` grew past `FLUSH_THRESHOLD` while streaming (the driver writes
  and drains, then resumes). It returns when the client sent Terminate or after a FATAL error; `closed` is
  then True.
- The driver advances `run()` on one thread at a time (Session calls block that thread). `shutting_down` may be
  set from any thread: the next frame is then answered with FATAL 57P01 instead of being processed.
- After an error in the extended protocol every frame up to Sync is discarded — undecoded — in exactly one
  place (`run`). Errors become ErrorResponse via `backend.error_response`; non-PgError exceptions are logged
  with their traceback and reported as XX000 "internal error", and the session stays usable.
- Notices queued by the session are written before each result message and before ReadyForQuery;
  ParameterStatus changes before ReadyForQuery (as PostgreSQL's ReportChangedGUCOptions does).
- A live result (`Rows.live` / `CopyOut.live`: a SUBSCRIBE) is flushed after every batch, so its rows reach the
  client while the stream waits for the next change; its empty batches (heartbeats while nothing changes) send
  nothing but let the driver notice a client that went away.
- Execute with max_rows > 0: the session's stream yields at most max_rows rows; having sent exactly max_rows
  rows the server answers PortalSuspended (PostgreSQL's rule), otherwise CommandComplete.
- Describe of a portal reports the result formats the client asked for in that portal's Bind.
- The DataRow bytes of the last small batch are reused when the very same (immutable) batch object comes back with
  the same types, formats and encode options (`_encode`): repeated constant results cost no encoding.
"""

from __future__ import annotations

import enum
import logging
from collections import deque
from collections.abc import Generator, Iterator
from typing import Protocol

import pyarrow as pa

from sparkwire.api import (
    CommandComplete,
    CopyIn,
    CopyOut,
    EmptyQuery,
    Notice,
    Result,
    Rows,
    Session,
)
from sparkwire.errors import (
    AdminShutdown,
    InternalError,
    PgError,
    ProtocolViolation,
    QueryCanceled,
)
from sparkwire.pgtypes import EncodeOptions, copy_header, copy_trailer, encode_copy_rows, encode_data_rows
from sparkwire.pgtypes.copy.binary import with_binary_header
from sparkwire.pgtypes.rows import SMALL_BATCH
from sparkwire.pgtypes.shared_rows import SHARED
from sparkwire.server import backend as be
from sparkwire.server.frontend import (
    AuthResponse,
    Bind,
    Close,
    CopyData,
    CopyDone,
    CopyFail,
    Describe,
    Execute,
    Flush,
    Message,
    Parse,
    Query,
    Sync,
    Terminate,
    decode,
)

log = logging.getLogger(__name__)
ADMIN_SHUTDOWN = AdminShutdown("terminating connection due to administrator command", severity="FATAL")

FLUSH_THRESHOLD = 256 * 1024
_QUERY, _EXECUTE, _SYNC, _TERMINATE = ord("Q"), ord("E"), ord("S"), ord("X")
_COPY_DATA, _COPY_DONE, _COPY_FAIL, _FLUSH = ord("d"), ord("c"), ord("f"), ord("H")


class Wait(enum.Enum):
    INPUT = "input"
    FLUSH = "flush"


class ServerSession(Session, Protocol):
    """What the server needs from a session beyond api.py's Session: the value-encoding settings."""

    def encode_options(self) -> EncodeOptions: ...


Steps = Generator[Wait, None, None]


class _Terminated(Exception):
    """Terminate arrived while a sub-protocol (COPY FROM STDIN) was waiting for data."""


class QueryProtocol:
    def __init__(self, session: ServerSession, notices: deque[Notice], statuses: deque[tuple[str, str]]) -> None:
        self.session = session
        self.out = bytearray()
        self.inbox: deque[tuple[int, bytes]] = deque()
        self.closed = False
        self.shutting_down = False  # set from another thread: no further statement starts
        self._notices = notices
        self._statuses = statuses
        self._skipping = False
        self._portal_formats: dict[str, list[int]] = {}
        self._memo: tuple[pa.RecordBatch, list[int], tuple[int, ...], EncodeOptions, bytes] | None = None

    # ---- driver side --------------------------------------------------------------------------------------

    def take_output(self) -> bytes:
        data = bytes(self.out)
        self.out.clear()
        return data

    def run(self) -> Steps:
        inbox = self.inbox
        while not self.closed:
            while not inbox:
                yield Wait.INPUT
            type_byte, body = inbox.popleft()
            if self.shutting_down:
                self._report(ADMIN_SHUTDOWN)
                return
            if self._skipping and type_byte != _SYNC and type_byte != _TERMINATE:
                continue
            try:
                msg = decode(type_byte, body)
                if type_byte in (_EXECUTE, _QUERY):
                    yield from self._streaming(msg)
                else:
                    self._handle(msg)
            except _Terminated:
                self._terminate()
            except Exception as exc:
                if self._report(exc):
                    return
                if type_byte == _QUERY:
                    self.ready()
                else:
                    self._skipping = True

    def _next_frame(self) -> Generator[Wait, None, tuple[int, bytes]]:
        while not self.inbox:
            yield Wait.INPUT
        return self.inbox.popleft()

    def _streaming(self, msg: Message) -> Steps:
        """Query and Execute: the messages whose results may stream (and so wait for flushes) or run COPY."""
        match msg:
            case Query(sql=sql):
                yield from self._simple_query(sql)
            case Execute(portal=portal, max_rows=max_rows):
                yield from self._send_result(self.session.execute(portal, max_rows), max_rows, describe=False)

    def _handle(self, msg: Message) -> None:
        """Every other message: answered at once."""
        session = self.session
        match msg:
            case Sync():
                self._sync()
            case Bind():
                session.bind(msg.portal, msg.statement, msg.param_formats, msg.params, msg.result_formats)
                self._portal_formats[msg.portal] = msg.result_formats
                self.out += be.BIND_COMPLETE
            case Describe(kind="P", name=name):
                fields = session.describe_portal(name)
                if fields is None:
                    self.out += be.NO_DATA
                else:
                    formats = _expand_formats(self._portal_formats.get(name, []), len(fields))
                    self.out += be.row_description(fields, formats)
            case Parse(name=name, sql=sql, param_oids=oids):
                session.parse(name, sql, oids)
                self.out += be.PARSE_COMPLETE
            case Describe(kind="S", name=name):
                desc = session.describe_statement(name)
                self.out += be.parameter_description(desc.param_oids)
                self.out += be.NO_DATA if desc.fields is None else be.row_description(desc.fields)
            case Close(kind="S", name=name):
                session.close_statement(name)
                self.out += be.CLOSE_COMPLETE
            case Close(kind="P", name=name):
                session.close_portal(name)
                self._portal_formats.pop(name, None)
                self.out += be.CLOSE_COMPLETE
            case Flush() | CopyData() | CopyDone() | CopyFail():
                pass  # output is written after every batch anyway; stray COPY messages are ignored (as in PG)
            case Terminate():
                self._terminate()
            case AuthResponse():
                raise ProtocolViolation("unexpected password message after authentication", severity="FATAL")

    # ---- phases -------------------------------------------------------------------------------------------

    def _terminate(self) -> None:
        self.closed = True

    def _sync(self) -> None:
        self._skipping = False
        self._portal_formats.pop("", None)
        try:
            self.session.sync()
        except Exception as exc:
            self._report(exc)
        self.ready()

    def ready(self) -> None:
        """Pending notices and ParameterStatus changes, then ReadyForQuery."""
        self._drain_notices()
        statuses = self._statuses
        while statuses:
            self.out += be.parameter_status(*statuses.popleft())
        self.out += be.ready_for_query(self.session.transaction_status)

    def _simple_query(self, sql: str) -> Steps:
        results: Iterator[Result] = self.session.simple_query(sql)
        try:
            for result in results:
                yield from self._send_result(result, 0, describe=True)
        except _Terminated:
            raise
        except Exception as exc:
            self._report(exc)
        finally:
            if isinstance(results, Generator):
                results.close()
        if not self.closed:
            self.ready()

    def _send_result(self, result: Result, max_rows: int, *, describe: bool) -> Steps:
        self._drain_notices()
        match result:
            case Rows():
                yield from self._send_rows(result, max_rows, describe)
            case CommandComplete(tag=tag):
                self.out += be.command_complete(tag)
            case EmptyQuery():
                self.out += be.EMPTY_QUERY_RESPONSE
            case CopyOut():
                yield from self._copy_out(result)
            case CopyIn():
                yield from self._copy_in(result)

    def _send_rows(self, rows: Rows, max_rows: int, describe: bool) -> Steps:
        out = self.out
        if describe:
            out += be.row_description(rows.fields, rows.formats)
        oids = [f.type_oid for f in rows.fields]
        formats = rows.formats
        count = 0
        try:
            options = self.session.encode_options()
            for batch in rows.stream:
                count += batch.num_rows
                if 0 < max_rows < count:
                    raise InternalError(f"row stream yielded more than the {max_rows} rows asked for")
                out += self._encode(batch, oids, formats, options)
                if len(out) >= FLUSH_THRESHOLD or rows.live:
                    yield Wait.FLUSH
                if max_rows and count == max_rows:
                    break
        except BaseException:
            rows.stream.close()
            self.session.fail()
            raise
        self._drain_notices()
        if max_rows > 0 and count == max_rows:
            out += be.PORTAL_SUSPENDED
        else:
            out += be.command_complete(rows.tag or f"{rows.tag_prefix} {count}")

    def _encode(
        self, batch: pa.RecordBatch, oids: list[int], formats: tuple[int, ...], options: EncodeOptions
    ) -> bytes:
        """DataRows of `batch`. The bytes of the last small batch are reused when the same batch object (immutable,
        and kept alive by the memo, so identity means same rows) comes back with the same types, formats and
        options object: a constant result the session answers from memory, such as a pool's `SELECT 1` health
        check, whose encoding would otherwise cost as much as the rest of the round trip. One batch per connection
        is kept. A batch many sessions send (pgtypes/shared_rows.py: cached answers, the activity log's newest rows)
        is encoded once per way of encoding it for all of them."""
        memo = self._memo
        if memo is not None and memo[0] is batch and memo[1] == oids and memo[2] == formats and memo[3] is options:
            return memo[4]
        shared = SHARED.encoded(batch, oids, formats, options)
        if shared is not None:
            return shared
        data = encode_data_rows(batch, oids, formats, options)
        if batch.num_rows < SMALL_BATCH:
            self._memo = (batch, oids, formats, options, data)
        SHARED.keep(batch, oids, formats, options, data)
        return data

    def _copy_out(self, copy: CopyOut) -> Steps:
        out = self.out
        oids = [f.type_oid for f in copy.fields]
        count = 0
        try:
            options = self.session.encode_options()
            out += be.copy_out_response(copy.format == "binary", len(copy.fields))
            binary_header = copy.format == "binary"  # sent inside the first row's CopyData, as PostgreSQL does
            if copy.header and not binary_header:
                out += copy_header(
                    [f.name for f in copy.fields],
                    copy.format,
                    delimiter=copy.delimiter,
                    null=copy.null,
                    quote=copy.quote,
                    escape=copy.escape,
                )
            for batch in copy.stream:
                data = encode_copy_rows(
                    batch, oids, copy.format, copy.delimiter, copy.null, copy.quote, copy.escape, options
                )
                if binary_header and data:
                    data, binary_header = with_binary_header(data), False
                out += data
                count += batch.num_rows
                if len(out) >= FLUSH_THRESHOLD or copy.live:
                    yield Wait.FLUSH
        except BaseException:
            copy.stream.close()
            self.session.fail()
            raise
        self._drain_notices()
        trailer = copy_trailer(copy.format)
        out += with_binary_header(trailer) if binary_header else trailer
        out += be.COPY_DONE
        out += be.command_complete(f"COPY {count}")

    def _copy_in(self, copy: CopyIn) -> Steps:
        sink = copy.sink
        self.out += be.copy_in_response(copy.format == "binary", copy.column_count)
        try:
            while True:
                type_byte, body = yield from self._next_frame()
                if type_byte == _COPY_DATA:
                    sink.write(body)
                elif type_byte == _COPY_DONE:
                    break
                elif type_byte == _COPY_FAIL:
                    fail = decode(type_byte, body)
                    reason = fail.message if isinstance(fail, CopyFail) else ""
                    raise QueryCanceled(f"COPY from stdin failed: {reason}")
                elif type_byte == _TERMINATE:
                    raise _Terminated
                elif type_byte not in (_FLUSH, _SYNC):  # PostgreSQL ignores Flush and Sync during COPY IN
                    raise ProtocolViolation(f"unexpected message type 0x{type_byte:02X} during COPY from stdin")
        except BaseException as exc:
            sink.abort(exc.message if isinstance(exc, PgError) else "connection closed")
            raise
        count = sink.finish()
        self._drain_notices()
        self.out += be.command_complete(f"COPY {count}")

    # ---- errors and notices -------------------------------------------------------------------------------

    def _drain_notices(self) -> None:
        notices = self._notices
        while notices:
            self.out += be.notice_response(notices.popleft())

    def _report(self, exc: Exception) -> bool:
        """The one place an exception becomes an ErrorResponse. True when it was FATAL (`closed` is set)."""
        if isinstance(exc, PgError):
            err = exc
        else:
            log.error("internal error while serving a query", exc_info=exc)
            err = InternalError("internal error")
            try:
                self.session.fail()
            except Exception:
                log.exception("session.fail() failed")
        self._drain_notices()
        self.out += be.error_response(err)
        if err.severity in ("FATAL", "PANIC"):
            self.closed = True
        return self.closed


def _expand_formats(codes: list[int], columns: int) -> tuple[int, ...] | None:
    """Bind's result format codes, one per column (None = all text)."""
    if not codes:
        return None
    if len(codes) == 1:
        return (codes[0],) * columns
    return tuple(codes) if len(codes) == columns else None
