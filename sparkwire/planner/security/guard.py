"""Security guard: SQL must never reach server files, extensions or engine settings, whoever the user is.

Contract: `check_statement_head(sql)` rejects, by leading keyword, engine statements that touch files,
extensions or configuration (ATTACH, DETACH, INSTALL, LOAD, EXPORT/IMPORT DATABASE, PRAGMA, CALL, CHECKPOINT,
USE, …); `check_tree(tree)` rejects file-reading table functions (read_csv, read_parquet, glob, …), functions
that reach the file system or the network, replacement scans of quoted file paths (`FROM 'data.csv'`) and
engine introspection of settings. Both raise 42501 InsufficientPrivilege with a message naming what was
refused. This is the first belt; the second is the engine's own configuration (external access disabled, which
DuckDB refuses to re-enable while running, see engine/duckdb.py). Engine settings cannot be reached at all:
every SET/RESET/SHOW is parsed by the planner's own grammar and applied to session variables.
"""

from __future__ import annotations

import re

from sqlglot import exp

from sparkwire import errors as e

_FORBIDDEN_HEADS = frozenset(
    [
        "attach",
        "detach",
        "install",
        "load",
        "force",
        "export",
        "import",
        "pragma",
        "call",
        "checkpoint",
        "use",
        "vacuum",
        "update_extensions",
    ]
)

_FORBIDDEN_FUNCTIONS = frozenset(
    [
        "read_csv",
        "read_csv_auto",
        "read_parquet",
        "parquet_scan",
        "read_json",
        "read_json_auto",
        "read_json_objects",
        "read_json_objects_auto",
        "read_ndjson",
        "read_ndjson_auto",
        "read_ndjson_objects",
        "read_text",
        "read_blob",
        "glob",
        "parquet_metadata",
        "parquet_schema",
        "parquet_file_metadata",
        "parquet_kv_metadata",
        "sniff_csv",
        "read_xlsx",
        "iceberg_scan",
        "delta_scan",
        "sqlite_scan",
        "sqlite_attach",
        "postgres_scan",
        "postgres_attach",
        "mysql_scan",
        "httpfs",
        "duckdb_settings",
        "current_setting_duckdb",
        "getenv",
        "read_duckdb",
        "query",
        "query_table",
        # Spark: calls into the JVM
        "reflect",
        "try_reflect",
        "java_method",
        "input_file_name",
    ]
)
_FORBIDDEN_PREFIXES = ("read_", "parquet_", "sqlite_", "postgres_", "mysql_", "iceberg_", "delta_")

_FILE_LIKE = re.compile(r"[/\\.:]|^~")


def _refuse(what: str) -> e.PgError:
    return e.InsufficientPrivilege(f"permission denied: {what} is not allowed")


def check_statement_head(sql: str) -> None:
    m = re.match(r"\s*([A-Za-z_]+)", sql)
    if m and m.group(1).lower() in _FORBIDDEN_HEADS:
        raise _refuse(m.group(1).upper())


def _function_name(node: exp.Func) -> str:
    if isinstance(node, exp.Anonymous):
        return node.name.lower()
    return node.sql_name().lower()


def check_tree(tree: exp.Expression) -> None:
    for node in tree.walk():
        if isinstance(node, exp.Func):
            name = _function_name(node)
            if name in _FORBIDDEN_FUNCTIONS or name.startswith(_FORBIDDEN_PREFIXES):
                raise _refuse(f"function {name}")
        elif isinstance(node, exp.Table) and isinstance(node.this, exp.Identifier) and (_FILE_LIKE.search(node.name)):
            raise _refuse(f'reading the file "{node.name}"')
        elif isinstance(node, exp.Command):
            check_statement_head(node.name)
