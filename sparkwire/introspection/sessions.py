"""The session relations: mz_internal.mz_sessions and pg_catalog.pg_stat_activity, one row per connected session.

Contract: `SessionTable(engine)` (after `store.install`) replaces the store's two tables with views; `started(info)`
adds the session's row and `ended(connection_id)` removes it; both are safe from any thread and touch only memory
(a dict insert or delete: no engine statement on the connection path), so readers see a session from the moment
`started` returns. Values
follow Materialize (mz_sessions: a random uuid `id`, `connection_id` = the backend pid clients see, `role_id`,
`client_ip`, `connected_at`) and PostgreSQL (pg_stat_activity: a `client backend`). The planner's service calls
`started` when it creates a session and `ended` when the session closes.

Live state: `started` returns the session's `LiveActivity`, which the session updates in memory as statements
begin and end: state (`active` / `idle` / `idle in transaction` / `idle in transaction (aborted)`), query (the
running or last statement, cut at `QUERY_TEXT_BYTES` as PostgreSQL's track_activity_query_size), query_start,
state_change, xact_start, wait_event_type / wait_event (while the statement waits on Spark; `Client` /
`ClientRead` while the session waits for its client, as PostgreSQL shows an idle one). Those updates are a
few attribute writes; nothing is written to the store for them. mz_sessions and pg_stat_activity are views over
vectorized UDFs that read the sessions when a query runs: `SESSIONS_FUNCTION(0)` returns the list of mz_sessions rows
and `ACTIVITY_FUNCTION(0)` the list of pg_stat_activity rows (the static columns from `SessionInfo`, the live ones
from the `LiveActivity` objects), each view one recursive `unnest` of that list — so every reader sees every session
as it is at that moment (its own statement as `active`), and neither connecting nor the statements being observed
pay for it. `pids()` maps live backend pids to their role ids (pg_cancel_backend's privilege check). `peek(tree)`
(introspection/peeks.py) answers `SELECT <*, plain or aliased columns> FROM pg_catalog.pg_stat_activity` or
`mz_internal.mz_sessions` (schema-qualified, no other clause) from the same rows without the store: the columns and
Arrow types the store's view exports, read from it once at start.

One function and one unnest per relation: pg_stat_activity was a UDF for the static columns, a second, per-row UDF
for the live ones and a projection of every struct field, ~0.3–1 ms more CPU a query (issue 14).
"""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

import pyarrow as pa
from sqlglot import exp

from sparkwire.catalog.relations.mz import MZ_RELATIONS
from sparkwire.catalog.relations.pg import BUILTIN_RELATIONS
from sparkwire.engine.base import Column
from sparkwire.engine.duckdb import DuckDBEngine
from sparkwire.introspection.history.sqltext import secret_free
from sparkwire.introspection.peeks import Answer, plain_select, select
from sparkwire.introspection.tables import arrow_type, engine_type, quoted, table_sql

QUERY_TEXT_BYTES = 1024
SESSIONS_FUNCTION = "sw_sessions_rows"
ACTIVITY_FUNCTION = "sw_stat_activity_rows"
_PG_STAT_ACTIVITY_REL = next(rel for rel in BUILTIN_RELATIONS if rel.name == "pg_stat_activity")
_MZ_SESSIONS_REL = next(rel for rel in MZ_RELATIONS if rel.name == "mz_sessions")
_MZ_SESSIONS = table_sql(_MZ_SESSIONS_REL)
_PG_STAT_ACTIVITY = table_sql(_PG_STAT_ACTIVITY_REL)
_Row = dict[str, object]
_LIVE_COLUMNS = ("xact_start", "query_start", "state_change", "wait_event_type", "wait_event", "state", "query")


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


def _arrow_struct(columns: list[tuple[str, str]]) -> pa.StructType:
    return pa.struct([(name, arrow_type(engine_type(pg_type))) for name, pg_type in columns])


def _query_text(sql: str) -> str:
    if len(sql) * 4 <= QUERY_TEXT_BYTES:
        return sql
    return sql.encode()[:QUERY_TEXT_BYTES].decode(errors="ignore")


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


@dataclass(slots=True)
class LiveActivity:
    """One session's pg_stat_activity state, written by the session's thread, read by `ACTIVITY_FUNCTION`."""

    pid: int
    role_id: str
    state: str = "idle"
    query: str | None = None
    query_start: datetime.datetime | None = None
    state_change: datetime.datetime = field(default_factory=_now)
    xact_start: datetime.datetime | None = None
    wait_event_type: str | None = None
    wait_event: str | None = None

    def began(self, sql: str) -> None:
        at = _now()
        self.query, self.query_start = _query_text(secret_free(sql)), at
        if self.xact_start is None:
            self.xact_start = at
        self.wait_event_type = self.wait_event = None
        self.state, self.state_change = "active", at

    def finished(self, state: str) -> None:
        if state == "idle":
            self.xact_start = None
        self.wait_event_type = self.wait_event = None
        self.state, self.state_change = state, _now()

    def waiting(self, event_type: str | None, event: str | None) -> None:
        self.wait_event_type, self.wait_event = event_type, event

    def values(self) -> dict[str, object]:
        idle = self.state != "active"  # waiting for the client's next message, as PostgreSQL says it
        return {
            "xact_start": self.xact_start,
            "query_start": self.query_start,
            "state_change": self.state_change,
            "wait_event_type": "Client" if idle else self.wait_event_type,
            "wait_event": "ClientRead" if idle else self.wait_event,
            "state": self.state,
            "query": self.query,
        }


def _struct_sql(columns: list[tuple[str, str]]) -> str:
    return f"STRUCT({', '.join(f'{quoted(name)} {engine_type(pg_type)}' for name, pg_type in columns)})"


def _rows_view(view: str, function: str) -> str:
    """A view whose rows are the list of structs `function(0)` returns, one column per field in the struct's order
    (the argument only makes DuckDB call it)."""
    return f"CREATE VIEW {view} AS SELECT unnest({function}(0), recursive := true)"


class SessionTable:
    def __init__(self, engine: DuckDBEngine) -> None:
        self._con = engine.connect(counts_writes=False)  # live relations are never cached
        self._live: dict[int, LiveActivity] = {}
        self._sessions: dict[int, SessionInfo] = {}
        sessions = list(_MZ_SESSIONS_REL.columns)
        activity = list(_PG_STAT_ACTIVITY_REL.columns)
        self._sessions_type = pa.list_(_arrow_struct(sessions))
        self._activity_type = pa.list_(_arrow_struct(activity))
        engine.register_function(
            SESSIONS_FUNCTION, self._session_rows, ["INTEGER"], f"{_struct_sql(sessions)}[]", vectorized=True
        )
        engine.register_function(
            ACTIVITY_FUNCTION, self._activity_rows, ["INTEGER"], f"{_struct_sql(activity)}[]", vectorized=True
        )
        for table, function in ((_MZ_SESSIONS, SESSIONS_FUNCTION), (_PG_STAT_ACTIVITY, ACTIVITY_FUNCTION)):
            self._con.command(f"DROP TABLE IF EXISTS {table}")  # the store's empty tables: views instead
            self._con.command(_rows_view(table, function))
        self._peeked: dict[tuple[str, str], tuple[list[Column], pa.Schema, Callable[[], list[_Row]]]] = {}
        for rel, table, rows in (
            (_MZ_SESSIONS_REL, _MZ_SESSIONS, self._session_dicts),
            (_PG_STAT_ACTIVITY_REL, _PG_STAT_ACTIVITY, self._activity_dicts),
        ):
            columns, schema = self._con.describe_arrow(f"SELECT * FROM {table}")
            self._peeked[(rel.schema, rel.name)] = (columns, schema, rows)
        self._names = {key: tuple(c.name for c in value[0]) for key, value in self._peeked.items()}

    def _session_dicts(self) -> list[_Row]:
        return [
            {"id": str(i.id), "connection_id": i.connection_id, "role_id": i.role_id, "client_ip": i.client_ip,
             "connected_at": i.connected_at}
            for i in list(self._sessions.values())
        ]

    def _session_rows(self, calls: pa.Array) -> pa.Array:
        return pa.array([self._session_dicts()] * len(calls), self._sessions_type)

    def _activity_dicts(self) -> list[_Row]:
        """pg_stat_activity: the columns that do not change while a session lives, then its live ones (the rest
        NULL). A session that ends between the two lookups is left out."""
        live = self._live
        return [
            {"datid": i.database_oid, "datname": i.database, "pid": i.connection_id, "usesysid": i.role_oid,
             "usename": i.user, "application_name": i.application_name, "client_addr": i.client_ip,
             "client_port": i.client_port, "backend_start": i.connected_at, "backend_type": "client backend"}
            | activity.values()
            for i in list(self._sessions.values())
            if (activity := live.get(i.connection_id)) is not None
        ]

    def _activity_rows(self, calls: pa.Array) -> pa.Array:
        return pa.array([self._activity_dicts()] * len(calls), self._activity_type)

    def peek(self, tree: exp.Expr) -> Answer | None:
        found = plain_select(tree, self._names)
        if found is None:
            return None
        columns, arrow_schema, rows = self._peeked[found[0]]
        # the rows as one struct array: one conversion, where from_pylist makes one per column (~2x the time)
        batch = pa.RecordBatch.from_struct_array(pa.array(rows(), pa.struct(list(arrow_schema))))
        named, table = select(pa.Table.from_batches([batch], schema=arrow_schema), columns, found[1])
        return named, table.to_batches()

    def pids(self) -> dict[int, str]:
        return {pid: live.role_id for pid, live in list(self._live.items())}

    def started(self, info: SessionInfo) -> LiveActivity:
        live = LiveActivity(info.connection_id, info.role_id, state_change=info.connected_at)
        self._live[info.connection_id] = live
        self._sessions[info.connection_id] = info
        return live

    def ended(self, connection_id: int) -> None:
        self._sessions.pop(connection_id, None)
        self._live.pop(connection_id, None)

    def close(self) -> None:
        self._con.close()
