"""pgcli 4 against sparkwire through its own API, unchanged (tests/client/tools/pgcli/pgcli_driver.py, run in pgcli's
tool venv built from tests/tools/pgcli.txt): PGExecute connecting and setting the time zone as pgcli's start-up does,
every completion refresher (search_path, schemata, tables, columns, foreign keys, views, types, databases, casing,
functions) populating a PGCompleter, completions after `SELECT * FROM `, a schema, and for columns, pgspecial's `\\dn
\\dt \\dv \\dm \\di \\df \\dT \\l \\du \\d \\d+` as pgcli runs them, `\\ev`'s view definition, errors and transaction
indicators. The same driver runs against PostgreSQL 15: what describes the objects it created must be equal (owners
aside)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.clients import unique
from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer
from tests.support.tools import tool_bin

DRIVER = Path(__file__).with_name("pgcli") / "pgcli_driver.py"
PREFIX = unique("pgcli")  # the same on both servers, so what names the objects compares equal
SCHEMA, TABLE, OTHER, VIEW, MATVIEW = (
    f"{PREFIX}_s", f"{PREFIX}_orders", f"{PREFIX}_customers", f"{PREFIX}_big", f"{PREFIX}_totals",
)


def run_driver(port: int, user: str, database: str, home: Path) -> dict[str, Any]:
    config = {"host": "127.0.0.1", "port": port, "user": user, "database": database, "prefix": PREFIX}
    result = subprocess.run(
        [str(tool_bin("pgcli", "python")), str(DRIVER), json.dumps(config)],
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "PGCONNECT_TIMEOUT": "10"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    out: dict[str, Any] = json.loads(result.stdout)
    return out


@pytest.fixture(scope="module")
def seen(server: SparkwireServer, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return run_driver(server.port, "materialize", "materialize", tmp_path_factory.mktemp("pgcli-home"))


@pytest.fixture(scope="module")
def postgres_seen(oracle: PostgresOracle, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return run_driver(oracle.port, "postgres", "postgres", tmp_path_factory.mktemp("pgcli-home"))


def only(results: list[dict[str, Any]]) -> dict[str, Any]:
    assert len(results) == 1, results
    assert results[0]["success"], results[0]["status"]
    return results[0]


def without_owner(result: dict[str, Any]) -> list[list[Any]]:
    assert result["headers"] == ["Schema", "Name", "Type", "Owner"]
    return [row[:3] for row in result["rows"]]


def test_connect_and_time_zone(seen: dict[str, Any]) -> None:
    connect = seen["connect"]
    assert (connect["dbname"], connect["user"]) == ("materialize", "materialize")
    assert connect["server_version"].startswith("15.")
    assert connect["superuser"] is True and connect["virtual"] is False and connect["pid"] is True
    assert (seen["timezone_before"], seen["timezone_after"]) == ("UTC", "Europe/Berlin")
    assert seen["setup"] == [
        "CREATE SCHEMA", "CREATE TABLE", "CREATE TABLE", "INSERT 0 2", "CREATE VIEW", "CREATE MATERIALIZED VIEW",
        "CREATE INDEX",
    ]
    select = only(seen["select"])
    assert select["headers"] == ["order_id", "customer_name", "amount", "placed"]
    assert select["rows"] == [[1, "ada", "12.50", "2024-02-01"], [2, "bob", "99.99", None]]


def test_every_refresher_runs(seen: dict[str, Any]) -> None:
    assert seen["refresh_errors"] == {
        name: None for name in ("schemata", "tables", "views", "types", "databases", "casing", "functions")
    }
    assert seen["refresh_in_background"] is True  # pgcli's own thread delivered a completer
    assert seen["casing_words"] == 0  # the casing file was written (no SQL functions: no words)


def test_completer_metadata(seen: dict[str, Any]) -> None:
    meta = seen["metadata"]
    assert meta["search_path"] == ["mz_catalog", "pg_catalog", "public"]  # Materialize's current_schemas(true)
    assert {SCHEMA, "public", "pg_catalog", "information_schema"} <= set(meta["schemata"])
    assert meta["tables"][SCHEMA] == [TABLE] and OTHER in meta["tables"]["public"]
    assert meta["views"][SCHEMA] == [VIEW] and MATVIEW in meta["views"]["public"]
    assert meta["columns"] == {
        TABLE: [
            ["order_id", "bigint", False, None],
            ["customer_name", "text", False, None],
            ["amount", "numeric", False, None],
            ["placed", "date", True, "'2024-01-01'::date"],
        ],
        OTHER: [["customer_id", "integer", False, None], ["customer_name", "text", False, None]],
        VIEW: [["order_id", "bigint", False, None], ["amount", "numeric", False, None]],
        MATVIEW: [["customer_name", "text", False, None], ["total", "numeric", False, None]],
    }
    assert "materialize" in meta["databases"]
    assert meta["function_count"] > 100 and "pg_catalog" in meta["function_schemas"]


def test_completions(seen: dict[str, Any]) -> None:
    completions = seen["completions"]
    assert {SCHEMA, OTHER, MATVIEW, f"{SCHEMA}.{TABLE}", "public"} <= set(completions["from"])
    assert completions["from_schema"] == [TABLE, VIEW]
    assert completions["columns"][:4] == ["amount", "customer_name", "order_id", "placed"]
    assert completions["where"][:2] == ["customer_id", "customer_name"]
    assert completions["view_columns"][:2] == ["amount", "order_id"]
    assert {SCHEMA, OTHER, MATVIEW, f"{SCHEMA}.{TABLE}", f"{SCHEMA}.{VIEW}"} <= set(completions["prefixed"])
    assert "LOWER" in completions["functions"]
    assert "INTEGER" in completions["datatypes"]
    assert "materialize" in completions["connect"]
    assert {"\\d", "\\dt", "\\dn", "\\df"} <= set(completions["special"])


def test_special_commands(seen: dict[str, Any]) -> None:
    special = seen["special"]
    assert [SCHEMA, "materialize"] in only(special["dn"])["rows"]
    mine = [row for row in without_owner(only(special["dt"])) if row[1].startswith(PREFIX)]
    assert mine == [["public", OTHER, "table"]]  # only the tables on the search path
    assert without_owner(only(special["dt_schema"])) == [[SCHEMA, TABLE, "table"]]
    assert without_owner(only(special["dv"])) == [[SCHEMA, VIEW, "view"]]
    assert ["public", MATVIEW, "materialized view"] in without_owner(only(special["dm"]))
    assert without_owner(only(special["di"])) == [
        [SCHEMA, f"{PREFIX}_orders_idx", "index"], [SCHEMA, f"{PREFIX}_orders_pkey", "index"],
    ]
    assert [row[1] for row in only(special["d"])["rows"] if row[1].startswith(PREFIX)] == [OTHER, MATVIEW]
    df = only(special["df"])
    assert df["headers"] == ["Schema", "Name", "Result data type", "Argument data types", "Type"]
    assert df["rows"] == []  # no user-defined functions
    assert only(special["dT"])["rows"] == []
    assert "materialize" in [row[0] for row in only(special["l"])["rows"]]
    assert "materialize" in [row[0] for row in only(special["du"])["rows"]]
    table = only(special["d_table"])
    assert table["rows"] == [
        ["order_id", "bigint", " not null"],
        ["customer_name", "text", ""],
        ["amount", "numeric(10,2)", ""],
        ["placed", "date", " default '2024-01-01'::date"],
    ]
    assert f'"{PREFIX}_orders_pkey" PRIMARY KEY, btree (order_id)' in table["status"]
    assert only(special["ds"])["rows"] == [] and only(special["dx"])["rows"] == []


@pytest.mark.parametrize("command", ["d_table", "d_plus", "d_view", "d_other", "describe", "dp"])
def test_describe_same_as_postgres(seen: dict[str, Any], postgres_seen: dict[str, Any], command: str) -> None:
    assert seen["special"][command] == postgres_seen["special"][command]


@pytest.mark.parametrize("command", ["dt_schema", "dv", "dm", "di"])
def test_lists_same_as_postgres(seen: dict[str, Any], postgres_seen: dict[str, Any], command: str) -> None:
    ours = [row for row in without_owner(only(seen["special"][command])) if row[1].startswith(PREFIX)]
    theirs = [row for row in without_owner(only(postgres_seen["special"][command])) if row[1].startswith(PREFIX)]
    assert ours == theirs


def test_metadata_and_completions_same_as_postgres(seen: dict[str, Any], postgres_seen: dict[str, Any]) -> None:
    assert seen["metadata"]["columns"] == postgres_seen["metadata"]["columns"]
    for key in ("from_schema", "columns", "where", "view_columns", "prefixed", "functions"):
        assert seen["completions"][key] == postgres_seen["completions"][key], key
    assert seen["view_definition"] == postgres_seen["view_definition"]
    assert seen["view_definition"].startswith(f'CREATE OR REPLACE VIEW "{SCHEMA}"."{VIEW}" AS')


def test_errors_and_transactions(seen: dict[str, Any]) -> None:
    first, failed, last = seen["errors"]
    assert (first["rows"], last["rows"]) == ([[1]], [[2]])  # on_error_resume: the statement after the error runs
    assert failed["success"] is False
    assert failed["status"] == f'ERROR 42P01: relation "{PREFIX}_missing" does not exist'
    assert seen["transaction"] == {
        "begin": "BEGIN",
        "indicator_open": "*",
        "fail": "ERROR 22012: division by zero",
        "indicator_failed": "!",
        "rollback": "ROLLBACK",
        "indicator_after": "",
    }
    assert seen["teardown"] == ["DROP MATERIALIZED VIEW", "DROP TABLE", "DROP SCHEMA"]
