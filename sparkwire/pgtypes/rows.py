"""DataRow assembly: `encode_data_rows(batch, type_oids, formats, options)` → the bytes of one DataRow message per
row ('D', int32 length, int16 ncols, per column int32 length or -1 for NULL, value bytes).

Large batches: each column is encoded for the whole batch (`text.encode_text` / `binary.encode_binary`); the
messages are then built without a per-row loop: the fixed parts between values (message header + first length,
later lengths) are numpy records, and `binary_join_element_wise` interleaves them with the value columns into one
buffer. Batches whose output would exceed Arrow's 2 GiB binary limit are split in halves.

Small batches (fewer than `SMALL_BATCH` rows, e.g. the one row of `SELECT 1`) skip that machinery, whose fixed cost
is ~100 µs: values of the plain types whose wire form is obviously the Python value's (integers, bool, strings of
the text family, binary float4/float8) are encoded one by one by `_SCALAR` encoders, and so are the text of
dates, timestamps and (in a zone with a zero offset) timestamptz, from their integers; any other column still goes
through the column encoders above; rows are framed with `struct`. Both paths produce identical bytes.
`SMALL_BATCH` (40) is where the per-value way stops being the cheaper one (`python bench/encode.py`, text format,
one batch: a 4-column catalog-like result 51 µs per value against 148 µs per column at 32 rows, still 85 against
153 at 64; a 20-column one like the activity log's 996 against 1,309 µs at 32 rows, 1,215 against 1,360 at 48,
and 1,620 against 1,368 at 64). Most catalog answers (psql's `\\d`, a BI tool's metadata calls) are that small.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Sequence

import numpy as np
import pyarrow as pa

from sparkwire.pgtypes import _calendar, _wire
from sparkwire.pgtypes.binary import encode_binary
from sparkwire.pgtypes.options import EncodeOptions
from sparkwire.pgtypes.text import encode_text
from sparkwire.pgtypes.text_datetime import ZERO_OFFSET_ZONES, spell_timestamptz_utc

_LIMIT = 2**31 - 1
SMALL_BATCH = 40


def encode_column(arr: pa.Array, oid: int, fmt: int, options: EncodeOptions) -> pa.Array:
    return encode_binary(arr, oid, options) if fmt == 1 else encode_text(arr, oid, options)


def encode_data_rows(
    batch: pa.RecordBatch, type_oids: Sequence[int], formats: Sequence[int], options: EncodeOptions
) -> bytes:
    n = batch.num_rows
    if n == 0:
        return b""
    if n < SMALL_BATCH:
        return encode_by_values(batch, type_oids, formats, options)
    return encode_by_columns(batch, type_oids, formats, options)


def encode_by_columns(
    batch: pa.RecordBatch, type_oids: Sequence[int], formats: Sequence[int], options: EncodeOptions
) -> bytes:
    """The way of batches of `SMALL_BATCH` rows or more (`encode_data_rows` picks; bench/encode.py times both)."""
    columns = [encode_column(batch.column(i), type_oids[i], formats[i], options) for i in range(batch.num_columns)]
    return b"".join(_assemble(columns, batch.num_rows))


# ---- small batches ----------------------------------------------------------------------------------------------

Scalar = Callable[[object], bytes]
_NULL = struct.pack("!i", -1)
_I32 = struct.Struct("!i")
_HEAD = struct.Struct("!cih")


def _float8(value: object) -> bytes:
    assert isinstance(value, float)
    return struct.pack("!d", math.nan if value != value else value)  # one NaN bit pattern, as binary.py


def _float4(value: object) -> bytes:
    assert isinstance(value, float)
    return struct.pack("!f", math.nan if value != value else value)


def _text_int(value: object) -> bytes:
    return str(value).encode()


def _utf8(value: object) -> bytes:
    assert isinstance(value, str)
    return value.encode()


_BOOL_TEXT: dict[object, bytes] = {True: b"t", False: b"f"}
_BOOL_BINARY: dict[object, bytes] = {True: b"\x01", False: b"\x00"}
_TEXT_FAMILY = (18, 19, 25, 705, 1042, 1043)  # char, name, text, unknown, bpchar, varchar: the string as it is
_INT_OIDS = {21: (16, "!h"), 23: (32, "!i"), 20: (64, "!q")}

# (type oid, format, Arrow type id) → per-value encoder; anything else takes the column path.
_SCALAR: dict[tuple[int, int, int], Scalar] = {
    **{(oid, fmt, pa.string().id): _utf8 for oid in _TEXT_FAMILY for fmt in (0, 1)},
    (16, 0, pa.bool_().id): _BOOL_TEXT.__getitem__,
    (16, 1, pa.bool_().id): _BOOL_BINARY.__getitem__,
    (701, 1, pa.float64().id): _float8,
    (700, 1, pa.float32().id): _float4,
}
for _oid, (_bits, _fmt) in _INT_OIDS.items():
    for _arrow in (pa.int8(), pa.int16(), pa.int32(), pa.int64()):
        _SCALAR[_oid, 0, _arrow.id] = _text_int
        if _arrow.bit_width <= _bits:  # a narrower source always fits; a wider one takes the column path
            _SCALAR[_oid, 1, _arrow.id] = struct.Struct(_fmt).pack


def _timestamp_text(value: object) -> bytes:
    assert isinstance(value, int)
    return _calendar.format_timestamp(value).encode()


def _date_text(value: object) -> bytes:
    assert isinstance(value, int)
    return _calendar.format_date(value).encode()


def _calendar_scalar(arr: pa.Array, oid: int, fmt: int, options: EncodeOptions) -> tuple[Scalar, pa.Array] | None:
    """Text of timestamps and dates spelled per value from their integer µs / days (`_calendar`, the spelling the
    column encoders use for rare values): a few µs a value, where the column path's pyarrow calls cost ~70 µs a
    column. timestamptz only in a zone whose offset is always zero (the default); others take the column path."""
    if fmt != 0:
        return None
    if oid == 1114 and pa.types.is_timestamp(arr.type) and not arr.type.tz:
        return _timestamp_text, arr.cast(pa.timestamp("us"), safe=False).cast(pa.int64())
    if oid == 1184 and pa.types.is_timestamp(arr.type) and options.timezone in ZERO_OFFSET_ZONES:
        return spell_timestamptz_utc, arr.cast(pa.timestamp("us", arr.type.tz), safe=False).cast(pa.int64())
    if oid == 1082 and pa.types.is_date32(arr.type):
        return _date_text, arr.cast(pa.int32())
    return None


def _small_column(arr: pa.Array, oid: int, fmt: int, options: EncodeOptions) -> list[bytes | None]:
    scalar = _SCALAR.get((oid, fmt, arr.type.id))
    if scalar is None:
        per_value = _calendar_scalar(arr, oid, fmt, options)
        if per_value is None:
            return encode_column(arr, oid, fmt, options).to_pylist()  # type: ignore[no-any-return]
        scalar, arr = per_value
    return [None if value is None else scalar(value) for value in arr.to_pylist()]


def encode_by_values(
    batch: pa.RecordBatch, type_oids: Sequence[int], formats: Sequence[int], options: EncodeOptions
) -> bytes:
    """The way of batches under `SMALL_BATCH` rows (`encode_data_rows` picks; bench/encode.py times both)."""
    ncols = batch.num_columns
    columns = [_small_column(batch.column(i), type_oids[i], formats[i], options) for i in range(ncols)]
    out = bytearray()
    pack_len = _I32.pack
    for r in range(batch.num_rows):
        parts: list[bytes] = []
        size = 6
        for column in columns:
            value = column[r]
            if value is None:
                parts.append(_NULL)
                size += 4
            else:
                parts.append(pack_len(len(value)))
                parts.append(value)
                size += 4 + len(value)
        out += _HEAD.pack(b"D", size, ncols)
        out += b"".join(parts)
    return bytes(out)


# ---- large batches ----------------------------------------------------------------------------------------------


def _assemble(columns: list[pa.Array], n: int) -> list[bytes]:
    lens = [np.where(_wire.valid_mask(c), _wire.lengths(c), -1).astype(np.int64) for c in columns]
    total = 4 + 2 + sum(4 + np.maximum(length, 0) for length in lens) if lens else np.full(n, 6, np.int64)
    if int(np.sum(total)) + n >= _LIMIT and n > 1:
        half = n // 2
        return _assemble([c.slice(0, half) for c in columns], half) + _assemble(
            [c.slice(half) for c in columns], n - half
        )
    head_fields: list[tuple[str, str]] = [("type", "u1"), ("length", ">i4"), ("ncols", ">i2")]
    if columns:
        head_fields.append(("first", ">i4"))
    head = np.empty(n, dtype=head_fields)
    head["type"] = ord("D")
    head["length"] = total
    head["ncols"] = len(columns)
    segments: list[pa.Array] = []
    if columns:
        head["first"] = lens[0]
    segments.append(_wire.fixed_width(head, head.dtype.itemsize))
    for i, column in enumerate(columns):
        if i:
            segments.append(_wire.fixed_width(lens[i].astype(">i4"), 4))
        segments.append(column.fill_null(_wire.EMPTY) if column.null_count else column)
    if len(segments) == 1:
        return [head.tobytes()]
    return [_wire.data_bytes(_wire.join(segments))]
