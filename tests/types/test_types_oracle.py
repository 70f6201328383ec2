"""Text and binary values from the encoders are byte-identical to PostgreSQL 15's output for the same values.

Each case names a PostgreSQL type, SQL literals, and the equivalent Arrow array (built from Python values, or by
DuckDB for values Python cannot hold); PostgreSQL's text and binary results come raw from libpq.
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
import uuid
from collections.abc import Iterator, Sequence

import duckdb
import psycopg
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sparkwire.pgtypes import EncodeOptions, encode_column
from tests.support.postgres import PostgresOracle

Literal = str | None


@pytest.fixture(scope="module")
def pg(oracle: PostgresOracle) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    with psycopg.connect(oracle.dsn, autocommit=True) as conn:
        yield conn


def pg_values(
    conn: psycopg.Connection[tuple[object, ...]],
    sql_type: str,
    literals: Sequence[Literal],
    fmt: int,
    settings_sql: str = "",
) -> list[bytes | None]:
    if settings_sql:
        conn.execute(settings_sql)
    rows = ", ".join(f"({'NULL' if lit is None else lit}::text)" for lit in literals)
    query = f"SELECT v::{sql_type} FROM (VALUES {rows}) AS t(v)"
    result = conn.pgconn.exec_params(query.encode(), [], result_format=fmt)
    assert result.status == psycopg.pq.ExecStatus.TUPLES_OK, result.get_error_message()
    return [result.get_value(i, 0) for i in range(result.ntuples)]


def ours(arr: pa.Array, oid: int, fmt: int, options: EncodeOptions | None = None) -> list[bytes | None]:
    return list(encode_column(arr, oid, fmt, options or EncodeOptions()).to_pylist())


def quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def check(
    conn: psycopg.Connection[tuple[object, ...]],
    sql_type: str,
    oid: int,
    literals: Sequence[Literal],
    arr: pa.Array,
    options: EncodeOptions | None = None,
    settings_sql: str = "",
    formats: Sequence[int] = (0, 1),
) -> None:
    for fmt in formats:
        expected = pg_values(conn, sql_type, literals, fmt, settings_sql)
        assert ours(arr, oid, fmt, options) == expected, (sql_type, fmt)


def duck(sql: str) -> pa.Array:
    rel = duckdb.sql(sql)
    assert rel is not None
    return rel.to_arrow_table().column(0).combine_chunks()


# ---- fixed cases ----------------------------------------------------------------------------------------


def test_bool(pg: psycopg.Connection[tuple[object, ...]]) -> None:
    check(pg, "bool", 16, ["'t'", "'f'", None], pa.array([True, False, None]))


@pytest.mark.parametrize(
    ("sql_type", "oid", "arrow_type", "bits"),
    [("int2", 21, pa.int16(), 16), ("int4", 23, pa.int32(), 32), ("int8", 20, pa.int64(), 64)],
)
def test_integers(
    pg: psycopg.Connection[tuple[object, ...]], sql_type: str, oid: int, arrow_type: pa.DataType, bits: int
) -> None:
    values = [0, 1, -1, 2 ** (bits - 1) - 1, -(2 ** (bits - 1)), None, 42]
    check(pg, sql_type, oid, [None if v is None else quote(str(v)) for v in values], pa.array(values, arrow_type))


def test_small_ints_widen(pg: psycopg.Connection[tuple[object, ...]]) -> None:
    """DuckDB's TINYINT/UINTEGER arrive as int8/uint32 and go out as int2/int8."""
    check(pg, "int2", 21, ["'-128'", "'127'"], pa.array([-128, 127], pa.int8()))
    check(pg, "int8", 20, ["'4294967295'"], pa.array([4294967295], pa.uint32()))
    check(pg, "oid", 26, ["'4294967295'", "'0'"], pa.array([4294967295, 0], pa.uint32()))


FLOAT_EDGES = [
    0.0,
    -0.0,
    1.0,
    0.1,
    1e20,
    1.5e-07,
    1e15,
    123456789012345.0,
    1e16,
    0.0001,
    1e-05,
    1 / 3,
    math.inf,
    -math.inf,
    math.nan,
    5e-324,
    1.7976931348623157e308,
    -2.5,
    100.0,
    12345.678,
]


def float_literal(value: float) -> str:
    if math.isnan(value):
        return "'NaN'"
    if math.isinf(value):
        return "'Infinity'" if value > 0 else "'-Infinity'"
    return quote(repr(value))


@pytest.mark.parametrize("efd", [1, 3, 0, -4])
def test_float8(pg: psycopg.Connection[tuple[object, ...]], efd: int) -> None:
    check(
        pg,
        "float8",
        701,
        [float_literal(v) for v in FLOAT_EDGES],
        pa.array(FLOAT_EDGES, pa.float64()),
        EncodeOptions(extra_float_digits=efd),
        f"SET extra_float_digits = {efd}",
    )


@pytest.mark.parametrize("efd", [1, 3, 0, -4])
def test_float4(pg: psycopg.Connection[tuple[object, ...]], efd: int) -> None:
    values = [
        0.0,
        -0.0,
        1.0,
        0.1,
        1e20,
        1.5e-07,
        1e6,
        123456.0,
        1 / 3,
        math.inf,
        -math.inf,
        math.nan,
        3.4e38,
        1e-45,
        16777217.0,
        0.3,
    ]
    arr = pa.array(values, pa.float64()).cast(pa.float32())
    literals = [float_literal(float(v)) for v in arr.to_pylist()]
    check(pg, "float4", 700, literals, arr, EncodeOptions(extra_float_digits=efd), f"SET extra_float_digits = {efd}")


def test_numeric_decimal(pg: psycopg.Connection[tuple[object, ...]]) -> None:
    values = ["0.00", "1.50", "-1.50", "123456789.12", "-0.01", "100.00", "10000.00", "9999999999.99", "0.10"]
    arr = pa.array([decimal.Decimal(v) for v in values] + [None], pa.decimal128(12, 2))
    check(pg, "numeric(12,2)", 1700, [quote(v) for v in values] + [None], arr)


NUMERIC_CASES = {
    (38, 10): ["0", "1", "-1", "0.0000000001", "-0.0000001", "9" * 28 + "." + "9" * 10, "12345.6789", "10000"],
    (18, 0): ["0", "1", "-1", "9" * 18, "-" + "9" * 18, "10000", "100000000"],
    (5, 5): ["0", "0.00001", "-0.99999", "0.1", "0.0001"],
    (38, 0): ["0", "9" * 38, "-" + "9" * 38, "10000000000000000000000"],
    (17, 3): ["0", "0.001", "-12345678901234.567", "10000.1", "0.5"],
}


@pytest.mark.parametrize(("precision", "scale"), list(NUMERIC_CASES))
def test_numeric_scales(pg: psycopg.Connection[tuple[object, ...]], precision: int, scale: int) -> None:
    texts = NUMERIC_CASES[(precision, scale)]
    arr = pa.array([decimal.Decimal(t) for t in texts]).cast(pa.decimal128(precision, scale))
    check(pg, f"numeric({precision},{scale})", 1700, [quote(t) for t in texts], arr)


def test_numeric_from_duckdb_hugeint_and_nan(pg: psycopg.Connection[tuple[object, ...]]) -> None:
    big = duck("SELECT * FROM (VALUES (170141183460469231731687303715884105727::HUGEINT), (-5::HUGEINT)) t(v)")
    check(pg, "numeric", 1700, ["'170141183460469231731687303715884105727'", "'-5'"], big)
    check(pg, "numeric", 1700, ["'18446744073709551615'"], pa.array([2**64 - 1], pa.uint64()))
    check(pg, "numeric", 1700, ["'NaN'", "'1.5'"], pa.array([math.nan, 1.5]))


def test_text_family(pg: psycopg.Connection[tuple[object, ...]]) -> None:
    values = ["", "hello", "with 'quote'", "tab\there", "ünïcødé ✓", "NULL", None]
    literals = [None if v is None else quote(v) for v in values]
    for sql_type, oid in (("text", 25), ("varchar", 1043), ("name", 19), ("bpchar", 1042)):
        check(pg, sql_type, oid, literals, pa.array(values, pa.string()))
    check(pg, "text", 25, literals, pa.array(values, pa.large_string()))
    check(pg, "text", 25, literals, pa.array(values, pa.string()).dictionary_encode())


def test_bytea(pg: psycopg.Connection[tuple[object, ...]]) -> None:
    values = [b"", b"\x00\x01\xff", b"abc", None, bytes(range(256))]
    literals = [None if v is None else quote("\\x" + v.hex()) for v in values]
    check(pg, "bytea", 17, literals, pa.array(values, pa.binary()))


def test_uuid(pg: psycopg.Connection[tuple[object, ...]]) -> None:
    values = [str(uuid.UUID(int=0)), "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", None]
    literals = [None if v is None else quote(v) for v in values]
    check(pg, "uuid", 2950, literals, pa.array(values, pa.string()))
    check(
        pg,
        "uuid",
        2950,
        literals,
        duck(
            "SELECT v::UUID FROM (VALUES ('00000000-0000-0000-0000-000000000000'), "
            "('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'), (NULL)) t(v)"
        ),
    )


def test_json(pg: psycopg.Connection[tuple[object, ...]]) -> None:
    values = ['{"a": 1}', "[1, 2]", '"x"', None]
    literals = [None if v is None else quote(v) for v in values]
    check(pg, "json", 114, literals, pa.array(values))
    check(pg, "jsonb", 3802, literals, pa.array(values))


def test_date(pg: psycopg.Connection[tuple[object, ...]]) -> None:
    values = [dt.date(2024, 1, 2), dt.date(1, 1, 1), dt.date(9999, 12, 31), dt.date(2000, 1, 1), None]
    check(pg, "date", 1082, [None if v is None else quote(v.isoformat()) for v in values], pa.array(values))
    special = ["'infinity'", "'-infinity'", "'0044-03-15 BC'", "'0001-12-31 BC'", "'10000-01-01'", "'4713-01-01 BC'"]
    arr = duck(
        "SELECT v::DATE FROM (VALUES ('infinity'), ('-infinity'), ('0044-03-15 (BC)'), ('0001-12-31 (BC)'), "
        "('10000-01-01'), ('4713-01-01 (BC)')) t(v)"
    )
    check(pg, "date", 1082, special, arr)


def test_time(pg: psycopg.Connection[tuple[object, ...]]) -> None:
    values = [dt.time(0, 0), dt.time(23, 59, 59, 999999), dt.time(4, 5, 6, 700000), dt.time(12, 0, 0, 120), None]
    arr = pa.array(values, pa.time64("us"))
    check(pg, "time", 1083, [None if v is None else quote(v.isoformat()) for v in values], arr)


def test_timestamp(pg: psycopg.Connection[tuple[object, ...]]) -> None:
    values = [
        dt.datetime(2024, 1, 2, 3, 4, 5, 120000),
        dt.datetime(2024, 1, 2),
        dt.datetime(1, 1, 1),
        dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
        dt.datetime(1999, 12, 31, 23, 59, 59, 1),
        None,
    ]
    literals = [None if v is None else quote(v.isoformat(" ")) for v in values]
    check(pg, "timestamp", 1114, literals, pa.array(values, pa.timestamp("us")))
    check(pg, "timestamp", 1114, literals[:2], pa.array(values[:2], pa.timestamp("ns")))
    special = ["'infinity'", "'-infinity'", "'0044-03-15 12:30:00.5 BC'", "'10000-01-01 00:00:01'"]
    arr = duck(
        "SELECT v::TIMESTAMP FROM (VALUES ('infinity'), ('-infinity'), ('0044-03-15 (BC) 12:30:00.5'), "
        "('10000-01-01 00:00:01')) t(v)"
    )
    check(pg, "timestamp", 1114, special, arr)


@pytest.mark.parametrize(
    "zone", ["UTC", "Asia/Kolkata", "America/New_York", "America/St_Johns", "Australia/Lord_Howe", "Asia/Kathmandu"]
)
def test_timestamptz(pg: psycopg.Connection[tuple[object, ...]], zone: str) -> None:
    utc = dt.UTC
    values = [
        dt.datetime(2024, 1, 2, 3, 4, 5, 120000, utc),
        dt.datetime(2024, 7, 1, 12, tzinfo=utc),
        dt.datetime(1850, 1, 1, tzinfo=utc),
        dt.datetime(1, 1, 1, 12, tzinfo=utc),
        dt.datetime(9999, 12, 31, 12, tzinfo=utc),
        None,
    ]
    literals = [None if v is None else quote(v.isoformat(" ")) for v in values]
    arr = pa.array(values, pa.timestamp("us", "UTC"))
    check(pg, "timestamptz", 1184, literals, arr, EncodeOptions(timezone=zone), f"SET TimeZone = '{zone}'")
    special = ["'infinity'", "'-infinity'", "'0044-03-15 12:00:00+00 BC'"]
    duck_arr = duck(
        "SELECT v::TIMESTAMPTZ FROM (VALUES ('infinity'), ('-infinity'), ('0044-03-15 (BC) 12:00:00+00')) t(v)"
    )
    check(pg, "timestamptz", 1184, special, duck_arr, EncodeOptions(timezone="UTC"), "SET TimeZone = 'UTC'")


def test_interval(pg: psycopg.Connection[tuple[object, ...]]) -> None:
    cases = [
        (14, 3, 14706700000),
        (0, -1, 7200000000),
        (0, 0, 0),
        (-14, 0, 0),
        (1, 1, 1000000),
        (0, 0, -1),
        (12, 0, 0),
        (0, 1, 0),
        (-1, 2, -3000000),
        (0, 0, 360000000000000),
        (25, -3, 1500),
        (0, 0, 86400000000),
    ]
    literals = [quote(f"{m} mons {d} days {us} microseconds") for m, d, us in cases] + [None]
    arr = pa.array([(m, d, us * 1000) for m, d, us in cases] + [None], pa.month_day_nano_interval())
    check(pg, "interval", 1186, literals, arr)
    durations = pa.array([dt.timedelta(hours=100, microseconds=5), dt.timedelta(seconds=-1)], pa.duration("us"))
    check(pg, "interval", 1186, ["'100 hours 5 microseconds'", "'-1 seconds'"], durations)


def test_arrays(pg: psycopg.Connection[tuple[object, ...]]) -> None:
    check(
        pg,
        "int4[]",
        1007,
        ["'{1,2,NULL}'", "'{}'", None, "'{-5}'"],
        pa.array([[1, 2, None], [], None, [-5]], pa.list_(pa.int32())),
    )
    texts = [["a b", 'c"d', None, "NULL", "", "x\\y", "{}", "plain", "null", "a,b", " lead"]]
    literal = quote(
        "{"
        + ",".join("NULL" if t is None else '"' + t.replace("\\", "\\\\").replace('"', '\\"') + '"' for t in texts[0])
        + "}"
    )
    check(pg, "text[]", 1009, [literal], pa.array(texts, pa.list_(pa.string())))
    check(pg, "int8[]", 1016, ["'{{1,2},{3,4}}'"], duck("SELECT [[1,2],[3,4]]::BIGINT[][]"))
    check(pg, "float8[]", 1022, ["'{1.5,NaN,-Infinity,1e+20}'"], pa.array([[1.5, math.nan, -math.inf, 1e20]]))
    check(
        pg,
        "numeric[]",
        1231,
        ["'{1.50,-2.00}'"],
        pa.array([[decimal.Decimal("1.50"), decimal.Decimal("-2.00")]], pa.list_(pa.decimal128(12, 2))),
    )
    check(pg, "date[]", 1182, ["'{2024-01-02,NULL}'"], pa.array([[dt.date(2024, 1, 2), None]]))
    check(pg, "bool[]", 1000, ["'{t,f}'"], pa.array([[True, False]]))
    check(pg, "bytea[]", 1001, ["'{\"\\\\x01ff\"}'"], pa.array([[b"\x01\xff"]]))
    check(
        pg,
        "timestamp[]",
        1115,
        ["'{\"2024-01-02 03:04:05\"}'"],
        pa.array([[dt.datetime(2024, 1, 2, 3, 4, 5)]], pa.list_(pa.timestamp("us"))),
    )
    check(pg, "varchar[]", 1015, ["'{a,b}'"], duck("SELECT ['a','b']::VARCHAR[]"))
    check(pg, "int4[]", 1007, ["'{1,2}'"], duck("SELECT [1,2]::INTEGER[2]"))


# ---- hypothesis -----------------------------------------------------------------------------------------

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(st.lists(st.integers(-(2**63), 2**63 - 1) | st.none(), min_size=1, max_size=30))
def test_hypothesis_int8(pg: psycopg.Connection[tuple[object, ...]], values: list[int | None]) -> None:
    check(pg, "int8", 20, [None if v is None else quote(str(v)) for v in values], pa.array(values, pa.int64()))


@SETTINGS
@given(st.lists(st.floats(), min_size=1, max_size=30), st.sampled_from([1, 3, 0]))
def test_hypothesis_float8(pg: psycopg.Connection[tuple[object, ...]], values: list[float], efd: int) -> None:
    check(
        pg,
        "float8",
        701,
        [float_literal(v) for v in values],
        pa.array(values, pa.float64()),
        EncodeOptions(extra_float_digits=efd),
        f"SET extra_float_digits = {efd}",
    )


@SETTINGS
@given(st.lists(st.floats(width=32), min_size=1, max_size=30))
def test_hypothesis_float4(pg: psycopg.Connection[tuple[object, ...]], values: list[float]) -> None:
    check(
        pg,
        "float4",
        700,
        [float_literal(v) for v in values],
        pa.array(values, pa.float32()),
        EncodeOptions(extra_float_digits=1),
        "SET extra_float_digits = 1",
    )


@SETTINGS
@given(st.lists(st.decimals(min_value=-(10**9), max_value=10**9, places=4, allow_nan=False), min_size=1, max_size=30))
def test_hypothesis_numeric(pg: psycopg.Connection[tuple[object, ...]], values: list[decimal.Decimal]) -> None:
    arr = pa.array(values, pa.decimal128(14, 4))
    check(pg, "numeric(14,4)", 1700, [quote(str(v)) for v in arr.to_pylist()], arr)


@SETTINGS
@given(st.lists(st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00")), min_size=1, max_size=20))
def test_hypothesis_text_and_text_arrays(pg: psycopg.Connection[tuple[object, ...]], values: list[str]) -> None:
    check(pg, "text", 25, [quote(v) for v in values], pa.array(values))
    literal = quote("{" + ",".join('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values) + "}")
    check(pg, "text[]", 1009, [literal], pa.array([values]))


@SETTINGS
@given(
    st.lists(
        st.datetimes(min_value=dt.datetime(1, 1, 2), max_value=dt.datetime(9999, 12, 30)), min_size=1, max_size=20
    ),
    st.sampled_from(["UTC", "Europe/Amsterdam", "America/Caracas", "Asia/Kolkata"]),
)
def test_hypothesis_timestamps(
    pg: psycopg.Connection[tuple[object, ...]], values: list[dt.datetime], zone: str
) -> None:
    literals = [quote(v.isoformat(" ")) for v in values]
    check(pg, "timestamp", 1114, literals, pa.array(values, pa.timestamp("us")))
    aware = [quote(v.isoformat(" ") + "+00") for v in values]
    check(
        pg,
        "timestamptz",
        1184,
        aware,
        pa.array(values, pa.timestamp("us")).cast(pa.timestamp("us", "UTC")),
        EncodeOptions(timezone=zone),
        f"SET TimeZone = '{zone}'",
    )
