"""pg_typeof(x) as PostgreSQL answers it: the name of x's type, fixed when the statement is planned.

Contract: `lower_typeof(tree, columns)` rewrites a PostgreSQL-parsed sqlglot tree in place and returns it; both
translators call it first (translate/spark.py `to_spark_sql` with the relations' column types, translate/duckdb.py
`to_duckdb` with what it knows of them). A `pg_typeof(x)` whose PostgreSQL type is known becomes that type's name
as format_type spells it without a typmod (PostgreSQL's regtype output: 'integer', 'numeric', 'character
varying', 'timestamp with time zone', 'integer[]'), a string literal; the column is described as regtype
(planner/bind/output_types.py). The type is PostgreSQL's rules' (planner/bind/pg_result_types.py: columns, casts,
literals, arithmetic, aggregates, functions; a builtin relation's column its declared type, pg_class.relname
`name`), plus: a string literal or NULL is `unknown`, a comparison or other
predicate `boolean`, now() / current_timestamp `timestamp with time zone`, current_date `date`, an interval
literal `interval`, an ARRAY[…] its element's type with []. A call whose argument's type these rules do not know
is left to the engine (DuckDB's own pg_typeof; Spark has none: 42883, as before).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from sqlglot import exp

from sparkwire.catalog.builtins import IMPLICIT_SEARCH_SCHEMAS
from sparkwire.introspection.relations import RELATIONS
from sparkwire.planner.bind.pg_result_types import result_type
from sparkwire.planner.translate import numeric_types as nt

Tree = TypeVar("Tree", bound=exp.Expr)
Columns = Mapping[str, Mapping[str, str]]

_BOOLEAN = (exp.Boolean, exp.Predicate, exp.Not, exp.And, exp.Or)
_FIXED: dict[type[exp.Expr], str] = {
    exp.CurrentTimestamp: "timestamp with time zone",
    exp.CurrentDate: "date",
    exp.Interval: "interval",
}
_BUILTIN = {(rel.schema, rel.name): rel for rel in RELATIONS}
_IMPLICIT = {rel.name: rel for rel in RELATIONS if rel.schema in IMPLICIT_SEARCH_SCHEMAS}
_NOW = frozenset({"now", "transaction_timestamp", "statement_timestamp", "clock_timestamp"})


def type_name(node: exp.Expr, columns: Columns) -> str | None:
    """PostgreSQL's type of `node` as regtype prints it, None when not known."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Null) or (isinstance(node, exp.Literal) and node.is_string):
        return "unknown"
    if isinstance(node, _BOOLEAN):
        return "boolean"
    if type(node) in _FIXED:
        return _FIXED[type(node)]
    if isinstance(node, exp.Anonymous) and node.name.lower() in _NOW and not node.expressions:
        return "timestamp with time zone"
    if isinstance(node, exp.Array) and node.expressions:
        elements = {type_name(e, columns) for e in node.expressions}
        element = elements.pop() if len(elements) == 1 else None
        return f"{element}[]" if element not in (None, "unknown") else None
    try:
        return result_type(node, columns)
    except (KeyError, ValueError, TypeError, AttributeError):
        return None


def _builtin_columns(tree: exp.Expr, columns: Columns) -> dict[str, Mapping[str, str]]:
    """`columns` and the builtin relations' columns (pg_class.relname is `name`) by each FROM item's alias."""
    found: dict[str, Mapping[str, str]] = dict(columns)
    for table in tree.find_all(exp.Table):
        if table.name in columns or not isinstance(table.this, exp.Identifier):
            continue
        rel = _BUILTIN.get((table.db.lower(), table.name.lower())) if table.db else _IMPLICIT.get(table.name.lower())
        if rel is not None:
            found[table.alias_or_name] = dict(rel.columns)
    return found


def lower_typeof(tree: Tree, columns: Columns | None = None) -> Tree:
    calls = [
        n
        for n in tree.find_all(exp.Anonymous)
        if n.name.lower() == "pg_typeof" and len(n.expressions) == 1 and not n.find(exp.Select)
    ]
    if not calls:
        return tree
    known = nt.alias_columns(tree, _builtin_columns(tree, columns or {}))
    for call in calls:
        found = type_name(call.expressions[0], known)
        if found is None:
            continue
        named = exp.Literal.string(found)
        target = call.parent if isinstance(call.parent, exp.Dot) and call.parent.expression is call else call
        target.replace(named)
    return tree
