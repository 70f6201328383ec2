"""Bind parameter decoding: `decode_param(data, type_oid, fmt)` → a Python value, or a PgError worded like
PostgreSQL's input functions.

Values: int, float, Decimal, str, bytes, bool, date, time, datetime (tz-aware for timestamptz; a text timestamptz
without an offset is read in `options.timezone`), `Interval` (months/days/µs), UUID, JSON as its (validated) str,
lists for arrays. ±infinity dates and timestamps become the min/max of date/datetime. Text dates and times are
read by `datetime_in` (PostgreSQL's ISO input forms); psycopg's loaders parse binary dates and times, bytea,
binary numerics and arrays; integers, floats, numerics, booleans in text are validated here because Python's
parsers accept spellings PostgreSQL rejects ("1_000"). Oid 0/705 and the text family decode as str. A binary value
shorter than its type's fixed size is 08P01 "insufficient data left in message", longer is 22P03, as in
PostgreSQL. `decimal_text` / `exact_decimal_text` spell Decimals with their own scale (unconstrained numeric).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
import struct
import uuid
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
    ProtocolViolation,
)
from sparkwire.pgtypes.datetime_in import parse_datetime
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
    4089: ("regnamespace", 0, 2**32 - 1),
    4096: ("regrole", 0, 2**32 - 1),
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
        raise invalid_utf8(data, exc.start) from None


def invalid_utf8(data: bytes, start: int) -> CharacterNotInRepertoire:
    """PostgreSQL's report of a bad UTF-8 sequence: the bytes of the character its first byte announces."""
    lead = data[start]
    length = 2 if lead & 0xE0 == 0xC0 else 3 if lead & 0xF0 == 0xE0 else 4 if lead & 0xF8 == 0xF0 else 1
    bad = " ".join(f"0x{b:02x}" for b in data[start : start + length])
    return CharacterNotInRepertoire(f'invalid byte sequence for encoding "UTF8": {bad}')


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
        return parse_datetime(text, type_oid, options.timezone)
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


def decimal_text(value: Decimal) -> str:
    """numeric_out of a Decimal: its own digits and scale, NaN, ±Infinity, no negative zero."""
    if value.is_nan():
        return "NaN"
    if value.is_infinite():
        return "Infinity" if value > 0 else "-Infinity"
    return format(value.copy_abs() if value.is_zero() else value, "f")


def exact_decimal_text(values: list[Any]) -> list[Any]:
    """A (nested) list of Decimals as their `decimal_text`: the per-element scale survives where one Arrow/DuckDB
    decimal type per list would force a common scale."""
    return [
        decimal_text(v) if isinstance(v, Decimal) else exact_decimal_text(v) if isinstance(v, list) else v
        for v in values
    ]


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
    if size is not None and len(data) < size:
        raise ProtocolViolation("insufficient data left in message")
    if size is not None and len(data) > size:
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
