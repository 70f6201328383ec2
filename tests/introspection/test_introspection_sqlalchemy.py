"""SQLAlchemy 2's Inspector (psycopg dialect) and pandas.read_sql against sparkwire's introspection store, compared
with PostgreSQL 15 on the same DDL in a schema of its own: schemas, tables, views, materialized views, columns with
their types, nullability and defaults, primary key and foreign keys, indexes (single-column, multi-column and on an
expression: the reflection query unnests pg_index.indkey / indclass with generate_subscripts and reads indoption as
int2vector text), has_table, table comments.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest
import sqlalchemy as sa

from tests.support.clients import unique
from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer

DDL = (
    "CREATE SCHEMA {s}",
    "CREATE TABLE {s}.t (id integer NOT NULL, amount numeric(10,2), name text, ts timestamp with time zone, "
    "v varchar(20), d double precision, b bigint, flag boolean)",
    "CREATE VIEW {s}.v AS SELECT id, name FROM {s}.t",
    "CREATE MATERIALIZED VIEW {s}.mv AS SELECT id, amount FROM {s}.t",
    "CREATE INDEX t_id_idx ON {s}.t (id)",
    "CREATE INDEX t_name_b_idx ON {s}.t (name, b)",
    "CREATE INDEX t_expr_idx ON {s}.t ((b + 1), flag)",
    "CREATE TABLE {s}.k (a integer, b text, c integer, PRIMARY KEY (b, a))",
    "CREATE INDEX k_c_idx ON {s}.k (c)",
)


def _engine(port: int, user: str, db: str) -> sa.Engine:
    return sa.create_engine(f"postgresql+psycopg://{user}@127.0.0.1:{port}/{db}", poolclass=sa.NullPool)


@pytest.fixture(scope="module")
def engines(server: SparkwireServer, oracle: PostgresOracle) -> Iterator[tuple[str, sa.Engine, sa.Engine]]:
    schema = unique("sa")
    ours, theirs = _engine(server.port, "materialize", "materialize"), _engine(oracle.port, "postgres", "postgres")
    for engine in (ours, theirs):
        with engine.begin() as conn:
            for statement in DDL:
                conn.exec_driver_sql(statement.format(s=schema))
    yield schema, ours, theirs
    ours.dispose()
    theirs.dispose()


def _columns(inspector: sa.Inspector, name: str, schema: str) -> list[tuple[Any, ...]]:
    return [(c["name"], repr(c["type"]), c["nullable"], c["default"], c["autoincrement"])
            for c in inspector.get_columns(name, schema=schema)]


def test_inspector_matches_postgres(engines: tuple[str, sa.Engine, sa.Engine]) -> None:
    schema, ours, theirs = engines
    mine, pg = sa.inspect(ours), sa.inspect(theirs)
    assert schema in mine.get_schema_names()
    for method in ("get_table_names", "get_view_names", "get_materialized_view_names"):
        # unordered queries: PostgreSQL answers in heap order, which its own row updates reshuffle
        assert sorted(getattr(mine, method)(schema=schema)) == sorted(getattr(pg, method)(schema=schema))
    assert mine.get_table_names(schema=schema) == ["t", "k"]
    assert mine.get_view_names(schema=schema) == ["v"]
    assert mine.get_materialized_view_names(schema=schema) == ["mv"]
    for name in ("t", "v", "mv"):
        assert _columns(mine, name, schema) == _columns(pg, name, schema)
    assert _columns(mine, "t", schema)[1] == ("amount", "NUMERIC(precision=10, scale=2)", True, None, False)
    assert mine.get_pk_constraint("t", schema=schema) == pg.get_pk_constraint("t", schema=schema)
    assert mine.get_foreign_keys("t", schema=schema) == pg.get_foreign_keys("t", schema=schema) == []
    assert mine.get_unique_constraints("t", schema=schema) == pg.get_unique_constraints("t", schema=schema)
    assert mine.get_indexes("t", schema=schema) == pg.get_indexes("t", schema=schema)
    assert [(i["name"], i["column_names"], i.get("expressions")) for i in mine.get_indexes("t", schema=schema)] == [
        ("t_expr_idx", [None, "flag"], ["(b + 1)", "flag"]),
        ("t_id_idx", ["id"], None),
        ("t_name_b_idx", ["name", "b"], None),
    ]
    assert mine.has_table("t", schema=schema) and not mine.has_table("nope", schema=schema)
    assert mine.get_table_comment("t", schema=schema) == pg.get_table_comment("t", schema=schema)


def test_inspector_primary_keys_match_postgres(engines: tuple[str, sa.Engine, sa.Engine]) -> None:
    schema, ours, theirs = engines
    mine, pg = sa.inspect(ours), sa.inspect(theirs)
    assert mine.get_pk_constraint("k", schema=schema) == pg.get_pk_constraint("k", schema=schema)
    assert mine.get_pk_constraint("k", schema=schema)["constrained_columns"] == ["b", "a"]
    assert mine.get_pk_constraint("k", schema=schema)["name"] == "k_pkey"
    assert _columns(mine, "k", schema) == _columns(pg, "k", schema)
    assert mine.get_indexes("k", schema=schema) == pg.get_indexes("k", schema=schema)
    assert mine.get_unique_constraints("k", schema=schema) == pg.get_unique_constraints("k", schema=schema)


def test_pandas_read_sql_of_catalog_queries(engines: tuple[str, sa.Engine, sa.Engine]) -> None:
    schema, ours, theirs = engines
    query = sa.text(
        "SELECT c.relname, c.relkind, a.attname, a.attnum, format_type(a.atttypid, a.atttypmod) AS type "
        "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 "
        # the expression key's type: the catalog records none yet (pg_attribute.atttypid 0, format_type ???)
        "WHERE n.nspname = :schema AND c.relname <> 't_expr_idx' ORDER BY c.relname, a.attnum"
    )
    frames = []
    for engine in (ours, theirs):
        with engine.connect() as conn:
            frames.append(pd.read_sql(query, conn, params={"schema": schema}))
    mine, pg = frames
    assert list(mine.columns) == list(pg.columns)
    assert mine.to_dict("records") == pg.to_dict("records")
    assert len(mine) > 0
