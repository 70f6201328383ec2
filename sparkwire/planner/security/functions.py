"""The function allowlist: a client calls PostgreSQL's functions, never an engine's own.

Contract: `check_functions(tree, sql)` walks a statement parsed from `sql` (`check_call(node, sql)` checks one node)
and raises 42883 `function name(…) does not exist` (PostgreSQL's answer for a function it does not have) for every
call whose name, as the client spelled it, is not in `ALLOWED`, and for every call qualified by a schema other than
pg_catalog (or information_schema for its own functions). `ALLOWED` is PostgreSQL 15's builtin function names
(pg_function_names.py, generated from a real PostgreSQL), Materialize's mz_version() / mz_version_num() / mz_now()
(also as mz_catalog.…), plus the SQL constructs that look like calls (COALESCE,
GREATEST, ROW, …), minus `REFUSED`: the PostgreSQL functions that read or write the server's files, signal processes
or change server state, which no role may call here. Everything else an engine offers (DuckDB's read_csv,
json_execute_serialized_sql, enable_logging, duckdb_* and pragma_* functions, checkpoint; Spark's reflect and
java_method; the store's own `sw_*` functions) is simply not a PostgreSQL function, so it does not exist for a
client: however it is spelled (quoted, qualified, any case) and wherever it appears (select list, FROM, lateral,
CTE, subquery, view body, default expression, prepared statement), since every statement text a client sends is
checked where it is parsed. The name comes from the source text (sqlglot records where a call's name token is) so
that sqlglot's folding of several names into one expression class (`regexp_extract` and friends) cannot smuggle a
name in; calls sqlglot builds from grammar (CAST, EXTRACT, SUBSTRING … FROM, TRIM, POSITION, operators) carry no
name token and pass only when their expression class is one PostgreSQL's grammar or functions produce (`GRAMMAR`);
any other (ARG_MAX, TRY_CAST, IF, JSON_VALUE in FROM, …) does not exist. Functions sparkwire translates
(current_setting, set_config, pg_sleep, the catalog functions of introspection/functions.py) are PostgreSQL names
and pass; their translations are ours.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire import errors as e
from sparkwire.planner.security.pg_function_names import INFORMATION_SCHEMA_FUNCTIONS, PG_CATALOG_FUNCTIONS

# Calls PostgreSQL's grammar spells like functions but that are not rows of pg_proc.
SQL_CONSTRUCTS = frozenset(
    {
        "coalesce",
        "nullif",
        "greatest",
        "least",
        "row",
        "array",
        "grouping",
        "exists",
        "current_date",
        "current_time",
        "current_timestamp",
        "localtime",
        "localtimestamp",
        "current_role",
        "current_catalog",
        "user",
        "trim",
        "collation",
        "values",
        "all",  # x op ALL / ANY / SOME (array or subquery)
        "any",
        "some",
    }
)

# PostgreSQL functions that reach the server's files, processes, replication or configuration: refused for
# every role, as sparkwire promises that SQL never reaches its files, environment or process state.
REFUSED = frozenset(
    {
        "pg_read_file",
        "pg_read_binary_file",
        "pg_stat_file",
        "pg_ls_dir",
        "pg_ls_logdir",
        "pg_ls_waldir",
        "pg_ls_tmpdir",
        "pg_ls_archive_statusdir",
        "pg_ls_logicalsnapdir",
        "pg_ls_logicalmapdir",
        "pg_ls_replslotdir",
        "pg_file_write",
        "lo_import",
        "lo_export",
        "pg_reload_conf",
        "pg_rotate_logfile",
        "pg_current_logfile",
        "pg_signal_backend",
        "pg_promote",
        "pg_log_backend_memory_contexts",
        "pg_switch_wal",
        "pg_create_restore_point",
        "pg_backup_start",
        "pg_backup_stop",
        "pg_import_system_collations",
        "pg_replication_origin_create",
        "pg_create_physical_replication_slot",
        "pg_create_logical_replication_slot",
        "pg_drop_replication_slot",
        "pg_stat_reset",
        "pg_stat_reset_shared",
        "pg_stat_reset_single_table_counters",
        "pg_stat_reset_single_function_counters",
        "pg_stat_reset_slru",
        "pg_stat_reset_replication_slot",
        "pg_stat_reset_subscription_stats",
        "pg_config",
        "pg_hba_file_rules",
        "pg_ident_file_mappings",
        "pg_show_all_file_settings",
        "pg_control_system",
        "pg_control_checkpoint",
        "pg_control_recovery",
        "pg_control_init",
        "current_query",
        "setseed",
    }
)

# Expressions sqlglot builds without a name token, from PostgreSQL grammar (CASE, CAST, x[...], `@ x`, operators like
# `->`, `@>`, `~`, `^`) or from the special parsers of PostgreSQL functions (EXTRACT, SUBSTRING, TRIM, string_agg,
# json_agg, …). Any other call without a name token came from a non-PostgreSQL spelling sqlglot parses specially
# (ARG_MAX, MAX_BY, TRY_CAST, JSON_VALUE, GAP_FILL, IF, …) and does not exist. tests/security keeps this in step
# with sqlglot by parsing every allowed name and operator.
GRAMMAR: frozenset[type[exp.Expr]] = frozenset(
    {
        exp.Array, exp.ArrayContainedBy, exp.ArrayContainsAll, exp.ArrayOverlaps, exp.Case, exp.Cast, exp.Cbrt,
        exp.Ceil, exp.Chr, exp.Collate, exp.CurrentCatalog, exp.CurrentDate, exp.CurrentSchema, exp.CurrentTime,
        exp.CurrentTimestamp, exp.CurrentUser, exp.Decode, exp.DecodeCase, exp.Exists, exp.ExplodingGenerateSeries,
        exp.Extract, exp.Floor, exp.GroupConcat, exp.Initcap, exp.JSONArrayAgg, exp.JSONBContainsAllTopKeys,
        exp.JSONBContainsAnyTopKeys, exp.JSONBContainsTopKey, exp.JSONBDeleteAtPath, exp.JSONBExists,
        exp.JSONBExtract, exp.JSONBExtractScalar, exp.JSONExtract, exp.JSONExtractScalar, exp.JSONObject,
        exp.Localtime, exp.Localtimestamp, exp.MatchAgainst, exp.Normalize, exp.Overlay, exp.Pow, exp.RegexpILike,
        exp.RegexpLike, exp.SessionUser, exp.Sqrt, exp.StrPosition, exp.Substring, exp.Trim, exp.Unnest,
        exp.XMLElement, exp.Abs,
    }
)  # fmt: skip

# Materialize's own functions that sparkwire answers (translate/duckdb.py): Materialize's tools call them.
MATERIALIZE_FUNCTIONS = frozenset({"mz_version", "mz_version_num", "mz_now"})

ALLOWED: frozenset[str] = (
    PG_CATALOG_FUNCTIONS | INFORMATION_SCHEMA_FUNCTIONS | MATERIALIZE_FUNCTIONS | SQL_CONSTRUCTS
) - REFUSED
_QUALIFIERS = {
    "pg_catalog": PG_CATALOG_FUNCTIONS,
    "information_schema": INFORMATION_SCHEMA_FUNCTIONS,
    "mz_catalog": MATERIALIZE_FUNCTIONS,
}


def _spelled(node: exp.Expr, sql: str) -> str | None:
    """The call's name as written (a quoted name keeps its case, others fold to lower case); None when the call
    has no name token (grammar: CAST, EXTRACT, …)."""
    if isinstance(node, exp.Anonymous) and node.meta.get("start") is None:
        return str(node.name).lower()
    start, end = node.meta.get("start"), node.meta.get("end")
    if not isinstance(start, int) or not isinstance(end, int) or end < start:
        return None
    text = sql[start : end + 1]
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
        return text[1:-1].replace('""', '"')
    return text.lower()


def _qualifier(node: exp.Expr) -> str | None:
    """`schema` of `schema.fn(…)` (sqlglot: a Dot whose right side is the call); `.`-joined for deeper paths."""
    parent = node.parent
    if isinstance(parent, exp.Table) and parent.this is node and parent.args.get("db") is not None:
        path = [parent.args.get("catalog"), parent.args.get("db")]  # FROM schema.fn(…)
        return ".".join(str(p.name).lower() for p in path if isinstance(p, exp.Identifier))
    if not isinstance(parent, exp.Dot) or parent.expression is not node:
        return None
    left = parent.this
    if isinstance(left, exp.Identifier | exp.Column) and not (isinstance(left, exp.Column) and left.table):
        return str(left.name).lower()
    return str(left.sql(dialect="postgres")).lower()


def _argument_type(arg: exp.Expr) -> str | None:
    """The type PostgreSQL would print for an argument whose type shows in the text (literals, casts)."""
    match arg:
        case exp.Literal(is_string=True):
            return "unknown"
        case exp.Literal():
            text = str(arg.this)
            if text.isdigit():
                return "integer" if int(text) < 2**31 else "bigint"
            return "numeric"
        case exp.Boolean():
            return "boolean"
        case exp.Null():
            return "unknown"
        case exp.Cast():
            return str(arg.to.sql(dialect="postgres")).lower()
    return None


def _signature(node: exp.Expr, name: str) -> str:
    """`name(integer, unknown)` as PostgreSQL prints a call it cannot resolve; `name(...)` when an argument's type
    does not show in the text (a column, an expression)."""
    if isinstance(node, exp.Anonymous):
        args = list(node.expressions)
    else:
        args = [a for a in node.iter_expressions() if not isinstance(a, exp.Dot | exp.Identifier)]
    types = [_argument_type(a) for a in args]
    if any(t is None for t in types):
        return f"{name}(...)"
    return f"{name}({', '.join(t for t in types if t is not None)})"


def undefined_function(signature: str) -> e.PgError:
    return e.UndefinedFunction(
        f"function {signature} does not exist",
        hint="No function matches the given name and argument types. You might need to add explicit type casts.",
    )


def _rendered_name(node: exp.Expr) -> str:
    """A name for a call that has no name token: how sqlglot prints its head (`ARG_MAX(…)` → arg_max)."""
    if isinstance(node, exp.Func):
        return str(node.sql_name()).lower()
    return str(node.sql(dialect="postgres")).split("(")[0].strip().lower() or node.key


def _grammar(node: exp.Expr) -> bool:
    if isinstance(node, exp.Binary | exp.Unary | exp.Connector | exp.Predicate):
        return True  # operators: AND, OR, NOT, comparisons, LIKE, IN, BETWEEN, IS, ->, ~, …
    if type(node) is exp.If:
        return isinstance(node.parent, exp.Case)  # CASE's WHEN branches; IF(…) itself is no PostgreSQL function
    return type(node) in GRAMMAR


def check_call(node: exp.Expr, sql: str) -> None:
    """One node of a tree parsed from `sql`: 42883 when it calls a function the allowlist does not hold."""
    if isinstance(node, exp.Table) and isinstance(node.this, exp.Expr):
        source = node.this
        if not isinstance(source, exp.Identifier | exp.Func):  # FROM json_value(…) and other specials
            raise undefined_function(_signature(source, _rendered_name(source)))
    if not isinstance(node, exp.Func):
        return
    name = _spelled(node, sql)
    if name is None:
        if not _grammar(node):
            raise undefined_function(_signature(node, _rendered_name(node)))
        return
    qualifier = _qualifier(node)
    if qualifier is not None:
        allowed = _QUALIFIERS.get(qualifier)
        if allowed is None or name not in allowed or name in REFUSED:
            raise undefined_function(_signature(node, f"{qualifier}.{name}"))
    elif name not in ALLOWED:
        raise undefined_function(_signature(node, name))


def check_functions(tree: exp.Expr, sql: str) -> None:
    for node in tree.walk():
        check_call(node, sql)
