"""PostgreSQL intervals Spark cannot hold, as the text PostgreSQL prints for them (the Spark route).

A Spark interval is either months alone or a duration, and a duration reaches the client as whole days and the time
within the day (pgtypes/interval.duration_to_interval): an interval of months and days, or of more than 24 hours
beside its days (sum(interval), age()), has no Spark value. Such a result column is computed as its text instead,
described as interval (planner/bind/pg_result_types.py), which the wire sends as it is.

Contract:
- `bind(values, body, name)`: `body` over the `values` each computed once: `element_at(transform(array(
  named_struct(…)), name -> body), 1)`, so a value the body names several times is not copied into the SQL;
- `interval_text(months, days, micros)`: the Spark expression of that interval's text as PostgreSQL prints it
  (IntervalStyle postgres, pgtypes/text_datetime.spell_interval: `1 year 2 mons -3 days +04:05:06.5`), NULL when
  a part is NULL;
- `duration_micros(x)`: a Spark day-time interval's microseconds (timestampdiff from a fixed TIMESTAMP_NTZ: no
  time zone takes part); `duration_parts(x)`: its days and the microseconds within the day, both of its sign, as
  the wire gives them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from sqlglot import exp

DAY_MICROS = 86_400_000_000
_EPOCH = "1970-01-01 00:00:00"


def number(value: int) -> exp.Expr:
    return exp.Literal.number(value)


def string(value: str) -> exp.Expr:
    return exp.Literal.string(value)


def call(name: str, *args: exp.Expr) -> exp.Expr:
    """A call of the engine function `name` (the SQL builders of translate/functions share these three)."""
    return exp.Anonymous(this=name, expressions=list(args))


def bind(values: Mapping[str, exp.Expr], body: Callable[[dict[str, exp.Expr]], exp.Expr], name: str) -> exp.Expr:
    fields: list[exp.Expr] = []
    for key, value in values.items():
        fields.extend([string(key), value])
    names: dict[str, exp.Expr] = {key: exp.column(key, table=name) for key in values}
    function = exp.Lambda(this=body(names), expressions=[exp.to_identifier(name)])
    mapped = exp.Transform(this=exp.Array(expressions=[call("named_struct", *fields)]), expression=function)
    return call("element_at", mapped, number(1))


def _nonzero(value: exp.Expr) -> exp.Expr:
    return exp.NEQ(this=value.copy(), expression=number(0))


def _negative(value: exp.Expr) -> exp.Expr:
    return exp.LT(this=value.copy(), expression=number(0))


def _field(value: exp.Expr, unit: str, before: exp.Expr | None) -> exp.Expr:
    """`-3 days`, `+2 mons` after a negative field, nothing for 0."""
    plus: exp.Expr = string("")
    if before is not None:
        positive_after_negative = exp.and_(before, exp.GT(this=value.copy(), expression=number(0)))
        plus = exp.Case(ifs=[exp.If(this=positive_after_negative, true=string("+"))], default=string(""))
    units = exp.Case(
        ifs=[exp.If(this=exp.EQ(this=value.copy(), expression=number(1)), true=string(f" {unit}"))],
        default=string(f" {unit}s"),
    )
    text = exp.Concat(expressions=[plus, exp.cast(value.copy(), "string"), units])
    return exp.Case(ifs=[exp.If(this=_nonzero(value), true=text)])


def _last_negative(values: list[exp.Expr]) -> exp.Expr:
    """Whether the last nonzero of `values` is negative (false when all are zero)."""
    out: exp.Expr = exp.false()
    for value in values:
        out = exp.Case(ifs=[exp.If(this=_nonzero(value), true=_negative(value))], default=out)
    return out


def _clock(micros: exp.Expr, before: exp.Expr) -> exp.Expr:
    """`-04:05:06.5`, `+00:00:01` after a negative field."""
    magnitude = exp.Abs(this=micros.copy())

    def unit(size: int, modulo: int | None) -> exp.Expr:
        whole: exp.Expr = exp.IntDiv(this=magnitude.copy(), expression=number(size))
        return exp.Mod(this=whole, expression=number(modulo)) if modulo else whole

    clock = call("format_string", string("%02d:%02d:%02d"), unit(3_600_000_000, None), unit(60_000_000, 60),
                unit(1_000_000, 60))  # fmt: skip
    fraction = exp.Mod(this=magnitude.copy(), expression=number(1_000_000))
    six = call("format_string", string("%06d"), fraction)
    digits = exp.Trim(this=six, expression=string("0"), position="TRAILING")
    fraction_text = exp.Case(
        ifs=[exp.If(this=_nonzero(fraction), true=exp.Concat(expressions=[string("."), digits]))],
        default=string(""),
    )
    sign = exp.Case(
        ifs=[exp.If(this=_negative(micros), true=string("-")), exp.If(this=before, true=string("+"))],
        default=string(""),
    )
    return exp.Concat(expressions=[sign, clock, fraction_text])


def _text(parts: dict[str, exp.Expr]) -> exp.Expr:
    months, days, micros = parts["m"], parts["d"], parts["u"]
    years = exp.IntDiv(this=months.copy(), expression=number(12))
    mons = exp.Mod(this=months.copy(), expression=number(12))
    all_zero = exp.and_(*(exp.EQ(this=v.copy(), expression=number(0)) for v in (months, days)))
    clock = exp.Case(
        ifs=[exp.If(this=exp.or_(_nonzero(micros), all_zero), true=_clock(micros, _last_negative([years, mons, days])))]
    )
    text = call(
        "concat_ws",
        string(" "),
        _field(years, "year", None),
        _field(mons, "mon", _last_negative([years])),
        _field(days, "day", _last_negative([years, mons])),
        clock,
    )
    missing = exp.or_(*(exp.Is(this=v.copy(), expression=exp.null()) for v in (months, days, micros)))
    return exp.Case(ifs=[exp.If(this=missing, true=exp.null())], default=text)


def interval_text(months: exp.Expr, days: exp.Expr, micros: exp.Expr) -> exp.Expr:
    big = {"m": exp.cast(months, "bigint"), "d": exp.cast(days, "bigint"), "u": exp.cast(micros, "bigint")}
    return bind(big, _text, "_sw_interval")


def duration_micros(value: exp.Expr) -> exp.Expr:
    epoch = exp.cast(string(_EPOCH), exp.DType.TIMESTAMP)
    moved = exp.Paren(this=exp.Add(this=epoch.copy(), expression=exp.Paren(this=value)))
    return call("timestampdiff", exp.var("MICROSECOND"), epoch, moved)


def duration_parts(value: exp.Expr) -> tuple[exp.Expr, exp.Expr]:
    """(days, micros within the day) of a Spark day-time interval; `value` is used twice (a column or a bound
    name keeps that cheap)."""
    total = duration_micros(value)
    days = exp.IntDiv(this=total, expression=number(DAY_MICROS))
    rest = exp.Mod(this=duration_micros(value.copy()), expression=number(DAY_MICROS))
    return days, rest
