"""Plans cached before a schema change must not outlive it — in any session.

A session caches plans by SQL text and keeps the plans of prepared statements; both embed parameter types inferred
from table columns and the result fields. Each scenario runs with two psycopg connections on sparkwire and on the
PostgreSQL 15 oracle, and both servers must give the same observable outcome (rows, or the SQLSTATE of an error).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import psycopg
import pytest

from tests.support.clients import unique
from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer

Conn = psycopg.Connection[Any]
Scenario = Callable[[Conn, Conn, str], list[object]]


def _attempt(run: Callable[[], object]) -> object:
    try:
        return run()
    except psycopg.Error as err:
        return f"error {err.sqlstate}"


def other_session_recreates_table(a: Conn, b: Conn, t: str) -> list[object]:
    """The parameter of A's cached INSERT was inferred as integer; B recreates the column as text."""
    a.execute(f"CREATE TABLE {t} (x int)")
    a.execute(f"INSERT INTO {t} VALUES (%s)", ["5"])  # str → unknown type, inferred from the column
    b.execute(f"DROP TABLE {t}")
    b.execute(f"CREATE TABLE {t} (x text)")
    a.execute(f"INSERT INTO {t} VALUES (%s)", ["007"])
    return a.execute(f"SELECT x FROM {t}").fetchall()


def committed_ddl_of_an_open_transaction(a: Conn, b: Conn, t: str) -> list[object]:
    """B plans against the old table while A's DDL is uncommitted; after A commits, B must re-plan."""
    b.execute(f"CREATE TABLE {t} (x int)")
    b.execute(f"INSERT INTO {t} VALUES (7)")
    query = f"SELECT count(*) FROM {t} WHERE x = %s"
    before = b.execute(query, ["7"]).fetchall()
    a.execute("BEGIN")
    a.execute(f"DROP TABLE {t}")
    a.execute(f"CREATE TABLE {t} (x text)")
    a.execute(f"INSERT INTO {t} VALUES ('007'), ('7')")  # a stale integer plan would match both
    a.execute("COMMIT")
    after = b.execute(query, ["007"]).fetchall()
    return [before, after]


def prepared_statement_same_shape(a: Conn, b: Conn, t: str) -> list[object]:
    """A named prepared statement keeps working when its table is recreated with the same columns."""
    a.execute(f"CREATE TABLE {t} (x int)")
    a.execute(f"INSERT INTO {t} VALUES (1)")
    query = f"SELECT x FROM {t} ORDER BY x"
    first = a.execute(query, prepare=True).fetchall()
    b.execute(f"DROP TABLE {t}")
    b.execute(f"CREATE TABLE {t} (x int)")
    b.execute(f"INSERT INTO {t} VALUES (2)")
    second = _attempt(lambda: a.execute(query, prepare=True).fetchall())
    return [first, second]


def prepared_statement_new_shape(a: Conn, b: Conn, t: str) -> list[object]:
    """…and fails like PostgreSQL (0A000 cached plan must not change result type) when the result changes."""
    a.execute(f"CREATE TABLE {t} (x int)")
    a.execute(f"INSERT INTO {t} VALUES (1)")
    query = f"SELECT * FROM {t}"
    first = a.execute(query, prepare=True).fetchall()
    b.execute(f"DROP TABLE {t}")
    b.execute(f"CREATE TABLE {t} (x int, y text)")
    second = _attempt(lambda: a.execute(query, prepare=True).fetchall())
    return [first, second]


SCENARIOS = [
    other_session_recreates_table,
    committed_ddl_of_an_open_transaction,
    prepared_statement_same_shape,
    prepared_statement_new_shape,
]


def _run(dsn: str, scenario: Scenario) -> list[object]:
    table = unique("sch")
    with psycopg.connect(dsn, autocommit=True) as a, psycopg.connect(dsn, autocommit=True) as b:
        try:
            return scenario(a, b, table)
        finally:
            b.execute(f"DROP TABLE IF EXISTS {table}")


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__)
def test_schema_change_matches_postgres(server: SparkwireServer, oracle: PostgresOracle, scenario: Scenario) -> None:
    assert _run(server.dsn, scenario) == _run(oracle.dsn, scenario)


def test_ddl_in_a_block_takes_effect_at_once(server: SparkwireServer) -> None:
    """DDL is not transactional in sparkwire (docs/architecture.md): ROLLBACK keeps the recreated table, and the
    plans made inside the block describe it — the same INSERT stores 7 in the int column, not '007'."""
    t = unique("ddl_block")
    with psycopg.connect(server.dsn, autocommit=True) as a:
        a.execute(f"CREATE TABLE {t} (x text)")
        a.execute("BEGIN")
        a.execute(f"DROP TABLE {t}")
        a.execute(f"CREATE TABLE {t} (x int)")
        a.execute(f"INSERT INTO {t} VALUES (%s)", ["007"])
        a.execute("ROLLBACK")
        a.execute(f"INSERT INTO {t} VALUES (%s)", ["008"])
        assert a.execute(f"SELECT x FROM {t}").fetchall() == [(8,)]
        a.execute(f"DROP TABLE {t}")
