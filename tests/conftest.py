"""Session-wide fixtures: one sparkwire server and one PostgreSQL oracle per test session, each in a temp dir."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkwireServer]:
    srv = SparkwireServer.start(tmp_path_factory.mktemp("sparkwire"))
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
