"""Fixtures of the security tests: a superuser and a plain role (SELECT on one table, nothing else), logged in to
the session's sparkwire server, and the same two on the PostgreSQL oracle where a test compares answers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer

Conn = psycopg.Connection[Any]
PLAIN = "sec_plain"


def login(host_port: tuple[str, int], user: str) -> Conn:
    host, port = host_port
    return psycopg.connect(f"host={host} port={port} user={user} dbname=materialize", autocommit=True)


@pytest.fixture(scope="package")
def admin(server: SparkwireServer) -> Iterator[Conn]:
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE sec_public (a int, b text)")
        conn.execute("INSERT INTO sec_public VALUES (1, 'one'), (2, 'two')")
        conn.execute("CREATE TABLE sec_secret (s text)")
        conn.execute("INSERT INTO sec_secret VALUES ('hidden')")
        conn.execute(f"CREATE ROLE {PLAIN} LOGIN")
        conn.execute(f"GRANT SELECT ON sec_public TO {PLAIN}")
        yield conn


@pytest.fixture(scope="package")
def plain(server: SparkwireServer, admin: Conn) -> Iterator[Conn]:
    with login(("127.0.0.1", server.port), PLAIN) as conn:
        yield conn


@pytest.fixture(scope="package")
def pg_admin(oracle: PostgresOracle) -> Iterator[Conn]:
    with psycopg.connect(oracle.dsn, autocommit=True) as conn:
        conn.execute(f"DROP ROLE IF EXISTS {PLAIN}")
        conn.execute(f"CREATE ROLE {PLAIN} LOGIN")
        yield conn


@pytest.fixture(scope="package")
def pg_plain(oracle: PostgresOracle, pg_admin: Conn) -> Iterator[Conn]:
    dsn = psycopg.conninfo.conninfo_to_dict(oracle.dsn)
    dsn["user"] = PLAIN
    dsn.pop("password", None)
    with psycopg.connect(**dsn, autocommit=True) as conn:  # type: ignore[arg-type]
        yield conn
