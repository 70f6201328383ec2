"""Interval arithmetic DuckDB lacks under PostgreSQL's integer division.

Contract: `interval_division(tree)` rewrites `i / n` whose dividend is an interval (an interval literal, a cast to
interval, or arithmetic of one) into `i * (1 / CAST(n AS DOUBLE))`: the engine's `integer_division` setting (integer
`/` truncates, as in PostgreSQL) makes DuckDB bind `/` as `//`, which it has for no interval. Multiplying by the
reciprocal splits months into days (30 a month) and days into time (24 hours a day) as PostgreSQL's interval_div
does (`interval '1 month' / 2` is 15 days), and a zero divisor is 22012 as in PostgreSQL.
"""

from __future__ import annotations

from sqlglot import exp


def is_interval(node: exp.Expr) -> bool:
    """`node` is an interval by its spelling: a literal, a cast, or +, -, * and unary minus over one."""
    while isinstance(node, exp.Paren | exp.Neg):
        node = node.this
    if isinstance(node, exp.Interval):
        return True
    if isinstance(node, exp.Cast):
        return bool(node.to.this == exp.DType.INTERVAL)
    if isinstance(node, exp.Add | exp.Sub):
        return is_interval(node.this) and is_interval(node.expression)
    if isinstance(node, exp.Mul | exp.Div):
        return is_interval(node.this) or (isinstance(node, exp.Mul) and is_interval(node.expression))
    return False


def interval_division(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if not (isinstance(node, exp.Div) and is_interval(node.this)):
            return node
        divisor = exp.Cast(this=node.expression.copy(), to=exp.DataType.build("DOUBLE"))
        reciprocal = exp.Paren(this=exp.Div(this=exp.Literal.number(1), expression=divisor))
        return exp.Paren(this=exp.Mul(this=node.this.copy(), expression=reciprocal))

    return tree.transform(rewrite, copy=False)
