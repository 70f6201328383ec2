"""harlequin-postgres (tests/tools/harlequin.txt) against sparkwire, compared with PostgreSQL 15 on the same DDL: the
adapter's catalog (databases → schemas → relations → columns, each level the adapter's own query), catalog search,
completions (keywords, information_schema.routines, pg_settings), every read-only catalog interaction (\\d+, \\di+,
describe relation / indexes / constraints, view definition, preview, insert columns) with the SQL it generates
run as the user would run it, execute and fetchall, and a read-only connection. The adapter runs in its own venv
(harlequin_driver.py), once for both servers.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.support.clients import same_schema
from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer
from tests.support.tools import tool_bin

DRIVER = Path(__file__).with_name("harlequin") / "harlequin_driver.py"
DDL = (
    "CREATE SCHEMA {s}",
    "CREATE TABLE {s}.events (id bigint NOT NULL, category text, ts timestamp with time zone, price numeric(10,2), "
    "ok boolean, n integer, PRIMARY KEY (id))",
    "INSERT INTO {s}.events VALUES (1, 'a', '2024-01-01 10:00+00', 1.50, true, 1), "
    "(2, 'b', '2024-01-02 10:00+00', 2.25, false, 2)",
    "CREATE VIEW {s}.events_v AS SELECT id, category FROM {s}.events",
    "CREATE MATERIALIZED VIEW {s}.events_mv AS SELECT category, count(*) AS n FROM {s}.events GROUP BY category",
    "CREATE INDEX events_category_idx ON {s}.events (category)",
)
# Materialize's builtin schemas, which information_schema.schemata lists and PostgreSQL does not have.
MZ_SCHEMAS = ["mz_catalog", "mz_internal", "mz_introspection"]
# Interactions whose SQL has no ORDER BY: their rows are compared as sets.
UNORDERED = {"Describe Indexes", "Preview Data"}


@pytest.fixture(scope="module")
def seen(server: SparkwireServer, oracle: PostgresOracle) -> tuple[str, dict[str, Any], dict[str, Any]]:
    schema = same_schema([server.dsn, oracle.dsn], "hq", DDL)
    python = tool_bin("harlequin", "python")
    done = subprocess.run(
        [str(python), str(DRIVER), schema, server.dsn, oracle.dsn], capture_output=True, text=True, timeout=240
    )
    assert done.returncode == 0, done.stderr[-4000:]
    facts: dict[str, Any] = json.loads(done.stdout)
    return schema, facts[server.dsn], facts[oracle.dsn]


def _same_names(value: Any, *names: tuple[str, str]) -> Any:
    """`value` with each server's own names (database, owner) replaced by a placeholder."""
    text = json.dumps(value)
    for name, placeholder in names:
        text = text.replace(f'"{name}"', f'"{placeholder}"')
    return json.loads(text)


def test_catalog_tree(seen: tuple[str, dict[str, Any], dict[str, Any]]) -> None:
    schema, ours, theirs = seen
    assert [d["label"] for d in ours["databases"]] == ["materialize"]
    assert ours["databases"][0]["class"] == "DatabaseCatalogItem"
    assert schema in ours["schemas"]
    assert [s for s in ours["schemas"] if s not in MZ_SCHEMAS] == theirs["schemas"]
    assert [(r["label"], r["type_label"], r["type_name"], r["class"]) for r in ours["relations"]] == [
        ("events", "t", "BASE TABLE", "TableCatalogItem"),
        ("events_v", "v", "VIEW", "ViewCatalogItem"),
        ("events_mv", "mv", "MATERIALIZED VIEW", "MaterializedViewCatalogItem"),  # from pg_matviews, after the rest
    ]
    assert [(c["label"], c["type_label"], c["type_name"]) for c in ours["columns"]["events"]] == [
        ("id", "##", "bigint"),
        ("category", "s", "text"),
        ("ts", "ts", "timestamp with time zone"),
        ("price", "#.#", "numeric"),
        ("ok", "t/f", "boolean"),
        ("n", "#", "integer"),
    ]
    assert [(c["label"], c["type_name"]) for c in ours["columns"]["events_mv"]] == [
        ("category", "text"), ("n", "bigint")
    ]
    assert ours["relations"] == theirs["relations"]
    assert ours["columns"] == theirs["columns"]


def test_search_catalog(seen: tuple[str, dict[str, Any], dict[str, Any]]) -> None:
    schema, ours, theirs = seen
    assert [["materialize", schema], "events", "t", "BASE TABLE"] in ours["search"]["relations event"]
    assert [["materialize", schema, "events_v"], "category", "s", "text"] in ours["search"]["columns categ"]
    assert _same_names(ours["search"], ("materialize", "DB")) == _same_names(theirs["search"], ("postgres", "DB"))


def test_completions(seen: tuple[str, dict[str, Any], dict[str, Any]]) -> None:
    _, ours, theirs = seen
    completions = ours["completions"]
    assert "error" not in completions, completions
    assert completions["kw"] == theirs["completions"]["kw"]
    assert {"search_path", "TimeZone", "application_name"} <= set(completions["set"])
    # information_schema.routines over sparkwire's pg_proc: its builtin functions, a subset of PostgreSQL's
    functions = [tuple(f) for f in completions["fn"]]
    assert ("int4in", None) in functions and ("array_out", None) in functions
    assert set(functions) <= {tuple(f) for f in theirs["completions"]["fn"]}


def _normalized(label: str, result: dict[str, Any]) -> dict[str, Any]:
    result = dict(result)
    if "rows" in result and result["rows"] is not None:
        columns = [name for name, _ in result["columns"]]
        rows = [["<size>" if columns[i] == "Size" else v for i, v in enumerate(row)] for row in result["rows"]]
        result["rows"] = sorted(rows, key=json.dumps) if label.startswith(tuple(UNORDERED)) else rows
    return result


def test_interactions(seen: tuple[str, dict[str, Any], dict[str, Any]]) -> None:
    schema, ours, theirs = seen
    ours_i = _same_names(ours["interactions"], ("materialize", "OWNER"))
    theirs_i = _same_names(theirs["interactions"], ("postgres", "OWNER"))
    assert sorted(ours_i) == ["events", "events_mv", "events_v", "schema"]
    for target, interactions in ours_i.items():
        assert sorted(interactions) == sorted(theirs_i[target]), target
        for label, outcome in interactions.items():
            assert "error" not in outcome, (target, label, outcome)
            for result in outcome["results"]:
                assert "error" not in result, (target, label, result)
            mine = [_normalized(label, r) for r in outcome["results"]]
            pg = [_normalized(label, r) for r in theirs_i[target][label]["results"]]
            assert mine == pg, (target, label)
            assert outcome["view_definitions"] == theirs_i[target][label]["view_definitions"], (target, label)
            assert outcome["inserted"] == theirs_i[target][label]["inserted"], (target, label)
    described = ours_i["events"]["Describe Relation (\\d+)"]["results"][0]["rows"]
    assert [(r[0], r[1], r[3], r[8], r[9]) for r in described][:2] == [
        ("id", "bigint", "not null", True, True), ("category", "text", "", True, False)
    ]
    indexes = ours_i["events"]["Describe Indexes"]["results"][0]["rows"]
    assert sorted((r[1], r[3], r[4]) for r in indexes) == [
        (f"{schema}.events_category_idx", "category", False), (f"{schema}.events_pkey", "id", True)
    ]
    assert ours_i["events_v"]["Show View Definition"]["view_definitions"] == [
        f"SELECT events.id,\n    events.category\n   FROM {schema}.events;"
    ]


def test_execute_and_read_only(seen: tuple[str, dict[str, Any], dict[str, Any]], dsn: str) -> None:
    schema, ours, theirs = seen
    assert ours["execute"] == theirs["execute"]
    assert ours["execute"]["columns"] == [["id", "##"], ["category", "s"], ["ts", "ts"], ["price", "#.#"],
                                          ["ok", "t/f"]]
    assert ours["execute"]["rows"][0] == [1, "a", "2024-01-01T10:00:00+00:00", "1.50", True]
    assert ours["execute_limit"] == [[1]]
    assert ours["read_only"]["select"] == {"columns": [["count", "##"]], "rows": [[2]]}
    assert ours["read_only"]["write"] == {"error": "cannot execute INSERT in a read-only transaction"}
    assert ours["read_only"] == theirs["read_only"]
    with psycopg.connect(dsn, autocommit=True) as conn:
        assert conn.execute(f"SELECT count(*) FROM {schema}.events").fetchone() == (2,)
