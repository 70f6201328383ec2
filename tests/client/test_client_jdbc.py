"""The PostgreSQL JDBC driver (Debian's libpostgresql-jdbc-java) against sparkwire and against PostgreSQL 15.

tests/client/java/JdbcSmoke.java is compiled with javac into a temp dir and run once per server; it prints
"key=value" lines (prepared statements with typed setters, executeBatch, setFetchSize with portals, rollback,
SQLSTATEs). The sparkwire run must print exactly what the PostgreSQL run prints.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.clients import unique
from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer

JAR = Path("/usr/share/java/postgresql.jar")
SOURCE = Path(__file__).parent / "java" / "JdbcSmoke.java"
JAVAC = shutil.which("javac")
JAVA = shutil.which("java")

pytestmark = pytest.mark.skipif(
    JAVAC is None or JAVA is None or not JAR.exists(),
    reason="needs javac and /usr/share/java/postgresql.jar (apt-get install openjdk-17-jdk-headless "
    "libpostgresql-jdbc-java; ./scripts/test installs them)",
)


@pytest.fixture(scope="module")
def classes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    assert JAVAC is not None
    out = tmp_path_factory.mktemp("jdbc")
    subprocess.run([JAVAC, "-cp", str(JAR), "-d", str(out), str(SOURCE)], check=True, capture_output=True,
                   timeout=120)
    return out


def run_smoke(classes: Path, port: int, user: str, db: str) -> dict[str, str]:
    assert JAVA is not None
    result = subprocess.run(
        [JAVA, "-Duser.timezone=UTC", "-cp", f"{JAR}:{classes}", "JdbcSmoke",
         f"jdbc:postgresql://127.0.0.1:{port}/{db}?sslmode=disable", user, unique("jdbc")],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return dict(line.split("=", 1) for line in result.stdout.splitlines())


def test_jdbc(classes: Path, server: SparkwireServer, oracle: PostgresOracle) -> None:
    got = run_smoke(classes, server.port, "materialize", "materialize")
    want = run_smoke(classes, oracle.port, "postgres", "postgres")
    differences = {key: (got.get(key), want.get(key)) for key in sorted(got.keys() | want.keys())
                   if got.get(key) != want.get(key)}
    assert differences == {}, "\n".join(f"{k}: sparkwire {g!r} != postgres {w!r}" for k, (g, w) in
                                         differences.items())
    assert got["major"] == "15"
    assert got["simple"] == "1,two,one:int4,two:text"
    assert got["insert"] == "7"
    assert got["insert_nulls"] == "1"
    assert got["batch"] == "10,10"
    assert got["fetchsize"] == f"95,{sum(range(96))}"
    assert got["after_rollback"] == "18"
    assert got["error"] == "42P01"
    assert got["error2"] == "22012"
    first = "1|name 1|1.25|2024-01-01 10:11:12.123456|2024-02-01|false|10000000000|0.25"
    assert got["rows5"].split(";")[0] == first
    assert got["rows5"].split(";")[-1] == "8|null|null|null|null|null|null|null"
