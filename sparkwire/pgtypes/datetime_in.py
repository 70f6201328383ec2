"""PostgreSQL's text input of date, time, timetz, timestamp and timestamptz (ISO forms), as Python values.

`parse_datetime(text, oid, timezone)` accepts what date_in / time_in / timestamp_in accept in ISO form, case- and
space-insensitively: `YYYY-MM-DD` or `YYYYMMDD`, then optionally a time (`HH:MM[:SS[.frac]]` or `allballs`, after
a space or `T`), a zone (`+HH`, `-HHMM`, `+HH:MM[:SS]`, `Z`, `UTC`, `GMT` or an IANA name), and the specials
`epoch`, `infinity`, `-infinity`. date and timestamp read and ignore a time / zone they do not keep ("2024-02-01
+00" is a date); time and timetz accept a leading date and ignore it. A timestamptz or timetz without a zone is in
`timezone`. Seconds round to microseconds like PostgreSQL (rint); 24:00:00 is the next midnight of a timestamp.
±infinity become the min/max of date/datetime. Errors are PostgreSQL's: 22007 bad syntax, 22008 field out of range,
22009 zone displacement out of range. Not supported: BC dates and years above 9999 (22008, Python's datetime
cannot hold them), time 24:00:00 (22008), DateStyle orders other than ISO, and the words now/today/tomorrow.
"""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo

from sparkwire.errors import DatetimeFieldOverflow, InvalidDatetimeFormat, InvalidTimeZoneDisplacementValue

_NAMES = {
    1082: "date",
    1083: "time",
    1114: "timestamp",
    1184: "timestamp with time zone",
    1266: "time with time zone",
}
_SYNTAX = re.compile(
    r"(?:(?:(?P<year>\d{1,7})-(?P<month>\d{1,2})-(?P<day>\d{1,2})|(?P<ymd>\d{8}))(?P<sep>\s+|t|$))?"
    r"(?:(?P<hour>\d{1,2}):(?P<minute>\d{1,2})(?::(?P<second>\d{1,2})(?P<fraction>\.\d*)?)?|(?P<allballs>allballs))?"
    r"\s*(?:(?P<sign>[+-])(?P<zh>\d{1,2})(?::?(?P<zm>\d{2}))?(?::?(?P<zs>\d{2}))?|(?!bc$)(?P<zone>[a-z][a-z0-9_/+-]*))?"
    r"\s*(?P<bc>bc)?",
    re.IGNORECASE,
)
_UTC_NAMES = frozenset({"z", "zulu", "utc", "gmt"})
_EPOCH = dt.datetime(1970, 1, 1)
_MAX_ZONE_SECONDS = 15 * 3600 + 59 * 60 + 59


def parse_datetime(text: str, oid: int, timezone: str) -> object:
    name = _NAMES[oid]
    spelled = text.strip().lower()
    if oid in (1082, 1114, 1184) and spelled in ("infinity", "+infinity", "-infinity", "epoch"):
        return _special(spelled, oid)
    if oid in (1083, 1266) and spelled == "allballs":
        return dt.time(tzinfo=dt.UTC if oid == 1266 else None)
    match = _SYNTAX.fullmatch(text.strip())
    if match is None or not _complete(match, oid):
        raise InvalidDatetimeFormat(f'invalid input syntax for type {name}: "{text}"')
    has_date = (match["year"] or match["ymd"]) is not None
    day = _date(match, text) if has_date else None
    clock = _clock(match, text)
    zone = _zone(match, text, oid) or (dt.UTC if match["allballs"] else None)  # allballs is 00:00:00 UTC
    if match["bc"]:
        raise DatetimeFieldOverflow(f'date out of range: "{text}"')
    if oid == 1082:
        assert day is not None
        return day
    if oid in (1083, 1266):
        if clock >= dt.timedelta(days=1):
            raise DatetimeFieldOverflow(f'date/time field value out of range: "{text}"')
        value = (dt.datetime.min + clock).time()
        if oid == 1083:
            return value
        moment = dt.datetime.combine(day or dt.date.today(), value)
        offset = (zone or zoneinfo.ZoneInfo(timezone)).utcoffset(moment)
        return value.replace(tzinfo=dt.timezone(offset or dt.timedelta()))
    assert day is not None
    try:
        stamp = dt.datetime.combine(day, dt.time()) + clock
    except OverflowError:
        raise DatetimeFieldOverflow(f'date out of range: "{text}"') from None
    if oid == 1114:
        return stamp
    return stamp.replace(tzinfo=zone or zoneinfo.ZoneInfo(timezone))


def _complete(match: re.Match[str], oid: int) -> bool:
    """The parts each type needs: a date for date/timestamp (time optional, `T` only before a time); a time for
    time/timetz (a leading date only before a space, no BC)."""
    has_date = (match["year"] or match["ymd"]) is not None
    sep = (match["sep"] or "").lower()
    if oid in (1083, 1266):
        return match["hour"] is not None and not match["bc"] and not (has_date and sep == "t")
    has_time = match["hour"] is not None or match["allballs"] is not None
    return has_date and (has_time or sep != "t")


def _special(spelled: str, oid: int) -> object:
    value = _EPOCH if spelled == "epoch" else dt.datetime.min if spelled.startswith("-") else dt.datetime.max
    if oid == 1082:
        return value.date()
    return value.replace(tzinfo=dt.UTC) if oid == 1184 else value


def _date(match: re.Match[str], text: str) -> dt.date:
    if match["ymd"]:
        digits = match["ymd"]
        year, month, day = int(digits[:4]), int(digits[4:6]), int(digits[6:])
    else:
        year, month, day = int(match["year"]), int(match["month"]), int(match["day"])
    if year > 9999 and 1 <= month <= 12 and 1 <= day <= 31:
        raise DatetimeFieldOverflow(f'date out of range: "{text}"')
    try:
        return dt.date(year, month, day)
    except ValueError:
        raise DatetimeFieldOverflow(f'date/time field value out of range: "{text}"') from None


def _clock(match: re.Match[str], text: str) -> dt.timedelta:
    """Time of day as a timedelta (up to 24:00:00 inclusive)."""
    if match["hour"] is None:
        return dt.timedelta()
    hour, minute, second = int(match["hour"]), int(match["minute"]), int(match["second"] or 0)
    micros = round(float("0" + match["fraction"]) * 1_000_000) if match["fraction"] else 0
    total = dt.timedelta(hours=hour, minutes=minute, seconds=second, microseconds=micros)
    if hour > 24 or minute > 59 or second > 60 or total > dt.timedelta(hours=24):
        raise DatetimeFieldOverflow(f'date/time field value out of range: "{text}"')
    return total


def _zone(match: re.Match[str], text: str, oid: int) -> dt.tzinfo | None:
    if match["sign"]:
        seconds = int(match["zh"]) * 3600 + int(match["zm"] or 0) * 60 + int(match["zs"] or 0)
        if seconds > _MAX_ZONE_SECONDS or int(match["zm"] or 0) > 59 or int(match["zs"] or 0) > 59:
            raise InvalidTimeZoneDisplacementValue(f'time zone displacement out of range: "{text}"')
        return dt.timezone(dt.timedelta(seconds=-seconds if match["sign"] == "-" else seconds))
    name = match["zone"]
    if name is None:
        return None
    if name.lower() in _UTC_NAMES:
        return dt.UTC
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise InvalidDatetimeFormat(f'invalid input syntax for type {_NAMES[oid]}: "{text}"') from None
