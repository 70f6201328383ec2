"""now() and its kin are the time the transaction began (PostgreSQL and Materialize alike), on every route a
statement can take: DuckDB (no relation), Spark (a user table), the write path (VALUES cells, DEFAULT, UPDATE's SET,
INSERT … SELECT, COPY FROM) and the extended protocol. Each check runs on sparkwire and on PostgreSQL 15 through
psycopg, and both must give the same answers (functions/transaction_time.py)."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterator

import psycopg
import pytest

Conn = psycopg.Connection[tuple[object, ...]]


@pytest.fixture(params=["sparkwire", "postgres"])
def conn(request: pytest.FixtureRequest, sw: Conn, pg: Conn) -> Conn:
    chosen: Conn = sw if request.param == "sparkwire" else pg
    chosen.execute("SET TimeZone = 'UTC'")
    return chosen


@pytest.fixture
def table(conn: Conn) -> Iterator[str]:
    name = f"tt_{uuid.uuid4().hex[:8]}"
    conn.execute(f"CREATE TABLE {name} (k int, at timestamptz, d timestamptz DEFAULT now(), l timestamp)")
    conn.execute(f"INSERT INTO {name} (k) VALUES (0)")
    yield name
    conn.execute(f"DROP TABLE IF EXISTS {name}")


def _one(conn: Conn, sql: str, params: tuple[object, ...] = ()) -> object:
    row = conn.execute(sql, params).fetchone()
    assert row is not None
    return row[0]


def test_a_block_sees_one_now_on_every_route(conn: Conn, table: str) -> None:
    with conn.transaction():
        start = _one(conn, "SELECT now()")
        assert isinstance(start, dt.datetime)
        conn.execute("SELECT pg_sleep(0.05)")
        assert conn.execute("SELECT now(), transaction_timestamp(), CURRENT_TIMESTAMP").fetchone() == (start,) * 3
        assert _one(conn, "SELECT statement_timestamp() > now() AND clock_timestamp() > now()") is True
        assert _one(conn, f"SELECT max(now()) FROM {table}") == start  # a user table: Spark
        conn.execute(f"INSERT INTO {table} (k, at) VALUES (1, now()), (2, transaction_timestamp())")
        conn.execute(f"INSERT INTO {table} (k, at) VALUES (%s, now())", (3,))  # parameters: extended protocol
        conn.execute("SELECT pg_sleep(0.05)")
        conn.execute(f"INSERT INTO {table} (k, at) SELECT k + 10, now() FROM {table} WHERE k = 0")
        conn.execute(f"UPDATE {table} SET at = CURRENT_TIMESTAMP, l = LOCALTIMESTAMP WHERE k = 0")
        with conn.cursor().copy(f"COPY {table} (k, at) FROM STDIN") as copy:  # d: its DEFAULT now()
            copy.write_row((20, "2000-01-01 00:00:00+00"))
    rows = conn.execute(f"SELECT k, at, d FROM {table} WHERE k BETWEEN 1 AND 19 ORDER BY k").fetchall()
    assert rows == [(k, start, start) for k in (1, 2, 3, 10)]
    assert _one(conn, f"SELECT d FROM {table} WHERE k = 20") == start
    assert conn.execute(f"SELECT at, l FROM {table} WHERE k = 0").fetchone() == (start, start.replace(tzinfo=None))
    assert _one(conn, "SELECT now()") != start  # the next transaction, its own


def test_a_prepared_insert_binds_each_execution_afresh(conn: Conn, table: str) -> None:
    """A prepared INSERT's cells are evaluated from the DuckDB text remembered for them (planner/execute/evaluator.py):
    each execution still binds its own parameters, its own transaction's now(), and LOCALTIMESTAMP in the zone set
    at that moment."""
    sql = f"INSERT INTO {table} (k, at, l) VALUES (%s, now(), LOCALTIMESTAMP) RETURNING k, at, l"
    for k, zone in ((40, "UTC"), (41, "Asia/Kolkata"), (42, "Asia/Kolkata"), (43, "America/St_Johns"), (44, "UTC")):
        conn.execute(f"SET TimeZone = '{zone}'")
        with conn.transaction():
            start, local = conn.execute("SELECT now(), LOCALTIMESTAMP").fetchone() or ()
            assert conn.execute(sql, (k,), prepare=True).fetchone() == (k, start, local)
    assert [row[0] for row in conn.execute(f"SELECT k FROM {table} WHERE k >= 40 ORDER BY k")] == [40, 41, 42, 43, 44]


def test_each_autocommit_statement_is_its_own_transaction(conn: Conn) -> None:
    first = _one(conn, "SELECT now()")
    conn.execute("SELECT pg_sleep(0.01)")
    assert _one(conn, "SELECT now()") != first
    assert _one(conn, "SELECT now() = transaction_timestamp() AND now() = statement_timestamp()") is True


def test_precision_rounds_and_the_local_kinds_follow_the_time_zone(conn: Conn) -> None:
    conn.execute("SET TimeZone = 'Asia/Kolkata'")
    with conn.transaction():
        assert conn.execute(
            "SELECT CURRENT_TIMESTAMP(0) = date_trunc('second', now() + interval '0.5 second'), "
            "LOCALTIMESTAMP(3) = date_trunc('millisecond', (now() + interval '0.0005 second') AT TIME ZONE "
            "'Asia/Kolkata'), "
            "CURRENT_DATE = (now() AT TIME ZONE 'Asia/Kolkata')::date, "
            "LOCALTIME = (now() AT TIME ZONE 'Asia/Kolkata')::time"
        ).fetchone() == (True, True, True, True)


def test_special_inputs_are_the_transaction_time(conn: Conn, table: str) -> None:
    """`'now'`, `'today'`, `'tomorrow'`, `'yesterday'` cast to a date/time type, in the session's zone."""
    conn.execute("SET TimeZone = 'America/St_Johns'")
    checks = (
        "'now'::timestamptz = now(), timestamptz 'now' = now(), ' Now '::timestamp = LOCALTIMESTAMP, "
        "'today'::date = CURRENT_DATE, 'tomorrow'::date = CURRENT_DATE + 1, "
        "'yesterday'::timestamp = (CURRENT_DATE - 1)::timestamp, "
        "'today'::timestamptz <= now() AND now() < 'tomorrow'::timestamptz"
    )
    with conn.transaction():
        conn.execute("SELECT pg_sleep(0.01)")
        assert conn.execute(f"SELECT {checks}").fetchone() == (True,) * 7
        assert conn.execute(f"SELECT {checks} FROM {table} WHERE k = 0").fetchone() == (True,) * 7  # Spark
        conn.execute(f"INSERT INTO {table} (k, at) VALUES (30, 'now'::timestamptz)")
        assert _one(conn, f"SELECT at = now() FROM {table} WHERE k = 30") is True
