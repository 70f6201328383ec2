"""psycopg 3 against sparkwire: transactions, savepoints, server-side cursors, cancel and
statement_timeout."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg import errors

from tests.support.clients import unique


@pytest.fixture
def table(sw: psycopg.Connection[Any]) -> Iterator[str]:
    name = unique("tx")
    sw.execute(f"CREATE TABLE {name} (a int8, b text)")
    yield name
    sw.execute(f"DROP TABLE IF EXISTS {name}")


@pytest.fixture
def tx_conn(dsn: str) -> Iterator[psycopg.Connection[Any]]:
    """autocommit off: psycopg sends BEGIN before the first statement. Request it after `table`, so that it
    closes (ending its transaction) before the table is dropped."""
    with psycopg.connect(dsn) as conn:
        yield conn


def _count(conn: psycopg.Connection[Any], table: str) -> int:
    row = conn.execute(f"SELECT count(*) FROM {table}").fetchone()
    assert row is not None
    return int(row[0])


def _status(conn: psycopg.Connection[Any]) -> str:
    return conn.info.transaction_status.name


def test_commit_and_rollback(
    table: str, tx_conn: psycopg.Connection[Any], sw: psycopg.Connection[Any]
) -> None:
    tx_conn.execute(f"INSERT INTO {table} VALUES (1, 'rolled back')")
    assert _status(tx_conn) == "INTRANS"
    assert _count(tx_conn, table) == 1
    tx_conn.rollback()
    assert _count(sw, table) == 0

    tx_conn.execute(f"INSERT INTO {table} VALUES (2, 'committed')")
    assert _count(sw, table) == 0  # not visible to another session before COMMIT
    tx_conn.commit()
    assert sw.execute(f"SELECT a, b FROM {table}").fetchall() == [(2, "committed")]


def test_explicit_transaction_status(sw: psycopg.Connection[Any]) -> None:
    assert sw.execute("BEGIN").statusmessage == "BEGIN"
    assert _status(sw) == "INTRANS"
    with pytest.raises(errors.DivisionByZero):
        sw.execute("SELECT 1 / 0")
    assert _status(sw) == "INERROR"
    with pytest.raises(errors.InFailedSqlTransaction):
        sw.execute("SELECT 1")
    assert sw.execute("COMMIT").statusmessage == "ROLLBACK"
    assert _status(sw) == "IDLE"
    assert sw.execute("SELECT 1").fetchone() == (1,)


def test_failed_transaction_then_usable(table: str, tx_conn: psycopg.Connection[Any]) -> None:
    tx_conn.execute(f"INSERT INTO {table} VALUES (1, 'x')")
    with pytest.raises(errors.UndefinedColumn):
        tx_conn.execute(f"SELECT nope FROM {table}")
    with pytest.raises(errors.InFailedSqlTransaction) as info:
        tx_conn.execute("SELECT 1")
    assert info.value.diag.message_primary == (
        "current transaction is aborted, commands ignored until end of transaction block"
    )
    tx_conn.rollback()
    assert _count(tx_conn, table) == 0
    tx_conn.execute(f"INSERT INTO {table} VALUES (2, 'y')")
    tx_conn.commit()
    assert _count(tx_conn, table) == 1


def test_nested_transaction_rolls_back_to_savepoint_after_read_error(
    sw: psycopg.Connection[Any], table: str
) -> None:
    with sw.transaction():
        sw.execute(f"INSERT INTO {table} VALUES (1, 'outer')")
        with pytest.raises(errors.DivisionByZero), sw.transaction():
            sw.execute("SELECT 1 / 0")
        sw.execute(f"INSERT INTO {table} VALUES (2, 'outer again')")
    assert sw.execute(f"SELECT a FROM {table} ORDER BY a").fetchall() == [(1,), (2,)]


def test_nested_transaction_undoes_inner_writes(sw: psycopg.Connection[Any], table: str) -> None:
    """PostgreSQL semantics of ROLLBACK TO SAVEPOINT: the inner block's writes disappear, the outer ones
    stay."""
    with sw.transaction():
        sw.execute(f"INSERT INTO {table} VALUES (1, 'outer')")
        with sw.transaction(force_rollback=True):
            sw.execute(f"INSERT INTO {table} VALUES (2, 'inner')")
    assert sw.execute(f"SELECT a FROM {table}").fetchall() == [(1,)]


def test_savepoint_release(sw: psycopg.Connection[Any], table: str) -> None:
    with sw.transaction():
        with sw.transaction():
            sw.execute(f"INSERT INTO {table} VALUES (1, 'inner')")
        with sw.transaction(savepoint_name="named_sp"):
            sw.execute("SELECT 1")
    assert _count(sw, table) == 1


def test_savepoint_errors(sw: psycopg.Connection[Any], pg: psycopg.Connection[Any]) -> None:
    for conn in (sw, pg):
        conn.execute("BEGIN")
        with pytest.raises(errors.InvalidSavepointSpecification):
            conn.execute("ROLLBACK TO SAVEPOINT never_made")
        conn.execute("ROLLBACK")
    with pytest.raises(errors.NoActiveSqlTransaction):
        sw.execute("SAVEPOINT outside")
    assert sw.execute("SELECT 1").fetchone() == (1,)


def test_named_cursor(tx_conn: psycopg.Connection[Any]) -> None:
    with tx_conn.cursor(name="sw_named") as cur:
        cur.itersize = 7
        cur.execute("SELECT i, 'row ' || i AS label FROM generate_series(1, 50) i ORDER BY i")
        assert cur.description is not None
        assert [d.name for d in cur.description] == ["i", "label"]
        assert cur.fetchmany(5) == [(i, f"row {i}") for i in range(1, 6)]
        assert cur.fetchone() == (6, "row 6")
        assert [row[0] for row in cur] == list(range(7, 51))
    tx_conn.commit()


def test_named_cursor_scroll_and_params(tx_conn: psycopg.Connection[Any]) -> None:
    with tx_conn.cursor(name="sw_params") as cur:
        cur.execute("SELECT i FROM generate_series(1, %s) i ORDER BY i", [20])
        assert cur.fetchmany(3) == [(1,), (2,), (3,)]
        assert cur.fetchall() == [(i,) for i in range(4, 21)]
        assert cur.fetchone() is None
    tx_conn.commit()


def test_named_cursor_with_hold_in_autocommit(sw: psycopg.Connection[Any]) -> None:
    with sw.cursor(name="sw_hold", withhold=True) as cur:
        cur.itersize = 3
        cur.execute("SELECT i FROM generate_series(1, 10) i ORDER BY i")
        assert [row[0] for row in cur] == list(range(1, 11))


def test_sql_cursors(sw: psycopg.Connection[Any], pg: psycopg.Connection[Any]) -> None:
    statements = [
        "BEGIN",
        "DECLARE c CURSOR FOR SELECT i FROM generate_series(1, 10) i ORDER BY i",
        "FETCH 3 FROM c",
        "MOVE 2 IN c",
        "FETCH NEXT FROM c",
        "FETCH ALL FROM c",
        "CLOSE c",
        "COMMIT",
    ]
    for statement in statements:
        got, want = sw.execute(statement), pg.execute(statement)
        assert got.statusmessage == want.statusmessage
        if want.description is not None:
            assert got.fetchall() == want.fetchall()
    with pytest.raises(errors.NoActiveSqlTransaction):
        sw.execute("DECLARE outside CURSOR FOR SELECT 1")
    with pytest.raises(errors.InvalidCursorName):
        sw.execute("FETCH 1 FROM no_such_cursor")
    assert sw.execute("SELECT 1").fetchone() == (1,)


def test_cancel(sw: psycopg.Connection[Any]) -> None:
    finished = threading.Event()

    def keep_cancelling() -> None:
        # a cancel that arrives before the query runs does nothing, so repeat until the query has ended
        while not finished.wait(0.2):
            sw.cancel()

    canceller = threading.Thread(target=keep_cancelling)
    canceller.start()
    try:
        with pytest.raises(errors.QueryCanceled) as info:
            sw.execute("SELECT pg_sleep(10)")
    finally:
        finished.set()
        canceller.join()
    assert info.value.diag.message_primary == "canceling statement due to user request"
    assert sw.execute("SELECT 1").fetchone() == (1,)


def test_cancel_in_transaction(tx_conn: psycopg.Connection[Any]) -> None:
    finished = threading.Event()

    def keep_cancelling() -> None:
        while not finished.wait(0.2):
            tx_conn.cancel()

    tx_conn.execute("SELECT 1")
    canceller = threading.Thread(target=keep_cancelling)
    canceller.start()
    try:
        with pytest.raises(errors.QueryCanceled):
            tx_conn.execute("SELECT pg_sleep(10)")
    finally:
        finished.set()
        canceller.join()
    assert _status(tx_conn) == "INERROR"
    tx_conn.rollback()
    assert tx_conn.execute("SELECT 2").fetchone() == (2,)


def test_statement_timeout(sw: psycopg.Connection[Any]) -> None:
    sw.execute("SET statement_timeout = '200ms'")
    assert sw.execute("SHOW statement_timeout").fetchone() == ("200ms",)
    with pytest.raises(errors.QueryCanceled) as info:
        sw.execute("SELECT pg_sleep(10)")
    assert info.value.diag.message_primary == "canceling statement due to statement timeout"
    sw.execute("SET statement_timeout = 0")
    assert sw.execute("SELECT pg_sleep(0.3), 1").fetchone() == ("", 1)
