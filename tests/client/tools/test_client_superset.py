"""Apache Superset 6.1 (tests/tools/superset.txt: Superset, SQLAlchemy 1.4 and psycopg2, the stack Superset runs on
PostgreSQL) against sparkwire, compared with PostgreSQL 15 on the same DDL. Superset's own code runs in its venv
(superset_driver.py), once for both servers: SQLAlchemy 1.4's PostgreSQL Inspector (names, columns, keys, indexes,
constraints, comments, reflection), the `Database` / `PostgresEngineSpec` methods behind SQL Lab's schema browser
and "add dataset", a dataset's metadata and the SQL Explore generates and runs for it (time series by day with a
SUM metric, an IN filter, ORDER BY and LIMIT; big number COUNT(*); a TO_TIMESTAMP time range; every time grain),
and a SQL Lab result set.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.clients import same_schema
from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer
from tests.support.tools import tool_bin

DRIVER = Path(__file__).with_name("superset") / "superset_driver.py"
DDL = (
    "CREATE SCHEMA {s}",
    "CREATE TABLE {s}.events (id bigint NOT NULL, ts timestamp, category text, x integer, amount numeric(10,2), "
    "d date, flag boolean, PRIMARY KEY (id))",
    "INSERT INTO {s}.events VALUES (1, '2024-01-01 10:00', 'a', 1, 1.50, '2024-01-01', true), "
    "(2, '2024-01-01 11:30', 'b', 2, 2.25, '2024-01-01', false), "
    "(3, '2024-01-02 09:15', 'a', 3, 3.00, '2024-01-02', true), "
    "(4, '2024-01-03 23:59', 'c', 4, NULL, '2024-01-03', NULL), "
    "(5, '2024-01-03 00:00', 'a', 5, 5.75, '2024-01-03', true)",
    "CREATE VIEW {s}.events_v AS SELECT id, category, x FROM {s}.events",
    "CREATE MATERIALIZED VIEW {s}.events_mv AS SELECT category, count(*) AS n, max(x) AS top FROM {s}.events "
    "GROUP BY category",
    "CREATE INDEX events_cat_idx ON {s}.events (category)",
)
MZ_SCHEMAS = {"mz_catalog", "mz_internal", "mz_introspection"}
# The driver runs about 40 statements per server (20 on Spark) after Superset's app starts: ~1 min on a loaded
# 2-core machine, more than pytest's default 300 s allows with the servers' start on a slower one.
pytestmark = pytest.mark.timeout(600)
Seen = tuple[str, dict[str, Any], dict[str, Any]]


@pytest.fixture(scope="module")
def seen(server: SparkwireServer, oracle: PostgresOracle, tmp_path_factory: pytest.TempPathFactory) -> Seen:
    schema = same_schema([server.dsn, oracle.dsn], "ss", DDL)
    ours = f"postgresql://materialize@127.0.0.1:{server.port}/materialize"
    theirs = f"postgresql://postgres@127.0.0.1:{oracle.port}/postgres"
    workdir = tmp_path_factory.mktemp("superset")
    done = subprocess.run(
        [str(tool_bin("superset", "python")), str(DRIVER), str(workdir), schema, ours, theirs],
        capture_output=True, text=True, timeout=540, cwd=workdir,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    facts: dict[str, Any] = json.loads((workdir / "result.json").read_text())
    return schema, facts[ours], facts[theirs]


def _errors(section: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in section.items() if isinstance(v, dict) and set(v) == {"error"}}


def test_inspector(seen: Seen) -> None:
    schema, ours, theirs = seen
    mine, pg = ours["inspector"], theirs["inspector"]
    assert _errors(mine) == {}
    assert schema in mine["schema_names"]
    assert [s for s in mine["schema_names"] if s not in MZ_SCHEMAS] == pg["schema_names"]
    assert mine["table_names"] == ["events"]
    assert mine["view_names"] == ["events_v", "events_mv"]
    assert mine["materialized_view_names"] == ["events_mv"]
    assert mine["pk_constraint"] == {"constrained_columns": ["id"], "name": "events_pkey"}
    assert [i["name"] for i in mine["indexes"]] == ["events_cat_idx"]
    assert [(c["name"], c["type"], c["nullable"]) for c in mine["columns.events"]][:2] == [
        ("id", "BIGINT()", False), ("ts", "TIMESTAMP()", True)
    ]
    assert mine["reflected"][0] == ["id", "BIGINT()", False, True]
    for key in mine:
        if key != "schema_names":
            assert mine[key] == pg[key], key


def test_schema_browser_and_table_metadata(seen: Seen) -> None:
    schema, ours, theirs = seen
    mine, pg = ours["superset"], theirs["superset"]
    assert _errors(mine) == {}
    assert mine["catalogs"] == ["materialize"]  # pg_database, as PostgresEngineSpec.get_catalog_names asks it
    assert set(mine["schemas"]) - MZ_SCHEMAS == set(pg["schemas"])
    assert mine["tables"] == [["events", schema, None]]
    assert sorted(v[0] for v in mine["views"]) == ["events_mv", "events_v"]
    columns = ",\n  ".join(("id", "ts", "category", "x", "amount", "d", "flag"))
    assert mine["select_star"] == f"SELECT\n  {columns}\nFROM {schema}.events\nLIMIT 100"
    assert mine["table_metadata"]["primaryKey"] == pg["table_metadata"]["primaryKey"]
    assert mine["cancel_query_id"] is True
    for key in mine:
        if key not in ("catalogs", "schemas"):
            assert mine[key] == pg[key], key


def _numbers(rows: Any) -> Any:
    """Rows with numeric values as floats (the dataset's comparison is of values; test_sum_of_integers_is_bigint
    compares the types too)."""
    def number(value: Any) -> Any:
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                return value
        return float(value) if isinstance(value, int) and not isinstance(value, bool) else value

    if not isinstance(rows, list):
        return rows
    return [{k: number(v) for k, v in row.items()} for row in rows]


def test_dataset_and_explore_queries(seen: Seen) -> None:
    schema, ours, theirs = seen
    mine, pg = ours["dataset"], theirs["dataset"]
    assert _errors(mine) == {}
    assert mine["dataset_columns"] == [
        ["id", "BIGINT", False], ["ts", "TIMESTAMP WITHOUT TIME ZONE", True], ["category", "TEXT", False],
        ["x", "INTEGER", False], ["amount", "NUMERIC(10, 2)", False], ["d", "DATE", True], ["flag", "BOOLEAN", False],
    ]
    assert mine["sql.timeseries"] == (
        "SELECT DATE_TRUNC('day', ts) AS __timestamp, category AS category, sum(x) AS \"SUM(x)\" \n"
        f"FROM {schema}.events \nWHERE category IN ('a', 'b') GROUP BY category, DATE_TRUNC('day', ts) "
        "ORDER BY \"SUM(x)\" DESC \n LIMIT 10000;"
    )
    assert _numbers(mine["rows.timeseries"]) == [
        {"__timestamp": "2024-01-03T00:00:00", "category": "a", "SUM(x)": 5.0},
        {"__timestamp": "2024-01-02T00:00:00", "category": "a", "SUM(x)": 3.0},
        {"__timestamp": "2024-01-01T00:00:00", "category": "b", "SUM(x)": 2.0},
        {"__timestamp": "2024-01-01T00:00:00", "category": "a", "SUM(x)": 1.0},
    ]
    assert mine["rows.big_number"] == [{"count": 5}]
    assert "TO_TIMESTAMP('2024-01-01 00:00:00.000000', 'YYYY-MM-DD HH24:MI:SS.US')" in mine["sql.time_range"]
    assert mine["rows.time_range"] == [{"count": 3}]
    assert _numbers(mine["rows.table"]) == [{"category": "a", "SUM(x)": 9.0, "count": 3.0}]
    grains = [k for k in mine if k.startswith("rows.grain ")]
    assert len(grains) >= 12  # PostgresEngineSpec's grains: seconds … year
    for key in mine:
        if key.startswith("sql.") or key in ("fetch_metadata", "dataset_columns"):
            assert mine[key] == pg[key], key  # Superset generates the same SQL for both servers
        elif key.startswith("rows.grain "):  # ORDER BY count DESC: ties in any order
            assert sorted(mine[key], key=json.dumps) == sorted(pg[key], key=json.dumps), key
        elif key.startswith("rows."):
            assert _numbers(mine[key]) == _numbers(pg[key]), key


def test_sqllab_result_set(seen: Seen) -> None:
    _, ours, theirs = seen
    mine, pg = ours["sqllab"], theirs["sqllab"]
    assert mine["prequeries"] == pg["prequeries"]
    assert mine["result_set"] == pg["result_set"]
    assert [c["type"] for c in mine["result_set"]["columns"]] == [
        "LONGINTEGER", "DATETIME", "STRING", "INTEGER", "DECIMAL", "DATE", "BOOLEAN"
    ]


def test_sum_of_integers_is_bigint(seen: Seen) -> None:
    _, ours, theirs = seen
    assert ours["dataset"]["rows.timeseries"] == theirs["dataset"]["rows.timeseries"]


def test_sqllab_schema_prequery(seen: Seen) -> None:
    """SQL Lab with a schema selected sets search_path to it, then runs bare names."""
    _, ours, theirs = seen
    assert ours["sqllab"]["get_df_search_path"] == theirs["sqllab"]["get_df_search_path"]
