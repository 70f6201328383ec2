"""PostgreSQL's age(timestamp, timestamp) on Spark, as the text of its interval (functions/intervals/interval_text.py).

Contract: `spark_age(x, y, timestamp_type)` is the Spark expression of age(x, y)'s text; both arguments are cast
to `timestamp_type` (TIMESTAMP or TIMESTAMPTZ: a date is a timestamp at midnight). It is PostgreSQL's
timestamp_age: the symbolic difference of the later and the earlier timestamp's fields (years, months, days and
the time of day), each negative field borrowed from the next larger one (a day is the earlier timestamp's month
length, as many times as it takes; a month 12 months), the result negated when x < y. The fields of a timestamptz
are read in the session's time zone, as PostgreSQL's are. NULL when either argument is NULL. With `key`, the
value is instead the interval's span in microseconds (interval_cmp_value: a month is 30 days), to order by.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.planner.translate.functions.intervals.interval_text import DAY_MICROS, bind, call, interval_text, number


def _big(value: exp.Expr) -> exp.Expr:
    return exp.cast(value, "bigint")


def _add(left: exp.Expr, right: exp.Expr) -> exp.Expr:
    return exp.Paren(this=exp.Add(this=left, expression=right))


def _sub(left: exp.Expr, right: exp.Expr) -> exp.Expr:
    return exp.Paren(this=exp.Sub(this=left, expression=right))


def _mul(left: exp.Expr, right: exp.Expr) -> exp.Expr:
    return exp.Paren(this=exp.Mul(this=left, expression=right))


def _time_of_day(value: exp.Expr) -> exp.Expr:
    """Microseconds since midnight."""
    hours = _mul(_big(call("hour", value.copy())), number(3_600_000_000))
    minutes = _mul(_big(call("minute", value.copy())), number(60_000_000))
    seconds = _big(_mul(exp.Extract(this=exp.var("SECOND"), expression=value.copy()), number(1_000_000)))
    return _add(_add(hours, minutes), seconds)


def _field_difference(name: str, later: exp.Expr, earlier: exp.Expr) -> exp.Expr:
    return _sub(_big(call(name, later.copy())), _big(call(name, earlier.copy())))


def _borrows(value: exp.Expr, size: exp.Expr) -> exp.Expr:
    """How many `size`s a negative `value` (≥ -2 sizes) borrows: 0, 1 or 2."""
    twice = exp.LT(this=_add(value.copy(), size.copy()), expression=number(0))
    once = exp.Case(ifs=[exp.If(this=twice, true=number(2))], default=number(1))
    return exp.Case(ifs=[exp.If(this=exp.LT(this=value.copy(), expression=number(0)), true=once)], default=number(0))


def _fields(v: dict[str, exp.Expr], key: bool) -> exp.Expr:
    """The borrowed fields of later - earlier, as an interval's text with the sign."""
    time = _sub(_time_of_day(v["a"]), _time_of_day(v["b"]))
    borrows = exp.LT(this=time.copy(), expression=number(0))
    day_borrow = exp.Case(ifs=[exp.If(this=borrows, true=number(1))], default=number(0))
    step = {
        "t": _add(time, _mul(day_borrow.copy(), number(DAY_MICROS))),
        "d": _sub(_field_difference("day", v["a"], v["b"]), day_borrow),
        "l": _big(call("day", call("last_day", v["b"].copy()))),
        "m": _field_difference("month", v["a"], v["b"]),
        "y": _field_difference("year", v["a"], v["b"]),
        "n": v["n"].copy(),
    }
    return bind(step, lambda w: _borrowed(w, key), "_sw_age2")


def _borrowed(v: dict[str, exp.Expr], key: bool) -> exp.Expr:
    day_borrows = _borrows(v["d"], v["l"])
    days = _add(v["d"].copy(), _mul(day_borrows.copy(), v["l"].copy()))
    months = _sub(v["m"].copy(), day_borrows)
    month_borrows = _borrows(months, number(12))
    total_months = _add(
        _mul(_sub(v["y"].copy(), month_borrows.copy()), number(12)),
        _add(months.copy(), _mul(month_borrows, number(12))),
    )
    sign = exp.Case(ifs=[exp.If(this=v["n"].copy(), true=number(-1))], default=number(1))

    def signed(value: exp.Expr) -> exp.Expr:
        return _mul(sign.copy(), exp.Paren(this=value))

    if key:  # interval_cmp_value: (months * 30 + days) days and the time, in microseconds
        span_days = _add(_mul(total_months, number(30)), days)
        return _add(_mul(signed(span_days), number(DAY_MICROS)), signed(v["t"].copy()))
    return interval_text(signed(total_months), signed(days), signed(v["t"].copy()))


def spark_age(x: exp.Expr, y: exp.Expr, timestamp_type: exp.DType, key: bool = False) -> exp.Expr:
    first, second = exp.cast(x, timestamp_type), exp.cast(y, timestamp_type)
    earlier_first = exp.LT(this=first.copy(), expression=second.copy())
    ends = {
        "a": exp.Case(ifs=[exp.If(this=earlier_first.copy(), true=second.copy())], default=first.copy()),
        "b": exp.Case(ifs=[exp.If(this=earlier_first.copy(), true=first.copy())], default=second.copy()),
        "n": exp.func("coalesce", earlier_first, exp.false()),
    }
    return bind(ends, lambda v: _fields(v, key), "_sw_age1")
