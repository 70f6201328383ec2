"""COPY … TO STDOUT: `encode_copy_rows` → one CopyData message ('d', int32 length, row) per row; `copy_header` →
the CopyData that starts the output (text/CSV: the HEADER line, sent only with HEADER; binary: the file header,
always sent); `copy_trailer` → the CopyData that ends it (binary only). Binary rows are in `binary.py`.

Text and CSV rows end in a newline; values are the text-format encodings (`text.encode_text`), escaped for the
whole column with pyarrow.compute: text format backslash-escapes backslash, \\b \\f \\n \\r \\t \\v and the
delimiter and writes NULL as the null string; CSV quotes a value that contains the delimiter, the quote, CR or LF,
equals the null string, or is `\\.` alone in a single-column row, doubling quote/escape characters inside quotes —
CopyAttributeOutText/CSV.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from sparkwire.pgtypes import _wire
from sparkwire.pgtypes.copy.binary import BINARY_HEADER, BINARY_TRAILER, encode_copy_binary_rows
from sparkwire.pgtypes.options import EncodeOptions
from sparkwire.pgtypes.text import encode_text

_TEXT_ESCAPES = (
    (b"\\", b"\\\\"),
    (b"\b", b"\\b"),
    (b"\f", b"\\f"),
    (b"\n", b"\\n"),
    (b"\r", b"\\r"),
    (b"\t", b"\\t"),
    (b"\v", b"\\v"),
)


def escape_text(values: pa.Array, delimiter: bytes) -> pa.Array:
    pairs = [*_TEXT_ESCAPES]
    if delimiter not in (b"\\", b"\b", b"\f", b"\n", b"\r", b"\t", b"\v"):
        pairs.append((delimiter, b"\\" + delimiter))
    if not _wire.may_contain(values, b"".join(p[0] for p in pairs)):
        return values
    for raw, escaped in pairs:
        values = pc.replace_substring(values, raw, escaped)
    return values


def quote_csv(
    values: pa.Array, delimiter: bytes, null: bytes, quote: bytes, escape: bytes, single_column: bool
) -> pa.Array:
    if not _wire.may_contain(values, delimiter + quote + b"\r\n"):
        needs = pc.equal(values, pa.scalar(null, _wire.BINARY))
    else:
        specials = re.escape(delimiter) + re.escape(quote) + b"\r\n"
        needs = pc.or_(
            pc.match_substring_regex(values, b"[" + specials + b"]"), pc.equal(values, pa.scalar(null, _wire.BINARY))
        )
    if single_column:
        needs = pc.or_(needs, pc.equal(values, pa.scalar(b"\\.", _wire.BINARY)))
    needs = needs.fill_null(False)
    if not pc.any(needs).as_py():
        return values
    doubled = values
    if escape != quote:
        doubled = pc.replace_substring(doubled, escape, escape + escape)
    doubled = pc.replace_substring(doubled, quote, escape + quote)
    quoted = _wire.join([pa.scalar(quote, _wire.BINARY), doubled, pa.scalar(quote, _wire.BINARY)])
    return pc.if_else(needs, quoted, values)


def _prepare(
    values: pa.Array, fmt: str, delimiter: bytes, null: bytes, quote: bytes, escape: bytes, single: bool
) -> pa.Array:
    if fmt == "csv":
        return quote_csv(values, delimiter, null, quote, escape, single)
    return escape_text(values, delimiter)


def encode_copy_rows(
    batch: pa.RecordBatch,
    type_oids: Sequence[int],
    fmt: str,
    delimiter: str,
    null: str,
    quote: str,
    escape: str,
    options: EncodeOptions,
) -> bytes:
    if batch.num_rows == 0:
        return b""
    if fmt == "binary":
        return encode_copy_binary_rows(batch, type_oids, options)
    delim, null_b, quote_b, escape_b = (s.encode() for s in (delimiter, null, quote, escape))
    single = batch.num_columns == 1
    columns = [
        _prepare(encode_text(batch.column(i), type_oids[i], options), fmt, delim, null_b, quote_b, escape_b, single)
        for i in range(batch.num_columns)
    ]
    return _frame(columns, batch.num_rows, delim, null_b)


def _frame(columns: list[pa.Array], n: int, delimiter: bytes, null: bytes) -> bytes:
    """CopyData messages of the rows: one pass joining the message header, the values, the delimiters and the
    newline per row (the header's length comes from the values' lengths, NULLs counting as the null string)."""
    total = np.full(n, 4 + max(len(columns) - 1, 0) + 1, dtype=np.int64)  # length word, delimiters, newline
    for column in columns:
        sizes = _wire.lengths(column).astype(np.int64)
        total += sizes if not column.null_count else np.where(_wire.valid_mask(column), sizes, len(null))
    head = np.empty(n, dtype=[("type", "u1"), ("length", ">i4")])
    head["type"] = ord("d")
    head["length"] = total
    segments: list[pa.Array | pa.Scalar] = [_wire.fixed_width(head, 5)]
    separator = pa.scalar(delimiter, _wire.BINARY)
    for i, column in enumerate(columns):
        segments += [separator, column] if i else [column]
    segments.append(pa.scalar(b"\n", _wire.BINARY))
    rows = pc.binary_join_element_wise(*segments, _wire.EMPTY, null_handling="replace", null_replacement=null)
    return _wire.data_bytes(rows)


def copy_header(
    names: Sequence[str], fmt: str, delimiter: str = "\t", null: str = "\\N", quote: str = '"', escape: str = '"'
) -> bytes:
    if fmt == "binary":
        return BINARY_HEADER
    delim, null_b, quote_b, escape_b = (s.encode() for s in (delimiter, null, quote, escape))
    columns = [
        _prepare(pa.array([name.encode()], _wire.BINARY), fmt, delim, null_b, quote_b, escape_b, len(names) == 1)
        for name in names
    ]
    return _frame(columns, 1, delim, null_b)


def copy_trailer(fmt: str) -> bytes:
    return BINARY_TRAILER if fmt == "binary" else b""
