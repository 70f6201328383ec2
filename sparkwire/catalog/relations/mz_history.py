"""The statement history relations (issue 14): Materialize's names, columns and types, sparkwire's values.

Contract: `HISTORY_RELATIONS` declares mz_internal.mz_recent_activity_log, mz_recent_activity_log_redacted,
mz_session_history, mz_statement_lifecycle_history, mz_sql_text and mz_sql_text_redacted, plus mz_active_peeks
(running statements, Materialize's columns). None of them is rendered from the catalog (`from_state=False`,
no rows): the introspection store hosts them as views over the durable history database that
`introspection.history` writes from the side, never on a statement's path. `ACTIVITY_COLUMNS` is the column list of
mz_recent_activity_log in order (the history store's execution table has exactly these); `REDACTED_COLUMNS` the
subset the redacted view keeps (no `params`, `error_message` or `sql`: they can hold customer data).

Who reads what is planner/security/privileges.py's business (Materialize's roles: mz_monitor everything,
mz_monitor_redacted and mz_support the redacted relations, every role its own statements and sessions).
"""

from __future__ import annotations

from sparkwire.catalog.relations.relation import BuiltinRelation, no_rows, parse_columns

ACTIVITY_LOG = "mz_recent_activity_log"
ACTIVITY_LOG_REDACTED = "mz_recent_activity_log_redacted"
SESSION_HISTORY = "mz_session_history"
LIFECYCLE_HISTORY = "mz_statement_lifecycle_history"
SQL_TEXT = "mz_sql_text"
SQL_TEXT_REDACTED = "mz_sql_text_redacted"
ACTIVE_PEEKS = "mz_active_peeks"

_EXECUTION = (
    "execution_id uuid, sample_rate double precision, cluster_id text, application_name text, cluster_name text, "
    "database_name text, search_path text list, transaction_isolation text, execution_timestamp uint8, "
    "transient_index_id text, params text[], mz_version text, began_at timestamp with time zone, "
    "finished_at timestamp with time zone, finished_status text, error_message text, result_size bigint, "
    "rows_returned bigint, execution_strategy text, transaction_id uint8, prepared_statement_id uuid, "
    "sql_hash bytea, prepared_statement_name text, session_id uuid, prepared_at timestamp with time zone, "
    "statement_type text, throttled_count uint8, connected_at timestamp with time zone, "
    "initial_application_name text, authenticated_user text, sql text, redacted_sql text"
)
ACTIVITY_COLUMNS: tuple[tuple[str, str], ...] = parse_columns(_EXECUTION)
_UNREDACTED = frozenset({"params", "error_message", "sql"})
REDACTED_COLUMNS: tuple[tuple[str, str], ...] = tuple(c for c in ACTIVITY_COLUMNS if c[0] not in _UNREDACTED)


def _relation(name: str, oid: int, columns: tuple[tuple[str, str], ...]) -> BuiltinRelation:
    return BuiltinRelation("mz_internal", name, oid, columns, no_rows, from_state=False, live=True)


HISTORY_RELATIONS: tuple[BuiltinRelation, ...] = (
    _relation(ACTIVITY_LOG, 17101, ACTIVITY_COLUMNS),
    _relation(ACTIVITY_LOG_REDACTED, 17102, REDACTED_COLUMNS),
    _relation(
        SESSION_HISTORY,
        17103,
        parse_columns(
            "session_id uuid, connected_at timestamp with time zone, initial_application_name text, "
            "authenticated_user text"
        ),
    ),
    _relation(
        LIFECYCLE_HISTORY,
        17104,
        parse_columns("statement_id uuid, event_type text, occurred_at timestamp with time zone"),
    ),
    _relation(
        SQL_TEXT,
        17105,
        parse_columns("sql_hash bytea, sql text, redacted_sql text, prepared_day timestamp with time zone"),
    ),
    _relation(SQL_TEXT_REDACTED, 17106, parse_columns("sql_hash bytea, redacted_sql text")),
    _relation(ACTIVE_PEEKS, 17107, parse_columns("id uuid, object_id text, type text, time uint8")),
)
