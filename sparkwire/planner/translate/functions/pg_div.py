"""div(a, b) as PostgreSQL computes it: the quotient truncated toward zero, a numeric with scale 0.

Contract: `lower_div(tree)` rewrites a PostgreSQL-parsed sqlglot tree in place and returns it; both translators call
it first (translate/spark.py `to_spark_sql`, translate/duckdb.py `to_duckdb`). sqlglot reads div(a, b) as
`CAST(a DIV b AS DECIMAL)`: Spark's DIV is a bigint (div(f::numeric, 3) wrapped around past 2^63) and the
unconstrained DECIMAL printed 10 decimals; DuckDB's `//` of decimals divided (div(7.5, 2) was 3.750). It becomes
`CAST((a - a % b) / b AS DECIMAL(38, 0))`: `%` truncates toward zero on both engines as PostgreSQL's numeric
modulo does, so the quotient of the exact multiple is the truncated one whatever scale the engine divides at;
b = 0 is 22012 from `%`. The column is still described as numeric (the statement's own cast, output_types).
"""

from __future__ import annotations

from typing import TypeVar

from sqlglot import exp

Tree = TypeVar("Tree", bound=exp.Expr)


def _truncated(node: exp.IntDiv) -> exp.Expr:
    a, b = exp.Paren(this=node.this.copy()), exp.Paren(this=node.expression.copy())
    multiple = exp.Paren(this=exp.Sub(this=a, expression=exp.Paren(this=exp.Mod(this=a.copy(), expression=b))))
    quotient = exp.Div(this=multiple, expression=b.copy())
    return exp.Cast(this=quotient, to=exp.DataType.build("DECIMAL(38, 0)"))


def lower_div(tree: Tree) -> Tree:
    for node in list(tree.find_all(exp.Cast)):
        inner = node.this
        if isinstance(inner, exp.IntDiv) and node.to.this == exp.DType.DECIMAL and not node.to.expressions:
            node.replace(_truncated(inner))
    return tree
