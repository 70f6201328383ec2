"""sum(interval), avg(interval) and age(): interval values PostgreSQL computes field by field.

PostgreSQL sums an interval's months, days and microseconds apart (`817 days 86:05:49.499`: no justification),
avg(interval) divides that sum by the count as interval_div does (fractional months into days at 30 a month,
fractional days into time, the time rounded to the microsecond), and age(x, y) is timestamp_age's symbolic
difference (functions/intervals/pg_age.py). DuckDB keeps an interval's three parts but has no sum(interval);
Spark's intervals are months alone or a duration (functions/intervals/interval_text.py), so these values exist on
Spark only as text.

Contract (an argument is an interval when planner/bind/pg_result_types.result_type types it so):
- `duckdb_interval_results(tree, columns)`: sum / avg of an interval → the interval built from the sums of its parts
  (to_months + to_days + to_microseconds, avg by interval_div's arithmetic); age stays DuckDB's age, which is
  PostgreSQL's. With `columns` (the statement reads user relations: it is described here and runs on Spark), such a
  call that is a result column of the statement's top SELECT is that interval's text (`sw_interval_text`,
  described as interval by pg_result_types), as Spark computes it.
- `mark_spark_interval_results(tree, schema)` (before the Spark rules) and `spark_interval_results(tree)` (after):
  the same result columns become their text on Spark: sum and avg over the days and the time within the day of each
  duration (the parts the wire gives a Spark interval), age symbolically; an ORDER BY naming such a column orders
  by the value (Spark's own aggregate, age()'s span). An age() elsewhere is 0A000: no Spark value holds it, and so is
  sum / avg projected by another SELECT (a derived table, a set operation, a scalar subquery); in WHERE, HAVING or
  ORDER BY they stay Spark's (a duration: the same span, which compares as PostgreSQL's interval).
FILTER and OVER are kept around the parts' sums; sum / avg with DISTINCT are left as written.
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlglot import exp

from sparkwire import errors
from sparkwire.engine.pg_functions import INTERVAL_TEXT
from sparkwire.planner.bind.pg_result_types import result_type
from sparkwire.planner.translate.functions.intervals.interval_text import (
    bind,
    call,
    duration_parts,
    interval_text,
    number,
)
from sparkwire.planner.translate.functions.intervals.justify import interval_parts
from sparkwire.planner.translate.functions.intervals.pg_age import spark_age
from sparkwire.planner.translate.functions.intervals.time_ops import typed_columns

Columns = Mapping[str, Mapping[str, str]]
INTERVAL, TIMESTAMPTZ = "interval", "timestamp with time zone"
_MARK = "sparkwire_interval_result"
_KEY = "key:"  # an ORDER BY key's age(): its span, not its text


def _paren(node: exp.Expr) -> exp.Expr:
    return exp.Paren(this=node)


def _is_age(node: exp.Expr) -> bool:
    return isinstance(node, exp.Anonymous) and node.name.lower() == "age" and len(node.expressions) in (1, 2)


def _interval_aggregate(node: exp.Expr, known: Columns) -> bool:
    if not isinstance(node, exp.Sum | exp.Avg):
        return False
    return not isinstance(node.this, exp.Distinct) and result_type(node.this, known) == INTERVAL


def _outer(node: exp.Expr) -> exp.Expr:
    """The aggregate with its FILTER and OVER around it."""
    while isinstance(node.parent, exp.Filter | exp.Window) and node.arg_key == "this":
        node = node.parent
    return node


def _rewrap(node: exp.Expr, replacement: exp.Expr) -> exp.Expr:
    """`replacement` inside a copy of the FILTER and OVER around `node`."""
    outer = _outer(node)
    if outer is node:
        return replacement
    copied = outer.copy()
    inner = copied
    while isinstance(inner.this, exp.Filter | exp.Window):
        inner = inner.this
    inner.set("this", replacement)
    return copied


def _result_column(node: exp.Expr, root: exp.Expr) -> bool:
    """`node` is a result column of the statement's top SELECT (aliased or not)."""
    outer = _outer(node)
    at = outer.parent if isinstance(outer.parent, exp.Alias) else outer
    return isinstance(root, exp.Select) and at.parent is root and at.arg_key == "expressions"


def _projected(node: exp.Expr) -> bool:
    """`node` is a projection of some SELECT (a derived table's, a set operation's branch, a scalar subquery's)."""
    outer = _outer(node)
    at = outer.parent if isinstance(outer.parent, exp.Alias) else outer
    return isinstance(at.parent, exp.Select) and at.arg_key == "expressions"


def _order_keys(node: exp.Expr, root: exp.Select) -> list[exp.Ordered]:
    """The ORDER BY keys of `root` that name the result column `node` (by position or alias)."""
    outer = _outer(node)
    at = outer.parent if isinstance(outer.parent, exp.Alias) else outer
    order = root.args.get("order")
    position = str(next(n for n, e in enumerate(root.expressions, 1) if e is at))
    named = at.alias if isinstance(at, exp.Alias) else ""
    return [
        o
        for o in (order.expressions if isinstance(order, exp.Order) else [])
        if (isinstance(o.this, exp.Literal) and not o.this.is_string and o.this.this == position)
        or (isinstance(o.this, exp.Column) and not o.this.table and named and o.this.name == named)
    ]


def _matches(tree: exp.Expr, known: Columns) -> list[exp.Expr]:
    return [n for n in tree.walk() if _is_age(n) or _interval_aggregate(n, known)]


# ---- DuckDB ------------------------------------------------------------------------------------------------------


def _as_double(value: exp.Expr) -> exp.Expr:
    return exp.cast(value, "double")


def _trunc(value: exp.Expr) -> exp.Expr:
    return call("trunc", value)


def _tsround(value: exp.Expr) -> exp.Expr:
    """PostgreSQL's TSROUND: to the microsecond, half to even."""
    scaled = call("round_even", exp.Mul(this=_paren(value), expression=number(1_000_000)), number(0))
    return _paren(exp.Div(this=scaled, expression=exp.Literal.number("1000000.0")))


def _interval(months: exp.Expr, days: exp.Expr, micros: exp.Expr) -> exp.Expr:
    parts = [call("to_months", exp.cast(months, "int")), call("to_days", exp.cast(days, "int"))]
    total = exp.Add(this=parts[0], expression=parts[1])
    return _paren(exp.Add(this=total, expression=call("to_microseconds", exp.cast(micros, "bigint"))))


def _duckdb_avg(months: exp.Expr, days: exp.Expr, micros: exp.Expr, count: exp.Expr) -> exp.Expr:
    """interval_div(sum, count) over the sums of the parts."""
    n = _as_double(call("nullif", count, number(0)))

    def share(value: exp.Expr) -> exp.Expr:
        return _paren(exp.Div(this=_as_double(value.copy()), expression=n.copy()))

    whole_months = _trunc(share(months))
    remainder_days = _tsround(exp.Mul(this=_paren(exp.Sub(this=share(months), expression=whole_months.copy())),
                                      expression=number(30)))  # fmt: skip
    whole_days = _trunc(share(days))
    spill = exp.Sub(this=remainder_days.copy(), expression=_trunc(remainder_days.copy()))
    day_fraction = exp.Add(this=exp.Sub(this=share(days), expression=whole_days.copy()), expression=spill)
    seconds = _tsround(exp.Mul(this=_paren(day_fraction), expression=number(86400)))
    carry = exp.Case(
        ifs=[exp.If(this=exp.GTE(this=exp.Abs(this=seconds.copy()), expression=number(86400)),
                    true=_trunc(exp.Div(this=seconds.copy(), expression=number(86400))))],
        default=number(0),
    )  # fmt: skip
    seconds_left = exp.Sub(this=seconds, expression=exp.Mul(this=_paren(carry.copy()), expression=number(86400)))
    all_days = exp.Add(this=exp.Add(this=whole_days, expression=_paren(carry)), expression=_trunc(remainder_days))
    spread = exp.Mul(this=_paren(seconds_left), expression=number(1_000_000))
    time = call("round_even", exp.Add(this=share(micros), expression=spread), number(0))
    return _interval(whole_months, all_days, time)


def _duckdb_value(node: exp.Expr) -> exp.Expr:
    if _is_age(node):
        return node
    assert isinstance(node, exp.Sum | exp.Avg)
    value = node.this
    sums = [_rewrap(node, exp.Sum(this=part)) for part in interval_parts(value)]
    if isinstance(node, exp.Sum):
        return _interval(sums[0], sums[1], sums[2])
    return _duckdb_avg(sums[0], sums[1], sums[2], _rewrap(node, exp.Count(this=value.copy())))


def duckdb_interval_results(tree: exp.Expr, columns: Columns | None) -> exp.Expr:
    if not any(isinstance(n, exp.Sum | exp.Avg) or _is_age(n) for n in tree.walk()):
        return tree
    known = typed_columns(tree, columns or {})
    for node in _matches(tree, known):
        value, outer = _duckdb_value(node), _outer(node)
        if columns is not None and _result_column(node, tree):
            value = call(INTERVAL_TEXT, *interval_parts(value))
        if value is not node:
            outer.replace(value)
    return tree


# ---- Spark -------------------------------------------------------------------------------------------------------


def _spark_age(node: exp.Expr) -> exp.Expr:
    args = list(node.expressions)
    mark = str(node.meta.get(_MARK))
    kind = exp.DType.TIMESTAMPTZ if mark.endswith(TIMESTAMPTZ) else exp.DType.TIMESTAMP
    if len(args) == 1:
        args.insert(0, exp.cast(exp.CurrentDate(), kind))
    return spark_age(args[0].copy(), args[1].copy(), kind, key=mark.startswith(_KEY))


def mark_spark_interval_results(tree: exp.Expr, schema: Columns) -> exp.Expr:
    """Marks the result columns to compute as text (after the rules); an ORDER BY naming one orders by the value:
    a copy of the aggregate (Spark's duration orders as PostgreSQL's interval), or age()'s span in microseconds."""
    if not any(isinstance(n, exp.Sum | exp.Avg) or _is_age(n) for n in tree.walk()):
        return tree
    known = typed_columns(tree, schema)
    for node in _matches(tree, known):
        if not _result_column(node, tree):
            if _is_age(node):
                raise errors.FeatureNotSupported("age() is supported on Spark only as a result column")
            if _projected(node):  # a value another SELECT reads: Spark's duration would be justified into days
                name = type(node).__name__.lower()
                raise errors.FeatureNotSupported(
                    f"{name}(interval) is supported on Spark only as a result column of the query's SELECT"
                )
            continue
        assert isinstance(tree, exp.Select)
        tz = _is_age(node) and any(result_type(a, known) == TIMESTAMPTZ for a in node.expressions)
        mark = TIMESTAMPTZ if tz else INTERVAL
        for ordered in _order_keys(node, tree):
            key = _outer(node).copy()
            if _is_age(node):
                key.meta[_MARK] = _KEY + mark
            ordered.set("this", key)
        node.meta[_MARK] = mark  # replaced after the rules, over their arguments
    return tree


def _spark_avg(v: dict[str, exp.Expr]) -> exp.Expr:
    """interval_div(sum, count) of a sum with no months."""
    share = exp.Div(this=exp.cast(v["d"].copy(), "double"), expression=exp.cast(v["n"].copy(), "double"))
    whole = exp.cast(share.copy(), "int")
    fraction = exp.Mul(this=_paren(exp.Sub(this=share, expression=whole.copy())), expression=number(86400))
    seconds = exp.Div(this=call("rint", exp.Mul(this=_paren(fraction), expression=number(1_000_000))),
                      expression=exp.Literal.number("1000000.0"))  # fmt: skip
    return bind({"q": whole, "s": seconds, "u": v["u"].copy(), "n": v["n"].copy()}, _spark_avg_time, "_sw_avg2")


def _spark_avg_time(v: dict[str, exp.Expr]) -> exp.Expr:
    over = exp.GTE(this=exp.Abs(this=v["s"].copy()), expression=number(86400))
    carry = exp.Case(ifs=[exp.If(this=over, true=exp.cast(exp.Div(this=v["s"].copy(), expression=number(86400)),
                                                           "int"))], default=number(0))  # fmt: skip
    seconds = exp.Sub(this=v["s"].copy(), expression=exp.Mul(this=_paren(carry.copy()), expression=number(86400)))
    share = exp.Div(this=exp.cast(v["u"].copy(), "double"), expression=exp.cast(v["n"].copy(), "double"))
    time = call("rint", exp.Add(this=share, expression=exp.Mul(this=_paren(seconds), expression=number(1_000_000))))
    return interval_text(number(0), exp.Add(this=v["q"].copy(), expression=_paren(carry)), time)


def _spark_text(node: exp.Sum | exp.Avg) -> exp.Expr:
    days, micros = duration_parts(node.this)
    sums = {"d": _rewrap(node, exp.Sum(this=days)), "u": _rewrap(node, exp.Sum(this=micros))}
    if isinstance(node, exp.Sum):
        return bind(sums, lambda v: interval_text(number(0), v["d"], v["u"]), "_sw_sum")
    count = exp.func("nullif", _rewrap(node, exp.Count(this=node.this.copy())), number(0))
    return bind({**sums, "n": count}, _spark_avg, "_sw_avg")


def spark_interval_results(tree: exp.Expr) -> exp.Expr:
    for node in [n for n in tree.walk() if n.meta.get(_MARK)]:
        if isinstance(node, exp.Sum | exp.Avg):
            _outer(node).replace(_spark_text(node))
        elif _is_age(node):
            node.replace(_spark_age(node))
    return tree
