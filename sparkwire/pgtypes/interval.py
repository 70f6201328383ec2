"""An interval value exactly as PostgreSQL holds it (months, days, microseconds) and a parser for its input text.

`parse_interval` accepts what clients send in practice: PostgreSQL's own output ("1 year 2 mons 3 days 04:05:06.7",
"-1 days +02:00:00"), unit words with optional signs and "@ … ago", and ISO-8601 durations ("P1Y2M3DT4H5M6.5S").
Anything else raises `InvalidDatetimeFormat` (22007) like interval_in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

import pyarrow as pa
import pyarrow.compute as pc

from sparkwire.errors import InvalidDatetimeFormat


@dataclass(frozen=True, slots=True)
class Interval:
    months: int = 0
    days: int = 0
    micros: int = 0


_UNITS: dict[str, tuple[str, int]] = {}
for _names, _field, _scale in (
    (("millennium", "millennia", "millenniums", "mil", "mils"), "months", 12000),
    (("century", "centuries", "cent", "c"), "months", 1200),
    (("decade", "decades", "dec", "decs"), "months", 120),
    (("year", "years", "yr", "yrs", "y"), "months", 12),
    (("month", "months", "mon", "mons"), "months", 1),
    (("week", "weeks", "w"), "days", 7),
    (("day", "days", "d"), "days", 1),
    (("hour", "hours", "hr", "hrs", "h"), "micros", 3_600_000_000),
    (("minute", "minutes", "min", "mins", "m"), "micros", 60_000_000),
    (("second", "seconds", "sec", "secs", "s"), "micros", 1_000_000),
    (("millisecond", "milliseconds", "msec", "msecs", "ms"), "micros", 1000),
    (("microsecond", "microseconds", "usec", "usecs", "us"), "micros", 1),
):
    for _name in _names:
        _UNITS[_name] = (_field, _scale)

_TOKEN = re.compile(
    r"\s*(?:(?P<clock>[+-]?\d+:\d{1,2}(?::\d{1,2}(?:\.\d*)?)?)|(?P<num>[+-]?(?:\d+\.?\d*|\.\d+))\s*(?P<unit>[a-z]+)?)"
)
_ISO = re.compile(
    r"(?P<sign>-)?P(?:(?P<Y>[-\d.]+)Y)?(?:(?P<M>[-\d.]+)M)?(?:(?P<W>[-\d.]+)W)?(?:(?P<D>[-\d.]+)D)?"
    r"(?:T(?:(?P<h>[-\d.]+)H)?(?:(?P<m>[-\d.]+)M)?(?:(?P<s>[-\d.]+)S)?)?"
)


def parse_interval(text: str) -> Interval:
    spelled = text.strip().lower()
    try:
        if spelled.startswith(("p", "-p")):
            return _parse_iso(spelled.upper())
        return _parse_words(spelled)
    except (ValueError, InvalidOperation):
        raise InvalidDatetimeFormat(f'invalid input syntax for type interval: "{text}"') from None


def _parse_iso(text: str) -> Interval:
    match = _ISO.fullmatch(text)
    if not match or text in ("P", "-P"):
        raise ValueError(text)
    fields = {k: Decimal(v) for k, v in match.groupdict().items() if v and k != "sign"}
    months = fields.get("Y", Decimal(0)) * 12 + fields.get("M", Decimal(0))
    days = fields.get("W", Decimal(0)) * 7 + fields.get("D", Decimal(0))
    micros = fields.get("h", Decimal(0)) * 3600 + fields.get("m", Decimal(0)) * 60 + fields.get("s", Decimal(0))
    return _build(months, days, micros * 1_000_000, negate=bool(match.group("sign")))


def _parse_words(text: str) -> Interval:
    ago = False
    if text.startswith("@"):
        text = text[1:]
    if text.endswith(" ago"):
        ago, text = True, text[:-4]
    totals = {"months": Decimal(0), "days": Decimal(0), "micros": Decimal(0)}
    position, seen = 0, False
    while position < len(text.rstrip()):
        match = _TOKEN.match(text, position)
        if not match or match.end() == position:
            raise ValueError(text)
        position = match.end()
        seen = True
        if match.group("clock"):
            totals["micros"] += _clock(match.group("clock"))
            continue
        number = Decimal(match.group("num"))
        unit = match.group("unit")
        field, scale = _UNITS[unit] if unit else ("micros", 1_000_000)
        totals[field] += number * scale
    if not seen:
        raise ValueError(text)
    return _build(totals["months"], totals["days"], totals["micros"], negate=ago)


def _clock(text: str) -> Decimal:
    negative = text.startswith("-")
    parts = text.lstrip("+-").split(":")
    hours, minutes = Decimal(parts[0]), Decimal(parts[1])
    seconds = Decimal(parts[2]) if len(parts) > 2 else Decimal(0)
    total = (hours * 3600 + minutes * 60 + seconds) * 1_000_000
    return -total if negative else total


def _build(months: Decimal, days: Decimal, micros: Decimal, *, negate: bool) -> Interval:
    whole_months = int(months)
    days += (months - whole_months) * 30  # fractional months spill into days, as interval_in does
    whole_days = int(days)
    micros += (days - whole_days) * 86_400_000_000
    result = Interval(whole_months, whole_days, int(micros.to_integral_value()))
    if negate:
        return Interval(-result.months, -result.days, -result.micros)
    return result


_DAY_MICROS = 86_400_000_000


def _quotient(a: int, b: int) -> int:
    """C's integer division (toward zero), as PostgreSQL's TMODULO."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def justify(kind: str, value: Interval) -> Interval:
    """PostgreSQL 15's justify_hours / justify_days / justify_interval (`kind`: hours, days, interval): 24 hours
    carried into days, 30 days into months, the parts made of one sign where the larger ones allow."""
    months, days, micros = value.months, value.days, value.micros
    if kind == "interval" and ((days > 0 and micros > 0) or (days < 0 and micros < 0)):
        carried = _quotient(days, 30)
        months, days = months + carried, days - carried * 30
    if kind in ("hours", "interval"):
        carried = _quotient(micros, _DAY_MICROS)
        days, micros = days + carried, micros - carried * _DAY_MICROS
    if kind in ("days", "interval"):
        carried = _quotient(days, 30)
        months, days = months + carried, days - carried * 30
        short = micros < 0 if kind == "interval" else False
        over = micros > 0 if kind == "interval" else False
        if months > 0 and (days < 0 or (days == 0 and short)):
            months, days = months - 1, days + 30
        elif months < 0 and (days > 0 or (days == 0 and over)):
            months, days = months + 1, days - 30
    if kind in ("hours", "interval"):
        if days > 0 and micros < 0:
            days, micros = days - 1, micros + _DAY_MICROS
        elif days < 0 and micros > 0:
            days, micros = days + 1, micros - _DAY_MICROS
    return Interval(months, days, micros)


def duration_to_interval(durations: pa.Array) -> pa.Array:
    """Spark's day-time intervals (Arrow durations) as PostgreSQL intervals: whole days and the time within the
    day, both with the duration's sign (what timestamp - timestamp gives, interval_justify_hours)."""
    micros = pc.cast(durations.cast(pa.duration("us")), pa.int64())
    magnitude = pc.abs(micros)
    sign = pc.if_else(pc.less(micros, 0), -1, 1)
    days = pc.multiply(pc.divide(magnitude, _DAY_MICROS), sign)
    rest = pc.multiply(pc.subtract(magnitude, pc.multiply(pc.divide(magnitude, _DAY_MICROS), _DAY_MICROS)), sign)
    values = [
        None if d is None else pa.scalar((0, d, r * 1000), pa.month_day_nano_interval()).as_py()
        for d, r in zip(days.to_pylist(), rest.to_pylist(), strict=True)
    ]
    return pa.array(values, pa.month_day_nano_interval())
