"""What the session hands the history: one `Execution` per sampled statement, one `SessionRecord` per session.

Contract: an `Execution` is created by the session when a statement begins (`began_at`, the session's facts at
that moment: cluster, search_path, isolation, transaction id, the prepared statement it runs) and completed by
`finish(status, …)` once — `success`, `error` (with the message), `canceled` or `aborted` (the connection went away
before the result was read). Until then it is in flight: the history shows it with `finished_at` NULL. Events are
the lifecycle (`execution-began`, `compute-dependencies-finished`, `execution-finished`) with their times. All
fields are plain values; nothing here touches an engine, so making and finishing a record costs the statement a few
microseconds. `row(text)` renders the record in `ACTIVITY_COLUMNS` order given its kept text (sqltext.keep).
"""

from __future__ import annotations

import datetime
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

    def row(self) -> tuple[object, ...]:
        return (str(self.session_id), self.connected_at, self.initial_application_name, self.authenticated_user)


@dataclass(slots=True)
class Execution:
    session: SessionRecord
    sql: str
    sample_rate: float
    cluster_id: str | None
    cluster_name: str | None
    application_name: str
    database_name: str
    search_path: tuple[str, ...]
    transaction_isolation: str
    transaction_id: int
    prepared_statement_id: uuid.UUID
    prepared_statement_name: str
    prepared_at: datetime.datetime
    statement_type: str | None
    params: tuple[str | None, ...] = ()
    execution_id: uuid.UUID = field(default_factory=uuid.uuid4)
    began_at: datetime.datetime = field(default_factory=now)
    execution_strategy: str | None = None
    execution_timestamp: int | None = None
    finished_at: datetime.datetime | None = None
    finished_status: FinishedStatus | None = None
    error_message: str | None = None
    result_size: int | None = None
    rows_returned: int | None = None
    events: list[tuple[str, datetime.datetime]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.events.append(("execution-began", self.began_at))

    @property
    def finished(self) -> bool:
        return self.finished_at is not None

    def event(self, kind: str) -> None:
        self.events.append((kind, now()))

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
        self.events.append(("execution-finished", self.finished_at))

    def row(self, sql_hash: bytes, sql: str, redacted_sql: str) -> tuple[object, ...]:
        s = self.session
        return (
            str(self.execution_id), self.sample_rate, self.cluster_id, self.application_name, self.cluster_name,
            self.database_name, self.search_path, self.transaction_isolation, self.execution_timestamp, None,
            self.params, MZ_VERSION, self.began_at, self.finished_at, self.finished_status, self.error_message,
            self.result_size, self.rows_returned, self.execution_strategy, self.transaction_id,
            str(self.prepared_statement_id), sql_hash, self.prepared_statement_name, str(s.session_id),
            self.prepared_at, self.statement_type, 0, s.connected_at, s.initial_application_name,
            s.authenticated_user, sql, redacted_sql,
        )  # fmt: skip
