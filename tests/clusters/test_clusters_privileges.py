"""Cluster privileges through psycopg against a real server (issue 15, docs/rbac.md): CREATE CLUSTER needs the
CREATECLUSTER system privilege and makes the creator the owner; ALTER / DROP CLUSTER and replica DDL need ownership;
a materialized view or index in a cluster needs CREATE on it; a query runs on the session's cluster only with
USAGE on it (quickstart: PUBLIC has USAGE); GRANT / REVOKE … ON CLUSTER and ALTER CLUSTER … OWNER TO."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from tests.client.test_client_rbac import denied
from tests.support.server import SparkwireServer

Conn = psycopg.Connection[Any]


def connect(server: SparkwireServer, user: str) -> Conn:
    return psycopg.connect(f"host=127.0.0.1 port={server.port} user={user} dbname=materialize", autocommit=True)



@pytest.fixture(scope="module")
def admin(server: SparkwireServer) -> Iterator[Conn]:
    with connect(server, "materialize") as conn:
        for sql in (
            "CREATE ROLE clp_alice LOGIN",
            "CREATE ROLE clp_bob LOGIN",
            "CREATE TABLE clp_t (a int)",
            "INSERT INTO clp_t VALUES (1)",
            "GRANT SELECT ON clp_t TO clp_alice, clp_bob",
            "GRANT CREATE ON SCHEMA public TO clp_alice, clp_bob",
        ):
            conn.execute(sql)
        yield conn


def test_cluster_privileges(server: SparkwireServer, admin: Conn) -> None:
    with connect(server, "clp_alice") as alice, connect(server, "clp_bob") as bob:
        assert "permission denied" in denied(alice, "CREATE CLUSTER clp_c (SIZE = '25cc')")
        admin.execute("GRANT CREATECLUSTER ON SYSTEM TO clp_alice")
        alice.execute("CREATE CLUSTER clp_c (SIZE = '25cc')")
        owner = admin.execute(
            "SELECT r.name FROM mz_clusters c JOIN mz_roles r ON r.id = c.owner_id WHERE c.name = 'clp_c'"
        ).fetchall()
        assert owner == [("clp_alice",)]
        alice.execute("ALTER CLUSTER clp_c SET (REPLICATION FACTOR = 2)")  # the owner may
        assert denied(bob, "ALTER CLUSTER clp_c SET (SIZE = '50cc')") == "must be owner of CLUSTER clp_c"
        assert denied(bob, "DROP CLUSTER clp_c") == "must be owner of CLUSTER clp_c"
        # quickstart: PUBLIC has USAGE, so bob's query runs; on clp_c bob needs USAGE, and CREATE for an index
        assert bob.execute("SELECT a FROM clp_t WHERE a > 0").fetchall() == [(1,)]
        bob.execute("SET cluster = clp_c")
        assert denied(bob, "SELECT a FROM clp_t WHERE a > 0") == 'permission denied for CLUSTER "clp_c"'
        assert denied(bob, "CREATE INDEX clp_i ON clp_t (a)") in (
            'permission denied for CLUSTER "clp_c"',
            "must be owner of TABLE materialize.public.clp_t",
        )
        assert denied(bob, "CREATE MATERIALIZED VIEW clp_mv AS SELECT a FROM clp_t") == (
            'permission denied for CLUSTER "clp_c"'
        )
        alice.execute("GRANT USAGE, CREATE ON CLUSTER clp_c TO clp_bob")
        assert bob.execute("SELECT a FROM clp_t WHERE a > 0").fetchall() == [(1,)]
        bob.execute("CREATE MATERIALIZED VIEW clp_mv AS SELECT a FROM clp_t")
        privileges = admin.execute("SELECT privileges::text FROM mz_clusters WHERE name = 'clp_c'").fetchone()
        assert privileges is not None and "=UC/" in privileges[0]
        alice.execute("REVOKE USAGE ON CLUSTER clp_c FROM clp_bob")
        assert denied(bob, "SELECT a FROM clp_t WHERE a > 0") == 'permission denied for CLUSTER "clp_c"'
        admin.execute("ALTER CLUSTER clp_c OWNER TO clp_bob")
        bob.execute("ALTER CLUSTER clp_c RENAME TO clp_c2")
        assert denied(alice, "DROP CLUSTER clp_c2") == "must be owner of CLUSTER clp_c2"
        admin.execute("DROP CLUSTER clp_c2 CASCADE")
