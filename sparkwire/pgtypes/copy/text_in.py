"""COPY … FROM STDIN parsing for text and CSV data into an Arrow record batch typed by the target oids.

`CopyInParser.feed(chunk)` accepts CopyData payloads split anywhere (a row, a quoted CSV field or a UTF-8 character
may span chunks); complete records are split into fields at once, so structural errors surface early. `finish()`
parses the final unterminated record and types each column (`convert.py`). Errors are worded like PostgreSQL:
22P04 `BadCopyFileFormat` for structure ("extra data after last expected column", "missing data for column "b"",
"unterminated CSV quoted field"), the input function's error for a bad value, with PostgreSQL's error context
(`COPY t, line 3, column a: "x"`) in `detail`. Lines count from 1, the header included; like PostgreSQL, CSV counts
the newlines inside quoted values too.

Plain blocks take a columnar path: a run of complete records with no backslash, carriage return, empty line or
(CSV) quote is split by pyarrow's CSV reader into binary columns in C, not row by row in Python; a block it cannot
split into exactly the table's columns goes the row-by-row way, which words the error as PostgreSQL does.
"""

from __future__ import annotations

import bisect
import functools
import io
import re
from collections.abc import Callable, Sequence

import pyarrow as pa
import pyarrow.csv as pa_csv

from sparkwire.errors import BadCopyFileFormat, PgError
from sparkwire.pgtypes.copy.convert import convert_column
from sparkwire.pgtypes.mapping import arrow_type_for_pg
from sparkwire.pgtypes.options import EncodeOptions

_TEXT_UNESCAPE = re.compile(rb"\\(?:([0-7]{1,3})|x([0-9a-fA-F]{1,2})|(.))", re.DOTALL)
_SIMPLE_ESCAPES = {b"b": b"\b", b"f": b"\f", b"n": b"\n", b"r": b"\r", b"t": b"\t", b"v": b"\v"}
_END_OF_DATA = b"\\."
_Field = bytes | None


class CopyInParser:
    def __init__(
        self,
        type_oids: Sequence[int],
        fmt: str = "text",
        delimiter: str | None = None,
        null: str | None = None,
        quote: str | None = None,
        escape: str | None = None,
        header: bool = False,
        *,
        table: str = "stdin",
        columns: Sequence[str] | None = None,
        typmods: Sequence[int] | None = None,
        options: EncodeOptions | None = None,
    ) -> None:
        self._oids = list(type_oids)
        self._csv = fmt == "csv"
        self._delimiter = (delimiter or ("," if self._csv else "\t")).encode()
        self._null = (null if null is not None else ("" if self._csv else "\\N")).encode()
        self._quote = (quote or '"').encode()
        self._escape = (escape or quote or '"').encode()
        self._skip_header = header
        self._table = table
        self._names = list(columns) if columns else [f"column{i + 1}" for i in range(len(self._oids))]
        self._typmods = list(typmods) if typmods else [-1] * len(self._oids)
        self._options = options or EncodeOptions()
        self._buffer = b""
        self._line = 0
        self._done = False
        self._rows: list[list[_Field]] = []  # rows split in Python, not yet moved into `_segments`
        self._segments: list[list[pa.Array]] = []  # binary columns of the rows before `_rows`, in order
        self._count = 0  # rows taken so far
        self._line_runs: list[tuple[int, int]] = []  # (first row, its line) of each run of consecutive lines
        q, e, d = (re.escape(x.decode()).encode() for x in (self._quote, self._escape, self._delimiter))
        if self._escape == self._quote:
            inside = rb"(?:[^" + q + rb"]|" + q + q + rb")*"
        else:
            inside = rb"(?:[^" + q + e + rb"]|" + e + rb"[" + q + e + rb"]?)*"
        self._csv_quoted = re.compile(q + rb"(" + inside + rb")" + q, re.DOTALL)
        self._csv_field_pattern = re.compile(rb"(?:[^" + d + q + rb"]|" + q + inside + q + rb")*", re.DOTALL)
        self._csv_escaped = re.compile(e + rb"([" + q + e + rb"])")

    # ---- records ---------------------------------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        if self._done:
            return
        self._buffer += data
        if self._columnar_block():
            return
        for record in self._complete_records():
            if not self._take(record):
                self._done = True
                self._buffer = b""
                return

    def _complete_records(self) -> list[bytes]:
        buffer = self._buffer
        if not self._csv or (self._quote not in buffer and b"\r" not in buffer):
            end = buffer.rfind(b"\n")
            if end < 0:
                return []
            self._buffer = buffer[end + 1 :]
            return buffer[:end].split(b"\n")
        records: list[bytes] = []
        position = 0
        if self._escape == self._quote and b"\r" not in buffer.replace(b"\r\n", b""):
            search = 0
            while (newline := buffer.find(b"\n", search)) >= 0:
                search = newline + 1
                if buffer.count(self._quote, position, newline) % 2 == 0:  # the newline is outside quotes
                    records.append(buffer[position:newline].removesuffix(b"\r"))
                    position = search
        else:
            while (found := self._csv_record_end(position)) is not None:
                records.append(buffer[position : found[0]])
                position = found[1]
        self._buffer = buffer[position:]
        return records

    def _csv_record_end(self, position: int) -> tuple[int, int] | None:
        """(end of the CSV record at `position`, start of the next), None while it is incomplete."""
        buffer = self._buffer
        in_quotes = False
        index = position
        while index < len(buffer):
            char = buffer[index : index + 1]
            if in_quotes:
                if char == self._escape and self._escape != self._quote:
                    index += 2
                    continue
                in_quotes = char != self._quote
            elif char == self._quote:
                in_quotes = True
            elif char == b"\n":
                return index, index + 1
            elif char == b"\r":
                if index + 1 >= len(buffer):
                    return None
                return index, index + (2 if buffer[index + 1 : index + 2] == b"\n" else 1)
            index += 1
        return None

    def _take(self, record: bytes) -> bool:
        """Split one record into a row; False at the end-of-data marker."""
        self._line += 1 + (record.count(b"\n") if self._csv else 0)
        if self._skip_header and self._line == 1:
            return True
        if not self._csv:
            record = record.removesuffix(b"\r")
        if record == _END_OF_DATA:
            return False
        fields = self._split_csv(record) if self._csv else self._split_text(record)
        if len(fields) > len(self._oids):
            raise self._error(BadCopyFileFormat("extra data after last expected column"), record)
        if len(fields) < len(self._oids):
            raise self._error(BadCopyFileFormat(f'missing data for column "{self._names[len(fields)]}"'), record)
        self._rows.append(fields)
        self._mark_line(self._line, 1)
        return True

    def _mark_line(self, line: int, rows: int) -> None:
        runs = self._line_runs
        if not runs or line - runs[-1][1] != self._count - runs[-1][0]:
            runs.append((self._count, line))
        self._count += rows

    def _columnar_block(self) -> bool:
        """Take every complete record of the buffer through pyarrow's CSV reader, if the block is plain; False
        (nothing taken) if it is not, or if its records do not have exactly the table's columns."""
        buffer = self._buffer
        end = buffer.rfind(b"\n")
        if end < 0 or not self._oids or (self._skip_header and self._line == 0):
            return False
        block = buffer[: end + 1]
        if b"\\" in block or b"\r" in block or b"\n\n" in block or buffer[:1] == b"\n":
            return False
        if self._csv and self._quote in block:
            return False
        names = [str(i) for i in range(len(self._oids))]
        try:
            table = pa_csv.read_csv(
                io.BytesIO(block),
                read_options=pa_csv.ReadOptions(column_names=names, block_size=max(1 << 20, end + 2)),
                parse_options=_plain_parse(self._delimiter),
                convert_options=pa_csv.ConvertOptions(
                    column_types=dict.fromkeys(names, pa.binary()), null_values=[self._null.decode()],
                    strings_can_be_null=True, quoted_strings_can_be_null=False, check_utf8=False,
                ),
            )
        except (pa.ArrowInvalid, UnicodeDecodeError):
            return False  # a record with too many or too few fields: the row path says which, as PostgreSQL does
        self._move_rows()
        self._segments.append([column.combine_chunks() for column in table.columns])
        self._mark_line(self._line + 1, table.num_rows)
        self._line += table.num_rows
        self._buffer = buffer[end + 1 :]
        return True

    def _move_rows(self) -> None:
        if self._rows:
            columns = zip(*self._rows, strict=True)
            self._segments.append([pa.array(column, pa.binary()) for column in columns])
            self._rows = []

    def _error(self, error: PgError, record: bytes) -> PgError:
        error.detail = f'COPY {self._table}, line {self._line}: "{record.decode("utf-8", "replace")}"'
        return error

    def _split_text(self, record: bytes) -> list[_Field]:
        if not self._oids and record == b"":
            return []
        null = self._null
        if b"\\" not in record:
            return [None if raw == null else raw for raw in record.split(self._delimiter)]
        return [None if raw == null else _TEXT_UNESCAPE.sub(_unescape, raw) for raw in self._split_escaped(record)]

    def _split_escaped(self, record: bytes) -> list[bytes]:
        fields: list[bytes] = []
        start = index = 0
        while index < len(record):
            char = record[index : index + 1]
            if char == b"\\":
                index += 2
                continue
            if char == self._delimiter:
                fields.append(record[start:index])
                start = index + 1
            index += 1
        fields.append(record[start:])
        return fields

    def _split_csv(self, record: bytes) -> list[_Field]:
        if self._quote not in record:
            return [None if raw == self._null else raw for raw in record.split(self._delimiter)]
        if self._escape == self._quote:
            return self._split_csv_by_parity(record)
        fields: list[_Field] = []
        index, size = 0, len(record)
        while True:
            match = self._csv_field_pattern.match(record, index)
            assert match is not None  # the pattern matches the empty string
            raw, index = match.group(), match.end()
            if index < size and record[index : index + len(self._delimiter)] != self._delimiter:
                raise self._error(BadCopyFileFormat("unterminated CSV quoted field"), record)
            if self._quote in raw:
                fields.append(self._csv_value(raw))
            else:
                fields.append(None if raw == self._null else raw)
            if index >= size:
                return fields
            index += len(self._delimiter)

    def _split_csv_by_parity(self, record: bytes) -> list[_Field]:
        """Split at every delimiter, then glue pieces back while a quoted section is open (odd quote count)."""
        fields: list[_Field] = []
        quote, delimiter, null = self._quote, self._delimiter, self._null
        pending: bytes | None = None
        for piece in record.split(delimiter):
            raw = piece if pending is None else pending + delimiter + piece
            if raw.count(quote) % 2:
                pending = raw
                continue
            pending = None
            if quote in raw:
                fields.append(self._csv_value(raw))
            else:
                fields.append(None if raw == null else raw)
        if pending is not None:
            raise self._error(BadCopyFileFormat("unterminated CSV quoted field"), record)
        return fields

    def _csv_value(self, raw: bytes) -> bytes:
        """The value of a field containing quotes; the usual `"…"` with doubled quotes takes the fast path."""
        quote = self._quote
        inner = raw[1:-1]
        if self._escape == quote and raw[:1] == quote and raw[-1:] == quote and len(raw) > 1:
            unquoted = inner.replace(quote + quote, b"")
            if quote not in unquoted:
                return inner.replace(quote + quote, quote)
        return self._csv_quoted.sub(self._csv_unquote, raw)

    def _csv_unquote(self, match: re.Match[bytes]) -> bytes:
        inner: bytes = match.group(1)
        return self._csv_escaped.sub(rb"\1", inner)

    def _line_of(self, row: int) -> int:
        first, line = self._line_runs[bisect.bisect_right(self._line_runs, (row, 1 << 62)) - 1]
        return line + row - first

    def _context(self, name: str) -> Callable[[int], str]:
        return lambda row: f"COPY {self._table}, line {self._line_of(row)}, column {name}"

    # ---- finishing -------------------------------------------------------------------------------------

    def finish(self) -> pa.RecordBatch:
        if self._buffer and not self._done:
            rest, self._buffer = self._buffer, b""
            if self._csv and rest.count(self._quote) % 2 and self._escape == self._quote:
                self._line += 1 + rest.count(b"\n")
                raise self._error(BadCopyFileFormat("unterminated CSV quoted field"), rest)
            self._done = not self._take(rest.removesuffix(b"\r"))
        self._move_rows()
        segments = self._segments
        columns: list[pa.Array] = [
            pa.concat_arrays([segment[i] for segment in segments]) if segments else pa.array([], pa.binary())
            for i in range(len(self._oids))
        ]
        arrays = [
            convert_column(
                columns[i],
                oid,
                arrow_type_for_pg(oid, self._typmods[i]),
                self._options,
                self._context(self._names[i]),
            )
            for i, oid in enumerate(self._oids)
        ]
        return pa.RecordBatch.from_arrays(arrays, names=self._names)


@functools.cache
def _plain_parse(delimiter: bytes) -> pa_csv.ParseOptions:
    """Records split at `delimiter` only: no quoting, no escapes, no newlines inside values, no line skipped."""
    return pa_csv.ParseOptions(
        delimiter=delimiter.decode(), quote_char=False, escape_char=False, double_quote=False,
        newlines_in_values=False, ignore_empty_lines=False,
    )


def _unescape(match: re.Match[bytes]) -> bytes:
    octal, hexa, other = match.groups()
    if octal:
        return bytes([int(octal, 8) & 0xFF])
    if hexa:
        return bytes([int(hexa, 16)])
    return _SIMPLE_ESCAPES.get(other, other)
