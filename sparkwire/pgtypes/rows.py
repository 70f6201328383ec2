"""DataRow assembly: `encode_data_rows(batch, type_oids, formats, options)` → the bytes of one DataRow message per
row ('D', int32 length, int16 ncols, per column int32 length or -1 for NULL, value bytes).

Each column is encoded for the whole batch (`text.encode_text` / `binary.encode_binary`); the messages are then
built without a per-row loop: the fixed parts between values (message header + first length, later lengths) are
numpy records, and `binary_join_element_wise` interleaves them with the value columns into one buffer. Batches
whose output would exceed Arrow's 2 GiB binary limit are split in halves.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from sparkwire.pgtypes import _wire
from sparkwire.pgtypes.binary import encode_binary
from sparkwire.pgtypes.options import EncodeOptions
from sparkwire.pgtypes.text import encode_text

_LIMIT = 2**31 - 1


def encode_column(arr: pa.Array, oid: int, fmt: int, options: EncodeOptions) -> pa.Array:
    return encode_binary(arr, oid, options) if fmt == 1 else encode_text(arr, oid, options)


def encode_data_rows(
    batch: pa.RecordBatch, type_oids: Sequence[int], formats: Sequence[int], options: EncodeOptions
) -> bytes:
    if batch.num_rows == 0:
        return b""
    columns = [encode_column(batch.column(i), type_oids[i], formats[i], options) for i in range(batch.num_columns)]
    return b"".join(_assemble(columns, batch.num_rows))


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
