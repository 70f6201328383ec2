"""What the session hands the history: one `Execution` per sampled statement, one `SessionRecord` per session.

Contract: an `Execution` is created by the session when a statement begins (`began_at`, the session's facts at that
moment: cluster, search_path, isolation, transaction id, the prepared statement it runs) and completed by
`finish(status, …)` once — `success`, `error` (with the message), `canceled` or `aborted` (the connection went away
before the result was read). Until then it is in flight: the history shows it with `finished_at` NULL. Its lifecycle
is three times: `began_at`, `dependencies_finished_at` (`dependencies_finished()`: the engine answered) and
`finished_at`. All fields are plain values; nothing here touches an engine, so making and finishing a record costs
the statement a few microseconds. `row(text)` renders the record in `ACTIVITY_COLUMNS` order given its kept text
(sqltext.keep), followed by `dependencies_finished_at` (the history database's execution tables carry it for the
lifecycle view)."""

from __future__ import annotations

import datetime
import random
import uuid
from dataclasses import dataclass, field

from sparkwire.version import MZ_VERSION

FinishedStatus = str  # "success" | "error" | "canceled" | "aborted"


def now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


@dataclass(frozen=True, slots=True)
class SessionRecord:
    session_id: uuid.UUID
    connected_at: datetime.datetime
    initial_application_name: str
    authenticated_user: str
    session_text: str = field(init=False, repr=False, compare=False)  # the id as text, made once per session

    def __post_init__(self) -> None:
        object.__setattr__(self, "session_text", str(self.session_id))

    def row(self) -> tuple[object, ...]:
        return (self.session_text, self.connected_at, self.initial_application_name, self.authenticated_user)


@dataclass(frozen=True, slots=True)
class ExecutionContext:
    """The session's facts an execution records, shared by every execution until one of them changes (the session
    makes a new one when its variables do: building these per statement would cost more than the statement)."""

    session: SessionRecord
    sample_rate: float
    cluster_id: str | None
    cluster_name: str | None
    application_name: str
    database_name: str
    search_path: tuple[str, ...]
    transaction_isolation: str


def new_id() -> uuid.UUID:
    """A random (version 4) UUID without a system call per id: ids name executions, they guard nothing."""
    return uuid.UUID(int=random.getrandbits(128), version=4)


@dataclass(slots=True)
class Execution:
    context: ExecutionContext
    sql: str
    transaction_id: int
    prepared_statement_name: str
    statement_type: str | None
    params: tuple[str | None, ...] = ()
    throttled_count: int = 0  # statements not logged (over the data rate) since the one logged before it
    execution_id: uuid.UUID = field(default_factory=new_id)
    began_at: datetime.datetime = field(default_factory=now)
    execution_strategy: str | None = None
    execution_timestamp: int | None = None
    finished_at: datetime.datetime | None = None
    finished_status: FinishedStatus | None = None
    error_message: str | None = None
    result_size: int | None = None
    rows_returned: int | None = None
    dependencies_finished_at: datetime.datetime | None = None

    @property
    def finished(self) -> bool:
        return self.finished_at is not None

    def dependencies_finished(self) -> None:
        """Its result is computed (the engine answered); the client may still be reading it."""
        self.dependencies_finished_at = now()

    def finish(
        self,
        status: FinishedStatus,
        *,
        error: str | None = None,
        rows: int | None = None,
        size: int | None = None,
    ) -> None:
        if self.finished_at is not None:
            return
        self.finished_status = status
        self.error_message = error
        self.rows_returned = rows
        self.result_size = size
        self.finished_at = now()

    def row(self, sql_hash: bytes, sql: str, redacted_sql: str) -> tuple[object, ...]:
        c, s = self.context, self.context.session
        return (
            str(self.execution_id), c.sample_rate, c.cluster_id, c.application_name, c.cluster_name,
            c.database_name, c.search_path, c.transaction_isolation, self.execution_timestamp, None,
            self.params, MZ_VERSION, self.began_at, self.finished_at, self.finished_status, self.error_message,
            self.result_size, self.rows_returned, self.execution_strategy, self.transaction_id,
            str(uuid.UUID(int=self.execution_id.int ^ _PREPARED, version=4)), sql_hash, self.prepared_statement_name,
            s.session_text, self.began_at, self.statement_type, self.throttled_count, s.connected_at,
            s.initial_application_name, s.authenticated_user, sql, redacted_sql, self.dependencies_finished_at,
        )  # fmt: skip


# sparkwire prepares each execution anew: its prepared statement's id is derived from the execution's (stable, distinct)
_PREPARED = 0x5BA2C3E1_0000_4000_8000_000000000000
