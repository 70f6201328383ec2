"""COPY in PostgreSQL's binary format: PostgreSQL's own binary COPY output parses back (BinaryCopyInParser) and
re-encodes byte for byte; through the server, `COPY … TO STDOUT (FORMAT binary)` is byte-identical to PostgreSQL's
and binary COPY FROM STDIN loads what PostgreSQL loads; malformed binary data fails like PostgreSQL."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import psycopg
import pytest

from sparkwire.errors import PgError
from sparkwire.pgtypes import BinaryCopyInParser, EncodeOptions, copy_header, copy_trailer, encode_copy_rows
from tests.support.clients import unique
from tests.support.postgres import PostgresOracle
from tests.types.test_types_copy import ROUND_TRIP_COLUMNS, payloads

SIGNATURE = b"PGCOPY\n\xff\r\n\x00"
HEADER = SIGNATURE + struct.pack("!ii", 0, 0)
SELECT = ", ".join(f"{literal}::{sql_type} AS c{i}" for i, (sql_type, _, literal) in enumerate(ROUND_TRIP_COLUMNS))
QUERY = f"SELECT {SELECT} UNION ALL SELECT {', '.join('NULL' for _ in ROUND_TRIP_COLUMNS)} UNION ALL SELECT {SELECT}"
TABLE_COLUMNS = "a int4, b text, c numeric(10,2), d timestamptz, e date, f int8[], g numeric(12,4), h bytea"
TABLE_ROWS = [
    "1, 'one', 1.5, '2024-01-02 03:04:05.5+02', '2024-02-29', '{1,NULL,3}', 1.2300, '\\x00ff'",
    "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL",
    "3, 'tab\there', -0.01, 'infinity', '-infinity', '{}', -5, ''",
]


def _pg_copy_out(conn: psycopg.Connection[Any], sql: str) -> bytes:
    with conn.cursor() as cur, cur.copy(sql) as copy:
        return b"".join(bytes(chunk) for chunk in copy)


@pytest.fixture(scope="module")
def pg_module(oracle: PostgresOracle) -> Iterator[psycopg.Connection[Any]]:
    with psycopg.connect(oracle.dsn, autocommit=True) as conn:
        yield conn


def test_parse_then_encode_round_trips_postgres_output(pg_module: psycopg.Connection[Any]) -> None:
    expected = _pg_copy_out(pg_module, f"COPY ({QUERY}) TO STDOUT (FORMAT binary)")
    oids = [oid for _, oid, _ in ROUND_TRIP_COLUMNS]
    typmods = [(10 << 16 | 3) + 4 if sql_type == "numeric(10,3)" else -1 for sql_type, _, _ in ROUND_TRIP_COLUMNS]
    parser = BinaryCopyInParser(oids, typmods=typmods)
    for start in range(0, len(expected), 7):  # chunks split anywhere: header, lengths, values
        parser.feed(expected[start : start + 7])
    parsed = parser.finish()
    assert parsed.num_rows == 3
    options = EncodeOptions()
    names = [f"c{i}" for i in range(len(oids))]
    ours = copy_header(names, "binary") + encode_copy_rows(parsed, oids, "binary", "", "", "", "", options)
    assert payloads(ours + copy_trailer("binary")) == expected


def test_end_marker_is_optional_and_nothing_may_follow_it() -> None:
    row = struct.pack("!hi", 1, 4) + struct.pack("!i", 7)
    parser = BinaryCopyInParser([23])
    parser.feed(HEADER + row)
    assert parser.finish().column(0).to_pylist() == [7]
    parser = BinaryCopyInParser([23])
    parser.feed(HEADER + row + struct.pack("!h", -1))
    with pytest.raises(PgError) as caught:
        parser.feed(b"x")
    assert (caught.value.sqlstate, caught.value.message) == ("22P04", "received copy data after EOF marker")


BAD_DATA = [
    pytest.param(b"PGCOPY\n\xff\r\n\x01" + b"\0" * 8, id="signature"),
    pytest.param(SIGNATURE + b"\0\0", id="missing-flags"),
    pytest.param(SIGNATURE + struct.pack("!i", 0), id="missing-length"),
    pytest.param(SIGNATURE + struct.pack("!ii", 0, 4) + b"ab", id="short-extension"),
    pytest.param(SIGNATURE + struct.pack("!ii", 1 << 16, 0), id="with-oids"),
    pytest.param(SIGNATURE + struct.pack("!ii", 1 << 20, 0), id="critical-flag"),
    pytest.param(HEADER + struct.pack("!h", 3), id="field-count"),
    pytest.param(HEADER + struct.pack("!hi", 2, 4) + b"\0\0", id="truncated-value"),
    pytest.param(HEADER + struct.pack("!hi", 2, 3) + b"\0\0\0" + struct.pack("!i", -1), id="bad-int4"),
    pytest.param(HEADER + struct.pack("!hii", 2, -1, 2) + b"\xff\xfe", id="bad-utf8"),
    pytest.param(HEADER + struct.pack("!hii", 2, -1, -1) + struct.pack("!h", -1) + b"more", id="after-eof"),
]


@pytest.mark.parametrize("data", BAD_DATA)
def test_bad_binary_data_fails_like_postgres(pg_module: psycopg.Connection[Any], data: bytes) -> None:
    table = unique("bin_bad")
    pg_module.execute(f"CREATE TABLE {table} (a int4, b text)")
    try:
        with (
            pytest.raises(psycopg.Error) as want,
            pg_module.cursor() as cur,
            cur.copy(f"COPY {table} FROM STDIN (FORMAT binary)") as copy,
        ):
            copy.write(data)
    finally:
        pg_module.execute(f"DROP TABLE {table}")
    parser = BinaryCopyInParser([23, 25], table=table, columns=["a", "b"])
    with pytest.raises(PgError) as got:
        parser.feed(data)
        parser.finish()
    assert (got.value.sqlstate, got.value.message) == (want.value.sqlstate, want.value.diag.message_primary)
    context = want.value.diag.context or ""
    if got.value.detail:
        assert context.startswith(got.value.detail)


SERVER_QUERY = (
    "SELECT * FROM (VALUES (1::int4, 'a\tb'::text, 1.50::numeric(10,2), '2024-02-29'::date, "
    "'2024-07-01 12:00:00.25+02'::timestamptz, '1 day 02:00:00'::interval, true, '\\xff'::bytea, 2.5::float8, "
    "ARRAY[1, NULL, 3]::int8[], 12345678901::int8, '13:14:15'::time), "
    "(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)) AS t(a, b, c, d, e, f, g, h, i, j, k, l)"
)


def test_server_copy_to_binary_is_byte_identical(sw: psycopg.Connection[Any], pg: psycopg.Connection[Any]) -> None:
    sql = f"COPY ({SERVER_QUERY}) TO STDOUT (FORMAT binary)"
    assert _pg_copy_out(sw, sql) == _pg_copy_out(pg, sql)
    empty = "COPY (SELECT 1 AS a WHERE false) TO STDOUT WITH BINARY"
    assert _pg_copy_out(sw, empty) == _pg_copy_out(pg, empty)


def test_server_binary_copy_round_trip(sw: psycopg.Connection[Any], pg: psycopg.Connection[Any]) -> None:
    """PostgreSQL's binary COPY of a table loads into sparkwire, whose binary COPY of it is the same bytes."""
    source, target = unique("bin_src"), unique("bin_dst")
    pg.execute(f"CREATE TABLE {source} ({TABLE_COLUMNS}, ord int)")
    sw.execute(f"CREATE TABLE {target} ({TABLE_COLUMNS}, ord int)")
    try:
        for i, values in enumerate(TABLE_ROWS):
            pg.execute(f"INSERT INTO {source} VALUES ({values}, {i})")
        data = _pg_copy_out(pg, f"COPY {source} TO STDOUT (FORMAT binary)")
        with sw.cursor() as cur:
            with cur.copy(f"COPY {target} FROM STDIN (FORMAT binary)") as copy:
                for start in range(0, len(data), 10):
                    copy.write(data[start : start + 10])
            assert cur.statusmessage == f"COPY {len(TABLE_ROWS)}"
        read_back = "COPY (SELECT * FROM {} ORDER BY ord) TO STDOUT (FORMAT binary)"
        assert _pg_copy_out(sw, read_back.format(target)) == _pg_copy_out(pg, read_back.format(source))
    finally:
        pg.execute(f"DROP TABLE {source}")
        sw.execute(f"DROP TABLE {target}")


def test_server_binary_copy_with_psycopg_rows(sw: psycopg.Connection[Any], pg: psycopg.Connection[Any]) -> None:
    """psycopg's binary write_row (typed with set_types) loads the same rows into both servers."""
    rows = [(1, "a\tb", "1.50"), (2, None, None), (3, "", "-7")]
    results = []
    for conn in (sw, pg):
        table = unique("bin_rows")
        conn.execute(f"CREATE TABLE {table} (a int8, b text, c numeric(8,2))")
        try:
            with conn.cursor() as cur, cur.copy(f"COPY {table} (a, b, c) FROM STDIN (FORMAT binary)") as copy:
                copy.set_types(["int8", "text", "numeric"])
                for a, b, c in rows:
                    copy.write_row((a, b, None if c is None else Decimal(c)))
            results.append(conn.execute(f"SELECT a, b, c::text FROM {table} ORDER BY a").fetchall())
        finally:
            conn.execute(f"DROP TABLE {table}")
    assert results[0] == results[1]


def test_server_binary_copy_out_with_psycopg_rows(sw: psycopg.Connection[Any], pg: psycopg.Connection[Any]) -> None:
    """psycopg's `Copy.rows()` parses each CopyData on its own: the header must arrive inside the first row's
    message (or the trailer's, with no rows), as PostgreSQL sends it."""
    results = []
    for conn in (sw, pg):
        read = []
        for where in ("", " WHERE false"):
            query = f"SELECT a, b FROM (VALUES (1::int8, 'x'), (2, NULL)) AS v(a, b){where}"
            sql = f"COPY ({query}) TO STDOUT (FORMAT binary)"
            with conn.cursor() as cur, cur.copy(sql) as copy:
                copy.set_types(["int8", "text"])
                read.append(list(copy.rows()))
        results.append(read)
    assert results[0] == results[1] == [[(1, "x"), (2, None)], []]
