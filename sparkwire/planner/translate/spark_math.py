"""PostgreSQL's numeric functions on Spark: their domain errors and their rounding (tree rules like spark_rules.py).

Contract: `MATH_RULES` is an ordered tuple of pure rules `rule(expression) -> expression` over a type-annotated,
PostgreSQL-parsed sqlglot tree; the translator applies them after `spark_rules.RULES`. An error PostgreSQL raises
for a value (sqrt of a negative number, the logarithm of zero) becomes `raise_error('<marker><SQLSTATE>:<message>')`
in a CASE around the call; `engine/spark_errors.py` turns Spark's USER_RAISED_EXCEPTION carrying `ERROR_MARKER`
back into that SQLSTATE and message. Users cannot call raise_error themselves (the function allowlist).

- domain_errors: sqrt(<0) 2201F, ln/log of 0 or of a negative number 2201E, a negative number to a non-integer
  power and zero to a negative power 2201F (Spark returns NaN, -Infinity or Infinity)
- float_rounding: round(float) rounds half to even and keeps the sign of zero (Spark: half up, +0)
- decimal_scales: round/trunc(x, n) of an integer or a numeric is numeric with n decimals (Spark: x's type)
- truncation: trunc(numeric, n) keeps n decimals and trunc(float) stays a float (sqlglot: a cast to bigint);
  ceil/floor of a float stay floats (Spark: bigint, which overflows)
- float_narrowing: float8 → real raises 22003 for a finite value out of real's range (overflow) or a non-zero
  one below it (underflow) (Spark: Infinity, 0)
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from sparkwire.engine.spark_errors import RAISED_MARKER as ERROR_MARKER
from sparkwire.planner.translate.spark_rules import type_of

Rule = Callable[[exp.Expr], exp.Expr]

FLOAT_TYPES = frozenset({exp.DType.FLOAT, exp.DType.DOUBLE})
NUMERIC_TYPES = frozenset({exp.DType.DECIMAL, exp.DType.BIGDECIMAL})
INTEGER_TYPES = frozenset({exp.DType.TINYINT, exp.DType.SMALLINT, exp.DType.INT, exp.DType.BIGINT})


def _is_literal(node: exp.Expr) -> bool:
    """A number written in the query (2.5 is numeric in PostgreSQL, though sqlglot types it double)."""
    while isinstance(node, exp.Paren | exp.Neg):
        node = node.this
    return isinstance(node, exp.Literal) and not node.is_string


def _kind(node: exp.Expr) -> exp.DType | None:
    """The PostgreSQL kind of a number: DECIMAL for a numeric literal, else its annotated type."""
    return exp.DType.DECIMAL if _is_literal(node) else type_of(node)


def _fn(name: str, *args: exp.Expr) -> exp.Anonymous:
    return exp.Anonymous(this=name, expressions=list(args))


def raise_error(sqlstate: str, message: str) -> exp.Expr:
    """A Spark expression that fails the statement with PostgreSQL's SQLSTATE and message."""
    return _fn("raise_error", exp.Literal.string(f"{ERROR_MARKER}{sqlstate}:{message}"))


def _guarded(value: exp.Expr, checks: list[tuple[exp.Expr, str, str]]) -> exp.Expr:
    """CASE WHEN check THEN raise_error(...) ... ELSE value END, typed as value."""
    case = exp.Case(
        ifs=[exp.If(this=cond, true=raise_error(state, message)) for cond, state, message in checks],
        default=value,
    )
    case.type = value.type
    return exp.Paren(this=case)


def _lt_zero(node: exp.Expr) -> exp.Expr:
    return exp.LT(this=node.copy(), expression=exp.Literal.number(0))


def _eq_zero(node: exp.Expr) -> exp.Expr:
    return exp.EQ(this=node.copy(), expression=exp.Literal.number(0))


# ---- domain errors -------------------------------------------------------------------------------------------

LOG_ZERO = ("2201E", "cannot take logarithm of zero")
LOG_NEGATIVE = ("2201E", "cannot take logarithm of a negative number")


def domain_errors(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Sqrt):
            return _guarded(node, [(_lt_zero(node.this), "2201F", "cannot take square root of a negative number")])
        if isinstance(node, exp.Ln) or (isinstance(node, exp.Log) and node.expression is None):
            return _guarded(node, [(_eq_zero(node.this), *LOG_ZERO), (_lt_zero(node.this), *LOG_NEGATIVE)])
        if isinstance(node, exp.Log):
            base, value = node.this, node.expression
            checks = [(_eq_zero(v), *LOG_ZERO) for v in (base, value)]
            checks += [(_lt_zero(v), *LOG_NEGATIVE) for v in (base, value)]
            return _guarded(node, checks)
        if isinstance(node, exp.Pow):
            base, power = node.this, node.expression
            non_integer = exp.NEQ(this=power.copy(), expression=_fn("floor", power.copy()))
            return _guarded(
                node,
                [
                    (
                        exp.and_(_eq_zero(base), _lt_zero(power)),
                        "2201F",
                        "zero raised to a negative power is undefined",
                    ),
                    (
                        exp.and_(_lt_zero(base), non_integer),
                        "2201F",
                        "a negative number raised to a non-integer power yields a complex result",
                    ),
                ],
            )
        return node

    return tree.transform(rewrite, copy=False)


# ---- rounding --------------------------------------------------------------------------------------------------


def float_rounding(tree: exp.Expr) -> exp.Expr:
    """round(float8) is rint(): half to even, -0.5 -> -0 (Spark's ROUND on a double rounds half up)."""

    def rewrite(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.Round) or node.args.get("decimals") is not None:
            return node
        kind = _kind(node.this)
        if kind not in FLOAT_TYPES:
            return node
        rounded: exp.Expr = _fn("rint", node.this)
        if kind == exp.DType.FLOAT:
            rounded = exp.cast(rounded, exp.DType.FLOAT)
        rounded.type = node.this.type
        return rounded

    return tree.transform(rewrite, copy=False)


def _written_scale(decimals: exp.Expr | None) -> int | None:
    """The n of round/trunc(x, n) when it is written as an integer constant."""
    negative = isinstance(decimals, exp.Neg)
    node = decimals.this if isinstance(decimals, exp.Neg) else decimals
    if not isinstance(node, exp.Literal) or node.is_string or not node.this.isdigit():
        return None
    return -int(node.this) if negative else int(node.this)


def decimal_scales(tree: exp.Expr) -> exp.Expr:
    """round/trunc(x, n) is numeric with n decimals (none for a negative n), an integer x included (Spark keeps
    an integer, and the decimal's own scale)."""

    def rewrite(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.Round | exp.Trunc) or isinstance(node.parent, exp.Cast):
            return node
        scale = _written_scale(node.args.get("decimals"))
        kind = _kind(node.this)
        if scale is None or kind not in (*NUMERIC_TYPES, *INTEGER_TYPES):
            return node
        if kind in INTEGER_TYPES:
            wide = exp.cast(node.this, "decimal(20, 0)")
            wide.type = exp.DataType.build("decimal(20, 0)")
            node.set("this", wide)
        result = exp.cast(node, f"decimal(38, {max(scale, 0)})")
        result.type = exp.DataType.build(f"decimal(38, {max(scale, 0)})")
        return result

    return tree.transform(rewrite, copy=False)


def truncation(tree: exp.Expr) -> exp.Expr:
    """trunc(numeric[, n]) toward zero keeping n decimals; trunc(float) a float toward zero."""

    def rewrite(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.Trunc):
            return node
        value = node.this
        kind = _kind(value)
        decimals = node.args.get("decimals") or exp.Literal.number(0)
        if kind in FLOAT_TYPES and node.args.get("decimals") is None:
            return _float_whole(value)
        if kind in NUMERIC_TYPES:
            case = exp.Case(
                ifs=[exp.If(this=_lt_zero(value), true=_fn("ceil", value.copy(), decimals.copy()))],
                default=_fn("floor", value.copy(), decimals.copy()),
            )
            return exp.Paren(this=case)
        return node

    return tree.transform(rewrite, copy=False)


def _whole(value: exp.Expr) -> exp.Expr:
    """The whole part of a non-negative float, as a float: value - value % 1."""
    fraction = exp.Paren(this=exp.Mod(this=value.copy(), expression=exp.Literal.number(1)))
    return exp.Paren(this=exp.Sub(this=value.copy(), expression=fraction))


def _up(value: exp.Expr) -> exp.Expr:
    """The smallest whole float >= a non-negative float."""
    step = exp.If(
        this=exp.GT(this=value.copy(), expression=_whole(value)),
        true=exp.Literal.number(1),
        false=exp.Literal.number(0),
    )
    return exp.Paren(this=exp.Add(this=_whole(value), expression=step))


def _float_whole(value: exp.Expr, kind: type[exp.Expr] = exp.Trunc) -> exp.Expr:
    """trunc / ceil / floor of a float as a float, -0 where PostgreSQL gives -0 (ceil(-0.5), trunc(-0.5))."""
    negated = exp.Paren(this=exp.Neg(this=value.copy()))
    if kind is exp.Floor:
        below, above = exp.Neg(this=_up(negated)), _whole(value)
    else:
        below = exp.Neg(this=_whole(negated))
        above = _up(value) if kind is exp.Ceil else _whole(value)
    return exp.Paren(this=exp.If(this=_lt_zero(value), true=below, false=above))


def float_ceil_floor(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.Ceil | exp.Floor) or node.args.get("decimals") is not None:
            return node
        if _kind(node.this) not in FLOAT_TYPES:
            return node
        return _float_whole(node.this, type(node))

    return tree.transform(rewrite, copy=False)


def _real(value: exp.Expr) -> exp.Cast:
    cast = exp.Cast(this=value.copy(), to=exp.DataType.build("FLOAT"))
    cast.type = exp.DataType.build("FLOAT")
    return cast


def float_narrowing(tree: exp.Expr) -> exp.Expr:
    """float8 → real: PostgreSQL's float84 raises 22003 when a finite value becomes infinite (overflow) or a
    non-zero one zero (underflow); Spark's cast gives Infinity and 0."""

    def rewrite(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.Cast) or node.to.this != exp.DType.FLOAT or _kind(node.this) != exp.DType.DOUBLE:
            return node
        value, narrowed = node.this, _real(node.this)
        infinite = exp.EQ(this=_fn("abs", narrowed.copy()), expression=_fn("float", exp.Literal.string("infinity")))
        finite = exp.LT(this=_fn("abs", value.copy()), expression=_fn("double", exp.Literal.string("infinity")))
        lost = exp.and_(_eq_zero(narrowed), exp.NEQ(this=value.copy(), expression=exp.Literal.number(0)))
        overflow = (exp.and_(infinite, finite), "22003", "value out of range: overflow")
        return _guarded(narrowed, [overflow, (lost, "22003", "value out of range: underflow")])

    return tree.transform(rewrite, copy=False)


MATH_RULES: tuple[Rule, ...] = (
    domain_errors, float_rounding, decimal_scales, truncation, float_ceil_floor, float_narrowing,
)  # fmt: skip
