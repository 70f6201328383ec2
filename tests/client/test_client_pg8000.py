"""pg8000 (pure-Python driver; extended protocol, text results, parameters typed by the driver) against
sparkwire: the native API and the DB-API, with parameters, types and errors."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import pg8000.dbapi
import pg8000.native
import pytest

from tests.support.clients import unique
from tests.support.server import SparkwireServer


@pytest.fixture
def native(server: SparkwireServer) -> Iterator[Any]:
    conn = pg8000.native.Connection("materialize", host="127.0.0.1", port=server.port, database="materialize")
    yield conn
    conn.close()


@pytest.fixture
def dbapi(server: SparkwireServer) -> Iterator[Any]:
    conn = pg8000.dbapi.connect(
        user="materialize", host="127.0.0.1", port=server.port, database="materialize"
    )
    yield conn
    conn.close()


def test_native_params_and_types(native: Any) -> None:
    rows = native.run(
        "SELECT CAST(:i AS int4) + 1, CAST(:s AS text), CAST(:d AS numeric) * 2, CAST(:day AS date), "
        "CAST(:ts AS timestamptz), CAST(:b AS bool), CAST(:n AS int8)",
        i=41, s="héllo", d=Decimal("1.25"), day=date(2024, 2, 29),
        ts=datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC), b=True, n=None,
    )
    assert rows == [[42, "héllo", Decimal("2.50"), date(2024, 2, 29),
                     datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC), True, None]]
    names = ["?column?", "text", "?column?", "date", "timestamptz", "bool", "int8"]
    assert [c["name"] for c in native.columns] == names


def test_native_prepared_statement(native: Any) -> None:
    statement = native.prepare("SELECT CAST(:x AS int8) * 3")
    try:
        assert [statement.run(x=i)[0][0] for i in range(5)] == [0, 3, 6, 9, 12]
    finally:
        statement.close()


def test_native_errors(native: Any) -> None:
    with pytest.raises(pg8000.native.DatabaseError) as info:
        native.run("SELECT * FROM no_such_table_pg8000")
    assert info.value.args[0]["C"] == "42P01"
    with pytest.raises(pg8000.native.DatabaseError) as info:
        native.run("SELECT 'x'::int")
    assert info.value.args[0]["C"] == "22P02"
    assert native.run("SELECT 1") == [[1]]


def test_native_table_round_trip(native: Any) -> None:
    table = unique("pg8000")
    native.run(f"CREATE TABLE {table} (a int8, b text, c float8)")
    try:
        for i in range(3):
            native.run(f"INSERT INTO {table} VALUES (:a, :b, :c)", a=i, b=f"v{i}", c=i / 2)
        assert native.row_count == 1
        rows = native.run(f"SELECT * FROM {table} ORDER BY a")
        assert rows == [[0, "v0", 0.0], [1, "v1", 0.5], [2, "v2", 1.0]]
    finally:
        native.run(f"DROP TABLE {table}")


def test_dbapi_transactions_and_params(dbapi: Any) -> None:
    table = unique("pg8000_dbapi")
    cur = dbapi.cursor()
    cur.execute(f"CREATE TABLE {table} (a int8, b text)")
    dbapi.commit()
    try:
        cur.executemany(f"INSERT INTO {table} VALUES (%s, %s)", [(1, "one"), (2, "two")])
        dbapi.rollback()
        cur.execute(f"SELECT count(*) FROM {table}")
        assert cur.fetchone() == [0]
        cur.execute(f"INSERT INTO {table} VALUES (%s, %s)", (3, "three"))
        dbapi.commit()
        cur.execute(f"SELECT a, b FROM {table} WHERE a = %s", (3,))
        assert cur.fetchall() == ([3, "three"],)
        assert [d[0] for d in cur.description] == ["a", "b"]
    finally:
        dbapi.rollback()
        cur.execute(f"DROP TABLE {table}")
        dbapi.commit()


def test_dbapi_error_then_rollback(dbapi: Any) -> None:
    cur = dbapi.cursor()
    with pytest.raises(pg8000.dbapi.DatabaseError) as info:
        cur.execute("SELECT no_such_column FROM (SELECT 1 AS a) s")
    assert info.value.args[0]["C"] == "42703"
    with pytest.raises(pg8000.dbapi.DatabaseError) as info:
        cur.execute("SELECT 1")
    assert info.value.args[0]["C"] == "25P02"
    dbapi.rollback()
    cur.execute("SELECT 1")
    assert cur.fetchone() == [1]
