"""Bind parameter decoding: PostgreSQL's own text and binary output decodes to the right Python values, and bad
input fails with the SQLSTATE and message PostgreSQL gives for the same parameter."""

from __future__ import annotations

import datetime as dt
import decimal
import uuid
from collections.abc import Iterator

import psycopg
import pytest

from sparkwire.errors import PgError
from sparkwire.pgtypes import EncodeOptions, Interval, decode_param
from tests.support.postgres import PostgresOracle


@pytest.fixture(scope="module")
def pg(oracle: PostgresOracle) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    with psycopg.connect(oracle.dsn, autocommit=True) as conn:
        yield conn


def pg_output(conn: psycopg.Connection[tuple[object, ...]], expr: str, fmt: int) -> bytes:
    result = conn.pgconn.exec_params(f"SELECT {expr}".encode(), [], result_format=fmt)
    assert result.status == psycopg.pq.ExecStatus.TUPLES_OK, result.get_error_message()
    value = result.get_value(0, 0)
    assert value is not None
    return value


UTC = dt.UTC
CASES: list[tuple[str, int, object]] = [
    ("42::int2", 21, 42),
    ("'-2147483648'::int4", 23, -(2**31)),
    ("9223372036854775807::int8", 20, 2**63 - 1),
    ("4294967295::oid", 26, 4294967295),
    ("1.5::float8", 701, 1.5),
    ("'-Infinity'::float8", 701, float("-inf")),
    ("0.1::float4", 700, pytest.approx(0.1)),
    ("'123.4500'::numeric", 1700, decimal.Decimal("123.4500")),
    ("'-0.000001'::numeric", 1700, decimal.Decimal("-0.000001")),
    ("'NaN'::numeric", 1700, "nan"),
    ("true", 16, True),
    ("false", 16, False),
    ("'héllo'::text", 25, "héllo"),
    ("'abc'::varchar(5)", 1043, "abc"),
    ("'\\x00ff'::bytea", 17, b"\x00\xff"),
    ("'2024-02-29'::date", 1082, dt.date(2024, 2, 29)),
    ("'infinity'::date", 1082, dt.date.max),
    ("'13:14:15.5'::time", 1083, dt.time(13, 14, 15, 500000)),
    ("'2024-01-02 03:04:05.25'::timestamp", 1114, dt.datetime(2024, 1, 2, 3, 4, 5, 250000)),
    ("'2024-01-02 03:04:05+05:30'::timestamptz", 1184, dt.datetime(2024, 1, 1, 21, 34, 5, tzinfo=UTC)),
    ("'1 year 2 mons -3 days 04:05:06.7'::interval", 1186, Interval(14, -3, 14706700000)),
    ("'-1 days +02:00:00'::interval", 1186, Interval(0, -1, 7200000000)),
    ("'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid", 2950, uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")),
    ("'{\"a\": [1, 2]}'::json", 114, '{"a": [1, 2]}'),
    ("'{1,NULL,3}'::int4[]", 1007, [1, None, 3]),
    ("'{{1,2},{3,4}}'::int8[]", 1016, [[1, 2], [3, 4]]),
    ('\'{"a b",NULL,"c\\"d"}\'::text[]', 1009, ["a b", None, 'c"d']),
]


@pytest.mark.parametrize(("expr", "oid", "expected"), CASES)
@pytest.mark.parametrize("fmt", [0, 1])
def test_decodes_postgres_output(
    pg: psycopg.Connection[tuple[object, ...]], expr: str, oid: int, expected: object, fmt: int
) -> None:
    value = decode_param(pg_output(pg, expr, fmt), oid, fmt)
    if expected == "nan":
        assert isinstance(value, decimal.Decimal) and value.is_nan()
    else:
        assert value == expected


def test_jsonb_both_formats_keep_text(pg: psycopg.Connection[tuple[object, ...]]) -> None:
    assert decode_param(pg_output(pg, '\'{"b":1, "a":2}\'::jsonb', 0), 3802, 0) == '{"a": 2, "b": 1}'
    assert decode_param(pg_output(pg, '\'{"b":1, "a":2}\'::jsonb', 1), 3802, 1) == '{"a": 2, "b": 1}'


def test_untyped_and_timezone() -> None:
    assert decode_param(b"anything", 0, 0) == "anything"
    assert decode_param(b"42", 705, 0) == "42"
    local = decode_param(b"2024-07-01 12:00:00", 1184, 0, options=EncodeOptions(timezone="Europe/Amsterdam"))
    assert isinstance(local, dt.datetime)
    assert local.astimezone(UTC) == dt.datetime(2024, 7, 1, 10, tzinfo=UTC)


BAD_TEXT = [
    ("abc", "int4"),
    ("3000000000", "int4"),
    ("70000", "int2"),
    ("1_000", "int8"),
    ("12.5", "int4"),
    ("", "int4"),
    ("x1", "float8"),
    ("1e400", "float8"),
    ("1e-50", "float4"),
    ("1.2.3", "numeric"),
    ("maybe", "bool"),
    ("o", "bool"),
    ("abc", "date"),
    ("2024-13-01", "date"),
    ("2024-02-30", "date"),
    ("25:00:00", "time"),
    ("nope", "timestamp"),
    ("2024-01-01 10:61:00", "timestamp"),
    ("abc", "uuid"),
    ("{bad", "json"),
    ("\\xzz", "bytea"),
    ("{1,a}", "int4[]"),
    ("three days", "interval"),
]


@pytest.mark.parametrize(("text", "sql_type"), BAD_TEXT)
def test_text_errors_match_postgres(pg: psycopg.Connection[tuple[object, ...]], text: str, sql_type: str) -> None:
    oid_row = pg.execute("SELECT %s::regtype::oid::int", [sql_type]).fetchone()
    assert oid_row is not None
    with pytest.raises(psycopg.Error) as expected:
        pg.execute(f"SELECT %s::{sql_type}", [text])
    with pytest.raises(PgError) as ours:
        decode_param(text.encode(), int(str(oid_row[0])), 0)
    assert ours.value.code == expected.value.sqlstate
    if sql_type not in ("json", "int4[]"):  # those add a detail we word differently; the message is the same
        assert ours.value.message == expected.value.diag.message_primary


def test_binary_length_error_matches_postgres(pg: psycopg.Connection[tuple[object, ...]]) -> None:
    result = pg.pgconn.exec_params(b"SELECT $1::int4", [b"\x00\x00\x00\x00\x01"], [23], [1])
    assert result.error_field(psycopg.pq.DiagnosticField.SQLSTATE) == b"22P03"
    with pytest.raises(PgError) as ours:
        decode_param(b"\x00\x00\x00\x00\x01", 23, 1, index=1)
    assert ours.value.code == "22P03"
    message = result.error_field(psycopg.pq.DiagnosticField.MESSAGE_PRIMARY)
    assert message is not None and ours.value.message == message.decode()
