"""Floats as PostgreSQL computes and prints them, where DuckDB differs; a float is known by its spelling here.

Contract: a float operand is one written as such: a cast to real / double precision, or +, -, *, /, ^ and unary
minus over one and no interval (`float_kind`). Rules, each `rule(tree) -> tree`:

- float_text: `x::text` / `x::varchar` (no length) of a float is the engine function `sw_float8_text(x)` /
  `sw_float4_text(x)` (engine/pg_functions.py: PostgreSQL's float8out / float4out, the same spelling the wire
  encoder uses); DuckDB's cast prints `1.0`, `1000000000000000.0`, `10000000.0`, `nan`. (Spark's translation
  does the same in Spark SQL, spark_rules.text_casts.)
- float_rounding: round(float) rounds half to even and keeps -0, as PostgreSQL's rint (DuckDB rounds half away
  from zero): `round_even(x, 0)`, the rule spark_math.float_rounding gives Spark.
- float_overflow: float `*`, `/`, `+`, `-` and `^` whose result is infinite from finite operands are 22003 `value
  out of range: overflow`, and `*`, `/` and `^` whose result is 0 from non-zero operands 22003 `value out of
  range: underflow` (DuckDB answers ±Infinity or 0), raised as the shared rules raise (spark_math.raise_error,
  made DuckDB's `error()` by duckdb_rules/shared.py).
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.engine.pg_functions import FLOAT4_TEXT, FLOAT8_TEXT
from sparkwire.planner.translate.duckdb_rules.intervals import is_interval
from sparkwire.planner.translate.spark_math import raise_error

_FLOATS = {exp.DType.DOUBLE: FLOAT8_TEXT, exp.DType.FLOAT: FLOAT4_TEXT}
_ARITHMETIC = (exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Pow)


def float_kind(node: exp.Expr) -> exp.DType | None:
    while isinstance(node, exp.Paren | exp.Neg):
        node = node.this
    if isinstance(node, exp.Cast):
        return node.to.this if node.to.this in _FLOATS and not node.to.expressions else None
    if isinstance(node, _ARITHMETIC) and not (is_interval(node.this) or is_interval(node.expression)):
        kinds = {float_kind(node.this), float_kind(node.expression)}
        if exp.DType.DOUBLE in kinds:
            return exp.DType.DOUBLE
        return exp.DType.FLOAT if exp.DType.FLOAT in kinds else None
    return None


def float_text(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if not (isinstance(node, exp.Cast) and node.to.this in (exp.DType.TEXT, exp.DType.VARCHAR)):
            return node
        kind = float_kind(node.this)
        if kind is None or node.to.expressions:
            return node
        return exp.Anonymous(this=_FLOATS[kind], expressions=[node.this.copy()])

    return tree.transform(rewrite, copy=False)


def float_rounding(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.Round) or node.args.get("decimals") is not None or float_kind(node.this) is None:
            return node
        return exp.Anonymous(this="round_even", expressions=[node.this.copy(), exp.Literal.number(0)])

    return tree.transform(rewrite, copy=False)


def _raise(message: str) -> exp.Expr:
    return raise_error("22003", message)


def _isinf(node: exp.Expr) -> exp.Expr:
    return exp.Anonymous(this="isinf", expressions=[node.copy()])


def _is_zero(node: exp.Expr) -> exp.Expr:
    return exp.EQ(this=node.copy(), expression=exp.Literal.number(0))


def float_overflow(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, _ARITHMETIC) or float_kind(node) is None:
            return node
        a, b = (exp.Cast(this=x.copy(), to=exp.DataType.build("DOUBLE")) for x in (node.this, node.expression))
        result = node.copy()
        finite = exp.and_(exp.not_(_isinf(a)), exp.not_(_isinf(b)))
        checks = [exp.If(this=exp.and_(_isinf(result), finite), true=_raise("value out of range: overflow"))]
        if isinstance(node, exp.Mul | exp.Div | exp.Pow):
            nonzero = (
                exp.not_(_is_zero(a))
                if isinstance(node, exp.Pow)
                else exp.and_(exp.not_(_is_zero(a)), exp.not_(_is_zero(b)))
            )
            underflow = exp.and_(_is_zero(result), nonzero, finite)
            checks.append(exp.If(this=underflow, true=_raise("value out of range: underflow")))
        return exp.Paren(this=exp.Case(ifs=checks, default=result))

    return tree.transform(rewrite, copy=False)


FLOAT_RULES = (float_text, float_rounding, float_overflow)
