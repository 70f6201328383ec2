"""harlequin-postgres' adapter against one or more PostgreSQL-wire servers, without the TUI; run by
test_client_harlequin.py with the Python of the tool venv `.venv-tools/harlequin` (tests/tools/harlequin.txt),
never imported by our tests.

    python harlequin_driver.py SCHEMA DSN [DSN ...]

Prints one JSON object, keyed by DSN, of what Harlequin shows of SCHEMA (which the test created first):

- `catalog`: `HarlequinPostgresAdapter(conn_str=(dsn,)).connect().get_catalog()` walked as the Data Catalog
  widget walks it (databases → schemas → relations → columns, each level lazily through `fetch_children`), with
  each item's label, type_label, type_name and class;
- `search`: `search_catalog(term, kind)` for every kind, as (parents, label, type_label, type_name);
- `completions`: `get_completions()` (keywords, information_schema.routines functions and aggregates, pg_settings
  names): the labels (and contexts) by type_label;
- `interactions`: every interaction the catalog offers on the schema and its relations (list relations and
  indexes, describe relation, indexes and constraints, view definition, select star, insert columns), run with a
  recording driver; the SQL an interaction puts in a new buffer is then run with `execute` as the user would,
  and its result columns (with Harlequin's short type labels) and rows recorded;
- `execute`: a query through `execute(...).fetchall()` and the cursor's `columns()`;
- `read_only`: a read-only connection (`read_only=True`: `set session characteristics as transaction read only`,
  then `current_setting('default_transaction_read_only')` must be `on`) refuses a write.
"""

from __future__ import annotations

import datetime
import decimal
import json
import sys
from typing import Any

from harlequin.exception import HarlequinConnectionError, HarlequinQueryError
from harlequin_postgres.adapter import HarlequinPostgresAdapter, HarlequinPostgresConnection


def plain(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    return repr(value)


def item_facts(item: Any) -> dict[str, Any]:
    return {"label": item.label, "type_label": item.type_label, "type_name": item.type_name,
            "class": type(item).__name__, "qualified_identifier": item.qualified_identifier}


def children(item: Any) -> list[Any]:
    if getattr(item, "loaded", False) and item.children:
        return list(item.children)
    return list(item.fetch_children())


class RecordingDriver:
    """What an interaction asks of Harlequin's app: new buffers (SQL the user then runs), notifications."""

    def __init__(self) -> None:
        self.buffers: list[str] = []
        self.inserted: list[str] = []
        self.notifications: list[tuple[str, str]] = []

    def insert_text_in_new_buffer(self, text: str) -> None:
        self.buffers.append(text)

    def insert_text_at_selection(self, text: str) -> None:
        self.inserted.append(text)

    def notify(self, message: str, severity: str = "information", **_: Any) -> None:
        self.notifications.append((severity, message))

    def confirm_and_execute(self, callback: Any) -> None:
        raise AssertionError("the driver never runs destructive interactions")

    def refresh_catalog(self) -> None:
        pass


def run(conn: HarlequinPostgresConnection, sql: str) -> dict[str, Any]:
    try:
        cursor = conn.execute(sql)
        if cursor is None:
            return {"columns": None, "rows": None}
        columns = cursor.columns()
        return {"columns": columns, "rows": plain(list(cursor.fetchall()))}
    except HarlequinQueryError as exc:
        return {"error": str(exc).splitlines()[0]}


SAFE_INTERACTIONS = (
    "List Relations", "List Indexes", "Describe Relation", "Describe Indexes", "Describe Constraints",
    "Show View Definition", "Preview Data", "Insert Columns at Cursor",
)


def interactions(conn: HarlequinPostgresConnection, item: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for label, interaction in item.INTERACTIONS:
        if not label.startswith(SAFE_INTERACTIONS):
            continue
        driver = RecordingDriver()
        try:
            interaction(item, driver)
        except Exception as exc:
            out[label] = {"error": f"{type(exc).__name__}: {exc}".splitlines()[0]}
            continue
        out[label] = {
            "notifications": driver.notifications,
            "inserted": driver.inserted,
            "results": [run(conn, sql) for sql in driver.buffers if not sql.startswith("-- View definition")],
            "view_definitions": [sql.split("\n", 1)[1].strip() for sql in driver.buffers
                                 if sql.startswith("-- View definition")],
        }
    return out


def completion_facts(conn: HarlequinPostgresConnection) -> dict[str, Any]:
    completions = conn.get_completions()
    by_type: dict[str, list[Any]] = {}
    for c in completions:
        by_type.setdefault(c.type_label, []).append(c.label if c.type_label in ("kw", "set") else [c.label, c.context])
    return {kind: sorted(labels) for kind, labels in by_type.items()}


def facts(dsn: str, schema: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    conn = HarlequinPostgresAdapter(conn_str=(dsn,)).connect()
    try:
        catalog = conn.get_catalog()
        out["databases"] = [item_facts(db) for db in catalog.items]
        database = next(db for db in catalog.items if db.label == conn._main_conn.info.dbname)
        schemas = children(database)
        out["schemas"] = [s.label for s in schemas]
        ours = next(s for s in schemas if s.label == schema)
        relations = children(ours)
        out["relations"] = [item_facts(r) for r in relations]
        out["columns"] = {r.label: [item_facts(c) for c in children(r)] for r in relations}
        out["search"] = {
            f"{kind} {term}": sorted(
                [list(found.parents), found.item.label, found.item.type_label, found.item.type_name]
                for found in conn.search_catalog(term, kind)
                if schema in found.parents or found.item.label == schema
            )
            for kind in ("all", "relations", "columns")
            for term in ("event", "categ", schema)
        }
        try:
            out["completions"] = completion_facts(conn)
        except Exception as exc:
            out["completions"] = {"error": f"{type(exc).__name__}: {exc}".splitlines()[0]}
        out["interactions"] = {"schema": interactions(conn, ours)}
        for relation in relations:
            out["interactions"][relation.label] = interactions(conn, relation)
        out["execute"] = run(conn, f"select id, category, ts, price, ok from {schema}.events order by id")
        out["execute_limit"] = plain(list(conn.execute(f"select id from {schema}.events order by id")
                                          .set_limit(1).fetchall()))
    finally:
        conn.close()
    try:
        read_only = HarlequinPostgresAdapter(conn_str=(dsn,), read_only=True).connect()
    except HarlequinConnectionError as exc:
        out["read_only"] = {"connect_error": str(exc).splitlines()[0]}
    else:
        try:
            out["read_only"] = {
                "select": run(read_only, f"select count(*) from {schema}.events"),
                "write": run(read_only, f"insert into {schema}.events (id) values (99)"),
            }
        finally:
            read_only.close()
    return out


def main() -> None:
    schema, dsns = sys.argv[1], sys.argv[2:]
    print(json.dumps({dsn: facts(dsn, schema) for dsn in dsns}))


if __name__ == "__main__":
    main()
