"""Binary-format encoding of one column: `encode_binary(arr, oid, options)` → `pa.BinaryArray` of PostgreSQL's
*send output for each value (nulls stay null).

Fixed-width types are converted for the whole column with numpy (`astype('>i8')`, epoch shifts to 2000-01-01,
DuckDB's ±infinity sentinels mapped to PostgreSQL's). Numeric is in `binary_numeric` (psycopg's dumper for the
values numpy cannot take). Interval and arrays are written here rather than with psycopg's dumpers: psycopg dumps
an interval from a `timedelta`, which cannot hold months, and picks an array's element oid from the Python values,
while the wire must carry exactly the oid announced in RowDescription; both layouts are a few fixed fields.
int2vector / oidvector send array_send's layout with their element oid (int2 / oid) and lower bound 0.
A regproc / regtype column whose values are names (as the store holds regproc columns, and as projections print
them) sends the OID behind the name; a regclass name has none without the catalog: 0A000 (asyncpg and pgjdbc ask
for the OID alias types in text).
"""

from __future__ import annotations

import struct

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from sparkwire import errors as e
from sparkwire.pgtypes import _calendar, _wire, binary_numeric, text_other
from sparkwire.pgtypes.functions import function_oid
from sparkwire.pgtypes.options import EncodeOptions
from sparkwire.pgtypes.registry import parse_type_name, type_by_oid
from sparkwire.pgtypes.text import encode_text

_POSTGRES_EPOCH_DAYS = 10957
_POSTGRES_EPOCH_MICROS = _POSTGRES_EPOCH_DAYS * _calendar.MICROS_PER_DAY
_FIXED: dict[int, tuple[str, pa.DataType]] = {
    21: (">i2", pa.int16()),
    23: (">i4", pa.int32()),
    20: (">i8", pa.int64()),
    26: (">u4", pa.uint32()),
    28: (">u4", pa.uint32()),
    24: (">u4", pa.uint32()),
    2205: (">u4", pa.uint32()),
    2206: (">u4", pa.uint32()),
    4089: (">u4", pa.uint32()),
    4096: (">u4", pa.uint32()),
    700: (">f4", pa.float32()),
    701: (">f8", pa.float64()),
}
_TEXT_LIKE = frozenset({18, 19, 25, 114, 142, 194, 705, 1042, 1043})


def _name_oid(name: str, oid: int) -> int:
    found = function_oid(name) if oid == 24 else (0 if name == "-" else parse_type_name(name)[0].oid)
    if found is None:
        raise e.FeatureNotSupported(f'binary output of regproc "{name}" is not supported; use text')
    return found


def _name_oids(arr: pa.Array, oid: int) -> pa.Array:
    """The OIDs behind printed regproc / regtype names (both static); regclass names depend on the catalog."""
    if oid in (2205, 4089, 4096):
        raise e.FeatureNotSupported(f"binary output of {type_by_oid(oid).name} names is not supported; use text")
    return pa.array([None if v is None else _name_oid(v, oid) for v in arr.to_pylist()], pa.uint32())


def encode_binary(arr: pa.Array, oid: int, options: EncodeOptions) -> pa.Array:
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    if pa.types.is_null(arr.type):
        return pa.nulls(len(arr), _wire.BINARY)
    fixed = _FIXED.get(oid)
    if fixed is not None and pa.types.is_string(arr.type):  # a regproc / regclass / regtype printed as a name
        arr = _name_oids(arr, oid)
    if fixed is not None:
        return _numbers(arr, *fixed)
    if oid == 16:
        return _wire.fixed_width(_filled(arr.cast(pa.bool_())).astype(np.uint8), 1, arr)
    if oid == 1700:
        return binary_numeric.encode_numeric_binary(arr)
    if oid == 17:
        return _wire.as_binary(arr)
    if oid == 1082:
        return _date(arr)
    if oid in (1114, 1184):
        return _timestamp(arr, oid)
    if oid == 1083:
        return _wire.fixed_width(_time_micros(arr).astype(">i8"), 8, arr)
    if oid == 1266:
        record = np.zeros(len(arr), dtype=[("time", ">i8"), ("zone", ">i4")])
        record["time"] = _time_micros(arr)
        return _wire.fixed_width(record, 12, arr)
    if oid == 1186:
        return _interval(arr)
    if oid == 2950:
        return _uuid(arr)
    if oid == 3802:
        return _wire.join([pa.scalar(b"\x01", _wire.BINARY), encode_text(arr, 3802, options)])
    found = type_by_oid(oid) if oid else None
    if found is not None and found.vector and text_other.is_list(arr.type):
        return _array(arr, found.element_oid, options, vector=True)
    if found is not None and found.is_array and text_other.is_list(arr.type):
        return _array(arr, found.element_oid, options)
    return encode_text(arr, oid if oid in _TEXT_LIKE else 25, options)


def _filled(arr: pa.Array) -> npt.NDArray[np.generic]:
    zero = pa.scalar(False) if pa.types.is_boolean(arr.type) else pa.scalar(0, arr.type)
    return np.asarray(arr.fill_null(zero).to_numpy(zero_copy_only=False))


def _numbers(arr: pa.Array, dtype: str, arrow_type: pa.DataType) -> pa.Array:
    if arr.type != arrow_type:
        arr = pc.cast(arr, arrow_type, safe=False)
    values = _filled(arr)
    if dtype[1] == "f":  # one NaN bit pattern, the one PostgreSQL's float input produces
        values = np.where(np.isnan(values), np.nan, values)
    return _wire.fixed_width(values.astype(dtype), int(dtype[2:]), arr)


def _date(arr: pa.Array) -> pa.Array:
    if not pa.types.is_date32(arr.type):
        arr = arr.cast(pa.date32())
    days = _filled(arr.cast(pa.int32())).astype(np.int64)
    shifted = days - _POSTGRES_EPOCH_DAYS
    shifted = np.where(days == _calendar.INT32_MAX, _calendar.INT32_MAX, shifted)
    shifted = np.where(days <= -_calendar.INT32_MAX, -_calendar.INT32_MAX - 1, shifted)
    return _wire.fixed_width(shifted.astype(">i4"), 4, arr)


def _timestamp(arr: pa.Array, oid: int) -> pa.Array:
    if pa.types.is_date(arr.type):
        arr = arr.cast(pa.timestamp("us"))
    arr = arr.cast(pa.timestamp("us", arr.type.tz), safe=False)
    if oid == 1114 and arr.type.tz:
        arr = pc.local_timestamp(arr)
    micros = _filled(arr.cast(pa.int64())).astype(np.int64)
    top = np.int64(_calendar.INT64_MAX)
    shifted = np.where(micros == top, top, micros - np.int64(_POSTGRES_EPOCH_MICROS))
    shifted = np.where(micros <= -top, -top - 1, shifted)
    return _wire.fixed_width(shifted.astype(">i8"), 8, arr)


def _time_micros(arr: pa.Array) -> npt.NDArray[np.int64]:
    return _filled(arr.cast(pa.time64("us"), safe=False).cast(pa.int64())).astype(np.int64)


def _interval(arr: pa.Array) -> pa.Array:
    record = np.zeros(len(arr), dtype=[("micros", ">i8"), ("days", ">i4"), ("months", ">i4")])
    if pa.types.is_duration(arr.type):
        record["micros"] = _filled(arr.cast(pa.duration("us"), safe=False).cast(pa.int64()))
    else:
        raw = np.frombuffer(arr.buffers()[1], dtype=[("months", "<i4"), ("days", "<i4"), ("nanos", "<i8")])
        raw = raw[arr.offset : arr.offset + len(arr)]
        record["micros"] = raw["nanos"] // 1000
        record["days"] = raw["days"]
        record["months"] = raw["months"]
    return _wire.fixed_width(record, 16, arr)


def _uuid(arr: pa.Array) -> pa.Array:
    if isinstance(arr.type, pa.FixedSizeBinaryType):
        return _wire.as_binary(arr)
    hexed = _wire.as_binary(pc.replace_substring(arr.cast(pa.string()), "-", ""))
    return _wire.from_values(hexed, lambda v: bytes.fromhex(v.decode()))  # type: ignore[attr-defined]


def _array(arr: pa.Array, element_oid: int, options: EncodeOptions, *, vector: bool = False) -> pa.Array:
    """array_send's layout; a `vector` (int2vector/oidvector) is one-dimensional even when empty and its lower
    bound is 0."""
    element_depth = 1 if type_by_oid(element_oid).vector else 0
    rows, leaves = _shape(text_other.as_list(arr), element_depth)
    elements = encode_binary(leaves, element_oid, options).to_pylist()
    lower = 0 if vector else 1
    out: list[bytes | None] = []
    for row in rows:
        if row is None:
            out.append(None)
            continue
        dims, start, end = row
        items = elements[start:end]
        has_null = any(item is None for item in items)
        if not items and not vector:
            dims = []
        parts = [struct.pack("!iii", len(dims), int(has_null), element_oid)]
        parts.extend(struct.pack("!ii", d, lower) for d in dims)
        for item in items:
            parts.append(b"\xff\xff\xff\xff" if item is None else struct.pack("!i", len(item)) + item)
        out.append(b"".join(parts))
    return pa.array(out, _wire.BINARY)


_Row = tuple[list[int], int, int] | None


def _shape(arr: pa.Array, element_depth: int) -> tuple[list[_Row], pa.Array]:
    """Per row (dims, first leaf, end leaf) and the flat leaf values of a (nested) list array whose elements have
    `element_depth` list levels of their own."""
    offsets = arr.offsets.to_numpy().tolist()
    valid = arr.is_valid().to_pylist()
    values = arr.values
    if text_other.list_depth(values.type) > element_depth:
        children, leaves = _shape(text_other.as_list(values), element_depth)
    else:
        children, leaves = [], values
    rows: list[_Row] = []
    for i in range(len(arr)):
        if not valid[i]:
            rows.append(None)
            continue
        lo, hi = offsets[i], offsets[i + 1]
        if not children:
            rows.append(([hi - lo], lo, hi))
            continue
        inner = [c for c in children[lo:hi] if c is not None]
        if not inner:
            rows.append(([hi - lo], 0, 0))
            continue
        rows.append(([hi - lo, *inner[0][0]], inner[0][1], inner[-1][2]))
    return rows, leaves
