"""Materialize's own session variables, the ones its clients send at startup, SET or read (issue 20).

Contract: `MZ_VARIABLES` lists (name, default, kind, description) with Materialize's names and defaults; variables.py
turns each into a session variable (kind: "bool", "text", "duration", "ratio", "count"). Where a variable means
something here, it does what Materialize's does; the others are accepted and shown, and their description says
that they have no effect in sparkwire (docs/clients.md lists both). `mz_version` is not among them: it is
read-only and reported in ParameterStatus (variables.py).
"""

from __future__ import annotations

_NO_EFFECT = " (accepted; no effect in sparkwire)"

MZ_VARIABLES: tuple[tuple[str, str, str, str], ...] = (
    (
        "auto_route_catalog_queries",
        "on",
        "bool",
        "Whether queries that depend only on system tables run on the catalog server (in sparkwire they always run "
        "on the introspection store, never on Spark).",
    ),
    ("cluster_replica", "", "text", "Sets a target cluster replica for SELECT queries" + _NO_EFFECT + "."),
    (
        "current_object_missing_warnings",
        "on",
        "bool",
        "Whether to emit a notice when SET cluster names a cluster that does not exist.",
    ),
    ("default_cluster_replication_factor", "1", "count", "Default cluster replication factor" + _NO_EFFECT + "."),
    (
        "emit_introspection_query_notice",
        "on",
        "bool",
        "Whether to print a notice when querying per-replica introspection sources" + _NO_EFFECT + ".",
    ),
    ("emit_plan_insights_notice", "off", "bool", "Whether to print a notice with plan insights" + _NO_EFFECT + "."),
    (
        "emit_timestamp_notice",
        "off",
        "bool",
        "Whether to send a notice specifying query timestamps" + _NO_EFFECT + ".",
    ),
    ("emit_trace_id_notice", "off", "bool", "Whether to send a notice specifying the trace id" + _NO_EFFECT + "."),
    (
        "enable_session_cardinality_estimates",
        "off",
        "bool",
        "Whether to use cardinality estimates when optimizing queries" + _NO_EFFECT + ".",
    ),
    (
        "enable_session_rbac_checks",
        "off",
        "bool",
        "Whether RBAC is enabled for the current session (sparkwire always checks privileges).",
    ),
    (
        "real_time_recency",
        "off",
        "bool",
        "Whether to wait for sources to be up to date before answering" + _NO_EFFECT + ".",
    ),
    (
        "real_time_recency_timeout",
        "10s",
        "duration",
        "How long to wait for real-time recency before failing" + _NO_EFFECT + ".",
    ),
    ("sql_safe_updates", "off", "bool", "Prohibits SQL statements that may be overly destructive" + _NO_EFFECT + "."),
    (
        "statement_logging_sample_rate",
        "1",
        "ratio",
        "The fraction of statements logged to mz_internal.mz_recent_activity_log, at most "
        "statement_logging_max_sample_rate (sparkwire logs every statement by default; Materialize samples).",
    ),
    (
        "welcome_message",
        "on",
        "bool",
        "Whether to send a notice with a welcome message after a successful connection.",
    ),
)


def welcome_message(version: str, user: str, cluster: str, database: str, search_path: str) -> str:
    """The NOTICE a new session gets while `welcome_message` is on, shaped like Materialize's."""
    schema = search_path.split(",")[0].strip().strip('"') or "public"
    return (
        f"connected to sparkwire ({version})\n"
        f"  User: {user}\n"
        f"  Cluster: {cluster}\n"
        f"  Database: {database}\n"
        f"  Schema: {schema}\n"
        "\n"
        "Issue a SQL query to get started. Need help?\n"
        "  View documentation: docs/ in the sparkwire repository"
    )
