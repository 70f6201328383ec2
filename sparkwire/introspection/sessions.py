"""The session relations: mz_internal.mz_sessions and pg_catalog.pg_stat_activity, one row per connected session.

Contract: `SessionTable(engine)` (after `store.install`) holds a connection of its own; `started(info)` inserts the
session's row into both relations and `ended(connection_id)` deletes it; both are safe from any thread (a lock
serializes them) and each is one autocommitted statement per relation, so readers see a session from the moment
`started` returns. Values follow Materialize (mz_sessions: a random uuid `id`, `connection_id` = the backend pid
clients see, `role_id`, `client_ip`, `connected_at`) and PostgreSQL (pg_stat_activity: a `client backend` in state
`idle` whose query columns are NULL — sparkwire does not track statements there). The planner's service calls
`started` when it creates a session and `ended` when the session closes.
"""

from __future__ import annotations

import datetime
import threading
import uuid
from dataclasses import dataclass, field

from sparkwire.catalog.relations.mz import MZ_RELATIONS
from sparkwire.catalog.relations.pg import BUILTIN_RELATIONS
from sparkwire.engine.duckdb import DuckDBEngine
from sparkwire.introspection.tables import table_sql

_MZ_SESSIONS = table_sql(next(rel for rel in MZ_RELATIONS if rel.name == "mz_sessions"))
_PG_STAT_ACTIVITY = table_sql(next(rel for rel in BUILTIN_RELATIONS if rel.name == "pg_stat_activity"))


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


@dataclass(frozen=True, slots=True)
class SessionInfo:
    connection_id: int
    role_id: str
    role_oid: int
    user: str
    database: str
    database_oid: int
    application_name: str = ""
    client_ip: str | None = None
    client_port: int | None = None
    connected_at: datetime.datetime = field(default_factory=_now)
    id: uuid.UUID = field(default_factory=uuid.uuid4)


class SessionTable:
    def __init__(self, engine: DuckDBEngine) -> None:
        self._con = engine.connect()
        self._lock = threading.Lock()

    def started(self, info: SessionInfo) -> None:
        with self._lock:
            self._con.command(
                f"INSERT INTO {_MZ_SESSIONS} VALUES (?, ?, ?, ?, ?)",
                (str(info.id), info.connection_id, info.role_id, info.client_ip, info.connected_at),
            )
            self._con.command(
                f"INSERT INTO {_PG_STAT_ACTIVITY} (datid, datname, pid, usesysid, usename, application_name, "
                "client_addr, client_port, backend_start, state_change, state, backend_type) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'idle', 'client backend')",
                (
                    info.database_oid,
                    info.database,
                    info.connection_id,
                    info.role_oid,
                    info.user,
                    info.application_name,
                    info.client_ip,
                    info.client_port,
                    info.connected_at,
                    info.connected_at,
                ),
            )

    def ended(self, connection_id: int) -> None:
        with self._lock:
            self._con.command(f"DELETE FROM {_MZ_SESSIONS} WHERE connection_id = ?", (connection_id,))
            self._con.command(f"DELETE FROM {_PG_STAT_ACTIVITY} WHERE pid = ?", (connection_id,))

    def close(self) -> None:
        self._con.close()
