"""The session's TimeZone on Spark: what PostgreSQL computes in the session's zone, Spark computes in its own session
zone — UTC, fixed for the one SparkSession every session shares (engine/spark_config.py) — so each zone-dependent
operation on a timestamptz is given the zone explicitly. A tree rule (`in_time_zone(tree, zone)`) run on the
type-annotated tree before spark_rules; in a session in UTC only what Spark gets wrong in any zone (offset literals,
AT TIME ZONE of a timestamp, intervals of months beside days or time) is rewritten.

- timestamptz → date, timestamp, time (casts): of the wall-clock time in the zone,
  `CAST(from_utc_timestamp(x, zone) AS …)`;
- timestamp, date → timestamptz: the wall-clock time read in the zone, `to_utc_timestamp(CAST(x AS TIMESTAMP), zone)`
  (an ambiguous time, in the hour a daylight-saving change repeats, is the earlier instant on Spark, the later one in
  PostgreSQL);
- timestamptz → text: the wall-clock time and the zone's offset at that instant, as PostgreSQL prints them
  (`2026-11-27 09:30:00-03:30`; ±HH, then :MM and :SS when not zero);
- EXTRACT / date_part of a timestamptz (every field but epoch and the timezone fields), to_char of a timestamptz: of
  the wall-clock time;
- date_trunc of a timestamptz: of the wall-clock time, read back in the zone;
- a timestamp or date compared with a timestamptz (`=`, `<>`, `<`, `<=`, `>`, `>=`, `BETWEEN`, `IN`): as cast;
- a timestamptz literal without an offset (`'2026-11-27 10:00'::timestamptz`, `TIMESTAMPTZ '…'`, and a string
  literal compared with a timestamptz: `t > '2026-07-01'`): read in the zone here, in Python, by
  PostgreSQL's rules for the hours a daylight-saving change skips or repeats; with an offset of its own, that offset
  (in UTC too: Spark reads none without seconds, `'… 10:00+02'` was 22007); a literal in another form is Spark's;
- `ts AT TIME ZONE 'Asia/Tokyo'` of a timestamp or date (in UTC too): the instant of that wall-clock time in Tokyo,
  `to_utc_timestamp` — Spark's AT TIME ZONE converted the other way.
- a timestamptz plus or minus an interval literal with days or months, or an integer times one (`k * interval '1
  day'`): those added to the wall-clock time in the zone, read back there, then the time part (`_shifted`); an
  interval literal of months beside days or time, on a timestamp or timestamptz in any zone, one kind at a time
  (Spark's ANSI literal holds one kind);
- now() / CURRENT_TIMESTAMP (from a view's body) is a timestamptz to every rule above (sqlglot types it timestamp);
- a text column cast to timestamptz: with a zone of its own (an offset, `Z`, a zone name) Spark's cast, else the
  wall-clock time it spells read in the zone;
- a timestamp, date or string literal beside a timestamptz in COALESCE, CASE, GREATEST, LEAST: as cast (in UTC too).
Not covered (docs/timestamps.md): a timestamptz plus or minus an interval that is not a literal, an ambiguous
wall-clock time cast from a timestamp or text column (or reached by adding days), and a timestamp or date in a
UNION branch beside a timestamptz.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from decimal import Decimal

from sqlglot import exp

from sparkwire.errors import InvalidDatetimeFormat
from sparkwire.pgtypes.interval import Interval, parse_interval
from sparkwire.planner.translate.spark_rules import type_of as annotated_type

_TZ = exp.DType.TIMESTAMPTZ
_STAMPS = frozenset({_TZ, exp.DType.TIMESTAMP})
_WALL_CASTS = frozenset({exp.DType.DATE, exp.DType.TIMESTAMP, exp.DType.TIME})
_TEXT = frozenset({exp.DType.TEXT, exp.DType.VARCHAR})
_ZONE_FIELDS = frozenset({"EPOCH", "TIMEZONE", "TIMEZONE_HOUR", "TIMEZONE_MINUTE"})
_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)


def type_of(node: exp.Expr) -> exp.DType | None:
    """PostgreSQL's type of `node` where this module needs it: sqlglot's annotation, except that now() and
    CURRENT_TIMESTAMP (left by a view's body) are timestamptz, as is a timestamptz plus or minus an interval (sqlglot
    types those as timestamp)."""
    if isinstance(node, exp.CurrentTimestamp):
        return _TZ
    if isinstance(node, exp.Paren):
        return type_of(node.this)
    if isinstance(node, exp.Add | exp.Sub) and any(_is_interval(side) for side in (node.this, node.expression)):
        sides = [node.this, node.expression] if isinstance(node, exp.Add) else [node.this]
        if any(type_of(side) == _TZ for side in sides):  # after the cheap check: no descent into other arithmetic
            return _TZ
    return annotated_type(node)


def _is_interval(node: exp.Expr) -> bool:
    return isinstance(node, exp.Interval) or annotated_type(node) == exp.DType.INTERVAL


def _fn(name: str, *args: exp.Expr) -> exp.Anonymous:
    return exp.Anonymous(this=name, expressions=list(args))


def _typed(node: exp.Expr, kind: exp.DType) -> exp.Expr:
    node.type = exp.DataType(this=kind)
    return node


def _local(value: exp.Expr, zone: str) -> exp.Expr:
    """The timestamptz `value` as Spark's timestamp whose UTC rendering is its wall-clock time in `zone`."""
    return _fn("from_utc_timestamp", value, exp.Literal.string(zone))


def _wall(value: exp.Expr, zone: str) -> exp.Expr:
    """The wall-clock time of the timestamptz `value` in `zone` (PostgreSQL's timestamp)."""
    return _typed(exp.Cast(this=_local(value, zone), to=exp.DataType.build("timestamp")), exp.DType.TIMESTAMP)


def _instant(local: exp.Expr, zone: str) -> exp.Expr:
    """The timestamptz of the wall-clock time `local` (a timestamp or date) in `zone`."""
    as_spark = exp.Cast(this=local, to=exp.DataType.build("timestamptz"))
    return _typed(_fn("to_utc_timestamp", as_spark, exp.Literal.string(zone)), _TZ)


def _two_digits(number: exp.Expr) -> exp.Expr:
    return exp.Pad(
        this=exp.Cast(this=number, to=exp.DataType.build("text")),
        expression=exp.Literal.number(2),
        fill_pattern=exp.Literal.string("0"),
        is_left=True,
    )


def _text(value: exp.Expr, zone: str) -> exp.Expr:
    """timestamptz::text in `zone`: the wall-clock time, then the offset as ±HH[:MM[:SS]]."""
    offset = exp.Sub(
        this=_fn("unix_seconds", _local(value.copy(), zone)), expression=_fn("unix_seconds", value.copy())
    )
    size = _fn("abs", offset.copy())
    hours = exp.Cast(this=_fn("floor", exp.Div(this=size.copy(), expression=exp.Literal.number(3600))),
                     to=exp.DataType.build("int"))  # fmt: skip
    minutes = exp.Cast(
        this=_fn("floor", exp.Div(this=exp.Mod(this=size.copy(), expression=exp.Literal.number(3600)),
                                  expression=exp.Literal.number(60))),
        to=exp.DataType.build("int"),
    )  # fmt: skip
    seconds = exp.Mod(this=size.copy(), expression=exp.Literal.number(60))
    sign = exp.If(this=exp.LT(this=offset, expression=exp.Literal.number(0)), true=exp.Literal.string("-"),
                  false=exp.Literal.string("+"))  # fmt: skip
    minutes_part = exp.If(
        this=exp.and_(exp.EQ(this=minutes.copy(), expression=exp.Literal.number(0)),
                      exp.EQ(this=seconds.copy(), expression=exp.Literal.number(0))),
        true=exp.Literal.string(""),
        false=exp.DPipe(this=exp.Literal.string(":"), expression=_two_digits(minutes)),
    )  # fmt: skip
    seconds_part = exp.If(
        this=exp.EQ(this=seconds.copy(), expression=exp.Literal.number(0)),
        true=exp.Literal.string(""),
        false=exp.DPipe(this=exp.Literal.string(":"), expression=_two_digits(seconds)),
    )
    wall = exp.Cast(this=_wall(value, zone), to=exp.DataType.build("text"))
    text: exp.Expr = wall
    for part in (sign, _two_digits(hours), minutes_part, seconds_part):  # || : NULL when the value is
        text = exp.DPipe(this=text, expression=part)
    return _typed(exp.Paren(this=text), exp.DType.TEXT)


def literal_instant(text: str, zone: str) -> dt.datetime | None:
    """The instant of a timestamptz literal in ISO form: with an offset, that offset's; without one, read in `zone`
    as PostgreSQL reads it — a time the zone skips (spring forward) takes the offset before the change, a time it
    repeats the offset after it (standard time). None for a literal of another form ('infinity', 'epoch', …)."""
    try:
        local = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    if local.tzinfo is not None:
        return local.astimezone(dt.UTC)
    tz = zoneinfo.ZoneInfo(zone)
    first, second = local.replace(tzinfo=tz, fold=0), local.replace(tzinfo=tz, fold=1)
    before, after = first.utcoffset(), second.utcoffset()
    chosen = second if before is not None and after is not None and before > after else first
    return chosen.astimezone(dt.UTC)


def _utc_literal(instant: dt.datetime) -> exp.Expr:
    text = instant.replace(tzinfo=None).isoformat(sep=" ")
    return _typed(exp.Cast(this=exp.Literal.string(text), to=exp.DataType.build("timestamptz")), _TZ)


def _literal(node: exp.Expr, zone: str) -> exp.Expr | None:
    """A string literal as the timestamptz literal of its instant (`literal_instant`), None when it is not one."""
    if not (isinstance(node, exp.Literal) and node.is_string):
        return None
    instant = literal_instant(node.this, zone)
    return None if instant is None else _utc_literal(instant)


def _as_instant(node: exp.Expr, zone: str) -> exp.Expr:
    """An operand beside a timestamptz, as PostgreSQL casts it: a string literal, a timestamp or a date is the
    timestamptz of that wall-clock time in `zone`."""
    if type_of(node) in (exp.DType.TIMESTAMP, exp.DType.DATE):
        return _instant(node, zone)
    return _literal(node, zone) or node


def _compared(node: exp.Expr, zone: str) -> None:
    """`t > '2026-07-01'`, `t >= ts`, `t BETWEEN '…' AND d`, `t IN ('…')` with t a timestamptz: the other operands
    as timestamptz in `zone`."""
    if isinstance(node, _COMPARISONS):
        for side, other in (("this", "expression"), ("expression", "this")):
            if type_of(node.args[other]) == _TZ:
                node.set(side, _as_instant(node.args[side], zone))
    elif isinstance(node, exp.Between) and type_of(node.this) == _TZ:
        for bound in ("low", "high"):
            node.set(bound, _as_instant(node.args[bound], zone))
    elif isinstance(node, exp.In) and type_of(node.this) == _TZ:
        node.set("expressions", [_as_instant(item, zone) for item in node.expressions])


def _unified(node: exp.Expr, zone: str) -> None:
    """COALESCE, CASE, GREATEST and LEAST with a timestamptz among their values: the others (a timestamp, a date, a
    string literal) as timestamptz in `zone`, as PostgreSQL resolves the common type (Spark reads them in UTC, and
    refuses GREATEST / LEAST of mixed types)."""
    if isinstance(node, exp.Coalesce | exp.Greatest | exp.Least):
        values = [node.this, *node.expressions]
        if any(type_of(v) == _TZ for v in values):
            node.set("this", _as_instant(node.this, zone))
            node.set("expressions", [_as_instant(v, zone) for v in node.expressions])
    elif isinstance(node, exp.Case):
        branches = [i.args["true"] for i in node.args.get("ifs") or []]
        default = node.args.get("default")
        if any(type_of(v) == _TZ for v in [*branches, *([default] if default is not None else [])]):
            for branch in node.args.get("ifs") or []:
                branch.set("true", _as_instant(branch.args["true"], zone))
            if default is not None:
                node.set("default", _as_instant(default, zone))


def _interval_literal(node: exp.Expr) -> Interval | None:
    """The value of an interval literal (`interval '1 month 2 days 03:00'`, `interval '7' day`), None for anything
    else (a column, an expression, a range unit such as DAY TO SECOND)."""
    if not isinstance(node, exp.Interval) or not (isinstance(node.this, exp.Literal) and node.this.is_string):
        return None
    unit = node.args.get("unit")
    if unit is not None and not isinstance(unit, exp.Var):
        return None
    try:
        return parse_interval(f"{node.this.this} {unit.name}" if unit is not None else node.this.this)
    except InvalidDatetimeFormat:
        return None


_INTEGERS = frozenset({exp.DType.TINYINT, exp.DType.SMALLINT, exp.DType.INT, exp.DType.BIGINT})


def _interval_operand(node: exp.Expr) -> tuple[Interval, exp.Expr | None] | None:
    """An interval literal, or an integer times one (`k * interval '1 day'`, `interval '1 mon' * 2`): its value and
    the factor (None for the literal alone). An integer factor multiplies each part exactly (a fractional one would
    spill days into hours, as PostgreSQL's interval_mul does: left to Spark)."""
    if isinstance(node, exp.Paren):
        return _interval_operand(node.this)
    if isinstance(node, exp.Mul):
        for literal, factor in ((node.this, node.expression), (node.expression, node.this)):
            interval = _interval_literal(literal)
            if interval is not None and type_of(factor) in _INTEGERS:
                return interval, factor
        return None
    interval = _interval_literal(node)
    return None if interval is None else (interval, None)


def _plus(value: exp.Expr, amount: int | Decimal, unit: str, factor: exp.Expr | None = None) -> exp.Expr:
    """`value + INTERVAL 'amount' unit` (times `factor`): Spark's ANSI intervals hold one kind each (months; or a
    duration)."""
    if not amount:
        return value
    interval: exp.Expr = exp.Interval(this=exp.Literal.string(f"{amount:f}" if isinstance(amount, Decimal)
                                                              else str(amount)), unit=exp.Var(this=unit))  # fmt: skip
    if factor is not None:
        interval = exp.Paren(this=exp.Mul(this=exp.Cast(this=factor.copy(), to=exp.DataType.build("bigint")),
                                          expression=interval))  # fmt: skip
    return exp.Add(this=value, expression=interval)


def _shifted(node: exp.Add | exp.Sub, zone: str) -> exp.Expr | None:
    """A timestamptz or timestamp plus or minus an interval literal, or an integer times one. PostgreSQL adds a
    timestamptz's months and days to its wall-clock time in the session's zone (a day is 23 or 25 hours across a
    daylight-saving change) and only then the time part; Spark adds them in its own zone, UTC: so the wall-clock
    time, plus the calendar part, read back in `zone`, plus the time part. In any zone, an interval of months and of
    days or time is added one kind at a time, months first as PostgreSQL does (Spark's ANSI intervals hold one kind:
    its literal would not parse).
    None for anything else: a duration, or months alone, on a timestamp or in UTC, is Spark's own."""
    if isinstance(node, exp.Add) and type_of(node.expression) in _STAMPS:
        value, operand = node.expression, _interval_operand(node.this)
    elif type_of(node.this) in _STAMPS:
        value, operand = node.this, _interval_operand(node.expression)
    else:
        return None
    if operand is None:
        return None
    interval, factor = operand
    in_zone = zone != "UTC" and type_of(value) == _TZ and bool(interval.months or interval.days)
    mixed = bool(interval.months and (interval.days or interval.micros))
    if not (in_zone or mixed):
        return None
    sign = -1 if isinstance(node, exp.Sub) else 1
    seconds = Decimal(sign * interval.micros).scaleb(-6).normalize()
    kind = type_of(value)
    assert kind is not None
    start = value if not in_zone else _local(value, zone)
    calendar = _plus(_plus(start, sign * interval.months, "MONTH", factor), sign * interval.days, "DAY", factor)
    if not in_zone:
        return _typed(exp.Paren(this=_typed(_plus(calendar, seconds, "SECOND", factor), kind)), kind)
    return _typed(exp.Paren(this=_typed(_plus(_instant(calendar, zone), seconds, "SECOND", factor), _TZ)), _TZ)


# text that ends in a time with a zone of its own: an offset (`+02`, `-03:30`, `Z`) or a name (`UTC`, `Asia/Tokyo`)
_OWN_ZONE = (
    "[0-9]:[0-9][0-9](:[0-9][0-9]([.][0-9]*)?)? *"
    "([zZ]|[+-][0-9]{1,2}(:?[0-9][0-9]){0,2}|UTC|GMT|[A-Za-z_]+/[A-Za-z_/]+)$"
)


def _text_instant(cast: exp.Cast, zone: str) -> exp.Expr:
    """`s::timestamptz` of a text column: with a zone of its own, Spark's cast reads it; without, the wall-clock time
    it spells is read in `zone`, as PostgreSQL reads it."""
    text = cast.this
    own = exp.RegexpLike(this=text.copy(), expression=exp.Literal.string(_OWN_ZONE))
    local = exp.Cast(this=text.copy(), to=exp.DataType.build("timestamp"))
    return _typed(exp.If(this=own, true=cast, false=_instant(local, zone)), _TZ)


def _zone_free(node: exp.Expr) -> exp.Expr:
    """What Spark gets wrong in any session zone, UTC's too: a literal with an offset of its own (Spark reads none
    without seconds: `'2026-07-01 10:00+02'::timestamptz` was 22007), and `ts AT TIME ZONE 'Asia/Tokyo'` of a
    timestamp or date — the instant of that wall-clock time there (Spark's own reads ts as UTC and gives Tokyo's
    wall-clock time: the other direction)."""
    if isinstance(node, exp.Cast) and node.to.this == _TZ and isinstance(node.this, exp.Literal):
        try:
            offset = node.this.is_string and dt.datetime.fromisoformat(node.this.this.strip()).tzinfo is not None
        except ValueError:
            offset = False
        return (_literal(node.this, "UTC") or node) if offset else node
    if isinstance(node, exp.AtTimeZone) and type_of(node.this) in (exp.DType.TIMESTAMP, exp.DType.DATE):
        as_spark = exp.Cast(this=node.this, to=exp.DataType.build("timestamptz"))
        return _typed(_fn("to_utc_timestamp", as_spark, node.args["zone"]), _TZ)
    return node


def in_time_zone(tree: exp.Expr, zone: str) -> exp.Expr:
    """`tree` with its zone-dependent timestamptz operations computed in `zone` (see the module docstring)."""

    def rewrite(node: exp.Expr) -> exp.Expr:
        fixed = _zone_free(node)
        if fixed is node and isinstance(node, exp.Add | exp.Sub):
            fixed = _shifted(node, zone) or node
        _unified(node, zone)  # in UTC too: Spark refuses GREATEST of a timestamptz and a timestamp
        if zone == "UTC" or fixed is not node:
            return fixed
        _compared(node, zone)
        if isinstance(node, exp.Cast) and node.to.this == _TZ:
            if type_of(node.this) in (exp.DType.TIMESTAMP, exp.DType.DATE):
                return _instant(node.this, zone)
            if type_of(node.this) in _TEXT and not isinstance(node.this, exp.Literal):
                return _text_instant(node, zone)
            return _literal(node.this, zone) or node
        if isinstance(node, exp.Cast) and type_of(node.this) == _TZ:
            if node.to.this in _WALL_CASTS:
                return _typed(exp.Cast(this=_local(node.this, zone), to=node.to), node.to.this)
            if node.to.this in _TEXT:
                return _text(node.this, zone)
            return node
        if isinstance(node, exp.Extract) and type_of(node.expression) == _TZ:
            if node.name.upper() not in _ZONE_FIELDS:
                node.set("expression", _wall(node.expression, zone))
            return node
        if isinstance(node, exp.TimeToStr) and type_of(node.this) == _TZ:
            node.set("this", _wall(node.this, zone))
            return node
        if isinstance(node, exp.TimestampTrunc) and type_of(node.this) == _TZ and not node.args.get("zone"):
            node.set("this", _typed(_local(node.this, zone), _TZ))
            return _typed(_fn("to_utc_timestamp", node, exp.Literal.string(zone)), _TZ)
        return node

    for node in reversed(list(tree.dfs())):  # children first: a parent sees what its children became
        parent, key, index = node.parent, node.arg_key, node.index  # before a wrapper takes the node in
        new = rewrite(node)
        if new is node:
            continue
        if parent is None or key is None:
            tree = new
        else:
            parent.set(key, new, index)
    return tree
