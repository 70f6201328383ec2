"""mz_internal.mz_sessions and pg_stat_activity: `SessionTable` adds a row per session and removes it at the end,
readable through the same rewrite clients' SQL goes through."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from sparkwire.engine.duckdb import DuckDBEngine
from sparkwire.introspection import store
from sparkwire.introspection.sessions import SessionInfo, SessionTable
from sparkwire.planner.translate.duckdb import SessionContext, parse, to_duckdb

CTX = SessionContext(1, "materialize", 4242)


@pytest.fixture
def engine() -> Iterator[DuckDBEngine]:
    engine = DuckDBEngine(None)
    listener = store.install(engine, ())
    try:
        yield engine
    finally:
        listener.close()
        engine.close()


def rows(engine: DuckDBEngine, sql: str) -> list[tuple[Any, ...]]:
    con = engine.connect()
    try:
        _, batches = con.query(to_duckdb(parse(sql), CTX))
        return [tuple(row.values()) for batch in batches for row in batch.to_pylist()]
    finally:
        con.close()


def test_sessions_come_and_go(engine: DuckDBEngine) -> None:
    sessions = SessionTable(engine)
    info = SessionInfo(4242, "u1", 20000, "materialize", "materialize", 20001, "psql", "127.0.0.1", 50000)
    sessions.started(info)
    sessions.started(SessionInfo(4243, "u1", 20000, "materialize", "materialize", 20001))
    got = rows(engine, "SELECT id, connection_id, role_id, client_ip, connected_at FROM mz_internal.mz_sessions "
                       "ORDER BY connection_id")
    assert (str(got[0][0]), *got[0][1:4]) == (str(info.id), 4242, "u1", "127.0.0.1")
    assert got[0][4] == info.connected_at
    assert [r[1] for r in got] == [4242, 4243]
    activity = rows(engine, "SELECT datname, pid, usename, application_name, state, backend_type, query "
                            "FROM pg_stat_activity WHERE pid = pg_backend_pid()")
    assert activity == [("materialize", 4242, "materialize", "psql", "idle", "client backend", None)]
    sessions.ended(4242)
    assert [r[0] for r in rows(engine, "SELECT connection_id FROM mz_internal.mz_sessions")] == [4243]
    assert rows(engine, "SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE pid = 4242") == [(0,)]
    sessions.close()
