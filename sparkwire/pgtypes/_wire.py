"""Vectorized helpers shared by the encoders: every encoded column is a `pa.BinaryArray` of wire values (nulls kept
as nulls), built and combined with pyarrow.compute and numpy — never a Python loop per row.

`fixed_width(values, validity)` wraps a numpy array of fixed-size records as a binary array without copying;
`lengths(arr)` reads the per-value byte lengths from the offsets; `join(segments)` concatenates per-row segments
(arrays or scalars) into one binary array whose data buffer holds the rows back to back; `data_bytes(arr)` returns
that buffer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

BINARY = pa.binary()
EMPTY = pa.scalar(b"", BINARY)


def as_binary(arr: pa.Array) -> pa.Array:
    """A string/binary array of any flavour (large, view, dictionary, chunked) as `pa.binary()`."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    if arr.type == BINARY:
        return arr
    if pa.types.is_string(arr.type):
        return arr.view(BINARY)
    return arr.cast(BINARY)


def valid_mask(arr: pa.Array) -> npt.NDArray[np.bool_]:
    if arr.null_count == 0:
        return np.ones(len(arr), dtype=np.bool_)
    return np.asarray(arr.is_valid().to_numpy(zero_copy_only=False), dtype=np.bool_)


def fixed_width(values: npt.NDArray[np.generic], width: int, arr_for_nulls: pa.Array | None = None) -> pa.Array:
    """`values` (n records of `width` bytes, contiguous) as a binary array; nulls copied from `arr_for_nulls`."""
    n = len(values)
    offsets = np.arange(0, (n + 1) * width, width, dtype=np.int32)
    data = np.ascontiguousarray(values)
    validity = None
    null_count = 0
    if arr_for_nulls is not None and arr_for_nulls.null_count:
        validity = arr_for_nulls.is_valid().buffers()[1]
        null_count = arr_for_nulls.null_count
    return pa.Array.from_buffers(
        BINARY, n, [validity, pa.py_buffer(offsets), pa.py_buffer(data.view(np.uint8))], null_count
    )


def with_nulls_of(encoded: pa.Array, source: pa.Array) -> pa.Array:
    """`encoded` with the null entries of `source` set to null."""
    if source.null_count == 0:
        return encoded
    return pc.if_else(source.is_valid(), encoded, pa.scalar(None, encoded.type))


def lengths(arr: pa.Array) -> npt.NDArray[np.int32]:
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int32, count=len(arr) + 1, offset=arr.offset * 4)
    return np.diff(offsets)


def join(segments: Sequence[pa.Array | pa.Scalar]) -> pa.Array:
    return pc.binary_join_element_wise(*segments, EMPTY)


def data_bytes(arr: pa.Array) -> bytes:
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int32, count=len(arr) + 1, offset=arr.offset * 4)
    data = arr.buffers()[2]
    if data is None:
        return b""
    return bytes(memoryview(data)[int(offsets[0]) : int(offsets[-1])])


def patch(
    encoded: pa.Array, mask: npt.NDArray[np.bool_], source: pa.Array, render: Callable[[object], bytes]
) -> pa.Array:
    """Replace the entries of `encoded` selected by `mask` with `render(value)` of the matching `source` values:
    the per-value fallback for the rare values a vectorized path cannot spell (BC dates, infinities, …)."""
    if not mask.any():
        return encoded
    values = source.filter(pa.array(mask)).to_pylist()
    rendered = pa.array([None if value is None else render(value) for value in values], BINARY)
    return pc.replace_with_mask(encoded, pa.array(mask), rendered)


def from_values(arr: pa.Array, render: Callable[[object], bytes]) -> pa.Array:
    """Per-value fallback for whole columns of rare types: `render` each non-null Python value."""
    return pa.array([None if value is None else render(value) for value in arr.to_pylist()], BINARY)


def may_contain(values: pa.Array, specials: bytes) -> bool:
    """Whether any byte of `specials` occurs in the values of the binary/string array `values`: a byte search over
    the part of its data buffer the array spans, many times faster than a regex per value (NULLs may span bytes
    too, so True only means "maybe")."""
    if len(values) == 0 or values.type.num_buffers != 3:
        return len(values) > 0  # not offsets + data (a view type): assume it may
    _, offsets, data = values.buffers()
    if data is None or offsets is None:
        return False
    large = pa.types.is_large_binary(values.type) or pa.types.is_large_string(values.type)
    bounds = np.frombuffer(offsets, dtype=np.int64 if large else np.int32)
    start, end = int(bounds[values.offset]), int(bounds[values.offset + len(values)])
    raw = data.slice(start, end - start).to_pybytes()
    return any(raw.find(bytes([byte])) >= 0 for byte in specials)
