"""pgjdbc's DatabaseMetaData (Debian's libpostgresql-jdbc-java) against sparkwire and against PostgreSQL 15.

tests/client/java/JdbcMetadata.java is compiled into a temp dir and run once per server on the same DDL in a schema of
its own; it prints "key=value" lines for getCatalogs, getSchemas, getTables, getColumns, getPrimaryKeys,
getIndexInfo and getTypeInfo. Every line must be equal, except the ones that name databases and schemas, which
differ by what each server holds (`materialize` and Materialize's builtin schemas here).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.clients import same_schema
from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer

JAR = Path("/usr/share/java/postgresql.jar")
SOURCE = Path(__file__).parent / "java" / "JdbcMetadata.java"
JAVAC = shutil.which("javac")
JAVA = shutil.which("java")

pytestmark = pytest.mark.skipif(
    JAVAC is None or JAVA is None or not JAR.exists(),
    reason="needs javac and /usr/share/java/postgresql.jar (apt-get install openjdk-17-jdk-headless "
    "libpostgresql-jdbc-java)",
)

DDL = (
    "CREATE SCHEMA {s}",
    "CREATE TABLE {s}.t (id integer NOT NULL, amount numeric(10,2), name text, ts timestamp with time zone, "
    "v varchar(20), c char(3), d double precision, b bigint, flag boolean, PRIMARY KEY (id))",
    "CREATE VIEW {s}.v AS SELECT id, name FROM {s}.t",
    "CREATE MATERIALIZED VIEW {s}.mv AS SELECT id, amount FROM {s}.t",
    "CREATE INDEX t_id_idx ON {s}.t (id)",
    "CREATE INDEX t_two_idx ON {s}.t (name, id)",
)
SERVER_SPECIFIC = {"catalog", "catalogs", "all_schemas"}


@pytest.fixture(scope="module")
def classes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    assert JAVAC is not None
    out = tmp_path_factory.mktemp("jdbc_metadata")
    subprocess.run([JAVAC, "-cp", str(JAR), "-d", str(out), str(SOURCE)], check=True, capture_output=True,
                   timeout=120)
    return out


def run(classes: Path, port: int, user: str, db: str, schema: str) -> dict[str, str]:
    assert JAVA is not None
    result = subprocess.run(
        [JAVA, "-Duser.timezone=UTC", "-cp", f"{JAR}:{classes}", "JdbcMetadata",
         f"jdbc:postgresql://127.0.0.1:{port}/{db}?sslmode=disable", user, schema],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return dict(line.split("=", 1) for line in result.stdout.splitlines())


def test_database_metadata(classes: Path, server: SparkwireServer, oracle: PostgresOracle) -> None:
    schema = same_schema((server.dsn, oracle.dsn), "jdbcmd", DDL)
    got = run(classes, server.port, "materialize", "materialize", schema)
    want = run(classes, oracle.port, "postgres", "postgres", schema)
    assert not [key for key in got if key.endswith("!")], got
    differences = {key: (got.get(key), want.get(key)) for key in sorted(got.keys() | want.keys())
                   if key not in SERVER_SPECIFIC and got.get(key) != want.get(key)}
    assert differences == {}, "\n".join(f"{k}: sparkwire {g!r} != postgres {w!r}" for k, (g, w) in
                                         differences.items())
    assert got["catalog"] == "materialize"
    assert "materialize" in got["catalogs"].split(";")
    assert {schema, "public", "mz_catalog", "pg_catalog"} <= set(got["all_schemas"].split(";"))
    assert got["tables"].split(";") == [
        f"{schema}|t_id_idx|INDEX|null", f"{schema}|t_pkey|INDEX|null", f"{schema}|t_two_idx|INDEX|null",
        f"{schema}|mv|MATERIALIZED VIEW|null",
        f"{schema}|t|TABLE|null", f"{schema}|v|VIEW|null",
    ]
    assert got["index_info"] == (
        "t_pkey|false|3|1|id|A;t_id_idx|true|3|1|id|A;t_two_idx|true|3|1|name|A;t_two_idx|true|3|2|id|A"
    )
    assert got["primary_keys"] == want["primary_keys"] != ""
    assert got["columns"].split(";")[1] == "amount|2|numeric|10|2|1|2|YES|NO|null"
