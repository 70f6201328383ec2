"""node-postgres (npm `pg`, with `pg-cursor`) against sparkwire, the driver unchanged: tests/client/node/program.js
connects as its users do (Client and Pool, connection from PGHOST/PGPORT/PGUSER/PGDATABASE) and prints what it saw
as JSON; each test asserts on one section: simple and multi-statement queries, untyped `$n` parameters (int, text,
numeric, bool, date, timestamptz, NULL, arrays, a binary Buffer), how pg parses each result type (int8 and numeric
as strings, dates, json, bytea, arrays; binary results too), named prepared statements, errors (SQLSTATE in
`err.code`, the session usable after each), transactions with savepoints, and pg-cursor reading in batches. The same
program runs against PostgreSQL 15 and the sections that do not name the server must print the same JSON."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from typing import Any

import pytest

from tests.support.clients import unique
from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer
from tests.support.tools import node_dir

PREFIX = unique("node")  # table names; the same on both servers, so error messages compare equal
SECTIONS = ("connect", "simple", "params", "types", "prepared", "errors", "transactions", "cursor")


def run_program(port: int, user: str, database: str) -> dict[str, Any]:
    node = shutil.which("node")
    assert node is not None, "node is missing: scripts/test installs nodejs with npm"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/tmp"),
        "PGHOST": "127.0.0.1",
        "PGPORT": str(port),
        "PGUSER": user,
        "PGDATABASE": database,
        "PGCONNECT_TIMEOUT": "10",
        "TZ": "UTC",  # pg parses date and timestamp without time zone as local time
        "SW_PREFIX": PREFIX,
    }
    result = subprocess.run(
        [node, "program.js", *SECTIONS], cwd=node_dir("node"), env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    out: dict[str, Any] = json.loads(result.stdout)
    return out


@pytest.fixture(scope="module")
def seen(server: SparkwireServer) -> dict[str, Any]:
    out = run_program(server.port, "materialize", "materialize")
    thrown = {name: section for name, section in out.items() if "thrown" in section}
    assert thrown == {}, json.dumps(thrown, indent=1)
    return out


@pytest.fixture(scope="module")
def postgres_seen(oracle: PostgresOracle) -> dict[str, Any]:
    return run_program(oracle.port, "postgres", "postgres")


def typed(kind: str, value: Any) -> dict[str, Any]:
    return {"type": kind, "value": value}


def test_connect_client_and_pool(seen: dict[str, Any]) -> None:
    connect = seen["connect"]
    assert connect["row"] == {"one": 1, "who": "materialize", "db": "materialize"}
    assert (connect["command"], connect["rowCount"]) == ("SELECT", 1)
    assert connect["serverVersion"].startswith("15.")
    assert connect["processID"] == "number"
    assert connect["notices"][0].startswith("connected to sparkwire")  # Materialize's greeting reaches pg's 'notice'
    pool = connect["pool"]
    assert pool["values"] == [10, 20, 30, 40, 50, 60]
    assert pool["distinctBackends"] == 3 and pool["totalCount"] == 3  # six queries over the pool's three clients
    assert pool["answer"] == 42


def test_simple_queries(seen: dict[str, Any]) -> None:
    simple = seen["simple"]
    assert simple["create"] == "CREATE"
    assert simple["insert"] == {"command": "INSERT", "rowCount": 3}
    assert simple["update"] == {"command": "UPDATE", "rowCount": 2}
    select = simple["select"]
    assert (select["command"], select["rowCount"]) == ("SELECT", 3)
    assert select["rows"] == [
        {"id": 1, "name": "one", "score": 3},
        {"id": 2, "name": "two", "score": 5},
        {"id": 3, "name": None, "score": None},
    ]
    assert [(f["name"], f["dataTypeID"], f["format"]) for f in select["fields"]] == [
        ("id", 23, "text"), ("name", 25, "text"), ("score", 701, "text"),
    ]
    assert simple["arrayRows"] == [[1, "one"], [2, "two"], [3, None]]
    assert simple["multi"] == [
        {"command": "SELECT", "rowCount": 1, "rows": [{"a": 1}]},
        {"command": "SELECT", "rowCount": 1, "rows": [{"b": "b", "c": 2}]},
        {"command": "DELETE", "rowCount": 1, "rows": []},
    ]
    assert (simple["empty"], simple["drop"]) == (0, "DROP")


def test_untyped_parameters(seen: dict[str, Any]) -> None:
    params = seen["params"]
    assert params["scalar"] == {
        "i": typed("number", 42),
        "t": typed("string", "hi!"),
        "n": typed("string", "24.690"),
        "b": typed("boolean", False),
        "d": typed("Date", "2024-02-29T00:00:00.000Z"),
        "ts": typed("Date", "2024-01-02T03:04:05.678Z"),
        "isnull": typed("boolean", True),
        "big": typed("string", "9007199254740993"),
    }
    assert params["arrays"] == {
        "ints": typed("Array", [typed("number", 1), typed("number", 2), typed("number", 3)]),
        "len": typed("number", 3),
        "texts": typed(
            "Array", [typed("string", "a"), typed("string", "b c"), typed("string", 'd"e'), typed("null", None)]
        ),
        "member": typed("boolean", True),
    }
    assert params["bytea"] == {"b": typed("Buffer", "0001feff"), "n": typed("number", 4)}  # a binary parameter
    assert params["inserted"] == 3
    assert params["found"] == [
        {
            "id": typed("number", 2), "name": typed("string", "beta"), "price": typed("string", "20.25"),
            "ok": typed("boolean", False), "day": typed("Date", "2024-02-29T00:00:00.000Z"),
            "at": typed("Date", "2024-02-29T23:59:59.000Z"),
        },
        {key: typed("null", None) for key in ("name", "price", "ok", "day", "at")} | {"id": typed("number", 3)},
    ]
    assert params["updated"] == 1
    assert params["total"] == typed("string", "30.76")  # `id = ANY($1)` with a JS array


def test_result_types(seen: dict[str, Any]) -> None:
    types = seen["types"]
    row = types["row"]
    assert row["i8"] == typed("string", "9007199254740993")  # int8 and numeric stay strings in pg
    assert row["num"] == typed("string", "12345678901234567890.123456789")
    assert (row["i2"], row["i4"], row["f4"], row["f8"]) == (
        typed("number", 1), typed("number", 2), typed("number", 1.5), typed("number", 2.25),
    )
    assert (row["t"], row["f"]) == (typed("boolean", True), typed("boolean", False))
    assert (row["txt"], row["vc"]) == (typed("string", "txt"), typed("string", "vc"))
    assert row["d"] == typed("Date", "2024-03-04T00:00:00.000Z")
    assert row["ts"] == typed("Date", "2024-03-04T05:06:07.500Z")
    assert row["tstz"] == typed("Date", "2024-03-04T03:06:07.500Z")
    assert row["tm"] == typed("string", "10:11:12")
    assert row["iv"] == typed("object", {"days": 1, "hours": 2, "minutes": 3, "seconds": 4})
    assert row["js"] == typed("object", {"a": [1, 2, {"b": None}]})
    assert row["jsb"] == typed("object", {"k": "v", "n": 1.5})
    assert row["by"] == typed("Buffer", "00ff10")
    assert row["ia"] == typed("Array", [typed("number", 1), typed("number", 2), typed("number", 3)])
    assert row["ta"] == typed("Array", [typed("string", "x"), typed("null", None), typed("string", "z")])
    assert row["u"] == typed("string", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")
    assert row["nul"] == typed("null", None)
    assert types["types"] == {
        "i2": 21, "i4": 23, "i8": 20, "f4": 700, "f8": 701, "num": 1700, "t": 16, "f": 16, "txt": 25, "vc": 1043,
        "d": 1082, "ts": 1114, "tstz": 1184, "tm": 1083, "iv": 1186, "js": 114, "jsb": 3802, "by": 17, "ia": 1007,
        "ta": 1009, "u": 2950, "nul": 23,
    }
    binary = types["binary"]
    assert set(types["binaryFormats"]) == {"binary"}
    assert (binary["i2"], binary["i4"], binary["i8"], binary["f8"], binary["t"], binary["txt"]) == (
        typed("number", 1), typed("number", 2), typed("string", "9007199254740993"), typed("number", 2.25),
        typed("boolean", True), typed("string", "txt"),
    )
    assert (binary["param"], binary["nul"]) == (typed("number", 42), typed("null", None))


def test_named_prepared_statements(seen: dict[str, Any]) -> None:
    prepared = seen["prepared"]
    assert prepared["runs"] == [{"sq": 9, "label": "three"}, {"sq": 16, "label": "four"}, {"sq": 25, "label": None}]
    assert prepared["lookups"] == [["v2"], ["v5"], []]
    assert prepared["executed"] == "3"  # SQL PREPARE / EXECUTE: count(*) is int8, a string in pg


def test_errors_carry_sqlstate_and_leave_the_session_usable(seen: dict[str, Any]) -> None:
    errors = seen["errors"]
    expected = {
        "syntax": ("42601", 'syntax error at or near "SELEC"'),
        "undefined_table": ("42P01", f'relation "{PREFIX}_no_such_table" does not exist'),
        "undefined_column": ("42703", 'column "no_such_column" does not exist'),
        "division": ("22012", "division by zero"),
        "division_param": ("22012", "division by zero"),
        "bad_param": ("22P02", 'invalid input syntax for type integer: "not a number"'),
        "undefined_function": ("42883", "function no_such_function_xyz(integer) does not exist"),
        "in_tx": ("22012", "division by zero"),
        "aborted": ("25P02", "current transaction is aborted, commands ignored until end of transaction block"),
    }
    assert {key: (errors[key]["code"], errors[key]["message"]) for key in expected} == expected
    assert all(errors[key]["severity"] == "ERROR" for key in expected)
    assert errors["syntax"]["position"] == "1"
    for key in ("syntax", "undefined_table", "undefined_column", "division", "division_param", "bad_param",
                "undefined_function"):
        assert errors[f"{key}_after"] == key
    assert (errors["rollback"], errors["after_rollback"]) == ("ROLLBACK", 7)


def test_transactions(seen: dict[str, Any]) -> None:
    assert seen["transactions"] == {
        "inside_before_rollback": 1,
        "rollback": "ROLLBACK",
        "after_rollback": 0,
        "other_session_before_commit": 0,
        "commit": "COMMIT",
        "after_commit": 2,
        "ids": [2, 3, 4],  # 5 was rolled back to the savepoint
    }


def test_cursor_reads_in_batches(seen: dict[str, Any]) -> None:
    cursor = seen["cursor"]
    assert cursor["batches"] == [100, 100, 50, 0]
    assert cursor["firstAndLast"] == [[1, 200], [101, 400], [201, 500]]  # generate_series of int4 is int4
    assert cursor["filtered"] == [[31, 32, 33, 34], [35, 36, 37, 38], [39, 40]]
    assert cursor["early"] == [[1], [2], [3]]
    assert cursor["after_close"] == "40"
    assert (cursor["in_tx"], cursor["commit"]) == ([1, 2, 3, 4, 5], "COMMIT")


@pytest.mark.parametrize("section", ["simple", "params", "types", "prepared", "transactions", "cursor"])
def test_same_as_postgres(seen: dict[str, Any], postgres_seen: dict[str, Any], section: str) -> None:
    assert seen[section] == postgres_seen[section]


def test_errors_same_as_postgres_but_positions(seen: dict[str, Any], postgres_seen: dict[str, Any]) -> None:
    def without_positions(errors: dict[str, Any]) -> dict[str, Any]:
        return {k: {**v, "position": None} if isinstance(v, dict) else v for k, v in errors.items()}

    ours, theirs = seen["errors"], postgres_seen["errors"]
    assert without_positions(ours) == without_positions(theirs)
    assert ours["syntax"]["position"] == theirs["syntax"]["position"]
