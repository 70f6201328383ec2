"""COPY TO STDOUT rows are byte-identical to PostgreSQL's, and COPY FROM STDIN data (PostgreSQL's own output, fed
in awkward chunks) parses back to the same values; bad COPY data fails like PostgreSQL, context included."""

from __future__ import annotations

import datetime as dt
import decimal
import struct
from collections.abc import Iterator

import psycopg
import pyarrow as pa
import pytest

from sparkwire.errors import PgError
from sparkwire.pgtypes import CopyInParser, EncodeOptions, copy_header, encode_copy_rows
from tests.support.postgres import PostgresOracle

ROWS: list[tuple[object, ...]] = [
    (1, "plain", decimal.Decimal("1.50"), dt.date(2024, 1, 2), True, [1, 2]),
    (2, "tab\there, new\nline\r and \\ back", decimal.Decimal("-0.01"), None, False, []),
    (None, None, None, dt.date(1999, 12, 31), None, None),
    (4, "", decimal.Decimal("0.00"), dt.date(2000, 2, 29), True, [None, 3]),
    (5, 'quote " and, comma', decimal.Decimal("12345.67"), dt.date(1, 1, 1), False, [7]),
    (6, "\\.", decimal.Decimal("1.00"), None, None, [1]),
    (7, "\\N", decimal.Decimal("2.00"), None, None, None),
    (8, "\x08\x0c\x0b", decimal.Decimal("3.00"), None, None, None),
]
COLUMNS = "a int4, b text, c numeric(12,2), d date, e bool, f int4[]"
OIDS = [23, 25, 1700, 1082, 16, 1007]
TYPMODS = [-1, -1, (12 << 16 | 2) + 4, -1, -1, -1]
NAMES = ["a", "b", "c", "d", "e", "f"]


@pytest.fixture(scope="module")
def pg(oracle: PostgresOracle) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    with psycopg.connect(oracle.dsn, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS copy_src")
        conn.execute(f"CREATE TABLE copy_src ({COLUMNS}, ord serial)")
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO copy_src (a, b, c, d, e, f) VALUES (%s, %s, %s, %s, %s, %s)", ROWS)
        yield conn


def batch() -> pa.RecordBatch:
    columns = list(zip(*ROWS, strict=True))
    types = [pa.int32(), pa.string(), pa.decimal128(12, 2), pa.date32(), pa.bool_(), pa.list_(pa.int32())]
    return pa.record_batch([pa.array(list(c), t) for c, t in zip(columns, types, strict=True)], names=NAMES)


def pg_copy_out(conn: psycopg.Connection[tuple[object, ...]], options: str) -> bytes:
    out = b""
    with (
        conn.cursor() as cur,
        cur.copy(f"COPY (SELECT a, b, c, d, e, f FROM copy_src ORDER BY ord) TO STDOUT {options}") as copy,
    ):
        for chunk in copy:
            out += bytes(chunk)
    return out


def payloads(messages: bytes) -> bytes:
    """Strip CopyData framing ('d', int32 length) and concatenate the row payloads."""
    out, position = b"", 0
    while position < len(messages):
        assert messages[position : position + 1] == b"d"
        (length,) = struct.unpack("!i", messages[position + 1 : position + 5])
        out += messages[position + 5 : position + 1 + length]
        position += 1 + length
    return out


COPY_FORMATS = [
    ("", "text", "\t", "\\N", '"', '"'),
    ("(FORMAT csv)", "csv", ",", "", '"', '"'),
    ("(FORMAT csv, DELIMITER ';', NULL 'NULL', QUOTE '''', ESCAPE '\\')", "csv", ";", "NULL", "'", "\\"),
    ("(FORMAT text, DELIMITER ',', NULL '')", "text", ",", "", '"', '"'),
    ("(FORMAT text, DELIMITER '|', NULL 'nil')", "text", "|", "nil", '"', '"'),
]


@pytest.mark.parametrize(("sql_options", "fmt", "delimiter", "null", "quote", "escape"), COPY_FORMATS)
def test_copy_out_matches_postgres(
    pg: psycopg.Connection[tuple[object, ...]],
    sql_options: str,
    fmt: str,
    delimiter: str,
    null: str,
    quote: str,
    escape: str,
) -> None:
    ours = encode_copy_rows(batch(), OIDS, fmt, delimiter, null, quote, escape, EncodeOptions())
    assert payloads(ours) == pg_copy_out(pg, sql_options)


@pytest.mark.parametrize("fmt", ["text", "csv"])
def test_copy_header_matches_postgres(pg: psycopg.Connection[tuple[object, ...]], fmt: str) -> None:
    pg.execute("DROP TABLE IF EXISTS copy_hdr")
    pg.execute('CREATE TABLE copy_hdr ("plain" int, "with space" int, "tab\tname" int, "com,ma" int, "q""uote" int)')
    with pg.cursor() as cur, cur.copy(f"COPY copy_hdr TO STDOUT (FORMAT {fmt}, HEADER)") as copy:
        expected = b"".join(bytes(chunk) for chunk in copy)
    names = ["plain", "with space", "tab\tname", "com,ma", 'q"uote']
    delimiter = "," if fmt == "csv" else "\t"
    null = "" if fmt == "csv" else "\\N"
    assert payloads(copy_header(names, fmt, delimiter, null)) == expected


@pytest.mark.parametrize(("sql_options", "fmt", "delimiter", "null", "quote", "escape"), COPY_FORMATS)
@pytest.mark.parametrize("chunk", [1, 7, 1 << 20])
def test_copy_in_reads_postgres_output(
    pg: psycopg.Connection[tuple[object, ...]],
    sql_options: str,
    fmt: str,
    delimiter: str,
    null: str,
    quote: str,
    escape: str,
    chunk: int,
) -> None:
    data = pg_copy_out(pg, sql_options)
    expected = ROWS
    if fmt == "text" and null == "":  # the empty string and NULL are spelled alike: both read back as NULL
        expected = [tuple(None if v == "" else v for v in row) for row in ROWS]
    parser = CopyInParser(OIDS, fmt, delimiter, null, quote, escape, False, table="t", columns=NAMES, typmods=TYPMODS)
    for start in range(0, len(data), chunk):
        parser.feed(data[start : start + chunk])
    result = parser.finish()
    assert [tuple(r.values()) for r in result.to_pylist()] == expected


def test_copy_in_header_and_end_marker() -> None:
    parser = CopyInParser([23, 25], "csv", header=True)
    parser.feed(b'a,b\n1,"multi\nline ""q"""\n2,\n3,""\r\n\\.\nignored,after end\n')
    assert parser.finish().to_pylist() == [
        {"column1": 1, "column2": 'multi\nline "q"'},
        {"column1": 2, "column2": None},
        {"column1": 3, "column2": ""},
    ]
    parser = CopyInParser([23, 25], "text")
    parser.feed(b"1\t\\x41\\101\\n\n2\tlast-no-newline")
    assert parser.finish().to_pylist() == [
        {"column1": 1, "column2": "AA\n"},
        {"column1": 2, "column2": "last-no-newline"},
    ]


BAD_COPY = [
    ("text", b"1\tok\n2\tok\n3\tok\textra\n"),
    ("text", b"1\tok\n2\n"),
    ("text", b"1\tok\nx\tok\n"),
    ("text", b"1\tok\n99999999999\tok\n"),
    ("csv", b'1,ok\n2,"unterminated\n'),
    ("csv", b"1,ok\n2,ok,3\n"),
]


@pytest.mark.parametrize(("fmt", "data"), BAD_COPY)
def test_copy_in_errors_match_postgres(pg: psycopg.Connection[tuple[object, ...]], fmt: str, data: bytes) -> None:
    pg.execute("DROP TABLE IF EXISTS copy_dst")
    pg.execute("CREATE TABLE copy_dst (a int4, b text)")
    with (
        pytest.raises(psycopg.Error) as expected,
        pg.cursor() as cur,
        cur.copy(f"COPY copy_dst FROM STDIN (FORMAT {fmt})") as copy,
    ):
        copy.write(data)
    parser = CopyInParser([23, 25], fmt, table="copy_dst", columns=["a", "b"])
    with pytest.raises(PgError) as ours:
        parser.feed(data)
        parser.finish()
    assert ours.value.code == expected.value.sqlstate
    assert ours.value.message == expected.value.diag.message_primary
    assert ours.value.detail == expected.value.diag.context


ROUND_TRIP_COLUMNS = [
    ("int2", 21, "'-32768'"),
    ("int8", 20, "'9223372036854775807'"),
    ("float4", 700, "'1.5e-07'"),
    ("float8", 701, "'-Infinity'"),
    ("numeric", 1700, "'123.4500'"),
    ("numeric(10,3)", 1700, "'-1.5'"),
    ("text", 25, "E'a\\tb\\\\c'"),
    ("bytea", 17, "'\\x00ff0a'"),
    ("date", 1082, "'infinity'"),
    ("time", 1083, "'13:14:15.5'"),
    ("timestamp", 1114, "'-infinity'"),
    ("timestamptz", 1184, "'2024-07-01 12:00:00.25+02'"),
    ("interval", 1186, "'1 year -2 days 03:00:00.5'"),
    ("uuid", 2950, "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'"),
    ("json", 114, "'{\"a\": [1, 2]}'"),
    ("jsonb", 3802, '\'{"b": 1, "a": 2}\''),
    ("bool", 16, "'t'"),
    ("int4[]", 1007, "'{1,NULL,3}'"),
    ("text[]", 1009, '\'{"a b",NULL,""}\''),
    ("date", 1082, "'2024-02-29'"),
    ("timestamp", 1114, "'2000-01-01'"),
]


@pytest.mark.parametrize("fmt", ["text", "csv"])
def test_copy_in_then_out_round_trips_every_type(pg: psycopg.Connection[tuple[object, ...]], fmt: str) -> None:
    """PostgreSQL's COPY output, parsed into Arrow and written back out, is byte-identical."""
    select = ", ".join(f"{literal}::{sql_type} AS c{i}" for i, (sql_type, _, literal) in enumerate(ROUND_TRIP_COLUMNS))
    with (
        pg.cursor() as cur,
        cur.copy(f"COPY (SELECT {select} UNION ALL SELECT {select}) TO STDOUT (FORMAT {fmt})") as copy,
    ):
        expected = b"".join(bytes(chunk) for chunk in copy)
    oids = [oid for _, oid, _ in ROUND_TRIP_COLUMNS]
    typmods = [(10 << 16 | 3) + 4 if sql_type == "numeric(10,3)" else -1 for sql_type, _, _ in ROUND_TRIP_COLUMNS]
    delimiter, null = ("," if fmt == "csv" else "\t"), ("" if fmt == "csv" else "\\N")
    parser = CopyInParser(oids, fmt, delimiter, null, typmods=typmods)
    parser.feed(expected)
    parsed = parser.finish()
    assert payloads(encode_copy_rows(parsed, oids, fmt, delimiter, null, '"', '"', EncodeOptions())) == expected
