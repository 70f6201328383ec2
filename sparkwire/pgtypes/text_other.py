"""Text output of bytea (hex), uuid, json-ish nested values, and arrays.

bytea is hex-encoded with a numpy lookup table over the whole data buffer. uuid strings pass through; 16-byte
binaries are spelled per value. STRUCT/MAP values become JSON text per value. Arrays (Arrow lists, nested to any
depth) encode their flattened elements with the element type's vectorized encoder, then assemble "{…}" per row
with array_out's quoting: an element is double-quoted when it is empty, spells NULL (any case), or contains
`{ } , " \\` or whitespace; inside quotes `"` and `\\` get a backslash. An array whose elements are themselves lists
(int2vector[]) says so with `element_depth`. int2vector / oidvector values (Arrow lists) print their elements
separated by single spaces, as int2vectorout / oidvectorout.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from sparkwire.pgtypes import _wire

_HEX = np.frombuffer(b"".join(b"%02x" % i for i in range(256)), dtype=np.uint8).reshape(256, 2)
_NEEDS_QUOTES = re.compile(rb'[{},"\\\s]|^$|^[nN][uU][lL][lL]$')
_ESCAPE = re.compile(rb'(["\\])')


def encode_bytea_hex(arr: pa.Array) -> pa.Array:
    arr = _wire.as_binary(arr)
    n = len(arr)
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int32, count=n + 1, offset=arr.offset * 4).astype(np.int64)
    data_buffer = arr.buffers()[2]
    data = (
        np.frombuffer(data_buffer, dtype=np.uint8)[offsets[0] : offsets[-1]]
        if data_buffer is not None
        else np.zeros(0, np.uint8)
    )
    hexed = _HEX[data].reshape(-1)
    lens = np.diff(offsets)
    out_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lens * 2 + 2, out=out_offsets[1:])
    out = np.empty(int(out_offsets[-1]), dtype=np.uint8)
    starts = out_offsets[:-1]
    out[starts] = ord("\\")
    out[starts + 1] = ord("x")
    body = np.ones(len(out), dtype=np.bool_)
    body[starts] = False
    body[starts + 1] = False
    out[body] = hexed
    validity = arr.is_valid().buffers()[1] if arr.null_count else None
    return pa.Array.from_buffers(
        pa.large_binary(), n, [validity, pa.py_buffer(out_offsets), pa.py_buffer(out)], arr.null_count
    ).cast(_wire.BINARY)


def encode_uuid(arr: pa.Array) -> pa.Array:
    if isinstance(arr.type, pa.FixedSizeBinaryType) or pa.types.is_binary(arr.type):
        return _wire.from_values(arr, lambda v: str(uuid.UUID(bytes=v)).encode())  # type: ignore[arg-type]
    return _wire.as_binary(arr)


def encode_json(arr: pa.Array) -> pa.Array:
    if pa.types.is_struct(arr.type) or pa.types.is_map(arr.type) or pa.types.is_list(arr.type):
        return _wire.from_values(arr, lambda v: json.dumps(_jsonable(v), ensure_ascii=False, default=str).encode())
    return _wire.as_binary(arr if pa.types.is_string(arr.type) else arr.cast(pa.string()))


def _jsonable(value: object) -> object:
    if isinstance(value, list) and value and all(isinstance(p, tuple) and len(p) == 2 for p in value):
        return {str(k): _jsonable(v) for k, v in value}  # Arrow map entries
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


def as_list(arr: pa.Array) -> pa.Array:
    """Any Arrow list flavour as a plain `list<…>` array."""
    if pa.types.is_list(arr.type):
        return arr
    return arr.cast(pa.list_(arr.type.value_type))


def encode_array(arr: pa.Array, element: Callable[[pa.Array], pa.Array], element_depth: int = 0) -> pa.Array:
    """`element` text-encodes a flat array of the element type; `element_depth` is how many list levels one
    element value has (1 for a vector element, else 0)."""
    return pa.array(_array_texts(as_list(arr), element, element_depth), _wire.BINARY)


def encode_vector(arr: pa.Array) -> pa.Array:
    """int2vector / oidvector text: the (integer) elements separated by single spaces."""
    return _wire.as_binary(pc.binary_join(as_list(arr).cast(pa.list_(pa.string())), " "))


def list_depth(dtype: pa.DataType) -> int:
    """How many list levels a type has (0 for a non-list)."""
    return 1 + list_depth(dtype.value_type) if is_list(dtype) else 0


def _array_texts(arr: pa.Array, element: Callable[[pa.Array], pa.Array], element_depth: int) -> list[bytes | None]:
    values = arr.values
    if list_depth(values.type) > element_depth:
        children = _array_texts(as_list(values), element, element_depth)
        items = [b"NULL" if c is None else c for c in children]
    else:
        items = [b"NULL" if c is None else _quote(c) for c in element(values).to_pylist()]
    offsets = arr.offsets.to_numpy().tolist()
    valid = arr.is_valid().to_pylist()
    return [b"{" + b",".join(items[offsets[i] : offsets[i + 1]]) + b"}" if valid[i] else None for i in range(len(arr))]


def is_list(dtype: pa.DataType) -> bool:
    return bool(
        pa.types.is_list(dtype)
        or pa.types.is_large_list(dtype)
        or pa.types.is_fixed_size_list(dtype)
        or pa.types.is_list_view(dtype)
        or pa.types.is_large_list_view(dtype)
    )


def _quote(text: bytes) -> bytes:
    if _NEEDS_QUOTES.search(text):
        return b'"' + _ESCAPE.sub(rb"\\\1", text) + b'"'
    return text
