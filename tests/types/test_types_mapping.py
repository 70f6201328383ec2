"""Engine types map to PostgreSQL types: DuckDB type strings and Arrow types to (oid, typmod), and a DuckDB result
encoded through that mapping reads exactly like the same values computed by PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import duckdb
import psycopg
import pyarrow as pa
import pytest

from sparkwire.pgtypes import (
    EncodeOptions,
    arrow_type_for_pg,
    encode_column,
    numeric_typmod,
    pg_type_for_arrow,
    pg_type_for_duckdb,
)
from tests.support.postgres import PostgresOracle


@pytest.fixture(scope="module")
def pg(oracle: PostgresOracle) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    with psycopg.connect(oracle.dsn, autocommit=True) as conn:
        yield conn


def relation(sql: str) -> duckdb.DuckDBPyRelation:
    rel = duckdb.sql(sql)
    assert rel is not None
    return rel


# (DuckDB expression, PostgreSQL expression computing the same value, expected oid, expected typmod)
SAME_VALUES: list[tuple[str, str, int, int]] = [
    ("true", "true", 16, -1),
    ("(-5)::TINYINT", "(-5)::int2", 21, -1),
    ("300::SMALLINT", "300::int2", 21, -1),
    ("70000::INTEGER", "70000::int4", 23, -1),
    ("(2::BIGINT ** 40)::BIGINT", "(2::int8 ^ 40)::int8", 20, -1),
    ("170141183460469231731687303715884105727::HUGEINT", "170141183460469231731687303715884105727::numeric", 1700, -1),
    ("18446744073709551615::UBIGINT", "18446744073709551615::numeric", 1700, -1),
    ("4000000000::UINTEGER", "4000000000::oid", 26, -1),
    ("1.25::FLOAT", "1.25::float4", 700, -1),
    ("0.1::DOUBLE", "0.1::float8", 701, -1),
    ("12.5::DECIMAL(12,2)", "12.5::numeric(12,2)", 1700, numeric_typmod(12, 2)),
    ("'héllo'::VARCHAR", "'héllo'::text", 25, -1),
    ("'\\x01\\xFF'::BLOB", "'\\x01ff'::bytea", 17, -1),
    ("DATE '2024-02-29'", "DATE '2024-02-29'", 1082, -1),
    ("TIME '13:14:15.5'", "TIME '13:14:15.5'", 1083, -1),
    ("TIMESTAMP '2024-01-02 03:04:05.25'", "TIMESTAMP '2024-01-02 03:04:05.25'", 1114, -1),
    ("TIMESTAMPTZ '2024-01-02 03:04:05+00'", "TIMESTAMPTZ '2024-01-02 03:04:05+00'", 1184, -1),
    ("TIMESTAMP_NS '2024-01-02 03:04:05.123456'", "TIMESTAMP '2024-01-02 03:04:05.123456'", 1114, -1),
    ("INTERVAL '1 year 2 months 3 days 04:05:06.7'", "INTERVAL '1 year 2 months 3 days 04:05:06.7'", 1186, -1),
    ("'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::UUID", "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid", 2950, -1),
    ("[1, 2, NULL]::INTEGER[]", "ARRAY[1, 2, NULL]::int4[]", 1007, -1),
    ("['a b', 'c']::VARCHAR[]", "ARRAY['a b', 'c']::text[]", 1009, -1),
    ("[[1, 2], [3, 4]]::BIGINT[][]", "ARRAY[[1, 2], [3, 4]]::int8[]", 1016, -1),
    ("NULL", "NULL::text", 25, -1),
]


@pytest.mark.parametrize(("duck_sql", "pg_sql", "oid", "typmod"), SAME_VALUES)
@pytest.mark.parametrize("fmt", [0, 1])
def test_duckdb_values_read_like_postgres(
    pg: psycopg.Connection[tuple[object, ...]], duck_sql: str, pg_sql: str, oid: int, typmod: int, fmt: int
) -> None:
    rel = relation(f"SELECT {duck_sql}")
    assert pg_type_for_duckdb(str(rel.types[0])) == (oid, typmod)
    column = rel.to_arrow_table().column(0).combine_chunks()
    result = pg.pgconn.exec_params(f"SELECT {pg_sql}".encode(), [], result_format=fmt)
    assert result.status == psycopg.pq.ExecStatus.TUPLES_OK, result.get_error_message()
    assert encode_column(column, oid, fmt, EncodeOptions()).to_pylist() == [result.get_value(0, 0)]


def test_other_duckdb_types() -> None:
    assert pg_type_for_duckdb("STRUCT(a INTEGER)") == (114, -1)
    assert pg_type_for_duckdb("MAP(VARCHAR, INTEGER)") == (114, -1)
    assert pg_type_for_duckdb("ENUM('a', 'b')") == (25, -1)
    assert pg_type_for_duckdb("DECIMAL(38,10)") == (1700, numeric_typmod(38, 10))
    assert pg_type_for_duckdb("DECIMAL(38,10)[]") == (1231, numeric_typmod(38, 10))
    assert pg_type_for_duckdb("INTEGER[2]") == (1007, -1)
    assert pg_type_for_duckdb("STRUCT(a INTEGER)[]") == (114, -1)
    assert pg_type_for_duckdb('"NULL"') == (25, -1)
    assert pg_type_for_duckdb("TIME WITH TIME ZONE") == (1083, -1)


def test_struct_and_map_render_as_json() -> None:
    rel = relation("SELECT {'a': 1, 'b': 'x'} AS s, MAP {'k': 2} AS m")
    table = rel.to_arrow_table()
    assert encode_column(table.column(0), 114, 0, EncodeOptions()).to_pylist() == [b'{"a": 1, "b": "x"}']
    assert encode_column(table.column(1), 114, 0, EncodeOptions()).to_pylist() == [b'{"k": 2}']


@pytest.mark.parametrize(
    ("arrow_type", "expected"),
    [
        (pa.bool_(), (16, -1)),
        (pa.int8(), (21, -1)),
        (pa.int16(), (21, -1)),
        (pa.int32(), (23, -1)),
        (pa.int64(), (20, -1)),
        (pa.uint64(), (1700, -1)),
        (pa.float32(), (700, -1)),
        (pa.float64(), (701, -1)),
        (pa.decimal128(10, 3), (1700, numeric_typmod(10, 3))),
        (pa.string(), (25, -1)),
        (pa.large_string(), (25, -1)),
        (pa.binary(), (17, -1)),
        (pa.date32(), (1082, -1)),
        (pa.time64("us"), (1083, -1)),
        (pa.timestamp("us"), (1114, -1)),
        (pa.timestamp("ns", "UTC"), (1184, -1)),
        (pa.month_day_nano_interval(), (1186, -1)),
        (pa.duration("us"), (1186, -1)),
        (pa.list_(pa.int32()), (1007, -1)),
        (pa.list_(pa.list_(pa.string())), (1009, -1)),
        (pa.struct([("a", pa.int32())]), (114, -1)),
        (pa.dictionary(pa.int8(), pa.string()), (25, -1)),
        (pa.binary(16), (2950, -1)),
    ],
)
def test_arrow_types(arrow_type: pa.DataType, expected: tuple[int, int]) -> None:
    assert pg_type_for_arrow(arrow_type) == expected


def test_arrow_type_for_pg() -> None:
    assert arrow_type_for_pg(1700, numeric_typmod(12, 2)) == pa.decimal128(12, 2)
    assert arrow_type_for_pg(1700) == pa.string()
    assert arrow_type_for_pg(1007) == pa.list_(pa.int32())
    assert arrow_type_for_pg(1184) == pa.timestamp("us", "UTC")
