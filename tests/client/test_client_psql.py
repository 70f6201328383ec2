"""psql 15 (the real command-line client) against sparkwire: -c, -f scripts with an inline COPY block,
\\conninfo, ON_ERROR_STOP exit codes and \\copy. Script output is compared with what psql prints for the same
script against PostgreSQL 15."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.clients import unique
from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer

PSQL = shutil.which("psql")
pytestmark = pytest.mark.skipif(
    PSQL is None, reason="psql not installed (apt-get install postgresql-client-15)"
)


def psql(port: int, *args: str, user: str = "materialize", db: str = "materialize",
         stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    assert PSQL is not None
    return subprocess.run(
        [PSQL, "-X", "-h", "127.0.0.1", "-p", str(port), "-U", user, "-d", db, *args],
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "PGCONNECT_TIMEOUT": "10", "LC_ALL": "C.UTF-8", "PGTZ": "UTC"},
    )


def test_command(server: SparkwireServer) -> None:
    result = psql(server.port, "-A", "-t", "-c", "SELECT 1 + 1, 'two'")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "2|two\n"


def test_aligned_output_matches_oracle(server: SparkwireServer, oracle: PostgresOracle) -> None:
    query = (
        "SELECT i AS num, 'row ' || i AS label, i * 1.5 AS half, i % 2 = 0 AS even "
        "FROM generate_series(1, 3) i"
    )
    got = psql(server.port, "-c", query)
    want = psql(oracle.port, "-c", query, user="postgres", db="postgres")
    assert got.returncode == 0, got.stderr
    assert got.stdout == want.stdout


def test_script_file(server: SparkwireServer, oracle: PostgresOracle, tmp_path: Path) -> None:
    table = unique("psql_f")
    script = tmp_path / "script.sql"
    script.write_text(
        f"CREATE TABLE {table} (a int, b text, c numeric(6,2));\n"
        f"COPY {table} FROM STDIN;\n"
        "1\tone\t1.10\n"
        "2\t\\N\t2.00\n"
        "\\.\n"
        f"INSERT INTO {table} VALUES (3, 'three', NULL), (4, 'four', 4.44);\n"
        f"UPDATE {table} SET b = 'TWO' WHERE a = 2;\n"
        f"SELECT * FROM {table} ORDER BY a;\n"
        f"SELECT count(*), sum(c) FROM {table};\n"
        "BEGIN;\n"
        f"DELETE FROM {table} WHERE a > 2;\n"
        "ROLLBACK;\n"
        f"SELECT count(*) FROM {table};\n"
        f"DROP TABLE {table};\n"
    )
    got = psql(server.port, "-v", "ON_ERROR_STOP=1", "-f", str(script))
    want = psql(oracle.port, "-v", "ON_ERROR_STOP=1", "-f", str(script), user="postgres", db="postgres")
    assert got.returncode == 0, got.stderr
    welcome, _, rest = got.stderr.partition("  View documentation: docs/ in the sparkwire repository\n")
    assert welcome.startswith("NOTICE:  connected to sparkwire (v")  # Materialize's greeting
    assert rest == "", got.stderr
    assert got.stdout == want.stdout
    assert "COPY 2" in got.stdout and "(4 rows)" in got.stdout


def test_conninfo(server: SparkwireServer) -> None:
    result = psql(server.port, "-c", "\\conninfo")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        f'You are connected to database "materialize" as user "materialize" on host "127.0.0.1" '
        f'at port "{server.port}".'
    )


def test_on_error_stop(server: SparkwireServer) -> None:
    script = "SELECT 1;\nSELECT * FROM no_such_table_psql;\nSELECT 'not reached';\n"
    stopped = psql(server.port, "-A", "-t", "-v", "ON_ERROR_STOP=1", stdin=script)
    assert stopped.returncode == 3
    assert stopped.stdout == "1\n"
    assert 'relation "no_such_table_psql" does not exist' in stopped.stderr
    carried_on = psql(server.port, "-A", "-t", stdin=script)
    assert carried_on.returncode == 0
    assert carried_on.stdout == "1\nnot reached\n"


def test_backslash_copy(server: SparkwireServer, tmp_path: Path) -> None:
    table = unique("psql_copy")
    source = tmp_path / "in.csv"
    source.write_text("a,b\n1,first\n2,\"second, with comma\"\n3,\n")
    target = tmp_path / "out.csv"
    result = psql(
        server.port, "-v", "ON_ERROR_STOP=1",
        "-c", f"CREATE TABLE {table} (a int, b text)",
        "-c", f"\\copy {table} FROM '{source}' WITH (FORMAT csv, HEADER true)",
        "-c", f"\\copy (SELECT * FROM {table} ORDER BY a) TO '{target}' WITH (FORMAT csv, HEADER true)",
        "-c", f"DROP TABLE {table}",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["CREATE TABLE", "COPY 3", "COPY 3", "DROP TABLE"]
    assert target.read_text() == source.read_text()
