"""`(s1, e1) OVERLAPS (s2, e2)` for both translators (called by functions/lowering.py): neither engine reads it.

Contract: `overlaps(node)` is PostgreSQL's overlaps_timestamp as a CASE over the four ends, or None when an operand
is not a pair. An end that is an interval (an interval literal, a cast to interval) is the start plus it. Each pair
is first put in order (a NULL start takes the end's place, with a NULL end); then: NULL when a start is NULL; if the
starts differ, the later start must come before the other pair's end (NULL where that end, or when it is not
before, the later pair's own end is NULL); equal starts overlap unless an end is NULL (then NULL).
"""

from __future__ import annotations

from sqlglot import exp


def _is_interval(node: exp.Expr) -> bool:
    return isinstance(node, exp.Interval) or (isinstance(node, exp.Cast) and node.to.is_type(exp.DType.INTERVAL))


def _null() -> exp.Expr:
    return exp.Null()


def _case(*branches: tuple[exp.Expr, exp.Expr], default: exp.Expr) -> exp.Expr:
    return exp.Case(ifs=[exp.If(this=when, true=then) for when, then in branches], default=default)


def _is_null(node: exp.Expr) -> exp.Expr:
    return exp.Is(this=node.copy(), expression=exp.Null())


def _ordered(pair: exp.Tuple) -> tuple[exp.Expr, exp.Expr]:
    """(earlier, later) of a pair; a NULL start gives (end, NULL), a NULL end (start, NULL)."""
    start, end = (exp.Paren(this=e.copy()) for e in pair.expressions)
    if _is_interval(pair.expressions[1]):
        end = exp.Paren(this=exp.Add(this=start.copy(), expression=end))
    before = exp.LT(this=end.copy(), expression=start.copy())
    first = _case((exp.or_(_is_null(start), before.copy()), end.copy()), default=start.copy())
    second = _case((_is_null(start), _null()), (before, start.copy()), default=end.copy())
    return exp.Paren(this=first), exp.Paren(this=second)


def _later_start(start: exp.Expr, other_end: exp.Expr, own_end: exp.Expr) -> exp.Expr:
    return _case(
        (_is_null(other_end), _null()),
        (exp.LT(this=start.copy(), expression=other_end.copy()), exp.true()),
        (_is_null(own_end), _null()),
        default=exp.false(),
    )


def overlaps(node: exp.Overlaps) -> exp.Expr | None:
    left, right = node.this, node.expression
    if not (isinstance(left, exp.Tuple) and isinstance(right, exp.Tuple)):
        return None
    if len(left.expressions) != 2 or len(right.expressions) != 2:
        return None
    s1, e1 = _ordered(left)
    s2, e2 = _ordered(right)
    return exp.Paren(
        this=_case(
            (exp.or_(_is_null(s1), _is_null(s2)), _null()),
            (exp.GT(this=s1.copy(), expression=s2.copy()), _later_start(s1, e2, e1)),
            (exp.LT(this=s1.copy(), expression=s2.copy()), _later_start(s2, e1, e2)),
            default=_case((exp.or_(_is_null(e1), _is_null(e2)), _null()), default=exp.true()),
        )
    )
