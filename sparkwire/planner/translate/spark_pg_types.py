"""Values in PostgreSQL's result types on Spark: where Spark would compute an operator or an aggregate in another
type than PostgreSQL's (planner/bind/pg_result_types.py), its operands are cast so the value is PostgreSQL's.

Contract: `pg_result_values(tree, schema)` rewrites a qualified, type-annotated tree in place (`schema`: relation
→ column → PostgreSQL type name, as translate/spark.py has it):
- arithmetic whose PostgreSQL type is double precision over a real operand: that operand is cast to DOUBLE
  (PostgreSQL has no real-with-integer or real-with-numeric operator and widens the real; Spark computes
  `real * int` in float, which loses the digits PostgreSQL keeps);
- `sum` of a bigint (numeric in PostgreSQL): its argument is cast to DECIMAL(38, 0), in every form (window,
  FILTER, DISTINCT): Spark's bigint sum overflows where PostgreSQL's does not;
- lag / lead with a default of a wider integer or float type: the value is cast to it (Spark casts the default
  to the value's type instead).
The result columns' described types are pg_result_types' (planner/bind/output_types.py) and the rows are conformed
to them (planner/execute/user_data.py), so a type that only differs in width (ntile's integer, count's bigint, a
window's sum of integers) needs no rule here. avg() is numeric_div of its sum by its count (spark_numeric.py).
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.planner.bind.pg_result_types import BIGINT, DOUBLE, INTEGER, REAL, SMALLINT, Columns, result_type
from sparkwire.planner.translate import numeric_types as nt

_ARITHMETIC = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod)


def _cast(node: exp.Expr, spark_type: str) -> exp.Cast:
    target = exp.DataType.build(spark_type)
    cast = exp.Cast(this=node, to=target)
    cast.type = target.copy()
    return cast


def _widen_reals(tree: exp.Expr, known: Columns) -> None:
    for node in list(tree.find_all(*_ARITHMETIC)):
        if result_type(node, known) != DOUBLE:
            continue
        for key in ("this", "expression"):
            operand = node.args.get(key)
            if isinstance(operand, exp.Expr) and result_type(operand, known) == REAL:
                node.set(key, _cast(operand.copy(), "DOUBLE"))


def _sum_arguments(tree: exp.Expr, known: Columns) -> None:
    for node in list(tree.find_all(exp.Sum)):
        argument = node.this
        values = argument.expressions if isinstance(argument, exp.Distinct) else [argument]
        if len(values) != 1 or result_type(values[0], known) != BIGINT:
            continue
        wide = _cast(values[0].copy(), "DECIMAL(38, 0)")
        if isinstance(argument, exp.Distinct):
            argument.set("expressions", [wide])
        else:
            node.set("this", wide)


_SPARK_NUMBERS = {SMALLINT: "SMALLINT", INTEGER: "INT", BIGINT: "BIGINT", REAL: "FLOAT", DOUBLE: "DOUBLE"}


def _shift_defaults(tree: exp.Expr, known: Columns) -> None:
    """lag/lead(x, n, default) is the common type of x and the default in PostgreSQL (anycompatible); Spark casts
    the default to x's type (lag(smallint, 1, 100000) overflowed, a float default lost its fraction): x is cast to
    that type where it is an integer or float type (a numeric one keeps each value's scale: chosen_scales)."""
    for node in list(tree.find_all(exp.Lag, exp.Lead)):
        if not isinstance(node.args.get("default"), exp.Expr):
            continue
        wanted, own = result_type(node, known), result_type(node.this, known)
        if wanted in _SPARK_NUMBERS and own is not None and own != wanted:
            node.set("this", _cast(node.this.copy(), _SPARK_NUMBERS[wanted]))


def pg_result_values(tree: exp.Expr, schema: Columns) -> exp.Expr:
    known = nt.alias_columns(tree, schema)
    _widen_reals(tree, known)
    _sum_arguments(tree, known)
    _shift_defaults(tree, known)
    return tree
