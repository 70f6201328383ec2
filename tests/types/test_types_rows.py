"""DataRow assembly: the vectorized message builder frames every row exactly as the per-column encoders say, for
text and binary, NULLs, zero columns, sliced batches, and types from a real DuckDB result."""

from __future__ import annotations

import struct

import duckdb
import pyarrow as pa
import pytest

from sparkwire.pgtypes import EncodeOptions, encode_column, encode_data_rows, pg_type_for_duckdb


def parse_data_rows(data: bytes) -> list[list[bytes | None]]:
    rows: list[list[bytes | None]] = []
    position = 0
    while position < len(data):
        assert data[position : position + 1] == b"D"
        (length,) = struct.unpack("!i", data[position + 1 : position + 5])
        end = position + 1 + length
        (ncols,) = struct.unpack("!h", data[position + 5 : position + 7])
        cursor = position + 7
        row: list[bytes | None] = []
        for _ in range(ncols):
            (size,) = struct.unpack("!i", data[cursor : cursor + 4])
            cursor += 4
            if size < 0:
                row.append(None)
            else:
                row.append(data[cursor : cursor + size])
                cursor += size
        assert cursor == end
        rows.append(row)
        position = end
    return rows


def expected_rows(batch: pa.RecordBatch, oids: list[int], formats: list[int]) -> list[list[bytes | None]]:
    columns = [
        encode_column(batch.column(i), oids[i], formats[i], EncodeOptions()).to_pylist()
        for i in range(batch.num_columns)
    ]
    return [list(row) for row in zip(*columns, strict=True)] if columns else [[] for _ in range(batch.num_rows)]


DUCK_SQL = (
    "SELECT i::BIGINT AS a, 'v' || i AS b, (i / 7)::DECIMAL(12,2) AS c, i % 2 = 0 AS d,"
    " DATE '2024-01-01' + i::INTEGER AS e, TIMESTAMPTZ '2024-01-01 00:00:00+00' + i * INTERVAL 1 SECOND AS f,"
    " CASE WHEN i % 3 = 0 THEN NULL ELSE i * 1.5 END::DOUBLE AS g, [i, NULL] AS h, INTERVAL 1 DAY * i AS k,"
    " uuid() AS u FROM range(1000) t(i)"
)


@pytest.mark.parametrize("fmt", [0, 1])
def test_rows_from_duckdb_frame_like_columns(fmt: int) -> None:
    rel = duckdb.sql(DUCK_SQL)
    assert rel is not None
    oids = [pg_type_for_duckdb(str(t))[0] for t in rel.types]
    assert oids == [20, 25, 1700, 16, 1082, 1184, 701, 1016, 1186, 2950]
    table = rel.to_arrow_table()
    for batch in table.to_batches(max_chunksize=300):
        formats = [fmt] * batch.num_columns
        assert parse_data_rows(encode_data_rows(batch, oids, formats, EncodeOptions())) == expected_rows(
            batch, oids, formats
        )


def test_mixed_formats_nulls_and_slices() -> None:
    batch = pa.record_batch(
        [
            pa.array([1, None, 3, 4], pa.int64()),
            pa.array([None, "x", "", "long value"]),
            pa.array([None, None, None, None], pa.null()),
        ],
        names=["a", "b", "c"],
    )
    for sliced in (batch, batch.slice(1, 2), batch.slice(3)):
        data = encode_data_rows(sliced, [20, 25, 25], [1, 0, 0], EncodeOptions())
        assert parse_data_rows(data) == expected_rows(sliced, [20, 25, 25], [1, 0, 0])
    assert parse_data_rows(encode_data_rows(batch, [20, 25, 25], [1, 0, 0], EncodeOptions()))[1] == [None, b"x", None]


def test_zero_columns_and_zero_rows() -> None:
    empty_columns = pa.RecordBatch.from_pydict({"a": [1, 2, 3]}).select([])
    assert encode_data_rows(empty_columns, [], [], EncodeOptions()) == b"D\x00\x00\x00\x06\x00\x00" * 3
    assert (
        encode_data_rows(pa.RecordBatch.from_pydict({"a": pa.array([], pa.int32())}), [23], [0], EncodeOptions()) == b""
    )
