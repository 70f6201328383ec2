"""Text output of date, time, timetz, timestamp, timestamptz and interval in PostgreSQL 15's ISO / postgres style.

Vectorized: Arrow casts to ISO strings; a regex drops trailing fractional zeros; timestamptz is shifted into
`options.timezone` with `local_timestamp` and gets its UTC offset (+00, +05:30, -04:56:02) appended from the few
distinct offsets of the batch. Values Arrow cannot spell like PostgreSQL — BC years, DuckDB's ±infinity sentinels
(INT32_MAX days, ±INT64_MAX µs) — are re-spelled per value (`_calendar`). Intervals are spelled per value.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from sparkwire.pgtypes import _calendar, _wire
from sparkwire.pgtypes.options import EncodeOptions

_FIRST_AD_DAY = -719162  # 0001-01-01
_FIRST_AD_MICROS = _FIRST_AD_DAY * _calendar.MICROS_PER_DAY
_LAST_PLAIN_MICROS = 2932896 * _calendar.MICROS_PER_DAY  # 10000-01-01: Arrow's string cast stops at 9999
_LATE_MICROS = 2145916800 * 1_000_000  # 2038-01-01
_TRAILING_ZEROS = r"\.?0+$"
_UTC_SUFFIX = pa.scalar(b"+00", _wire.BINARY)
# Zones whose UTC offset is always zero: timestamptz text in them needs no zone arithmetic.
ZERO_OFFSET_ZONES = frozenset(
    {"UTC", "Etc/UTC", "GMT", "Etc/GMT", "UCT", "Etc/UCT", "Universal", "Etc/Universal", "Zulu", "Etc/Zulu"}
)


def _strip_fraction(text: pa.Array) -> pa.Array:
    return pc.replace_substring_regex(text, _TRAILING_ZEROS, b"")


def _to_int(arr: pa.Array, dtype: pa.DataType) -> npt.NDArray[np.int64]:
    return np.asarray(arr.cast(dtype).fill_null(0).to_numpy(zero_copy_only=False), dtype=np.int64)


def encode_date(arr: pa.Array) -> pa.Array:
    if not pa.types.is_date32(arr.type):
        arr = arr.cast(pa.date32())
    days = _to_int(arr, pa.int32())
    rare = (days < _FIRST_AD_DAY) | (days >= 2932896)
    plain = pa.array(np.where(rare, 0, days).astype(np.int32), pa.int32()).cast(pa.date32())
    text = _wire.with_nulls_of(_wire.as_binary(pc.cast(plain, pa.string())), arr)
    ints = arr.cast(pa.int32())
    return _wire.patch(text, rare & _wire.valid_mask(arr), ints, lambda v: _calendar.format_date(v).encode())  # type: ignore[arg-type]


def encode_time(arr: pa.Array) -> pa.Array:
    if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type):
        return _wire.as_binary(arr)
    arr = arr.cast(pa.time64("us"), safe=False)
    return _strip_fraction(_wire.as_binary(pc.cast(arr, pa.string())))


def encode_timetz(arr: pa.Array) -> pa.Array:
    if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type):
        return _wire.as_binary(arr)
    return _wire.join([encode_time(arr), pa.scalar(b"+00", _wire.BINARY)])


def _micros(arr: pa.Array) -> pa.Array:
    unit_tz = pa.timestamp("us", arr.type.tz) if pa.types.is_timestamp(arr.type) else pa.timestamp("us")
    return arr.cast(unit_tz, safe=False)


def _plain_timestamps(micros: npt.NDArray[np.int64]) -> tuple[pa.Array, npt.NDArray[np.bool_]]:
    """ISO strings for naive µs values; the mask marks the rare values left for per-value spelling."""
    rare = (micros < _FIRST_AD_MICROS) | (micros >= _LAST_PLAIN_MICROS)
    plain = pa.array(np.where(rare, 0, micros), pa.int64()).cast(pa.timestamp("us"))
    return _strip_fraction(_wire.as_binary(pc.cast(plain, pa.string()))), rare


def encode_timestamp(arr: pa.Array) -> pa.Array:
    if pa.types.is_date(arr.type):
        arr = arr.cast(pa.timestamp("us"))
    arr = _micros(arr)
    if arr.type.tz:
        arr = pc.local_timestamp(arr)
    micros = _to_int(arr, pa.int64())
    text, rare = _plain_timestamps(micros)
    text = _wire.with_nulls_of(text, arr)
    ints = arr.cast(pa.int64())
    return _wire.patch(text, rare & _wire.valid_mask(arr), ints, lambda v: _calendar.format_timestamp(v).encode())  # type: ignore[arg-type]


def encode_timestamptz(arr: pa.Array, options: EncodeOptions) -> pa.Array:
    if pa.types.is_date(arr.type):
        arr = arr.cast(pa.timestamp("us"))
    arr = _micros(arr)
    if options.timezone in ZERO_OFFSET_ZONES:
        return _utc_timestamptz(arr)
    utc = _to_int(arr, pa.int64())
    sentinel = (utc == _calendar.INT64_MAX) | (utc <= -_calendar.INT64_MAX)
    safe_utc = pa.array(np.where(sentinel, 0, utc), pa.int64()).cast(pa.timestamp("us", options.timezone))
    local = _to_int(pc.local_timestamp(safe_utc), pa.int64())
    offsets = (local - np.where(sentinel, 0, utc)) // 1_000_000
    late = (utc >= _LATE_MICROS) & (utc < _LAST_PLAIN_MICROS)
    if late.any():
        offsets[late] = [_offset_after_2037(int(us), options.timezone) for us in utc[late]]
        local = np.where(late, utc + offsets * 1_000_000, local)
    distinct, inverse = np.unique(offsets, return_inverse=True)
    spelled = pa.array([_calendar.format_offset(int(o)).encode() for o in distinct], _wire.BINARY)
    zone = spelled.take(pa.array(inverse.astype(np.int32)))
    text, rare = _plain_timestamps(local)
    text = _wire.with_nulls_of(_wire.join([text, zone]), arr)
    rare = (rare | sentinel) & _wire.valid_mask(arr)
    if not rare.any():
        return text
    pairs = pa.StructArray.from_arrays(
        [pa.array(np.where(sentinel, utc, local)), pa.array(np.where(sentinel, 0, offsets))], ["micros", "offset"]
    )
    return _wire.patch(text, rare, pairs, _spell_timestamptz)


def _utc_timestamptz(arr: pa.Array) -> pa.Array:
    """timestamptz text in a zone whose offset is always zero: no zone arithmetic, a constant `+00` (the session
    default; a few pyarrow calls, where the general path takes a dozen — their fixed costs dominate small results
    such as pg_stat_activity's, issue 14)."""
    utc = np.frombuffer(arr.buffers()[1], np.int64, len(arr), arr.offset * 8)  # NULL slots hold any value
    text, rare = _plain_timestamps(utc)
    text = _wire.with_nulls_of(_wire.join([text, _UTC_SUFFIX]), arr)
    return _wire.patch(text, rare & _wire.valid_mask(arr), arr.cast(pa.int64()), spell_timestamptz_utc)


def spell_timestamptz_utc(value: object) -> bytes:
    """One timestamptz (µs since 1970, an int) in a zone whose offset is always zero."""
    assert isinstance(value, int)
    return _timestamptz_text(value, 0)


def _timestamptz_text(micros: int, offset: int) -> bytes:
    if micros == _calendar.INT64_MAX or micros <= -_calendar.INT64_MAX:  # ±infinity carry no offset
        return _calendar.format_timestamp(micros).encode()
    return _calendar.format_timestamp(micros, offset).encode()


def _offset_after_2037(micros: int, zone: str) -> int:
    """Arrow's time zone database stops applying DST rules after 2037; zoneinfo follows the POSIX rule like
    PostgreSQL does."""
    moment = dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(microseconds=micros)
    offset = moment.astimezone(zoneinfo.ZoneInfo(zone)).utcoffset()
    return int(offset.total_seconds()) if offset is not None else 0


def _spell_timestamptz(value: object) -> bytes:
    assert isinstance(value, dict)
    return _timestamptz_text(int(value["micros"]), int(value["offset"]))


def encode_interval(arr: pa.Array) -> pa.Array:
    if pa.types.is_duration(arr.type):
        micros = arr.cast(pa.duration("us"), safe=False).cast(pa.int64())
        return _wire.from_values(micros, lambda v: spell_interval(0, 0, v).encode())  # type: ignore[arg-type]
    if pa.types.is_string(arr.type):
        return _wire.as_binary(arr)
    return _wire.from_values(arr, _spell_month_day_nano)


def _spell_month_day_nano(value: object) -> bytes:
    assert isinstance(value, tuple)  # pyarrow's MonthDayNano named tuple
    months, days, nanos = (int(part) for part in value)
    return spell_interval(months, days, nanos // 1000).encode()


def spell_interval(months: int, days: int, micros: int) -> str:
    """EncodeInterval with IntervalStyle postgres."""
    parts: list[str] = []
    is_before = False
    years, mons = int(months / 12), months - int(months / 12) * 12
    for value, unit in ((years, "year"), (mons, "mon"), (days, "day")):
        if value:
            parts.append(f"{'+' if is_before and value > 0 else ''}{value} {unit}{'' if value == 1 else 's'}")
            is_before = value < 0
    if micros or not parts:
        minus = micros < 0
        total = abs(micros)
        seconds, fraction = divmod(total, 1_000_000)
        minutes, second = divmod(seconds, 60)
        hour, minute = divmod(minutes, 60)
        sign = "-" if minus else ("+" if is_before else "")
        text = f"{sign}{hour:02d}:{minute:02d}:{second:02d}"
        if fraction:
            text += f".{fraction:06d}".rstrip("0")
        parts.append(text)
    return " ".join(parts)
