"""The SQL the console runs, as constant texts with `$n` parameters, and the filters that build on them.

Contract: every value that comes from a request reaches SQL only as a bound parameter (`Query.params`); the SQL
text is assembled from the constants below and from whitelisted choices (`NOTICE_SORTS`, `STATUS_FILTERS`,
`HISTORY_STATUSES`), never from request text. The one exception is `alter_notice`: ALTER NOTICE is a utility
statement and takes no parameters (as PostgreSQL's utility statements), so it is built from a fingerprint
re-rendered by `uuid.UUID` (hex digits and hyphens only) and a status from a closed set; anything else raises
`ValueError` before any SQL exists.

Notices are read from `mz_internal.mz_notices` when the role may read it (superusers, mz_monitor), else from
`mz_internal.mz_notices_redacted` (literals replaced by █; other roles see only their objects' rows): the caller
chooses with `full`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

STATUSES = ("new", "resolved", "ignored")

# status filter: the seed's dropdown (default: hide ignored and resolved)
STATUS_FILTERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "open": ("hide ignored and resolved", ("new",)),
    "unignored": ("hide ignored", ("new", "resolved")),
    "all": ("show all", STATUSES),
}
DEFAULT_STATUS_FILTER = "open"

NOTICE_SORTS: dict[str, tuple[str, str]] = {
    "created": ("created at", "n.created_at"),
    "type": ("type", "n.notice_type"),
    "object": ("object", "o.name"),
    "status": ("status", "n.status"),
    "cluster": ("cluster", "c.name"),
}
DEFAULT_NOTICE_SORT = "created"

HISTORY_STATUSES = ("success", "error", "canceled", "aborted", "running")


def notices_relation(full: bool) -> str:
    return "mz_internal.mz_notices" if full else "mz_internal.mz_notices_redacted"


def probe_full_notices() -> str:
    """Succeeds when the role may read the unredacted notices, 42501 otherwise."""
    return "SELECT 1 FROM mz_internal.mz_notices LIMIT 0"


def _notice_select(full: bool) -> str:
    return (
        "SELECT n.fingerprint::text AS fingerprint, n.notice_type, n.message, n.hint, n.action, n.action_type, "
        "n.status, n.created_at, n.updated_at, n.object_id, n.docs, n.id, "
        "o.name AS object_name, o.type AS object_type, s.name AS schema_name, c.name AS cluster_name "
        f"FROM {notices_relation(full)} n "
        "LEFT JOIN mz_catalog.mz_objects o ON o.id = n.object_id "
        "LEFT JOIN mz_catalog.mz_schemas s ON s.id = o.schema_id "
        "LEFT JOIN mz_catalog.mz_clusters c ON c.id = o.cluster_id"
    )


@dataclass(frozen=True, slots=True)
class Query:
    sql: str
    params: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class NoticeFilter:
    status: str = DEFAULT_STATUS_FILTER
    notice_type: str = ""
    object: str = ""
    cluster: str = ""
    text: str = ""
    sort: str = DEFAULT_NOTICE_SORT
    descending: bool = True
    extra: dict[str, str] = field(default_factory=dict)


def notice_list(full: bool, f: NoticeFilter) -> Query:
    where: list[str] = []
    params: list[str] = []

    def param(value: str) -> str:
        params.append(value)
        return f"${len(params)}"

    statuses = STATUS_FILTERS.get(f.status, STATUS_FILTERS[DEFAULT_STATUS_FILTER])[1]
    if len(statuses) < len(STATUSES):
        where.append("n.status IN (" + ", ".join(param(s) for s in statuses) + ")")
    if f.notice_type:
        where.append(f"n.notice_type = {param(f.notice_type)}")
    if f.object:
        # the object's name, qualified or not, or its id
        needle = param(f.object.lower())
        where.append(
            f"(lower(o.name) = {needle} OR lower(s.name || '.' || o.name) = {needle} OR n.object_id = {needle})"
        )
    if f.cluster:
        where.append(f"c.name = {param(f.cluster)}")
    if f.text:
        needle = param(f.text.lower())
        where.append(
            f"(strpos(lower(n.message), {needle}) > 0 OR strpos(lower(coalesce(n.hint, '')), {needle}) > 0 "
            f"OR strpos(lower(coalesce(o.name, '')), {needle}) > 0)"
        )
    column = NOTICE_SORTS.get(f.sort, NOTICE_SORTS[DEFAULT_NOTICE_SORT])[1]
    direction = "DESC" if f.descending else "ASC"
    sql = _notice_select(full)
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += f" ORDER BY {column} {direction} NULLS LAST, n.id"
    return Query(sql, tuple(params))


def notice_detail(full: bool, fingerprint: str) -> Query:
    return Query(_notice_select(full) + " WHERE n.fingerprint::text = $1 ORDER BY n.id", (fingerprint,))


def notice_choices(full: bool) -> Query:
    """The notice types and clusters the role's notices have (for the filter dropdowns)."""
    return Query(
        "SELECT DISTINCT n.notice_type, c.name AS cluster_name "
        f"FROM {notices_relation(full)} n "
        "LEFT JOIN mz_catalog.mz_objects o ON o.id = n.object_id "
        "LEFT JOIN mz_catalog.mz_clusters c ON c.id = o.cluster_id"
    )


def active_count(full: bool) -> Query:
    return Query(f"SELECT count(*) AS active FROM {notices_relation(full)} n WHERE n.status = $1", ("new",))


def canonical_fingerprint(text: str) -> str:
    """The fingerprint as `uuid.UUID` prints it; ValueError for anything that is not a uuid."""
    if len(text) > 64:
        raise ValueError("not a notice fingerprint")
    return str(uuid.UUID(text.strip()))


def alter_notice(fingerprint: str, status: str) -> Query:
    """ALTER NOTICE takes no parameters: only a canonical uuid and a status of `STATUSES` reach its text."""
    canonical = canonical_fingerprint(fingerprint)
    if status not in STATUSES:
        raise ValueError(f"unknown status {status!r}")
    if status == "new":
        return Query(f"ALTER NOTICE '{canonical}' RESET STATUS")
    return Query(f"ALTER NOTICE '{canonical}' SET STATUS = '{status}'")


# ---- objects ------------------------------------------------------------------------------------------------

OBJECT_KINDS = ("table", "view", "materialized-view", "index")

OBJECTS = Query(
    "SELECT o.id, o.name, o.type, s.name AS schema_name, d.name AS database_name, r.name AS owner, "
    "c.name AS cluster_name, i.on_id, onr.name AS on_name, "
    "l.local_lag::text AS local_lag, l.global_lag::text AS global_lag, h.hydrated "
    "FROM mz_catalog.mz_objects o "
    "JOIN mz_catalog.mz_schemas s ON s.id = o.schema_id "
    "LEFT JOIN mz_catalog.mz_databases d ON d.id = s.database_id "
    "LEFT JOIN mz_catalog.mz_roles r ON r.id = o.owner_id "
    "LEFT JOIN mz_catalog.mz_clusters c ON c.id = o.cluster_id "
    "LEFT JOIN mz_catalog.mz_indexes i ON i.id = o.id "
    "LEFT JOIN mz_catalog.mz_objects onr ON onr.id = i.on_id "
    "LEFT JOIN mz_internal.mz_materialization_lag l ON l.object_id = o.id "
    "LEFT JOIN mz_internal.mz_hydration_statuses h ON h.object_id = o.id "
    "WHERE o.id LIKE $1 AND o.type IN ($2, $3, $4, $5) "
    "ORDER BY s.name, o.name, o.id",
    ("u%", *OBJECT_KINDS),
)


def object_detail(object_id: str) -> Query:
    sql, params = OBJECTS.sql, OBJECTS.params
    sql = sql.replace("WHERE o.id LIKE $1", "WHERE o.id = $6 AND o.id LIKE $1")
    return Query(sql, (*params, object_id))


def object_definition(object_id: str) -> Query:
    """The CREATE statement, redacted (the catalog's redacted_create_sql: literals as █)."""
    return Query(
        "SELECT redacted_create_sql FROM mz_catalog.mz_tables WHERE id = $1 "
        "UNION ALL SELECT redacted_create_sql FROM mz_catalog.mz_views WHERE id = $1 "
        "UNION ALL SELECT redacted_create_sql FROM mz_catalog.mz_materialized_views WHERE id = $1 "
        "UNION ALL SELECT redacted_create_sql FROM mz_catalog.mz_indexes WHERE id = $1",
        (object_id,),
    )


def notice_counts(full: bool) -> Query:
    return Query(
        f"SELECT object_id, count(*) AS notices, sum(CASE WHEN status = $1 THEN 1 ELSE 0 END) AS active "
        f"FROM {notices_relation(full)} GROUP BY object_id",
        ("new",),
    )


# ---- query history ------------------------------------------------------------------------------------------

_HISTORY_COLUMNS = (
    "h.execution_id::text AS execution_id, h.began_at, h.finished_at, h.finished_status, h.error_message, "
    "h.rows_returned, h.result_size, h.execution_strategy, h.statement_type, h.application_name, "
    "h.cluster_name, h.database_name, h.authenticated_user, h.session_id::text AS session_id, h.sql, "
    "h.redacted_sql, h.params::text AS params, h.transaction_isolation, h.mz_version, h.sample_rate, "
    "h.prepared_statement_name, h.prepared_at, h.connected_at, h.transaction_id::text AS transaction_id"
)


@dataclass(frozen=True, slots=True)
class HistoryFilter:
    status: str = ""
    application: str = ""
    user: str = ""
    text: str = ""
    limit: int = 500


def history_list(f: HistoryFilter) -> Query:
    where: list[str] = []
    params: list[str] = []

    def param(value: str) -> str:
        params.append(value)
        return f"${len(params)}"

    if f.status == "running":
        where.append("h.finished_at IS NULL")
    elif f.status in HISTORY_STATUSES:
        where.append(f"h.finished_status = {param(f.status)}")
    if f.application:
        where.append(f"h.application_name = {param(f.application)}")
    if f.user:
        where.append(f"h.authenticated_user = {param(f.user)}")
    if f.text:
        where.append(f"strpos(lower(h.sql), {param(f.text.lower())}) > 0")
    sql = f"SELECT {_HISTORY_COLUMNS} FROM mz_internal.mz_recent_activity_log h"
    if where:
        sql += " WHERE " + " AND ".join(where)
    limit = max(1, min(int(f.limit), 5000))  # an int, clamped: not request text
    return Query(sql + f" ORDER BY h.began_at DESC LIMIT {limit}", tuple(params))


def history_detail(execution_id: str) -> Query:
    return Query(
        f"SELECT {_HISTORY_COLUMNS} FROM mz_internal.mz_recent_activity_log h WHERE h.execution_id::text = $1",
        (execution_id,),
    )


def history_applications() -> Query:
    return Query("SELECT DISTINCT application_name FROM mz_internal.mz_recent_activity_log ORDER BY 1")


def statement_lifecycle(execution_id: str) -> Query:
    return Query(
        "SELECT event_type, occurred_at FROM mz_internal.mz_statement_lifecycle_history "
        "WHERE statement_id::text = $1 ORDER BY occurred_at",
        (execution_id,),
    )
