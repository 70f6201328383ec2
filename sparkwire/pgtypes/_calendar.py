"""Per-value date/time spelling in PostgreSQL's ISO style, for values Python's datetime cannot hold (BC years,
years above 9999) and for the sentinel infinities. Days and microseconds count from 1970-01-01 (Arrow's epoch)."""

from __future__ import annotations

INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1
MICROS_PER_DAY = 86_400_000_000


def civil_from_days(days: int) -> tuple[int, int, int]:
    """(astronomical year, month, day) of a proleptic Gregorian day number (H. Hinnant's algorithm)."""
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (month <= 2), month, day


def date_parts(days: int) -> tuple[str, str]:
    """("YYYY-MM-DD", " BC" or "") for PostgreSQL's ISO output."""
    year, month, day = civil_from_days(days)
    if year <= 0:
        return f"{1 - year:04d}-{month:02d}-{day:02d}", " BC"
    return f"{year:04d}-{month:02d}-{day:02d}", ""


def format_date(days: int) -> str:
    if days == INT32_MAX:
        return "infinity"
    if days in (-INT32_MAX, -INT32_MAX - 1):
        return "-infinity"
    text, era = date_parts(days)
    return text + era


def format_time(micros: int) -> str:
    """HH:MM:SS[.ffffff] with trailing fractional zeros removed."""
    seconds, fraction = divmod(micros, 1_000_000)
    minutes, second = divmod(seconds, 60)
    hour, minute = divmod(minutes, 60)
    text = f"{hour:02d}:{minute:02d}:{second:02d}"
    if fraction:
        text += f".{fraction:06d}".rstrip("0")
    return text


def format_offset(seconds: int) -> str:
    """PostgreSQL's UTC offset spelling: +00, +05:30, -03, -04:56:02."""
    sign = "-" if seconds < 0 else "+"
    minutes, second = divmod(abs(seconds), 60)
    hour, minute = divmod(minutes, 60)
    text = f"{sign}{hour:02d}"
    if minute or second:
        text += f":{minute:02d}"
    if second:
        text += f":{second:02d}"
    return text


def format_timestamp(micros: int, offset_seconds: int | None = None) -> str:
    """A timestamp (local wall-clock µs since 1970) with an optional UTC offset; BC after the offset."""
    if micros == INT64_MAX:
        return "infinity"
    if micros in (-INT64_MAX, -INT64_MAX - 1):
        return "-infinity"
    days, time_of_day = divmod(micros, MICROS_PER_DAY)
    date_text, era = date_parts(days)
    zone = "" if offset_seconds is None else format_offset(offset_seconds)
    return f"{date_text} {format_time(time_of_day)}{zone}{era}"
