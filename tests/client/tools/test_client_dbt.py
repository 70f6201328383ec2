"""dbt against sparkwire, unchanged, with both adapters people use: dbt-materialize (Materialize's own) and
dbt-postgres. The project in tests/client/tools/dbt_project has seeds, a view, a table, a materialized view with an
index, schema tests (unique, not_null, relationships) and descriptions persisted as comments. Each adapter runs `dbt
build` twice in a row (the second run replaces every relation: dbt-postgres renames the old view aside and drops it
with CASCADE, dbt-materialize drops and recreates) and then `dbt docs generate`; every node must succeed, the models
must hold the right rows, and the docs catalog must carry the types and the comments. dbt runs from its own venv
(tests/tools/dbt.txt: dbt-core 1.9, whose install needs nothing outside PyPI), with anonymous usage statistics and
version checks off, so it reaches nothing but the loopback server."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.support.clients import unique
from tests.support.server import SparkwireServer
from tests.support.tools import tool_bin

PROJECT = Path(__file__).with_name("dbt_project")
ADAPTERS = ("postgres", "materialize")

# customer_totals as the seeds make it: (customer_id, name, order_count, total_amount)
CUSTOMER_TOTALS = [
    (1, "Ada", 2, "19.75"),
    (2, "Grace", 2, "100.45"),
    (3, "Linus", 2, "8.00"),
    (4, "Zoë", 1, "55.55"),
    (5, "Ken", 0, "0"),
]


def _profiles(directory: Path, server: SparkwireServer, schema: str) -> None:
    common = {"host": "127.0.0.1", "port": server.port, "user": "materialize", "dbname": "materialize", "threads": 1}
    profile = {
        "sparkwire": {
            "target": "postgres",
            "outputs": {
                "postgres": {"type": "postgres", "password": "", "schema": f"{schema}_postgres", **common},
                "materialize": {
                    "type": "materialize",
                    "pass": "",
                    "schema": f"{schema}_materialize",
                    "cluster": "quickstart",
                    "sslmode": "disable",
                    **common,
                },
            },
        }
    }
    # JSON is YAML: dbt reads profiles.yml with a YAML parser
    (directory / "profiles.yml").write_text(json.dumps(profile, indent=2))


def _dbt(work: Path, target: str, *command: str) -> dict[str, Any]:
    env = {
        **os.environ,
        "DBT_PROFILES_DIR": str(work),
        "DBT_TARGET_PATH": str(work / f"target_{target}"),
        "DBT_LOG_PATH": str(work / f"logs_{target}"),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "DBT_VERSION_CHECK": "false",
        "DBT_PARTIAL_PARSE": "false",
        "DO_NOT_TRACK": "1",
    }
    done = subprocess.run(
        [str(tool_bin("dbt", "dbt")), *command, "--target", target, "--no-use-colors"],
        cwd=PROJECT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"dbt {' '.join(command)} --target {target} failed:\n{done.stdout[-6000:]}"
    results = work / f"target_{target}" / "run_results.json"
    loaded: dict[str, Any] = json.loads(results.read_text())
    return loaded


def _run_adapter(work: Path, server: SparkwireServer, target: str, target_schema: str) -> dict[str, Any]:
    oids: list[dict[str, int]] = []
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        for _ in range(2):
            results = _dbt(work, target, "build")
            statuses = {r["unique_id"]: r["status"] for r in results["results"]}
            assert len(statuses) == 16, statuses
            assert set(statuses.values()) <= {"success", "pass"}, statuses
            relations = conn.execute(
                "SELECT c.relname, c.oid::int8 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = %s",
                [target_schema],
            )
            oids.append(dict(relations.fetchall()))
    _dbt(work, target, "docs", "generate")
    catalog = json.loads((work / f"target_{target}" / "catalog.json").read_text())
    return {"schema": target_schema, "oids": oids, "catalog": catalog}


@pytest.fixture(scope="module")
def runs(server: SparkwireServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Per adapter: the schema, the relations' OIDs after each build, and the docs catalog."""
    work = tmp_path_factory.mktemp("dbt")
    schema = unique("dbt")
    _profiles(work, server, schema)
    try:
        yield {target: _run_adapter(work, server, target, f"{schema}_{target}") for target in ADAPTERS}
    finally:  # other tests compare schema lists with PostgreSQL's
        with psycopg.connect(server.dsn, autocommit=True) as conn:
            for target in ADAPTERS:
                conn.execute(f"DROP SCHEMA IF EXISTS {schema}_{target} CASCADE")


@pytest.mark.parametrize("target", ADAPTERS)
def test_second_build_replaces_the_models(runs: dict[str, Any], target: str) -> None:
    first, second = runs[target]["oids"]
    for model in ("stg_orders", "customer_totals", "daily_revenue"):
        assert model in first and model in second
        assert first[model] != second[model], f"{model} was not rebuilt"
    assert not [name for name in second if "__dbt_" in name], "dbt's temporary or backup relations were left behind"


@pytest.mark.parametrize("target", ADAPTERS)
def test_models_hold_the_right_rows(runs: dict[str, Any], target: str, sw: psycopg.Connection[Any]) -> None:
    schema = runs[target]["schema"]
    rows = sw.execute(f"SELECT customer_id, name, order_count, total_amount FROM {schema}.customer_totals ORDER BY 1")
    assert [(c, n, k, Decimal(t)) for c, n, k, t in CUSTOMER_TOTALS] == rows.fetchall()
    daily = sw.execute(f"SELECT order_date::text, revenue, orders FROM {schema}.daily_revenue ORDER BY 1").fetchall()
    assert daily[0] == ("2024-05-01", Decimal("12.50"), 1)
    assert daily[1] == ("2024-05-02", Decimal("107.25"), 2)
    assert len(daily) == 6


@pytest.mark.parametrize("target", ADAPTERS)
def test_index_on_the_materialized_view(runs: dict[str, Any], target: str, sw: psycopg.Connection[Any]) -> None:
    schema = runs[target]["schema"]
    keys = sw.execute(
        "SELECT ic.on_expression, c.name FROM mz_indexes i JOIN mz_relations r ON r.id = i.on_id "
        "JOIN mz_schemas s ON s.id = r.schema_id JOIN mz_index_columns ic ON ic.index_id = i.id "
        "LEFT JOIN mz_columns c ON c.id = r.id AND c.position = ic.on_position "
        "WHERE s.name = %s AND r.name = 'customer_totals'",
        [schema],
    ).fetchall()
    assert keys == [(None, "customer_id")]


@pytest.mark.parametrize("target", ADAPTERS)
def test_docs_catalog_has_types_and_comments(runs: dict[str, Any], target: str) -> None:
    catalog = runs[target]["catalog"]
    assert not catalog.get("errors")
    nodes = catalog["nodes"]
    stg = nodes["model.sparkwire_shop.stg_orders"]
    assert stg["metadata"]["comment"] == "Orders with a positive amount, one row per order."
    assert stg["columns"]["order_id"]["comment"] == "The order's key."
    assert stg["columns"]["order_id"]["type"] == "integer"
    assert stg["columns"]["order_date"]["type"] == "date"
    totals = nodes["model.sparkwire_shop.customer_totals"]
    assert totals["metadata"]["comment"] == "Orders and amount per customer, kept by the server."
    assert totals["columns"]["order_count"]["type"] == "bigint"
    seed = nodes["seed.sparkwire_shop.orders"]
    assert seed["columns"]["ordered_at"]["type"] == "timestamp without time zone"
    kinds = {name.split(".")[-1]: node["metadata"]["type"] for name, node in nodes.items()}
    if target == "materialize":
        assert kinds == {
            "stg_orders": "view",
            "customer_totals": "materialized_view",
            "daily_revenue": "materialized_view",  # dbt-materialize builds `table` models as materialized views
            "customers": "table",
            "orders": "table",
        }
    else:
        assert kinds == {
            "stg_orders": "VIEW",
            "customer_totals": "MATERIALIZED VIEW",
            "daily_revenue": "BASE TABLE",
            "customers": "BASE TABLE",
            "orders": "BASE TABLE",
        }
