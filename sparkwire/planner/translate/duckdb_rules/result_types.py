"""The result columns of a query without relations in PostgreSQL's types where DuckDB's are wider or narrower.

Contract: `constant_result_types(tree)` casts each computed result column of a statement that reads no relation at
all (`SELECT gcd(12, 18), position('lo' IN 'hello')`) to the type PostgreSQL's rules give it
(planner/bind/pg_result_types.py, the table the Spark route's result types come from) when that type is an integer
type or timestamp with time zone: DuckDB answers BIGINT for gcd/lcm/position/strpos and date - date, TIMESTAMP for
date_trunc of a date. Those casts keep the value (PostgreSQL computes these in that type; an integer out of its
range is 22003 in both). Other types are left to DuckDB (a cast to a float or a numeric would change
the digits), except that arithmetic PostgreSQL computes in double precision over a real operand gets that operand
as DOUBLE (as on Spark, translate/spark_pg_types.py), and sign(x) is DOUBLE or DECIMAL(38, 0) as PostgreSQL types
it; GREATEST / LEAST / COALESCE of written numbers, one a numeric, is the chosen one at its own scale.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

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


def _written(node: exp.Expr) -> Decimal | None:
    negative = False
    while isinstance(node, exp.Neg | exp.Paren):
        negative ^= isinstance(node, exp.Neg)
        node = node.this
    if not (isinstance(node, exp.Literal) and not node.is_string and "e" not in node.this.lower()):
        return None
    try:
        value = Decimal(node.this)
    except InvalidOperation:
        return None
    return -value if negative else value


def _chosen_constants(tree: exp.Expr) -> None:
    """GREATEST / LEAST / COALESCE of written numbers, one with a fraction (a numeric): the chosen one with its own
    scale, folded as PostgreSQL folds constants (`greatest(1, 2.5, 3)` is 3, not DuckDB's 3.0)."""
    for node in list(tree.find_all(exp.Greatest, exp.Least, exp.Coalesce)):
        args = [node.this, *node.expressions]
        values = [None if isinstance(a, exp.Null) else _written(a) for a in args]
        numbers = [v for v in values if v is not None]
        if len(numbers) + sum(isinstance(a, exp.Null) for a in args) != len(args) or not numbers:
            continue
        if all(v.as_tuple().exponent == 0 for v in numbers):
            continue  # integers: DuckDB's integer type is PostgreSQL's
        if isinstance(node, exp.Coalesce):
            chosen = numbers[0]
        else:
            chosen = max(numbers) if isinstance(node, exp.Greatest) else min(numbers)
        exponent = chosen.as_tuple().exponent
        scale = -exponent if isinstance(exponent, int) and exponent < 0 else 0
        target = exp.DataType.build(f"DECIMAL(38, {scale})", dialect="duckdb")
        node.replace(exp.Cast(this=exp.Literal.number(format(chosen, "f")), to=target))


def constant_result_types(tree: exp.Expr) -> exp.Expr:
    if not isinstance(tree, exp.Select) or tree.find(exp.Table, exp.Values) is not None:
        return tree
    _widen_reals(tree)
    _signs(tree)
    _chosen_constants(tree)
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
