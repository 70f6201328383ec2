"""Security guard: SQL must never reach server files, extensions or engine settings, whoever the user is.

Contract: `check_statement_head(sql)` rejects, by leading keyword (comments are blanked before, see
grammar/split.py), engine statements that touch files, extensions or configuration (ATTACH, DETACH, INSTALL,
LOAD, EXPORT/IMPORT DATABASE, PRAGMA, CALL, CHECKPOINT, USE, …) with 42501 InsufficientPrivilege naming what was
refused. `check_tree(tree, sql)` holds every function call to the allowlist (functions.py: PostgreSQL's
functions, anything else is 42883 as in PostgreSQL) and applies the head check to statements sqlglot could not
parse. Relation names are never taken for files: every relation a statement names resolves in the catalog
(42P01 otherwise) before an engine sees it. The second belt is the engines' own configuration (DuckDB: external
access disabled, which it refuses to re-enable while running, see engine/duckdb.py; Spark: SQL on files off, see
engine/spark_config.py). Engine settings cannot be reached at all: every SET/RESET/SHOW is parsed by the
planner's own grammar and applied to session variables.
"""

from __future__ import annotations

import re

from sqlglot import exp

from sparkwire import errors as e
from sparkwire.planner.security.functions import check_call

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


def _refuse(what: str) -> e.PgError:
    return e.InsufficientPrivilege(f"permission denied: {what} is not allowed")


def check_statement_head(sql: str) -> None:
    m = re.match(r"\s*([A-Za-z_]+)", sql)
    if m and m.group(1).lower() in _FORBIDDEN_HEADS:
        raise _refuse(m.group(1).upper())


def check_tree(tree: exp.Expression, sql: str) -> None:
    """`tree` parsed from `sql`: every function call is one the allowlist holds (functions.py), and no engine
    statement hides inside (sqlglot's Command)."""
    for node in tree.walk():  # one walk for both checks: this runs for every statement planned
        check_call(node, sql)
        if isinstance(node, exp.Command):
            check_statement_head(node.name)
