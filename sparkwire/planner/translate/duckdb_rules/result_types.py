"""The result columns of a query without relations in PostgreSQL's types where DuckDB's are wider or narrower.

Contract: `constant_result_types(tree)` casts each computed result column of a statement that reads no relation at
all (`SELECT gcd(12, 18), position('lo' IN 'hello')`) to the type PostgreSQL's rules give it
(planner/bind/pg_result_types.py, the table the Spark route's result types come from) when that type is an integer
type or timestamp with time zone: DuckDB answers BIGINT for gcd/lcm/position/strpos and date - date, TIMESTAMP for
date_trunc of a date. Those casts keep the value (PostgreSQL computes these in that type; an integer out of its
range is 22003 in both). Other types are left to DuckDB (a cast to a float or a numeric would change
the digits), except that arithmetic PostgreSQL computes in double precision over a real operand gets that operand
as DOUBLE (as on Spark, translate/spark_pg_types.py), and sign(x) is DOUBLE or DECIMAL(38, 0) as PostgreSQL types
it.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.planner.bind.pg_result_types import BIGINT, DOUBLE, INTEGER, NUMERIC, REAL, SMALLINT, result_type

_CASTS = {SMALLINT: "SMALLINT", INTEGER: "INTEGER", BIGINT: "BIGINT", "timestamp with time zone": "TIMESTAMPTZ"}


def _computed(node: exp.Expr) -> bool:
    return not isinstance(node, exp.Column | exp.Literal | exp.Cast | exp.Star | exp.Null | exp.Paren)


def _widen_reals(tree: exp.Expr) -> None:
    """Arithmetic PostgreSQL computes in double precision over a real operand: that operand as DOUBLE (there is no
    real-with-integer operator; DuckDB computes 1 / 3::real in FLOAT and prints 0.33333334)."""
    for node in list(tree.find_all(exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod)):
        if result_type(node, {}) != DOUBLE:
            continue
        for key in ("this", "expression"):
            operand = node.args.get(key)
            if isinstance(operand, exp.Expr) and result_type(operand, {}) == REAL:
                node.set(key, exp.Cast(this=operand.copy(), to=exp.DataType.build("DOUBLE")))


_SIGNS = {DOUBLE: "DOUBLE", NUMERIC: "DECIMAL(38, 0)"}


def _signs(tree: exp.Expr) -> None:
    """sign(x) is double precision of an integer or a float, numeric of a numeric (-1, 0 or 1 at scale 0);
    DuckDB answers an integer type."""
    for node in list(tree.find_all(exp.Sign)):
        target = _SIGNS.get(result_type(node, {}) or "")
        if target is not None and not isinstance(node.parent, exp.Cast):
            node.replace(exp.Cast(this=node.copy(), to=exp.DataType.build(target, dialect="duckdb")))


def constant_result_types(tree: exp.Expr) -> exp.Expr:
    if not isinstance(tree, exp.Select) or tree.find(exp.Table, exp.Values) is not None:
        return tree
    _widen_reals(tree)
    _signs(tree)
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
