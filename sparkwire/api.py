"""The contract between the pgwire frontend (server/) and everything behind it.

The server owns bytes, framing, authentication, "skip until Sync after an error" and value encoding; a `Session`
owns SQL: statements, portals, cursors, transactions, session variables, execution. The server never parses SQL.

Threading contract: every `Session` method that may block (parse, bind, describe, execute, sync, fetching rows from a
`RowStream`) is called from a worker thread, never from the event loop, and never concurrently for one session.
`Session.cancel()` is the one method that may be called from any thread at any time.

Errors: methods raise `sparkwire.errors.PgError`. Any other exception is a bug: the server logs it and reports
`XX000`. After an error inside an explicit transaction the session itself moves to the failed state ('E').
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Literal, Protocol

import pyarrow as pa

TransactionStatus = Literal["I", "T", "E"]
FormatCode = Literal[0, 1]  # 0 = text, 1 = binary


@dataclass(frozen=True, slots=True)
class Field:
    """One RowDescription field. `type_oid`/`type_size`/`type_modifier` as PostgreSQL reports them."""

    name: str
    type_oid: int
    type_size: int = -1
    type_modifier: int = -1
    table_oid: int = 0
    column_attr: int = 0


@dataclass(frozen=True, slots=True)
class Notice:
    """A NoticeResponse. Any layer may emit one through the session's notice sink."""

    message: str
    severity: str = "NOTICE"  # NOTICE, WARNING, INFO, DEBUG, LOG
    sqlstate: str = "00000"
    detail: str | None = None
    hint: str | None = None


@dataclass(frozen=True, slots=True)
class StatementDescription:
    """Answer to Describe of a prepared statement: ParameterDescription + RowDescription (or NoData if None)."""

    param_oids: tuple[int, ...]
    fields: tuple[Field, ...] | None


class RowStream(Protocol):
    """Result rows as Arrow record batches, produced lazily. `next()` blocks; call it off the event loop.

    Columns are in `fields` order; a column's Arrow type is whatever the engine produced, and the encoder converts
    it to the wire representation of the field's `type_oid`. `close()` releases engine resources early (a portal
    closed before exhaustion); it is idempotent.
    """

    def __iter__(self) -> Iterator[pa.RecordBatch]: ...

    def __next__(self) -> pa.RecordBatch: ...

    def close(self) -> None: ...


# ---- results: a closed set ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EmptyQuery:
    """An empty statement string: EmptyQueryResponse."""


@dataclass(frozen=True, slots=True)
class CommandComplete:
    """A statement that returns no rows. `tag` is the full CommandComplete tag, e.g. "INSERT 0 3", "CREATE TABLE"."""

    tag: str


@dataclass(slots=True)
class Rows:
    """Rows to send as DataRow messages.

    `fields` is the RowDescription (sent by the server for simple queries; for Execute the client has it from
    Describe). `tag_prefix` is e.g. "SELECT" or "FETCH"; the server appends the number of rows it sent ("SELECT 3").
    For INSERT/UPDATE/DELETE … RETURNING, `tag` is the complete tag to use instead. `formats` are the
    per-column format codes to encode with (already expanded to one per field).

    For an Execute with a row limit the server stops after `max_rows` rows and sends PortalSuspended when the
    stream is not exhausted; the session keeps the stream in the portal for the next Execute.
    """

    fields: tuple[Field, ...]
    stream: RowStream
    formats: tuple[FormatCode, ...]
    tag_prefix: str = "SELECT"
    tag: str | None = None
    live: bool = False  # a SUBSCRIBE: each batch goes to the client as soon as it is read (flushed)


@dataclass(frozen=True, slots=True)
class CopyOut:
    """COPY … TO STDOUT: the server sends CopyOutResponse, one CopyData per row, CopyDone, CommandComplete COPY n.

    `format` is "text", "csv" or "binary"; `delimiter`, `null`, `header`, `quote`, `escape` follow COPY options.
    `live`: a COPY (SUBSCRIBE …): each batch goes to the client as soon as it is read (flushed), not when the
    output buffer fills.
    """

    fields: tuple[Field, ...]
    stream: RowStream
    format: Literal["text", "csv", "binary"] = "text"
    delimiter: str = "\t"
    null: str = "\\N"
    header: bool = False
    quote: str = '"'
    escape: str = '"'
    live: bool = False


class CopyInSink(Protocol):
    """Receives COPY FROM STDIN data. `write` gets raw CopyData payloads in order (called off the loop);
    `finish` commits and returns the row count; `abort` discards everything (CopyFail or error)."""

    def write(self, data: bytes) -> None: ...

    def finish(self) -> int: ...

    def abort(self, reason: str) -> None: ...


@dataclass(frozen=True, slots=True)
class CopyIn:
    """COPY … FROM STDIN: the server sends CopyInResponse with `column_count` columns in `format`, feeds every
    CopyData to `sink`, and on CopyDone sends CommandComplete `COPY <sink.finish()>`."""

    column_count: int
    sink: CopyInSink
    format: Literal["text", "csv", "binary"] = "text"


Result = EmptyQuery | CommandComplete | Rows | CopyOut | CopyIn


# ---- the session --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StartupInfo:
    """What the client sent in StartupMessage, after authentication succeeded."""

    user: str
    database: str
    application_name: str = ""
    options: dict[str, str] = field(default_factory=dict)  # from `options=-c name=value` and other GUC keys
    backend_pid: int = 0


NoticeSink = Callable[[Notice], None]
ParameterStatusSink = Callable[[str, str], None]


class Session(Protocol):
    """One client session. Created by a `SessionFactory` after authentication."""

    @property
    def transaction_status(self) -> TransactionStatus: ...

    def reported_parameters(self) -> dict[str, str]:
        """ParameterStatus values to send after authentication (server_version, TimeZone, …)."""
        ...

    def idle_timeout(self) -> float | None:
        """Seconds the server waits for the client's next message while the session is idle in a transaction
        block (idle_in_transaction_session_timeout) before it ends the connection with FATAL 25P03; None: no
        limit (outside a block, or the setting is 0)."""
        ...

    # simple query protocol
    def simple_query(self, sql: str) -> Iterator[Result]:
        """Run every statement of `sql` in order, yielding one result per statement as it runs.

        The iterator raises PgError at the failing statement; the server then stops iterating. Implicit
        transaction rules of the simple protocol (one implicit transaction per string) are the session's job.
        """
        ...

    # extended query protocol
    def parse(self, name: str, sql: str, param_oids: list[int]) -> None: ...

    def bind(
        self,
        portal: str,
        statement: str,
        param_formats: list[int],
        params: list[bytes | None],
        result_formats: list[int],
    ) -> None: ...

    def describe_statement(self, name: str) -> StatementDescription: ...

    def describe_portal(self, name: str) -> tuple[Field, ...] | None: ...

    def execute(self, portal: str, max_rows: int) -> Result:
        """Execute a bound portal. For a row-returning portal this returns `Rows` whose stream resumes where the
        previous Execute of the same portal stopped."""
        ...

    def close_statement(self, name: str) -> None: ...

    def close_portal(self, name: str) -> None: ...

    def sync(self) -> None:
        """Sync: end an implicit transaction (commit, or roll back if it failed); drop unnamed portals."""
        ...

    def fail(self) -> None:
        """Tell the session that an error occurred in the protocol layer (e.g. during encoding) so that an open
        explicit transaction moves to 'E'."""
        ...

    def cancel(self) -> None:
        """Interrupt the running statement (any thread). It then raises QueryCanceled (57014)."""
        ...

    def terminate(self) -> None:
        """The connection closed: roll back, release everything."""
        ...


class SessionFactory(Protocol):
    def __call__(
        self, startup: StartupInfo, notices: NoticeSink, parameter_status: ParameterStatusSink
    ) -> Session: ...


class BackendSignals(Protocol):
    """What the server offers the sessions for pg_cancel_backend / pg_terminate_backend: `signal(pid, terminate)`
    cancels the running statement of backend `pid`, or (terminate) ends its connection with FATAL 57P01 as
    PostgreSQL does; False when no such backend is connected. Privileges are the session's business."""

    def signal(self, pid: int, terminate: bool) -> bool: ...
