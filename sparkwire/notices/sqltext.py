"""SQL expressions as notices print and compare them (sqlglot, PostgreSQL dialect).

Contract:
- `parse_expression` parses one scalar expression (an index key, as `Item.keys` stores it).
- `expression_key` is the comparison form: identifiers case-normalized, column qualifiers and redundant
  parentheses dropped, so `T.A + 7`, `(a+7)` and `a + 7` compare equal.
- `show` prints an expression the way Materialize's notices do: every binary operation parenthesized
  (`(a + 7)`), column qualifiers dropped; with `redacted=True` every literal (number, string, boolean) becomes
  █ (U+2588). NULL is not customer data and is kept.
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.optimizer.normalize_identifiers import normalize_identifiers

DIALECT = "postgres"
REDACTED = "█"


def parse_expression(text: str) -> exp.Expr:
    return sqlglot.parse_one(text, read=DIALECT)


def _bare(expression: exp.Expr) -> exp.Expr:
    """A copy without column qualifiers and parentheses, identifiers case-normalized."""

    def strip(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Paren):
            inner: exp.Expr = node.this
            return inner.copy()
        if isinstance(node, exp.Column) and node.table:
            return exp.column(node.this.copy())
        return node

    bare = expression.copy().transform(strip)
    return normalize_identifiers(bare, dialect=DIALECT)


def expression_key(expression: exp.Expr) -> str:
    return _bare(expression).sql(dialect=DIALECT, normalize_functions="lower")


def show(expression: exp.Expr, redacted: bool) -> str:
    def redact(node: exp.Expr) -> exp.Expr:
        return exp.var(REDACTED) if isinstance(node, exp.Literal | exp.Boolean) else node

    def parenthesize(node: exp.Expr) -> exp.Expr:
        return exp.Paren(this=node.copy()) if isinstance(node, exp.Binary) else node

    bare = _bare(expression)
    if redacted:
        bare = bare.transform(redact)
    return bare.transform(parenthesize).sql(dialect=DIALECT, normalize_functions="lower")


def show_list(expressions: tuple[exp.Expr, ...], redacted: bool) -> str:
    """`a, (b + 1)`: a comma-separated list of `show`n expressions."""
    return ", ".join(show(e, redacted) for e in expressions)
