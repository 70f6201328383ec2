"""Binary (numeric_send) encoding of numeric columns.

Layout: int16 ndigits, int16 weight, int16 sign (0x0000, 0x4000 negative, 0xC000 NaN), int16 dscale, then ndigits
base-10000 digits with leading and trailing zero digits stripped. Decimal columns whose unscaled values fit in 64
bits after padding the scale to a multiple of 4 are converted with numpy for the whole column (the bulk path); all
other values go through psycopg's NumericBinaryDumper one by one.
"""

from __future__ import annotations

import decimal

import numpy as np
import pyarrow as pa
from psycopg import adapters
from psycopg.pq import Format

from sparkwire.pgtypes import _wire

_DUMPER = adapters.get_dumper_by_oid(1700, Format.BINARY)(decimal.Decimal)


def encode_numeric_binary(arr: pa.Array) -> pa.Array:
    if isinstance(arr.type, pa.Decimal128Type):
        pad = (4 - arr.type.scale % 4) % 4
        if arr.type.scale >= 0 and arr.type.precision + pad <= 18:
            return _decimal_vectorized(arr, arr.type.precision, arr.type.scale, pad)
    return _wire.from_values(arr, _dump)


def _dump(value: object) -> bytes:
    if isinstance(value, float):
        number = decimal.Decimal(repr(value)) if value == value else decimal.Decimal("NaN")
    elif isinstance(value, decimal.Decimal):
        number = value
    else:
        number = decimal.Decimal(str(value))
    dumped = _DUMPER.dump(number)
    assert dumped is not None
    return bytes(dumped)


def _decimal_vectorized(arr: pa.Array, precision: int, scale: int, pad: int) -> pa.Array:
    n = len(arr)
    words = np.frombuffer(arr.buffers()[1], dtype="<i8").reshape(-1, 2)[arr.offset : arr.offset + n, 0]
    negative = words < 0
    rest = np.abs(words) * np.int64(10**pad)
    groups = (precision + pad + 3) // 4
    fraction_groups = (scale + pad) // 4
    digits = np.empty((n, groups), dtype=np.int64)
    for k in range(groups - 1, -1, -1):
        rest, digits[:, k] = np.divmod(rest, 10000)
    nonzero = digits != 0
    any_nonzero = nonzero.any(axis=1)
    first = np.argmax(nonzero, axis=1)
    last = groups - 1 - np.argmax(nonzero[:, ::-1], axis=1)
    ndigits = np.where(any_nonzero, last - first + 1, 0)
    table = np.empty((n, 4 + groups), dtype=">i2")
    table[:, 0] = ndigits
    table[:, 1] = np.where(any_nonzero, groups - fraction_groups - 1 - first, 0)
    table[:, 2] = np.where(negative, 0x4000, 0)
    table[:, 3] = scale
    table[:, 4:] = digits
    column = np.arange(groups)
    keep = np.ones((n, 4 + groups), dtype=np.bool_)
    keep[:, 4:] = (column >= first[:, None]) & (column <= last[:, None]) & any_nonzero[:, None]
    data = table[keep]
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(8 + 2 * ndigits, out=offsets[1:])
    validity = arr.is_valid().buffers()[1] if arr.null_count else None
    return pa.Array.from_buffers(
        _wire.BINARY, n, [validity, pa.py_buffer(offsets), pa.py_buffer(data.view(np.uint8))], arr.null_count
    )
