"""Apache Superset's own code paths against one or more PostgreSQL-wire servers; run by test_client_superset.py with
the Python of the tool venv `.venv-tools/superset` (tests/tools/superset.txt: Superset, the SQLAlchemy 1.4 and
psycopg2 it pins), never imported by our tests.

    python superset_driver.py WORKDIR SCHEMA URL [URL ...]

For each `postgresql://` URL it writes to WORKDIR/result.json (one JSON object, keyed by URL: Superset prints to
stdout itself) what Superset sees of SCHEMA, which the test created first: a table `events` (primary key, index),
a view `events_v` and a materialized view `events_mv`. Every step records its value or the error it raised, so
one failure does not hide the others.

- `inspector`: SQLAlchemy 1.4's PostgreSQL (psycopg2) Inspector, as Superset's engine spec calls it: schema,
  table, view, materialized view and foreign table names; columns (type, nullable, default, autoincrement, comment),
  primary key, foreign keys, indexes, unique and check constraints, table comment, view definition, has_table,
  enums, and a reflected `Table` (autoload_with);
- `superset`: `Database` and `PostgresEngineSpec` methods behind SQL Lab's schema browser and "add dataset":
  catalogs (pg_database), schemas, tables (with foreign tables), views, columns, indexes, the table metadata panel
  (`get_table_metadata`, with select_star), has_table, `get_cancel_query_id` (pg_backend_pid);
- `dataset`: a `SqlaTable` on `events` as "add dataset" makes it (`fetch_metadata`: columns, types, temporal
  flags) and the SQL that Explore generates and runs for it (`get_query_str`, `query`): a time series with a
  DAY grain grouped by a dimension with a SUM metric, an IN filter, ORDER BY and LIMIT 10000; the big-number
  COUNT(*); a time range filter (`convert_dttm`: TO_TIMESTAMP); every time grain the engine spec offers;
- `sqllab`: the engine spec's prequeries for a selected schema (`set search_path = "schema"`), `Database.get_df`
  for a query on an unqualified name with that schema selected, and a result set's column types as SQL Lab shows
  them (`SupersetResultSet`).

Superset needs a Flask app and a metadata database: WORKDIR gets a throwaway `superset_config.py` (SQLite
metadata, no caches) before Superset is imported.
"""

from __future__ import annotations

import datetime
import decimal
import json
import os
import sys
from pathlib import Path
from typing import Any

CONFIG = """
SECRET_KEY = "sparkwire-superset-test-only-not-a-secret"
SQLALCHEMY_DATABASE_URI = "sqlite:///{workdir}/superset.db"
WTF_CSRF_ENABLED = False
CACHE_CONFIG = {{"CACHE_TYPE": "NullCache"}}
DATA_CACHE_CONFIG = {{"CACHE_TYPE": "NullCache"}}
FILTER_STATE_CACHE_CONFIG = {{"CACHE_TYPE": "NullCache"}}
EXPLORE_FORM_DATA_CACHE_CONFIG = {{"CACHE_TYPE": "NullCache"}}
THUMBNAIL_CACHE_CONFIG = {{"CACHE_TYPE": "NullCache"}}
"""


def plain(value: Any) -> Any:
    """A JSON-able copy: SQLAlchemy types as their repr, datetimes and decimals as text, sets sorted."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted(plain(v) for v in value)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    return repr(value)


def attempt(out: dict[str, Any], name: str, fn: Any) -> None:
    """Record fn()'s value, or the error it raised: every step runs, so one failure does not hide the others."""
    try:
        out[name] = plain(fn())
    except Exception as exc:
        out[name] = {"error": f"{type(exc).__name__}: {exc}".splitlines()[0]}


def inspector_facts(engine: Any, schema: str) -> dict[str, Any]:
    import sqlalchemy as sa

    out: dict[str, Any] = {}
    insp: Any = sa.inspect(engine)
    attempt(out, "schema_names", insp.get_schema_names)
    attempt(out, "table_names", lambda: insp.get_table_names(schema))
    attempt(out, "view_names", lambda: insp.get_view_names(schema))
    attempt(out, "plain_view_names", lambda: insp.get_view_names(schema, include=("plain",)))
    attempt(out, "materialized_view_names", lambda: insp.get_view_names(schema, include=("materialized",)))
    attempt(out, "foreign_table_names", lambda: insp.get_foreign_table_names(schema))
    attempt(out, "enums", lambda: insp.get_enums(schema))
    for name in ("events", "events_v", "events_mv"):
        attempt(out, f"columns.{name}", lambda n=name: [
            {k: c.get(k) for k in ("name", "type", "nullable", "default", "autoincrement", "comment")}
            for c in insp.get_columns(n, schema)
        ])
    attempt(out, "pk_constraint", lambda: insp.get_pk_constraint("events", schema))
    attempt(out, "foreign_keys", lambda: insp.get_foreign_keys("events", schema))
    attempt(out, "indexes", lambda: insp.get_indexes("events", schema))
    attempt(out, "unique_constraints", lambda: insp.get_unique_constraints("events", schema))
    attempt(out, "check_constraints", lambda: insp.get_check_constraints("events", schema))
    attempt(out, "table_comment", lambda: insp.get_table_comment("events", schema))
    attempt(out, "view_definition_is_text", lambda: isinstance(insp.get_view_definition("events_v", schema), str))
    attempt(out, "has_table", lambda: [insp.has_table("events", schema), insp.has_table("nope", schema)])
    attempt(out, "reflected", lambda: [
        (c.name, repr(c.type), c.nullable, c.primary_key)
        for c in sa.Table("events", sa.MetaData(), schema=schema, autoload_with=engine).columns
    ])
    return out


def superset_facts(database: Any, schema: str) -> dict[str, Any]:
    from superset.databases.utils import get_table_metadata
    from superset.sql.parse import Table

    out: dict[str, Any] = {}
    events = Table("events", schema)
    attempt(out, "catalogs", database.get_all_catalog_names)
    attempt(out, "schemas", database.get_all_schema_names)
    # (table, schema, catalog) triples
    attempt(out, "tables", lambda: database.get_all_table_names_in_schema(None, schema))
    attempt(out, "views", lambda: database.get_all_view_names_in_schema(None, schema))
    attempt(out, "columns", lambda: [
        {k: c.get(k) for k in ("column_name", "name", "type", "type_generic", "is_dttm", "nullable", "default")}
        for c in database.get_columns(events)
    ])
    attempt(out, "indexes", lambda: database.get_indexes(events))
    attempt(out, "table_comment", lambda: database.get_table_comment(events))
    attempt(out, "has_table", lambda: [database.has_table(events), database.has_table(Table("nope", schema))])
    attempt(out, "table_metadata", lambda: get_table_metadata(database, events))
    attempt(out, "select_star", lambda: database.select_star(events, limit=100, show_cols=True, latest_partition=True))

    def cancel_id() -> bool:
        with database.get_raw_connection() as conn:
            cursor = conn.cursor()
            pid = database.db_engine_spec.get_cancel_query_id(cursor, None)
            return isinstance(pid, int) and pid > 0

    attempt(out, "cancel_query_id", cancel_id)
    return out


def rows(df: Any) -> list[dict[str, Any]]:
    return [{k: plain(v.item() if hasattr(v, "item") else v) for k, v in rec.items()} for rec in df.to_dict("records")]


def dataset_facts(meta: Any, database: Any, schema: str) -> dict[str, Any]:
    from superset.connectors.sqla.models import SqlaTable

    out: dict[str, Any] = {}
    dataset = SqlaTable(table_name="events", schema=schema, database=database)
    meta.session.add(dataset)
    meta.session.commit()
    attempt(out, "fetch_metadata", lambda: dataset.fetch_metadata().added)
    attempt(out, "dataset_columns", lambda: [(c.column_name, c.type, c.is_dttm) for c in dataset.columns])
    sum_x = {"expressionType": "SIMPLE", "column": {"column_name": "x"}, "aggregate": "SUM", "label": "SUM(x)"}
    base: dict[str, Any] = {
        "granularity": "ts", "from_dttm": None, "to_dttm": None, "is_timeseries": False, "row_limit": 10000,
        "groupby": [], "metrics": [], "filter": [], "extras": {}, "orderby": [], "order_desc": True,
    }
    queries: dict[str, dict[str, Any]] = {
        "timeseries": {**base, "is_timeseries": True, "extras": {"time_grain_sqla": "P1D"}, "groupby": ["category"],
                       "metrics": [sum_x], "filter": [{"col": "category", "op": "IN", "val": ["a", "b"]}],
                       "orderby": [(sum_x, False)]},
        "big_number": {**base, "metrics": ["count"]},
        "time_range": {**base, "metrics": ["count"], "from_dttm": datetime.datetime(2024, 1, 1),
                       "to_dttm": datetime.datetime(2024, 1, 3)},
        "table": {**base, "groupby": ["category"], "metrics": [sum_x, "count"], "orderby": [(sum_x, False)],
                  "filter": [{"col": "flag", "op": "IS TRUE"}]},
    }
    for grain in database.db_engine_spec.get_time_grain_expressions():
        if grain is not None:
            queries[f"grain {grain}"] = {**base, "is_timeseries": True, "extras": {"time_grain_sqla": grain},
                                         "metrics": ["count"], "orderby": [("count", True)]}
    for name, query in queries.items():
        attempt(out, f"sql.{name}", lambda q=query: dataset.get_query_str(q))
        attempt(out, f"rows.{name}", lambda q=query: rows(dataset.query(q).df))
    return out


def sqllab_facts(database: Any, schema: str) -> dict[str, Any]:
    from superset.result_set import SupersetResultSet

    out: dict[str, Any] = {}
    attempt(out, "prequeries", lambda: database.db_engine_spec.get_prequeries(database, schema=schema))
    attempt(out, "get_df_search_path", lambda: rows(database.get_df(
        "SELECT category, count(*) AS n FROM events GROUP BY category ORDER BY category", schema=schema)))
    sql = f"SELECT id, ts, category, x, amount, d, flag FROM {schema}.events ORDER BY id LIMIT 3"

    def result_set() -> dict[str, Any]:
        with database.get_raw_connection(schema=schema) as conn:  # runs the engine spec's prequeries
            cursor = conn.cursor()
            cursor.execute(sql)
            result = SupersetResultSet(cursor.fetchall(), cursor.description, database.db_engine_spec)
        return {"columns": [{k: c.get(k) for k in ("column_name", "type", "is_dttm")} for c in result.columns],
                "rows": rows(result.to_pandas_df())}

    attempt(out, "result_set", result_set)
    return out


def main() -> None:
    workdir, schema, urls = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
    (workdir / "superset_config.py").write_text(CONFIG.format(workdir=workdir))
    os.environ["SUPERSET_CONFIG_PATH"] = str(workdir / "superset_config.py")
    from flask_appbuilder import Model
    from superset.app import create_app

    app = create_app()
    results: dict[str, Any] = {}
    with app.app_context():
        from superset import db as meta
        from superset.models.core import Database

        Model.metadata.create_all(bind=meta.engine)
        for i, url in enumerate(urls):
            database = Database(database_name=f"db{i}", sqlalchemy_uri=url)
            meta.session.add(database)
            meta.session.commit()
            with database.get_sqla_engine() as engine:
                facts = {"inspector": inspector_facts(engine, schema)}
            facts["superset"] = superset_facts(database, schema)
            facts["dataset"] = dataset_facts(meta, database, schema)
            facts["sqllab"] = sqllab_facts(database, schema)
            results[url] = facts
    (workdir / "result.json").write_text(json.dumps(results))


if __name__ == "__main__":
    main()
