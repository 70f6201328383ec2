"""The durable history database and the store's views over it.

Contract: `HistoryDatabase(engine, path)` attaches the DuckDB file `path` (created if missing; DuckDB's WAL makes
every committed batch survive a kill) to the engine's database as `HISTORY_CATALOG`, creates its tables if they do
not exist — `executions` (`ACTIVITY_COLUMNS` and `dependencies_finished_at`: finished statements, and the statements
in flight with `finished_at` NULL, rewritten when the set in flight changes), `sessions` — and replaces the
introspection store's empty mz_internal tables with views of `HISTORY_RELATIONS` over them. (One table, not a
second one for the statements in flight: the activity log's `ORDER BY began_at DESC LIMIT n` over a UNION ALL of
two took twice the CPU of the same query over one table, issue 14.) `write(...)` applies one
batch in one transaction on the writer's own connection; `expire(before)` deletes what is older than the retention.
Readers go through the views on their own connections and never wait for the writer (DuckDB's snapshot isolation).
Client SQL cannot name `HISTORY_CATALOG`: the rewrite only ever points names at the store's catalog (a three-part
name is 3D000)."""

from __future__ import annotations

import datetime
import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import cast

import pyarrow as pa

from sparkwire.catalog.relations.mz_history import (
    ACTIVE_PEEKS,
    ACTIVITY_COLUMNS,
    ACTIVITY_LOG,
    ACTIVITY_LOG_REDACTED,
    HISTORY_RELATIONS,
    LIFECYCLE_HISTORY,
    REDACTED_COLUMNS,
    SESSION_HISTORY,
    SQL_TEXT,
    SQL_TEXT_REDACTED,
)
from sparkwire.catalog.relations.relation import BuiltinRelation, Row, no_rows
from sparkwire.engine.base import Column
from sparkwire.engine.duckdb import DuckDBEngine
from sparkwire.errors import PgError
from sparkwire.introspection.tables import arrow_rows, column_sqls, engine_type, quoted, table_sql

log = logging.getLogger(__name__)

HISTORY_CATALOG = "sw_history"
HistoryRow = tuple[object, ...]  # a row of one of the history tables (timestamps are datetimes)
_BY_NAME = {rel.name: rel for rel in HISTORY_RELATIONS}
_EXECUTIONS = f"{HISTORY_CATALOG}.main.executions"
_OLD_RUNNING = f"{HISTORY_CATALOG}.main.running"  # the statements in flight had a table of their own before
_IN_FLIGHT = "finished_at IS NULL"
_FINISHED_AT = [name for name, _ in ACTIVITY_COLUMNS].index("finished_at")
_SESSIONS = f"{HISTORY_CATALOG}.main.sessions"
# Row groups of 2,048 rows (DuckDB's default is 122,880): the min / max of began_at per group let a top-N such as
# the activity log's `ORDER BY began_at DESC LIMIT 100` read the newest group or two and skip the rest (DuckDB
# orders a top-N's scan by those statistics), so its cost stays that of the LIMIT as the log grows — 2.8 ms over
# 106,050 rows against 6.4 ms with the default groups (issue 14).
ROW_GROUP_ROWS = 2048
# The execution tables hold the activity log's columns and one more, for the lifecycle view (Materialize's
# lifecycle events are three times of an execution: one row per execution instead of three per statement).
_EXECUTION_COLUMNS = (*ACTIVITY_COLUMNS, ("dependencies_finished_at", "timestamp with time zone"))
_EXECUTION_TABLE = BuiltinRelation("mz_internal", "executions", 0, _EXECUTION_COLUMNS, no_rows, from_state=False)
_TABLES = {
    _EXECUTIONS: _EXECUTION_TABLE,
    _SESSIONS: _BY_NAME[SESSION_HISTORY],
}


def _names(columns: Sequence[tuple[str, str]]) -> str:
    return ", ".join(quoted(name) for name, _ in columns)


def _views() -> dict[str, str]:
    log = table_sql(_BY_NAME[ACTIVITY_LOG])
    activity = _names(ACTIVITY_COLUMNS)
    lifecycle = " UNION ALL ".join(
        f"SELECT execution_id AS statement_id, '{kind}' AS event_type, {column} AS occurred_at FROM {_EXECUTIONS}"
        f" WHERE {column} IS NOT NULL"
        for kind, column in (
            ("execution-began", "began_at"),
            ("compute-dependencies-finished", "dependencies_finished_at"),
            ("execution-finished", "finished_at"),
        )
    )
    return {
        ACTIVITY_LOG: f"SELECT {activity} FROM {_EXECUTIONS}",
        ACTIVITY_LOG_REDACTED: f"SELECT {_names(REDACTED_COLUMNS)} FROM {log}",
        SESSION_HISTORY: f"SELECT * FROM {_SESSIONS}",
        LIFECYCLE_HISTORY: lifecycle,
        SQL_TEXT: f"SELECT DISTINCT sql_hash, sql, redacted_sql, date_trunc('day', prepared_at) AS prepared_day "
        f"FROM {log}",
        SQL_TEXT_REDACTED: f"SELECT DISTINCT sql_hash, redacted_sql FROM {log}",
        ACTIVE_PEEKS: f"SELECT execution_id AS id, CAST(NULL AS VARCHAR) AS object_id, execution_strategy AS type, "
        f"execution_timestamp AS time FROM {_EXECUTIONS} WHERE {_IN_FLIGHT}",
    }


GIVE_WAY_SECONDS = 0.0002
ROWS_PER_TURN = 100  # rows made (records → rows → Arrow) between two hand-overs of the GIL


def give_way() -> None:
    """Let a thread waiting for the GIL have it now. The writer runs Python and DuckDB's parser in stretches of a
    millisecond or more; a connection thread that wakes with a client's bytes meanwhile would wait for Python's
    switch interval (2 ms) before asking for the GIL. A short sleep between the stretches hands it over at once
    (a zero sleep would not: the writer takes the GIL back before the woken thread runs)."""
    time.sleep(GIVE_WAY_SECONDS)


class HistoryDatabase:
    def __init__(self, engine: DuckDBEngine, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._con = engine.connect(counts_writes=False)  # live relations are never cached
        self._newest_schema: pa.Schema | None = None
        quoted_path = str(path).replace("'", "''")
        self._con.command(f"ATTACH '{quoted_path}' AS {HISTORY_CATALOG} (ROW_GROUP_SIZE {ROW_GROUP_ROWS})")
        for table, rel in _TABLES.items():
            columns = ", ".join(f"{quoted(name)} {engine_type(pg_type)}" for name, pg_type in rel.columns)
            self._con.command(f"CREATE TABLE IF NOT EXISTS {table} ({columns})")
        self._con.command(f"DROP TABLE IF EXISTS {_OLD_RUNNING}")
        self._con.command(f"DELETE FROM {_EXECUTIONS} WHERE {_IN_FLIGHT}")  # not running since the process stopped
        for name, query in _views().items():  # the store made an empty table of each: views replace them
            target = table_sql(_BY_NAME[name])
            self._con.command(f"DROP TABLE IF EXISTS {target}")
            self._con.command(f"CREATE OR REPLACE VIEW {target} AS {query}")

    def write(
        self,
        sessions: Sequence[HistoryRow],
        executions: Sequence[HistoryRow],
        running: Sequence[HistoryRow] | None,
    ) -> None:
        """One batch, atomically: `running` (all the statements in flight) replaces those written before; None
        leaves them as they are."""
        con = self._con
        con.begin()
        try:
            if running is not None:
                con.command(f"DELETE FROM {_EXECUTIONS} WHERE {_IN_FLIGHT}")
                # one that finished while its row was made comes again, finished, in a later batch
                executions = [*executions, *(row for row in running if row[_FINISHED_AT] is None)]
            for table, rows in ((_SESSIONS, sessions), (_EXECUTIONS, executions)):
                if rows:
                    self._insert(table, rows)
                    give_way()
            con.commit()
        except BaseException:
            con.rollback()
            raise

    def _insert(self, table: str, rows: Sequence[HistoryRow]) -> None:
        rel: BuiltinRelation = _TABLES[table]
        pieces: list[pa.Table] = []
        for start in range(0, len(rows), ROWS_PER_TURN):  # converting holds the GIL: a piece at a time
            pieces.append(arrow_rows(rel, cast(Sequence[Row], rows[start : start + ROWS_PER_TURN])))
            give_way()
        self._con.insert_arrow(table, column_sqls(rel), pa.concat_tables(pieces))

    def newest(self, limit: int) -> tuple[list[Column], pa.Table]:
        """The activity log's newest `limit` rows, newest first: what a reader's `SELECT * FROM
        mz_recent_activity_log ORDER BY began_at DESC LIMIT limit` would get now (the view's own query, over the
        table, so that the store's catch-up never runs on the writer's thread)."""
        sql = f"SELECT {_names(ACTIVITY_COLUMNS)} FROM {_EXECUTIONS} ORDER BY began_at DESC LIMIT {int(limit)}"
        if self._newest_schema is None:
            self._newest_schema = self._con.describe_arrow(sql)[1]
        columns, batches = self._con.query(sql)
        return columns, pa.Table.from_batches(list(batches), schema=self._newest_schema)

    def expire(self, before: datetime.datetime) -> None:
        for table, column in ((_EXECUTIONS, "began_at"), (_SESSIONS, "connected_at")):
            self._con.command(f"DELETE FROM {table} WHERE {column} < ?", (before,))

    def close(self) -> None:
        try:
            self._con.command(f"DETACH IF EXISTS {HISTORY_CATALOG}")
        except PgError:  # closing is best effort: the process is going away
            log.exception("detaching the statement history failed")
        finally:
            self._con.close()
