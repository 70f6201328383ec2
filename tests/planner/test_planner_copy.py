"""COPY through a real session: TO STDOUT options, FROM STDIN inserting atomically (all rows or none), abort
discarding everything, and COPY to or from server files refused."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from sparkwire.api import CopyIn, CopyOut
from sparkwire.errors import PgError
from sparkwire.session.service import PlannerService
from tests.planner.test_planner_helpers import Client, materialize
from tests.support.postgres import PostgresOracle


@pytest.fixture
def client(service: PlannerService) -> Iterator[Client]:
    c = Client(service)
    c.run("CREATE TABLE IF NOT EXISTS cp (a int, b text, c numeric(6,2)); DELETE FROM cp")
    yield c
    c.close()


def copy_out(c: Client, sql: str) -> CopyOut:
    results = list(c.session.simple_query(sql))
    assert len(results) == 1 and isinstance(results[0], CopyOut)
    return results[0]


def copy_in(c: Client, sql: str) -> CopyIn:
    results = list(c.session.simple_query(sql))
    assert len(results) == 1 and isinstance(results[0], CopyIn)
    return results[0]


def test_copy_out_query_and_table(client: Client) -> None:
    client.run("INSERT INTO cp VALUES (1, 'x', 1.5), (2, NULL, NULL)")
    out = copy_out(client, "COPY (SELECT a, b FROM cp ORDER BY a) TO STDOUT")
    assert (out.format, out.delimiter, out.null, out.header) == ("text", "\t", "\\N", False)
    assert materialize(out).rows == [(1, "x"), (2, None)]
    out = copy_out(client, "COPY cp (b, a) TO STDOUT WITH (FORMAT csv, HEADER, DELIMITER ';', NULL 'nil')")
    assert (out.format, out.delimiter, out.null, out.header) == ("csv", ";", "nil", True)
    assert [f.name for f in out.fields] == ["b", "a"]
    assert sorted(materialize(out).rows, key=lambda r: r[1]) == [("x", 1), (None, 2)]
    out = copy_out(client, "COPY cp TO STDOUT CSV HEADER")
    assert (out.format, out.delimiter, out.null, out.header) == ("csv", ",", "", True)


def test_copy_in_text_and_csv(client: Client) -> None:
    copy = copy_in(client, "COPY cp FROM STDIN")
    assert (copy.column_count, copy.format) == (3, "text")
    copy.sink.write(b"1\tone\t1.25\n2\t\\N\t")
    copy.sink.write(b"\\N\n")
    assert copy.sink.finish() == 2
    copy = copy_in(client, "COPY cp (b, a) FROM STDIN (FORMAT csv, HEADER)")
    assert copy.column_count == 2
    copy.sink.write(b'b,a\n"three, quoted",3\n')
    assert copy.sink.finish() == 1
    assert client.rows("SELECT a, b, c FROM cp ORDER BY a") == [
        (1, "one", 1.25), (2, None, None), (3, "three, quoted", None),
    ]  # fmt: skip


def test_copy_in_is_all_or_nothing(client: Client) -> None:
    copy = copy_in(client, "COPY cp FROM STDIN")
    copy.sink.write(b"1\tok\t1\n2\tbad\tnot-a-number\n")
    with pytest.raises(PgError) as info:
        copy.sink.finish()
    assert info.value.code == "22P02"
    assert client.rows("SELECT count(*) FROM cp") == [(0,)]


def test_copy_in_abort_discards(client: Client) -> None:
    copy = copy_in(client, "COPY cp FROM STDIN")
    copy.sink.write(b"1\tx\t1\n")
    copy.sink.abort("client gave up")
    assert client.rows("SELECT count(*) FROM cp") == [(0,)]


def test_copy_in_inside_a_transaction_rolls_back_with_it(client: Client) -> None:
    client.run("BEGIN")
    copy = copy_in(client, "COPY cp FROM STDIN")
    copy.sink.write(b"1\tx\t1\n")
    assert copy.sink.finish() == 1
    client.run("ROLLBACK")
    assert client.rows("SELECT count(*) FROM cp") == [(0,)]


def test_copy_errors(client: Client) -> None:
    for sql in (
        "COPY cp TO '/tmp/sparkwire-copy-out'",
        "COPY cp FROM '/etc/passwd'",
        "COPY cp FROM PROGRAM 'id'",
        "COPY (SELECT 1) TO PROGRAM 'cat'",
    ):
        err = client.error(sql)
        assert (err.code, err.message) == ("42501", "COPY to or from a file is prohibited")
    assert not Path("/tmp/sparkwire-copy-out").exists()
    assert client.error("COPY nope FROM STDIN").code == "42P01"
    assert client.error("COPY cp (nope) FROM STDIN").code == "42703"
    assert client.error("COPY cp TO STDOUT (FORMAT xml)").code == "22023"


def test_copy_binary_through_the_session(client: Client) -> None:
    client.run("INSERT INTO cp VALUES (1, 'x', 1.5)")
    out = copy_out(client, "COPY cp (a, b) TO STDOUT (FORMAT binary)")
    assert out.format == "binary"
    assert materialize(out).rows == [(1, "x")]
    copy = copy_in(client, "COPY cp FROM STDIN WITH BINARY")
    assert (copy.column_count, copy.format) == (3, "binary")
    header = b"PGCOPY\n\xff\r\n\x00" + struct.pack("!ii", 0, 0)
    row = struct.pack("!hii", 3, 4, 2) + struct.pack("!i", 1) + b"y" + struct.pack("!i", -1)
    copy.sink.write(header + row[:9])
    copy.sink.write(row[9:] + struct.pack("!h", -1))
    assert copy.sink.finish() == 1
    assert client.rows("SELECT a, b, c FROM cp ORDER BY a, b") == [(1, "x", 1.5), (2, "y", None)]


@pytest.mark.parametrize(
    "options",
    [
        "FORMAT binary, DELIMITER ','",
        "FORMAT binary, NULL 'x'",
        "FORMAT binary, HEADER",
        "FORMAT binary, QUOTE '\"'",
        "FORMAT text, ESCAPE '\"'",
    ],
)
def test_copy_option_errors_match_postgres(client: Client, oracle: PostgresOracle, options: str) -> None:
    sql = f"COPY cp TO STDOUT ({options})"
    with psycopg.connect(oracle.dsn, autocommit=True) as pg:
        pg.execute("CREATE TABLE IF NOT EXISTS cp (a int, b text, c numeric(6,2))")
        with pytest.raises(psycopg.Error) as want, pg.cursor() as cur, cur.copy(sql):
            pass
    err = client.error(sql)
    assert (err.code, err.message) == (want.value.sqlstate, want.value.diag.message_primary)
