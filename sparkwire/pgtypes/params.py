"""Bind parameter decoding: `decode_param(data, type_oid, fmt)` → a Python value, or a PgError worded like
PostgreSQL's input functions.

Values: int, float, Decimal, str, bytes, bool, date, time, datetime (tz-aware for timestamptz; a text timestamptz
without an offset is read in `options.timezone`), `Interval` (months/days/µs), UUID, JSON as its (validated) str,
lists for arrays. ±infinity dates and timestamps become the min/max of date/datetime. psycopg's loaders do the
parsing of dates, times, bytea, numerics in binary and arrays; integers, floats, numerics, booleans in text are
validated here because Python's parsers accept spellings PostgreSQL rejects ("1_000"). Oid 0/705 and the text
family decode as str.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
import struct
import uuid
import zoneinfo
from decimal import Decimal
from typing import Any

from psycopg import adapters
from psycopg.pq import Format

from sparkwire.errors import (
    CharacterNotInRepertoire,
    DatetimeFieldOverflow,
    InvalidBinaryRepresentation,
    InvalidDatetimeFormat,
    InvalidParameterValue,
    InvalidTextRepresentation,
    NumericValueOutOfRange,
    PgError,
)
from sparkwire.pgtypes.interval import Interval, parse_interval
from sparkwire.pgtypes.options import EncodeOptions
from sparkwire.pgtypes.registry import type_by_oid

_TEXT_FAMILY = frozenset({0, 18, 19, 25, 142, 705, 1042, 1043})
_INT_RANGES: dict[int, tuple[str, int, int]] = {
    21: ("smallint", -(2**15), 2**15 - 1),
    23: ("integer", -(2**31), 2**31 - 1),
    20: ("bigint", -(2**63), 2**63 - 1),
    26: ("oid", -(2**31), 2**32 - 1),
    24: ("regproc", 0, 2**32 - 1),
    2205: ("regclass", 0, 2**32 - 1),
    2206: ("regtype", 0, 2**32 - 1),
}
_INT = re.compile(r"\s*[+-]?\d+\s*")
_FLOAT = re.compile(r"\s*[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)\s*", re.IGNORECASE)
_NUMERIC = re.compile(r"\s*(?:[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|nan|[+-]?inf(?:inity)?)\s*", re.IGNORECASE)
_FLT_MAX = 3.4028234663852886e38
_DATETIME_NAMES = {
    1082: "date",
    1083: "time",
    1114: "timestamp",
    1184: "timestamp with time zone",
    1266: "time with time zone",
}
_OFFSET = re.compile(r":\d{1,2}(?:\.\d*)?\s*(?:[+-]\d{1,2}(?::?\d{2}){0,2}|z|utc)(?: bc)?$")
_DATE = r"\d{1,7}-\d{1,2}-\d{1,2}"
_TIME = r"\d{1,2}:\d{1,2}(?::\d{1,2}(?:\.\d*)?)?"
_ZONE = r"\s*(?:[+-]\d{1,2}(?::?\d{2}){0,2}|z|utc)?"
_DATETIME_SYNTAX = {
    1082: re.compile(_DATE + r"(?: bc)?"),
    1083: re.compile(_TIME),
    1266: re.compile(_TIME + _ZONE),
    1114: re.compile(_DATE + r"(?:[ t]" + _TIME + ")?" + _ZONE + r"(?: bc)?"),
    1184: re.compile(_DATE + r"(?:[ t]" + _TIME + ")?" + _ZONE + r"(?: bc)?"),
}


def decode_param(
    data: bytes, type_oid: int, fmt: int, *, options: EncodeOptions | None = None, index: int | None = None
) -> object:
    """`index` (1-based) only words the binary-format error like PostgreSQL ("… in bind parameter 2")."""
    if fmt == 1:
        return _decode_binary(bytes(data), type_oid, index)
    return decode_text(_utf8(data), type_oid, options or EncodeOptions())


def _utf8(data: bytes) -> str:
    try:
        return bytes(data).decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = " ".join(f"0x{b:02x}" for b in data[exc.start : exc.start + 2])
        raise CharacterNotInRepertoire(f'invalid byte sequence for encoding "UTF8": {bad}') from None


def decode_text(text: str, type_oid: int, options: EncodeOptions) -> object:
    """A value from PostgreSQL text input (also used by COPY FROM)."""
    if type_oid in _TEXT_FAMILY:
        return text
    if type_oid in _INT_RANGES:
        return _int(text, *_INT_RANGES[type_oid])
    if type_oid in (700, 701):
        return _float(text, "real" if type_oid == 700 else "double precision")
    if type_oid == 1700:
        if not _NUMERIC.fullmatch(text):
            raise InvalidTextRepresentation(f'invalid input syntax for type numeric: "{text}"')
        return Decimal(text.strip())
    if type_oid == 16:
        return _bool(text)
    if type_oid == 1186:
        return parse_interval(text)
    if type_oid in (114, 3802):
        try:
            json.loads(text)
        except ValueError:
            kind = "json" if type_oid == 114 else "jsonb"
            raise InvalidTextRepresentation(f"invalid input syntax for type {kind}") from None
        return text
    if type_oid == 2950:
        try:
            return uuid.UUID(text.strip())
        except ValueError:
            raise InvalidTextRepresentation(f'invalid input syntax for type uuid: "{text}"') from None
    if type_oid == 17:
        return _bytea(text)
    if type_oid in _DATETIME_NAMES:
        return _datetime(text, type_oid, options)
    found = type_by_oid(type_oid)
    if found.is_array:
        return _load(text.encode(), type_oid, Format.TEXT, f'malformed array literal: "{text}"')
    return text


def _int(text: str, name: str, low: int, high: int) -> int:
    if not _INT.fullmatch(text):
        raise InvalidTextRepresentation(f'invalid input syntax for type {name}: "{text}"')
    value = int(text)
    if not low <= value <= high:
        raise NumericValueOutOfRange(f'value "{text}" is out of range for type {name}')
    return value


def _float(text: str, name: str) -> float:
    if not _FLOAT.fullmatch(text):
        raise InvalidTextRepresentation(f'invalid input syntax for type {name}: "{text}"')
    value = float(text)
    if name == "real":
        value = float(struct.unpack("f", struct.pack("f", value))[0]) if abs(value) <= _FLT_MAX else math.inf
    written_infinite = "inf" in text.lower()
    overflow = math.isinf(value) and not written_infinite
    underflow = value == 0 and re.search(r"[1-9]", text.lower().partition("e")[0]) is not None
    if overflow or underflow:
        raise NumericValueOutOfRange(f'"{text.strip()}" is out of range for type {name}')
    return value


def _bool(text: str) -> bool:
    spelled = text.strip().lower()
    if spelled and ("true".startswith(spelled) or "yes".startswith(spelled) or spelled in ("on", "1")):
        return True
    if spelled and ("false".startswith(spelled) or "no".startswith(spelled) or spelled in ("of", "off", "0")):
        return False
    raise InvalidTextRepresentation(f'invalid input syntax for type boolean: "{text}"')


def _bytea(text: str) -> bytes:
    if text.startswith("\\x"):
        digits = re.sub(r"\s", "", text[2:])
        bad = re.search(r"[^0-9a-fA-F]", digits)
        if bad:
            raise InvalidParameterValue(f'invalid hexadecimal digit: "{bad.group()}"')
        if len(digits) % 2:
            raise InvalidParameterValue("invalid hexadecimal data: odd number of digits")
        return bytes.fromhex(digits)
    if re.search(r"\\(?!\\|[0-3][0-7]{2})", text):
        raise InvalidTextRepresentation("invalid input syntax for type bytea")
    loaded = _load(text.encode(), 17, Format.TEXT, "invalid input syntax for type bytea")
    assert isinstance(loaded, bytes)
    return loaded


def _datetime(text: str, oid: int, options: EncodeOptions) -> object:
    spelled = text.strip().lower()
    if spelled in ("infinity", "+infinity", "-infinity") and oid in (1082, 1114, 1184):
        positive = not spelled.startswith("-")
        if oid == 1082:
            return dt.date.max if positive else dt.date.min
        value = dt.datetime.max if positive else dt.datetime.min
        return value.replace(tzinfo=dt.UTC) if oid == 1184 else value
    name = _DATETIME_NAMES[oid]
    if not _DATETIME_SYNTAX[oid].fullmatch(spelled):
        raise InvalidDatetimeFormat(f'invalid input syntax for type {name}: "{text}"')
    if oid == 1184 and not _OFFSET.search(spelled):
        naive = _load(text.strip().encode(), 1114, Format.TEXT, f'invalid input syntax for type {name}: "{text}"')
        assert isinstance(naive, dt.datetime)
        return naive.replace(tzinfo=zoneinfo.ZoneInfo(options.timezone))
    spelled = re.sub(r"\s*(?:z|utc)$", "+00", spelled)
    return _load(spelled.encode(), oid, Format.TEXT, f'invalid input syntax for type {name}: "{text}"')


def _load(data: bytes, oid: int, fmt: Format, message: str) -> Any:
    loader = adapters.get_loader(oid, fmt)
    if loader is None:
        return data.decode()
    try:
        return loader(oid, None).load(data)
    except PgError:
        raise
    except Exception as exc:
        detail = str(exc)
        if "out of range" in detail or "must be in" in detail or "too large" in detail or "too small" in detail:
            value = message.rsplit(": ", 1)[-1] if '"' in message else ""
            raise DatetimeFieldOverflow(f"date/time field value out of range: {value}".rstrip(": ")) from None
        error: type[PgError] = InvalidBinaryRepresentation if fmt == Format.BINARY else InvalidTextRepresentation
        if oid in _DATETIME_NAMES and fmt == Format.TEXT:
            error = InvalidDatetimeFormat
        raise error(message) from None


_BINARY_SIZES = {
    16: 1,
    20: 8,
    21: 2,
    23: 4,
    26: 4,
    700: 4,
    701: 8,
    1082: 4,
    1083: 8,
    1114: 8,
    1184: 8,
    1186: 16,
    1266: 12,
    2950: 16,
}


def _decode_binary(data: bytes, oid: int, index: int | None) -> object:
    message = "incorrect binary data format" + (f" in bind parameter {index}" if index else "")
    size = _BINARY_SIZES.get(oid)
    if size is not None and len(data) != size:
        raise InvalidBinaryRepresentation(message)
    if oid in _TEXT_FAMILY or oid in (114,):
        return _utf8(data)
    if oid == 3802:
        if not data or data[0] != 1:
            raise InvalidBinaryRepresentation("unsupported jsonb version number")
        return _utf8(data[1:])
    if oid == 1186:
        micros, days, months = struct.unpack("!qii", data)
        return Interval(months, days, micros)
    if oid == 1082 and abs(struct.unpack("!i", data)[0]) >= 2**31 - 1:
        return dt.date.max if data[0] < 0x80 else dt.date.min
    if oid in (1114, 1184):
        micros = struct.unpack("!q", data)[0]
        if abs(micros) >= 2**63 - 1:
            value = dt.datetime.max if micros > 0 else dt.datetime.min
            return value.replace(tzinfo=dt.UTC) if oid == 1184 else value
    loaded = _load(data, oid, Format.BINARY, message)
    if oid in (1082, 1114, 1184) and loaded is None:
        raise InvalidBinaryRepresentation(message)
    return loaded
