"""Session-wide fixtures: one sparkwire server and one PostgreSQL oracle per test session, each in a temp dir.

Client fixtures on top of them: `sw` and `pg` are fresh autocommit psycopg connections to sparkwire and to the
oracle (closed after the test), for tests that run the same statement on both and compare what a client sees.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from sparkwire.catalog import Catalog
from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkwireServer]:
    srv = SparkwireServer.start(tmp_path_factory.mktemp("sparkwire"))
    with psycopg.connect(srv.dsn, autocommit=True) as conn:
        # every statement of the suite is logged: the history's data rate (a budget shared by the whole server) is
        # not spent by one test for another's; tests/workload/test_workload_history.py tests it on a server of its own
        conn.execute("ALTER SYSTEM SET statement_logging_target_data_rate = ''")
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="session")
def dsn(server: SparkwireServer) -> str:
    return server.dsn


@pytest.fixture(scope="session")
def oracle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PostgresOracle]:
    pg = PostgresOracle.start(Path(tmp_path_factory.mktemp("pg")))
    try:
        yield pg
    finally:
        pg.stop()


@pytest.fixture
def sw(dsn: str) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        yield conn


@pytest.fixture
def role(sw: psycopg.Connection[tuple[object, ...]]) -> Iterator[str]:
    """A fresh role that may log in on the session's server, dropped afterwards (connect as it with
    `tests.support.clients.as_role(sw.info.dsn, role)`)."""
    name = "r_" + uuid.uuid4().hex[:10]
    sw.execute(f"CREATE ROLE {name} LOGIN")
    yield name
    sw.execute(f"DROP ROLE {name}")


@pytest.fixture
def catalog(tmp_path: Path) -> Iterator[Catalog]:
    """A fresh durable catalog in the test's temp dir."""
    cat = Catalog.open(tmp_path)
    try:
        yield cat
    finally:
        cat.close()


@pytest.fixture
def pg(oracle: PostgresOracle) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    with psycopg.connect(oracle.dsn, autocommit=True) as conn:
        yield conn
