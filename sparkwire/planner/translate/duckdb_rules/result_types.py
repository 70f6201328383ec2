"""The result columns of a query without relations in PostgreSQL's types where DuckDB's are wider or narrower.

Contract: `constant_result_types(tree)` casts each computed result column of a statement that reads no relation at
all (`SELECT gcd(12, 18), position('lo' IN 'hello')`) to the type PostgreSQL's rules give it
(planner/bind/pg_result_types.py, the table the Spark route's result types come from) when that type is an integer
type or timestamp with time zone: DuckDB answers BIGINT for gcd/lcm/position/strpos and date - date, TIMESTAMP for
date_trunc of a date. Those casts keep the value (PostgreSQL computes these in that type; an integer out of its
range is 22003 in both). Other types are left to DuckDB (a cast to a float or a numeric would change the digits).
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.planner.bind.pg_result_types import BIGINT, INTEGER, SMALLINT, result_type

_CASTS = {SMALLINT: "SMALLINT", INTEGER: "INTEGER", BIGINT: "BIGINT", "timestamp with time zone": "TIMESTAMPTZ"}


def _computed(node: exp.Expr) -> bool:
    return not isinstance(node, exp.Column | exp.Literal | exp.Cast | exp.Star | exp.Null | exp.Paren)


def constant_result_types(tree: exp.Expr) -> exp.Expr:
    if not isinstance(tree, exp.Select) or tree.find(exp.Table, exp.Values) is not None:
        return tree
    projections = []
    for projection in tree.expressions:
        node = projection.unalias()
        pg_type = result_type(node, {}) if _computed(node) else None
        if pg_type in _CASTS:
            cast = exp.Cast(this=node.copy(), to=exp.DataType.build(_CASTS[pg_type], dialect="duckdb"))
            projection = exp.alias_(cast, projection.alias) if isinstance(projection, exp.Alias) else cast
        projections.append(projection)
    tree.set("expressions", projections)
    return tree
