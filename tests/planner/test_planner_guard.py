"""Security: every user is refused file access, extensions, attached databases and engine settings: engine
functions do not exist (42883, the allowlist), engine statements are refused (42501) before anything reaches
DuckDB, and underneath DuckDB's own configuration refuses files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sparkwire.engine.duckdb import DuckDBEngine
from sparkwire.errors import PgError
from sparkwire.session.service import PlannerService
from tests.planner.test_planner_helpers import Client, new_service


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Client]:
    svc: PlannerService = new_service(Path(tmp_path_factory.mktemp("guard")))
    c = Client(svc)
    yield c
    c.close()
    svc.close()


# Engine functions are not PostgreSQL functions: they do not exist for a client (the allowlist, functions.py).
NOT_FUNCTIONS = [
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM read_csv_auto('/etc/passwd')",
    "SELECT * FROM read_parquet('x.parquet')",
    "SELECT * FROM parquet_scan('x.parquet')",
    "SELECT * FROM read_json('x.json')",
    "SELECT content FROM read_text('/etc/hostname')",
    "SELECT * FROM read_blob('/etc/hostname')",
    "SELECT * FROM sniff_csv('/etc/passwd')",
    "SELECT getenv('HOME')",
    "SELECT * FROM json_execute_serialized_sql(json_serialize_sql('SELECT 1'))",
    "SELECT * FROM enable_logging()",
    "SELECT * FROM duckdb_logs()",
    "SELECT * FROM main.duckdb_tables()",
    'SELECT * FROM "DUCKDB_DATABASES"()',
    "SELECT * FROM pragma_database_list()",
    "SELECT * FROM checkpoint()",
    "SELECT sw_pg_get_userbyid(10)",
    "SELECT pg_read_file('/etc/passwd')",
    "SELECT pg_catalog.pg_ls_dir('/')",
    "WITH q AS (SELECT query('SELECT 1')) SELECT * FROM q",
    "SELECT (SELECT x FROM query_table('t') x)",
    "SELECT * FROM generate_series(1, 2) g, LATERAL (SELECT duckdb_memory()) m",
]

# Engine statements are refused by their head, whatever comments precede them.
REFUSED = [
    "ATTACH '/tmp/other.db' AS other",
    "DETACH other",
    "INSTALL httpfs",
    "LOAD httpfs",
    "EXPORT DATABASE '/tmp/dump'",
    "IMPORT DATABASE '/tmp/dump'",
    "PRAGMA database_list",
    "CALL pragma_version()",
    "/* c */ CALL enable_logging()",
    "-- c\nPRAGMA enable_profiling",
    "USE memory",
    "CHECKPOINT",
]


@pytest.mark.parametrize("sql", NOT_FUNCTIONS)
def test_engine_functions_do_not_exist(client: Client, sql: str) -> None:
    err = client.error(sql)
    assert err.code == "42883", err
    assert "does not exist" in err.message


@pytest.mark.parametrize("sql", REFUSED)
def test_refused_with_42501(client: Client, sql: str) -> None:
    err = client.error(sql)
    assert err.code == "42501"
    assert "permission denied" in err.message


@pytest.mark.parametrize("sql", ["SELECT * FROM '/etc/passwd'", "SELECT * FROM 'data.csv'"])
def test_a_quoted_path_is_a_relation_name_never_a_file(client: Client, sql: str) -> None:
    err = client.error(sql)
    assert err.code == "42P01", err


def test_duckdb_settings_are_session_variables_not_engine_settings(client: Client) -> None:
    assert client.error("SET enable_external_access = true").code == "42704"
    assert client.error("SET threads = 1").code == "42704"
    assert client.error("RESET lock_configuration").code == "42704"


def test_engine_itself_refuses_files_and_settings(tmp_path: Path) -> None:
    """Belt and braces: even SQL that bypassed the guard could not reach files or unlock the configuration."""
    engine = DuckDBEngine(tmp_path / "db.duckdb")
    try:
        con = engine.connect()
        with pytest.raises(PgError) as info:
            con.command("SELECT * FROM read_csv('/etc/passwd')")
        assert info.value.code == "42501"
        with pytest.raises(PgError):
            con.command("SET enable_external_access = true")
        with pytest.raises(PgError):
            con.command("COPY (SELECT 1) TO '/tmp/sparkwire-engine-copy.csv'")
        assert not Path("/tmp/sparkwire-engine-copy.csv").exists()
        con.close()
    finally:
        engine.close()
