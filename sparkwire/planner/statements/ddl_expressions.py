"""DEFAULT and index key expressions of DDL: parsed, held to the function allowlist, normalized.

Contract: `check_default(text)` parses a column's DEFAULT expression (42601 when it does not parse), holds it to the
function allowlist (42883, planner/security/functions.py) and refuses column references (0A000), as PostgreSQL does.
`index_key(text, on)` returns (normalized key SQL, name part) for one CREATE INDEX key: a column key is its quoted
name; any other expression is printed by sqlglot with unquoted identifiers folded to lower case, its functions
held to the allowlist and its columns checked against the relation `on` (42703).
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError

from sparkwire import errors as e
from sparkwire.catalog.objects import Item
from sparkwire.planner.grammar.ddl_parser import quote
from sparkwire.planner.grammar.dialect import PG
from sparkwire.planner.security.functions import check_functions


def _expression(text: str) -> exp.Expr:
    """A DEFAULT or index key expression, held to the function allowlist like any statement."""
    try:
        tree = sqlglot.parse_one(text, read=PG)
    except ParseError:
        raise e.SyntaxError(f'syntax error at or near "{text.split()[0]}"') from None
    check_functions(tree, text)
    return tree


def check_default(text: str) -> None:
    if _expression(text).find(exp.Column) is not None:
        raise e.FeatureNotSupported("cannot use column reference in DEFAULT expression")


def index_key(text: str, on: Item) -> tuple[str, str]:
    """(normalized key SQL, name part): a column key is its quoted name; any other expression is printed by
    sqlglot with unquoted identifiers folded to lower case, and its columns must exist."""
    tree = _expression(text)
    for ident in tree.find_all(exp.Identifier):
        if not ident.quoted:
            ident.set("this", ident.name.lower())
    names = {c.name for c in on.columns}
    for column in tree.find_all(exp.Column):
        if column.name not in names:
            raise e.UndefinedColumn(f'column "{column.name}" does not exist')
    if isinstance(tree, exp.Column) and not tree.table:
        return quote(tree.name), tree.name
    return tree.sql(dialect=PG, normalize_functions="lower"), "expr"
