"""COPY … (FORMAT binary) both ways, in PostgreSQL's binary COPY file format.

Layout: the signature `PGCOPY\\n\\377\\r\\n\\0`, int32 flags (bit 16 = WITH OIDS, bits 17-31 critical), int32
header-extension length and that many bytes; then per tuple an int16 field count and per field an int32 length
(-1 = NULL) followed by the type's binary (send/recv) representation; an int16 -1 ends the data.

Out: `BINARY_HEADER` is the CopyData of the file header alone; `with_binary_header(messages)` puts the header into
the first of some CopyData messages instead (how PostgreSQL sends it, and what the server does);
`encode_copy_binary_rows` gives one CopyData per row — a DataRow with every column in binary is exactly 'D' + int32
length + that tuple, so the rows are the DataRow encoder's output with each type byte turned into 'd';
`BINARY_TRAILER` is the CopyData of the end marker.

In: `BinaryCopyInParser`, the binary counterpart of `CopyInParser` (`feed(chunk)` with chunks split anywhere,
`finish()` → a record batch typed by the target oids). Tuples are framed as they arrive, so a wrong field count
fails early; values are decoded by `decode_param` (binary) at `finish()`; binary ±infinity dates/timestamps become
DuckDB's sentinels. Errors are PostgreSQL's (22P04 for the framing, the type's 22P03 for a value), with the COPY
context (`COPY t, line 2, column b`) in `detail`. Data ending at a tuple boundary without the end marker is
accepted, as PostgreSQL does.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

import pyarrow as pa

from sparkwire.errors import BadCopyFileFormat, PgError
from sparkwire.pgtypes.copy.convert import Infinity, arrow_column, to_arrow_value
from sparkwire.pgtypes.mapping import arrow_type_for_pg
from sparkwire.pgtypes.options import EncodeOptions
from sparkwire.pgtypes.params import decode_param
from sparkwire.pgtypes.rows import encode_data_rows

SIGNATURE = b"PGCOPY\n\xff\r\n\x00"
BINARY_HEADER = b"d" + struct.pack("!i", 4 + len(SIGNATURE) + 8) + SIGNATURE + struct.pack("!ii", 0, 0)
BINARY_TRAILER = b"d" + struct.pack("!ih", 6, -1)
_HEADER_SIZE = len(SIGNATURE) + 8
_HEADER_PAYLOAD = SIGNATURE + struct.pack("!ii", 0, 0)
_WITH_OIDS = 1 << 16
_INFINITY_BYTES: dict[int, dict[bytes, int]] = {
    1082: {struct.pack("!i", 2**31 - 1): 1, struct.pack("!i", -(2**31)): -1},
    1114: {struct.pack("!q", 2**63 - 1): 1, struct.pack("!q", -(2**63)): -1},
    1184: {struct.pack("!q", 2**63 - 1): 1, struct.pack("!q", -(2**63)): -1},
}


def with_binary_header(messages: bytes) -> bytes:
    """`messages` (CopyData messages: rows, or the trailer) with the file header inside the first one, as
    PostgreSQL sends it: clients that parse each CopyData on its own (psycopg's `Copy.rows()`) expect the first to
    start with the header and hold a whole tuple after it."""
    (length,) = struct.unpack_from("!i", messages, 1)
    return b"d" + struct.pack("!i", length + len(_HEADER_PAYLOAD)) + _HEADER_PAYLOAD + messages[5:]


def encode_copy_binary_rows(batch: pa.RecordBatch, type_oids: Sequence[int], options: EncodeOptions) -> bytes:
    data = bytearray(encode_data_rows(batch, type_oids, [1] * batch.num_columns, options))
    position = 0
    while position < len(data):
        data[position] = ord("d")
        position += 1 + int.from_bytes(data[position + 1 : position + 5], "big")
    return bytes(data)


_Row = list[bytes | None]


class BinaryCopyInParser:
    def __init__(
        self,
        type_oids: Sequence[int],
        *,
        table: str = "stdin",
        columns: Sequence[str] | None = None,
        typmods: Sequence[int] | None = None,
    ) -> None:
        self._oids = list(type_oids)
        self._table = table
        self._names = list(columns) if columns else [f"column{i + 1}" for i in range(len(self._oids))]
        self._typmods = list(typmods) if typmods else [-1] * len(self._oids)
        self._buffer = b""
        self._header_done = False
        self._ended = False
        self._rows: list[_Row] = []

    def feed(self, data: bytes) -> None:
        if self._ended:
            if data:
                raise BadCopyFileFormat("received copy data after EOF marker")
            return
        buffer = self._buffer + bytes(data)
        position = 0
        if not self._header_done:
            if len(buffer) >= len(SIGNATURE) and not buffer.startswith(SIGNATURE):
                raise BadCopyFileFormat("COPY file signature not recognized")
            header_end = self._header(buffer)
            if header_end is None:
                self._buffer = buffer
                return
            self._header_done = True
            position = header_end
        self._buffer = buffer[self._tuples(buffer, position) :]

    def _header(self, buffer: bytes) -> int | None:
        """The end of a complete header in `buffer`, None while it is incomplete."""
        if len(buffer) < _HEADER_SIZE:
            return None
        flags, extension = struct.unpack_from("!ii", buffer, len(SIGNATURE))
        if flags & _WITH_OIDS:
            raise BadCopyFileFormat("invalid COPY file header (WITH OIDS)")
        if (flags & ~_WITH_OIDS) >> 16:
            raise BadCopyFileFormat("unrecognized critical flags in COPY file header")
        if extension < 0:
            raise BadCopyFileFormat("invalid COPY file header (wrong length)")
        end = _HEADER_SIZE + extension
        return end if len(buffer) >= end else None

    def _tuples(self, buffer: bytes, position: int) -> int:
        """Frame every complete tuple from `position`; the position of the first incomplete one."""
        expected = len(self._oids)
        while len(buffer) - position >= 2:
            (count,) = struct.unpack_from("!h", buffer, position)
            if count == -1:
                self._ended = True
                if len(buffer) - position > 2:
                    raise BadCopyFileFormat("received copy data after EOF marker")
                return len(buffer)
            if count != expected:
                error = BadCopyFileFormat(f"row field count is {count}, expected {expected}")
                error.detail = f"COPY {self._table}, line {len(self._rows) + 1}"
                raise error
            row, end = self._fields(buffer, position + 2, count)
            if row is None:
                return position
            self._rows.append(row)
            position = end
        return position

    def _fields(self, buffer: bytes, position: int, count: int) -> tuple[_Row | None, int]:
        row: _Row = []
        for _ in range(count):
            if len(buffer) - position < 4:
                return None, position
            (size,) = struct.unpack_from("!i", buffer, position)
            position += 4
            if size == -1:
                row.append(None)
                continue
            if size < 0:
                raise BadCopyFileFormat("invalid field size")
            if len(buffer) - position < size:
                return None, position
            row.append(buffer[position : position + size])
            position += size
        return row, position

    def finish(self) -> pa.RecordBatch:
        if not self._header_done:
            raise BadCopyFileFormat(_header_error(self._buffer))
        if self._buffer and not self._ended:
            raise BadCopyFileFormat("unexpected EOF in COPY data")
        columns: list[Sequence[bytes | None]] = (
            [list(c) for c in zip(*self._rows, strict=True)] if self._rows else [[] for _ in self._oids]
        )
        arrays = [self._column(i, cells) for i, cells in enumerate(columns)]
        return pa.RecordBatch.from_arrays(arrays, names=self._names)

    def _column(self, index: int, cells: Sequence[bytes | None]) -> pa.Array:
        oid = self._oids[index]
        target = arrow_type_for_pg(oid, self._typmods[index])
        sentinels = _INFINITY_BYTES.get(oid, {})
        values: list[object] = []
        infinities = False
        for row, raw in enumerate(cells):
            sign = sentinels.get(raw) if raw is not None else None
            if raw is None or sign is not None:
                values.append(None if sign is None else Infinity(sign))
                infinities = infinities or sign is not None
                continue
            try:
                values.append(to_arrow_value(decode_param(raw, oid, 1), target))
            except PgError as error:
                error.detail = f"COPY {self._table}, line {row + 1}, column {self._names[index]}"
                raise
        return arrow_column(values, oid, target, infinities=infinities)


def _header_error(buffer: bytes) -> str:
    if len(buffer) < len(SIGNATURE):
        return "COPY file signature not recognized"
    if len(buffer) < len(SIGNATURE) + 4:
        return "invalid COPY file header (missing flags)"
    if len(buffer) < _HEADER_SIZE:
        return "invalid COPY file header (missing length)"
    return "invalid COPY file header (wrong length)"
