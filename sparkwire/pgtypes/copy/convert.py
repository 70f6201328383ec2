"""COPY FROM column typing: raw field bytes of one column → an Arrow array of `arrow_type_for_pg(oid, typmod)`.

Fast path, for the whole column at once: when every value has the plain spelling PostgreSQL and Arrow both read the
same way (digits for integers and numerics, ISO dates and timestamps, t/f), Arrow's cast does the conversion, and any
cast failure (overflow, lost scale, a 30th of February) sends the column to the slow path. Slow path: each value goes
through PostgreSQL's input rules (`params.decode_text`), so the first bad value raises PostgreSQL's error; the caller
adds the COPY context. ±infinity dates/timestamps are stored as DuckDB's sentinels (±INT32_MAX days, ±INT64_MAX µs).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from sparkwire.errors import NumericValueOutOfRange, PgError
from sparkwire.pgtypes import _wire
from sparkwire.pgtypes.interval import Interval
from sparkwire.pgtypes.options import EncodeOptions
from sparkwire.pgtypes.params import decimal_text, decode_text, invalid_utf8

TEXT_FAMILY = frozenset({18, 19, 25, 142, 705, 1042, 1043})
_PLAIN: dict[int, str] = {
    21: r"^-?\d{1,5}$",
    23: r"^-?\d{1,10}$",
    20: r"^-?\d{1,19}$",
    700: r"^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d{1,2})?$",
    701: r"^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d{1,3})?$",
    1700: r"^-?(?:0|[1-9]\d*)(?:\.\d+)?$",
    1082: r"^\d{4}-\d{2}-\d{2}$",
    1114: r"^\d{4}-\d{2}-\d{2}(?: \d{2}:\d{2}:\d{2}(?:\.\d{1,6})?)?$",
    16: r"^[tf]$",
}
_INTEGERS = frozenset({20, 21, 23})
_INFINITIES = {"infinity": 1, "+infinity": 1, "-infinity": -1}
_EPOCH_UNITS: dict[int, tuple[dt.timedelta, int]] = {
    1082: (dt.timedelta(days=1), 2**31 - 1),
    1114: (dt.timedelta(microseconds=1), 2**63 - 1),
    1184: (dt.timedelta(microseconds=1), 2**63 - 1),
}
_EPOCH = dt.datetime(1970, 1, 1)

Where = Callable[[int], str]  # row index → the COPY context for an error at that row


def convert_column(
    raw: Sequence[bytes | None] | pa.Array, oid: int, target: pa.DataType, options: EncodeOptions, where: Where
) -> pa.Array:
    """`raw`: the column's field bytes (None: NULL), as a sequence or as a binary Arrow array."""
    binary = raw if isinstance(raw, pa.Array) else pa.array(raw, pa.binary())
    try:
        text = binary.cast(pa.string())
    except pa.ArrowInvalid:
        text = None
    if text is not None:
        if oid in TEXT_FAMILY:
            return text if target == pa.string() else text.cast(target)
        fast = _fast(text, oid, target)
        if fast is not None:
            return fast
    return _slow(binary.to_pylist() if isinstance(raw, pa.Array) else raw, oid, target, options, where)


def _fast(text: pa.Array, oid: int, target: pa.DataType) -> pa.Array | None:
    pattern = _PLAIN.get(oid)
    if pattern is None or (oid == 1700 and not pa.types.is_decimal(target) and not pa.types.is_string(target)):
        return None
    if oid in _INTEGERS:  # Arrow's cast reads -digits (and 0x hex, which PostgreSQL 15 refuses): one byte search
        if _wire.may_contain(text, b"xX"):
            return None
    elif pc.all(pc.match_substring_regex(text, pattern)).as_py() is False:
        return None
    if oid == 16:
        return pc.equal(text, pa.scalar("t"))
    if oid == 1700 and pa.types.is_string(target):
        return text
    try:
        result = text.cast(target)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    if oid in (700, 701):
        values = np.asarray(result.fill_null(1.0).to_numpy(zero_copy_only=False))
        if not np.isfinite(values).all() or (values == 0).any():  # overflow/underflow: let PostgreSQL's rules speak
            return None
    return result


def _slow(raw: Sequence[bytes | None], oid: int, target: pa.DataType, options: EncodeOptions, where: Where) -> pa.Array:
    values: list[object] = []
    infinities = False
    for row, data in enumerate(raw):
        if data is None:
            values.append(None)
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            error: PgError = invalid_utf8(data, exc.start)
            error.detail = where(row)
            raise error from None
        try:
            if oid in TEXT_FAMILY:
                values.append(text)
            elif oid in _EPOCH_UNITS and text.strip().lower() in _INFINITIES:
                values.append(Infinity(_INFINITIES[text.strip().lower()]))
                infinities = True
            else:
                values.append(to_arrow_value(decode_text(text, oid, options), target))
        except PgError as error:
            error.detail = f'{where(row)}: "{text}"'
            raise
    return arrow_column(values, oid, target, infinities=infinities)


class Infinity(int):
    """±1 standing for ±infinity in a date/timestamp column."""


def arrow_column(values: list[object], oid: int, target: pa.DataType, *, infinities: bool) -> pa.Array:
    """Values in `to_arrow_value` form — and, when `infinities`, `Infinity` markers — as an Arrow array."""
    if infinities:
        return _with_infinities(values, oid, target)
    return pa.array(values, target)


def _with_infinities(values: list[object], oid: int, target: pa.DataType) -> pa.Array:
    unit, top = _EPOCH_UNITS[oid]
    ints: list[int | None] = []
    for value in values:
        if value is None or isinstance(value, Infinity):
            ints.append(None if value is None else top * int(value))
        elif isinstance(value, dt.datetime):
            start = _EPOCH.replace(tzinfo=dt.UTC) if value.tzinfo else _EPOCH
            ints.append((value - start) // unit)
        else:
            assert isinstance(value, dt.date)
            ints.append((value - _EPOCH.date()) // unit)
    return pa.array(ints, pa.int32() if oid == 1082 else pa.int64()).cast(target)


def to_arrow_value(value: object, target: pa.DataType) -> object:
    """A decoded Python value in the form pyarrow accepts for `target`."""
    if isinstance(value, Interval):
        return (value.months, value.days, value.micros * 1000)
    if isinstance(value, Decimal):
        return _decimal(value, target)
    if isinstance(value, list):
        inner = target.value_type if pa.types.is_list(target) else target
        return [to_arrow_value(v, inner) for v in value]
    if pa.types.is_string(target) and value is not None and not isinstance(value, str):
        return str(value)
    return value


def _decimal(value: Decimal, target: pa.DataType) -> object:
    if isinstance(target, pa.Decimal128Type):
        if not value.is_finite():
            raise NumericValueOutOfRange(
                "cannot convert NaN to numeric with a precision"
                if value.is_nan()
                else "cannot convert infinity to numeric"
            )
        rounded = value.quantize(Decimal(1).scaleb(-target.scale), rounding=ROUND_HALF_UP)
        if rounded.adjusted() >= target.precision - target.scale:
            raise NumericValueOutOfRange(
                "numeric field overflow",
                detail=f"A field with precision {target.precision}, scale {target.scale} must round to an absolute "
                f"value less than 10^{target.precision - target.scale}.",
            )
        return rounded
    return decimal_text(value)
