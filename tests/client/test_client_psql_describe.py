"""psql 15's describe commands against sparkwire and against PostgreSQL 15 on the same DDL: no ERROR or WARNING,
and the same output where the two servers hold the same objects.

Each test's objects live in a schema of its own (one server is shared by the whole session), so the commands name
it: `\\d s.t`, `\\dt s.*`. Outputs are compared after replacing the owner's name (`materialize` here, `postgres`
there). Known difference, by design: sizes are 0 (the introspection store does not see storage's files).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator

import pytest

from tests.support.clients import same_schema
from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer

PSQL = shutil.which("psql")
pytestmark = pytest.mark.skipif(PSQL is None, reason="psql not installed (apt-get install postgresql-client-15)")

DDL = """
CREATE SCHEMA {s};
CREATE TABLE {s}.t (id integer NOT NULL, amount numeric(10,2), name text, ts timestamp with time zone,
                    flag boolean, v varchar(20), c char(3), d double precision, b bigint, j jsonb);
CREATE VIEW {s}.v AS SELECT id, name FROM {s}.t;
CREATE MATERIALIZED VIEW {s}.mv AS SELECT id, amount FROM {s}.t;
CREATE INDEX t_id_idx ON {s}.t (id);
CREATE INDEX t_two_idx ON {s}.t (name, id);
CREATE TABLE {s}.k (a integer, b text, c integer NOT NULL, PRIMARY KEY (a, b));
CREATE TABLE {s}.k1 (id bigint PRIMARY KEY, note text);
CREATE INDEX k_c_idx ON {s}.k (c);
"""


def psql(port: int, user: str, db: str, command: str, options: str = "") -> subprocess.CompletedProcess[str]:
    """`options`: PGOPTIONS (`-c welcome_message=off` keeps sparkwire's greeting out of stderr)."""
    assert PSQL is not None
    return subprocess.run(
        [PSQL, "-X", "-h", "127.0.0.1", "-p", str(port), "-U", user, "-d", db, "-c", command],
        capture_output=True,
        text=True,
        timeout=60,
        env={
            "PATH": "/usr/bin:/bin", "PGCONNECT_TIMEOUT": "10", "LC_ALL": "C.UTF-8", "PGTZ": "UTC",
            "PGOPTIONS": options,
        },
    )


def _ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    assert "ERROR" not in result.stderr and "WARNING" not in result.stderr, result.stderr
    return result.stdout


def ours(server: SparkwireServer, command: str) -> str:
    return _ok(psql(server.port, "materialize", "materialize", command))


def theirs(oracle: PostgresOracle, command: str) -> str:
    return _ok(psql(oracle.port, "postgres", "postgres", command))


def _owners(text: str) -> str:
    """Owner columns differ by name only; the width of the column follows the name."""
    return "\n".join(
        " | ".join(cell.strip() for cell in line.split("|")) if "|" in line else line.strip()
        for line in text.replace("materialize", "OWNER").replace("postgres", "OWNER").splitlines()
        if not set(line) <= {"-", "+"}
    )


@pytest.fixture(scope="module")
def schema(server: SparkwireServer, oracle: PostgresOracle) -> Iterator[str]:
    yield same_schema((server.dsn, oracle.dsn), "psqld", [s for s in DDL.split(";") if s.strip()])


@pytest.mark.parametrize(
    "command",
    [r"\d {s}.t", r"\d+ {s}.t", r"\d {s}.v", r"\d {s}.mv", r"\d {s}.t_id_idx", r"\d+ {s}.t_two_idx", r"\df {s}.*",
     r"\dT {s}.*", r"\d {s}.k", r"\d+ {s}.k1", r"\d {s}.k_pkey", r"\d+ {s}.k1_pkey", r"\d+ {s}.v"],
)
def test_describe_matches_postgres(server: SparkwireServer, oracle: PostgresOracle, schema: str, command: str) -> None:
    sql = command.format(s=schema)
    assert ours(server, sql) == theirs(oracle, sql)


@pytest.mark.parametrize("command", [r"\dt {s}.*", r"\dv {s}.*", r"\dm {s}.*", r"\di {s}.*", r"\d {s}.*"])
def test_lists_match_postgres_but_owners(
    server: SparkwireServer, oracle: PostgresOracle, schema: str, command: str
) -> None:
    sql = command.format(s=schema)
    assert _owners(ours(server, sql)) == _owners(theirs(oracle, sql))


def test_describe_plus_shows_view_definitions(server: SparkwireServer, schema: str) -> None:
    view = ours(server, rf"\d+ {schema}.v")
    assert "View definition:" in view and f" SELECT t.id,\n    t.name\n   FROM {schema}.t;" in view
    matview = ours(server, rf"\d+ {schema}.mv")
    assert f'Materialized view "{schema}.mv"' in matview
    assert "Access method: heap" in matview


@pytest.mark.parametrize(
    "command, expected",
    [
        (r"\l", "materialize"),
        (r"\l+", "pg_default"),
        (r"\dn", "{s}"),
        (r"\dn+", "{s}"),
        (r"\du", "materialize"),
        (r"\du+", "Superuser"),
        (r"\dt+ {s}.*", "permanent"),
        (r"\di+ {s}.*", "btree"),
        (r"\df", "List of functions"),
        (r"\df+", "List of functions"),
        (r"\dT", "List of data types"),
        (r"\conninfo", 'database "materialize" as user "materialize"'),
    ],
)
def test_listing_commands_run_cleanly(server: SparkwireServer, schema: str, command: str, expected: str) -> None:
    assert expected.format(s=schema) in ours(server, command.format(s=schema))


def test_d_t_shows_postgres_types_and_indexes(server: SparkwireServer, schema: str) -> None:
    out = ours(server, rf"\d {schema}.t")
    for text in ("numeric(10,2)", "timestamp with time zone", "character varying(20)", "character(3)", "not null",
                 '"t_id_idx" btree (id)', '"t_two_idx" btree (name, id)'):
        assert text in out


@pytest.mark.parametrize(
    "command, expected",
    [
        (r"\d pg_catalog.pg_am", ' amhandler | regproc |'),
        (r"\d pg_class", 'Table "pg_catalog.pg_class"'),
        (r"\d information_schema.tables", 'View "information_schema.tables"'),
        (r"\dvS information_schema.*", "information_schema | tables"),
        (r"\dtS pg_catalog.pg_ty*", "pg_catalog | pg_type | table"),
    ],
)
def test_system_relations_describe_quietly(server: SparkwireServer, command: str, expected: str) -> None:
    """Builtin pg_catalog / information_schema relations are in pg_class, and psql's catalog queries draw no
    optimizer notice (they read no user relation)."""
    result = psql(server.port, "materialize", "materialize", command, options="-c welcome_message=off")
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert expected in result.stdout
