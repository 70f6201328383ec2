"""An ARRAY[…] of constants cast to text, as PostgreSQL's array_out prints it: `{1,2,3}`, `{a,NULL}`.

Contract: `constant_array_text(tree)` rewrites a PostgreSQL-parsed sqlglot tree in place and returns it; both
translators call it first (translate/spark.py `to_spark_sql`, translate/duckdb.py `to_duckdb`). A cast to text or
varchar of an ARRAY constructor whose elements are all written constants of one kind (numbers, strings, booleans,
NULLs) becomes the string PostgreSQL prints, folded at planning as PostgreSQL folds a constant expression: numbers
as written (each its own scale), booleans t / f, NULL unquoted, and a string double-quoted, with `"` and `\\`
escaped, when it is empty, NULL in any case, or holds a brace, a comma, a quote, a backslash or white space.
DuckDB printed `[1, 2, 3]`, Spark `[1, 2, 3]`. Arrays over columns and nested arrays are left as written.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import TypeVar

from sqlglot import exp

Tree = TypeVar("Tree", bound=exp.Expr)

_NEEDS_QUOTES = re.compile(r'[{},"\\\s]')


def _quoted(text: str) -> str:
    if text == "" or text.upper() == "NULL" or _NEEDS_QUOTES.search(text):
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return text


def _number(node: exp.Expr) -> str | None:
    negative = False
    while isinstance(node, exp.Neg | exp.Paren):
        negative ^= isinstance(node, exp.Neg)
        node = node.this
    if not (isinstance(node, exp.Literal) and not node.is_string):
        return None
    try:
        value = Decimal(node.this)
    except InvalidOperation:
        return None
    return format(-value if negative else value, "f")


def _element(node: exp.Expr) -> tuple[str, str] | None:
    """(kind, text) of a constant element, None for anything else."""
    if isinstance(node, exp.Null):
        return "null", "NULL"
    if isinstance(node, exp.Boolean):
        return "boolean", "t" if node.this else "f"
    if isinstance(node, exp.Literal) and node.is_string:
        return "text", _quoted(node.this)
    number = _number(node)
    return ("number", number) if number is not None else None


def _folded(array: exp.Array) -> str | None:
    found = [_element(e) for e in array.expressions]
    if any(f is None for f in found):
        return None
    kinds = {f[0] for f in found if f is not None and f[0] != "null"}
    if len(kinds) > 1:
        return None  # PostgreSQL resolves (or refuses) mixed kinds; left to the engine
    return "{" + ",".join(f[1] for f in found if f is not None) + "}"


def constant_array_text(tree: Tree) -> Tree:
    for node in list(tree.find_all(exp.Cast)):
        if node.to.this not in (exp.DType.TEXT, exp.DType.VARCHAR) or node.to.expressions:
            continue
        inner = node.this
        while isinstance(inner, exp.Paren):
            inner = inner.this
        if isinstance(inner, exp.Array):
            folded = _folded(inner)
            if folded is not None:
                node.replace(exp.cast(exp.Literal.string(folded), "text"))
    return tree
