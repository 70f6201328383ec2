"""Drive pgcli through its own API, as its REPL does, and print what it saw as one JSON object.

Runs in pgcli's tool venv (`.venv-tools/pgcli`, from tests/tools/pgcli.txt), never in ours: tests/client/
test_client_pgcli.py runs `python pgcli_driver.py CONFIG_JSON` and asserts on the output. CONFIG_JSON holds host,
port, user, database and a fresh name prefix. What it does, in pgcli's order:

1. connect with `PGExecute` (what `pgcli -h … -p …` does), read and set the time zone as pgcli's start-up does;
2. create a schema, tables, a view, a materialized view and an index through `PGExecute.run` with pgspecial;
3. run every refresher of `CompletionRefresher` (search_path, schemata, tables, columns, foreign keys, views,
   types, databases, casing, functions) into a `PGCompleter`, each error recorded by name, and once more
   through `CompletionRefresher.refresh` in its background thread, as pgcli does after connecting;
4. ask that completer for completions after `SELECT * FROM `, after a schema, for columns of a table, …;
5. run `\\dn \\dt \\dv \\dm \\di \\df \\dT \\l \\du \\d TABLE \\d+ TABLE \\d VIEW` through `PGExecute.run`, as
   pgcli runs them (pgspecial's own catalog queries), and `\\ev`'s view_definition;
6. run SQL with an error through pgcli's exception formatter and `on_error_resume`, then drop everything.

Each step that raises is reported as {"error": "ExceptionType: message"} so the test shows what failed.
"""

from __future__ import annotations

import json
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any

# pgcli lives in its tool venv only (mypy, run from ours, does not see it)
from pgcli.completion_refresher import CompletionRefresher  # type: ignore[import-not-found]
from pgcli.pgcompleter import PGCompleter  # type: ignore[import-not-found]
from pgcli.pgexecute import PGExecute  # type: ignore[import-not-found]
from pgspecial.main import PGSpecial  # type: ignore[import-not-found]
from prompt_toolkit.document import Document  # type: ignore[import-not-found]


def text(value: Any) -> Any:
    return value if value is None or isinstance(value, bool | int | float | str) else str(value)


def attempt(out: dict[str, Any], key: str, step: Callable[[], Any]) -> None:
    try:
        out[key] = step()
    except Exception as err:  # the test asserts there is none; this shows which step and why
        out[key] = {"error": f"{type(err).__name__}: {err}"}


def run(executor: PGExecute, special: PGSpecial, sql: str) -> list[dict[str, Any]]:
    """`PGExecute.run` as pgcli's REPL calls it: each result as title, headers, rows (text), status."""
    results = []
    for title, cur, headers, status, _sql, success, is_special in executor.run(
        sql, pgspecial=special, exception_formatter=lambda err: f"ERROR {err.sqlstate}: {err}", on_error_resume=True
    ):
        rows = [[text(value) for value in row] for row in cur] if cur is not None else None
        results.append({
            "title": title, "headers": list(headers) if headers else None, "rows": rows, "status": text(status),
            "success": success, "special": is_special,
        })
    return results


def names(completions: Iterable[Any]) -> list[str]:
    return [c.text for c in completions]


def complete(completer: PGCompleter, before: str, after: str = "") -> list[str]:
    document = Document(text=before + after, cursor_position=len(before))
    return names(completer.get_completions(document, None))


def refresh_each(executor: PGExecute, completer: PGCompleter) -> dict[str, str | None]:
    """Every refresher pgcli registers, in its order, with the error (if any) of each."""
    errors: dict[str, str | None] = {}
    for name, refresher in CompletionRefresher.refreshers.items():
        try:
            refresher(completer, executor)
            errors[name] = None
        except Exception as err:
            errors[name] = f"{type(err).__name__}: {err}"
    return errors


def refresh_in_background(executor: PGExecute, special: PGSpecial, settings: dict[str, Any]) -> bool:
    """pgcli's own path: `CompletionRefresher.refresh` on a copy of the executor in a thread, then the callback."""
    done = threading.Event()
    got: list[PGCompleter] = []

    def callback(new: PGCompleter) -> None:
        got.append(new)
        done.set()

    CompletionRefresher().refresh(executor, special, callback, settings=settings)
    return done.wait(120) and len(got) == 1


def main() -> None:
    config = json.loads(sys.argv[1])
    prefix: str = config["prefix"]
    schema, table, other, view, matview, index = (
        f"{prefix}_s", f"{prefix}_orders", f"{prefix}_customers", f"{prefix}_big", f"{prefix}_totals",
        f"{prefix}_orders_idx",
    )
    out: dict[str, Any] = {}
    executor = PGExecute(config["database"], config["user"], None, config["host"], config["port"])
    special = PGSpecial()
    out["connect"] = {
        "dbname": executor.dbname, "user": executor.user, "server_version": executor.server_version,
        "superuser": executor.superuser, "virtual": executor.is_virtual_database(), "pid": executor.pid > 0,
    }
    attempt(out, "timezone_before", executor.get_timezone)
    attempt(out, "set_timezone", lambda: executor.set_timezone("Europe/Berlin"))
    attempt(out, "timezone_after", executor.get_timezone)

    setup = [
        f"CREATE SCHEMA {schema}",
        f"CREATE TABLE {schema}.{table} (order_id int8 NOT NULL, customer_name text, amount numeric(10,2), "
        "placed date DEFAULT DATE '2024-01-01', PRIMARY KEY (order_id))",
        f"CREATE TABLE {other} (customer_id int4, customer_name text)",
        f"INSERT INTO {schema}.{table} VALUES (1, 'ada', 12.50, DATE '2024-02-01'), (2, 'bob', 99.99, NULL)",
        f"CREATE VIEW {schema}.{view} AS SELECT order_id, amount FROM {schema}.{table} WHERE amount > 50",
        f"CREATE MATERIALIZED VIEW {matview} AS SELECT customer_name, sum(amount) AS total "
        f"FROM {schema}.{table} GROUP BY customer_name",
        f"CREATE INDEX {index} ON {schema}.{table} (customer_name)",
    ]
    attempt(out, "setup", lambda: [r["status"] for sql in setup for r in run(executor, special, sql)])
    attempt(out, "select", lambda: run(executor, special, f"SELECT * FROM {schema}.{table} ORDER BY order_id"))

    with tempfile.TemporaryDirectory() as tmp:
        casing = Path(tmp) / "casing"
        settings: dict[str, Any] = {
            "casing_file": str(casing), "generate_casing_file": True, "generate_aliases": False,
            "asterisk_column_order": "table_order", "qualify_columns": "if_more_than_one_table",
            "case_column_headers": True, "search_path_filter": False, "single_connection": False,
            "less_chatty": True, "keyword_casing": "auto", "alias_map_file": None,
        }
        completer = PGCompleter(smart_completion=True, pgspecial=special, settings=settings)
        out["refresh_errors"] = refresh_each(executor, completer)
        attempt(out, "refresh_in_background", lambda: refresh_in_background(executor, special, settings))
        out["casing_words"] = len(casing.read_text().split()) if casing.exists() else None

    meta = completer.dbmetadata
    out["metadata"] = {
        "search_path": completer.search_path,
        "schemata": sorted(completer.dbmetadata["tables"]),
        "tables": {s: sorted(meta["tables"].get(s, {})) for s in (schema, "public")},
        "views": {s: sorted(meta["views"].get(s, {})) for s in (schema, "public")},
        "columns": {
            name: [[c.name, c.datatype, c.has_default, c.default] for c in meta[kind][s][name].values()]
            for kind, s, name in (("tables", schema, table), ("tables", "public", other), ("views", schema, view),
                                  ("views", "public", matview))
            if name in meta[kind].get(s, {})
        },
        "databases": completer.databases,
        "datatypes": {s: sorted(v) for s, v in meta["datatypes"].items()},
        "function_count": sum(len(v) for v in meta["functions"].values()),
        "function_schemas": sorted(meta["functions"]),
        "functions_sample": sorted(
            f for f in meta["functions"].get("pg_catalog", {}) if f in ("lower", "upper", "count", "now", "abs")
        ),
    }
    out["completions"] = {
        "from": complete(completer, "SELECT * FROM "),
        "from_schema": complete(completer, f"SELECT * FROM {schema}."),
        "columns": complete(completer, "SELECT ", f" FROM {schema}.{table}"),
        "where": complete(completer, f"SELECT * FROM {other} WHERE "),
        "view_columns": complete(completer, "SELECT ", f" FROM {schema}.{view}"),
        "prefixed": complete(completer, f"SELECT * FROM {prefix}_"),
        "functions": complete(completer, "SELECT lowe"),
        "datatypes": complete(completer, f"CREATE TABLE {prefix}_x (a "),
        "connect": complete(completer, "\\c "),
        "special": complete(completer, "\\d"),
    }

    commands = {
        "dn": "\\dn", "dt": "\\dt", "dt_schema": f"\\dt {schema}.*", "dv": f"\\dv {schema}.*", "dm": "\\dm",
        "di": f"\\di {schema}.*", "df": "\\df", "df_lower": "\\df pg_catalog.lower", "dT": "\\dT",
        "l": "\\l", "du": "\\du", "d": "\\d", "d_table": f"\\d {schema}.{table}", "d_plus": f"\\d+ {schema}.{table}",
        "d_view": f"\\d {schema}.{view}", "d_other": f"\\d {other}", "dx": "\\dx", "dp": f"\\dp {schema}.*",
        "ds": "\\ds", "describe": f"DESCRIBE {other}",
    }
    out["special"] = {}
    for key, command in commands.items():
        attempt(out["special"], key, partial(run, executor, special, command))
    attempt(out, "view_definition", lambda: executor.view_definition(f"{schema}.{view}"))

    out["errors"] = run(executor, special, f"SELECT 1 AS a; SELECT * FROM {prefix}_missing; SELECT 2 AS b")
    out["transaction"] = {}
    attempt(out["transaction"], "begin", lambda: run(executor, special, "BEGIN")[0]["status"])
    out["transaction"]["indicator_open"] = executor.transaction_indicator
    attempt(out["transaction"], "fail", lambda: run(executor, special, "SELECT 1 / 0")[0]["status"])
    out["transaction"]["indicator_failed"] = executor.transaction_indicator
    attempt(out["transaction"], "rollback", lambda: run(executor, special, "ROLLBACK")[0]["status"])
    out["transaction"]["indicator_after"] = executor.transaction_indicator

    teardown = [f"DROP MATERIALIZED VIEW {matview}", f"DROP TABLE {other}", f"DROP SCHEMA {schema} CASCADE"]
    attempt(out, "teardown", lambda: [r["status"] for sql in teardown for r in run(executor, special, sql)])
    executor.conn.close()
    print(json.dumps(out, default=str))


if __name__ == "__main__":
    main()
