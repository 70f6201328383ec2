"""Materialize's SHOW commands over a real durable catalog: objects are created through the DDL planner, then each
SHOW is parsed (ddl_grammar) and answered by show_objects; columns, types, rows, order and errors are checked."""

from __future__ import annotations

import pytest

from sparkwire.api import Field
from sparkwire.catalog import Catalog
from sparkwire.errors import PgError
from sparkwire.planner.bind.resolve import Names
from sparkwire.planner.grammar import ddl as g
from sparkwire.planner.grammar.show import ShowColumns, ShowCreate, ShowObjects
from sparkwire.planner.statements.show_objects import Row, show_objects
from tests.planner.test_planner_ddl import run


def show(cat: Catalog, sql: str, names: Names | None = None) -> tuple[list[str], list[Row]]:
    stmt = g.parse_materialize_ddl(sql)
    assert isinstance(stmt, ShowObjects | ShowColumns | ShowCreate), sql
    fields, rows = show_objects(stmt, cat.state, names or Names())
    return [f.name for f in fields], rows


def show_error(cat: Catalog, sql: str) -> tuple[str, str, str | None]:
    with pytest.raises(PgError) as info:
        show(cat, sql)
    return info.value.code, info.value.message, info.value.hint


@pytest.fixture
def populated(catalog: Catalog) -> Catalog:
    for sql in (
        "CREATE TABLE t (a int NOT NULL, b text, c numeric(10,2))",
        "CREATE TABLE a_table (x int)",
        "CREATE VIEW v AS SELECT a FROM t",
        "CREATE MATERIALIZED VIEW mv AS SELECT b FROM t",
        "CREATE DEFAULT INDEX ON t",
        "CREATE INDEX ON v (a)",
        "CREATE SCHEMA s",
        "CREATE TABLE s.other (y int)",
    ):
        run(catalog, sql)
    return catalog


def test_show_tables_views_materialized_views(populated: Catalog) -> None:
    assert show(populated, "SHOW TABLES") == (["name", "comment"], [("a_table", None), ("t", None)])
    assert show(populated, "SHOW TABLES FROM s") == (["name", "comment"], [("other", None)])
    assert show(populated, "SHOW TABLES LIKE 't%'")[1] == [("t", None)]
    assert show(populated, "SHOW TABLES", Names(search_path=("s",)))[1] == [("other", None)]
    assert show(populated, "SHOW VIEWS") == (["name", "comment"], [("v", None)])
    assert show(populated, "SHOW MATERIALIZED VIEWS") == (
        ["name", "cluster", "comment"],
        [("mv", "quickstart", None)],
    )
    assert show(populated, "SHOW MATERIALIZED VIEWS IN CLUSTER quickstart")[1] == [("mv", "quickstart", None)]


def test_show_indexes(populated: Catalog) -> None:
    names, rows = show(populated, "SHOW INDEXES")
    assert names == ["name", "on", "cluster", "key", "comment"]
    assert rows == [
        ("t_primary_idx", "t", "quickstart", ["a", "b", "c"], None),
        ("v_a_idx", "v", "quickstart", ["a"], None),
    ]
    assert show(populated, "SHOW INDEXES ON v")[1] == [("v_a_idx", "v", "quickstart", ["a"], None)]
    assert show(populated, "SHOW INDEXES FROM s")[1] == []
    assert len(show(populated, "SHOW INDEXES IN CLUSTER quickstart")[1]) == 2
    assert show_error(populated, "SHOW INDEXES ON t_primary_idx")[:2] == (
        "42809",
        "cannot show indexes on materialize.public.t_primary_idx because it is a index",
    )


def test_show_schemas_databases_clusters_objects(populated: Catalog) -> None:
    names, rows = show(populated, "SHOW SCHEMAS")
    assert names == ["name", "comment"]
    assert [r[0] for r in rows] == [
        "information_schema",
        "mz_catalog",
        "mz_internal",
        "mz_introspection",
        "pg_catalog",
        "public",
        "s",
    ]
    assert show(populated, "SHOW DATABASES") == (["name", "comment"], [("materialize", None)])
    assert show(populated, "SHOW CLUSTERS") == (["name", "replicas", "comment"], [("quickstart", "r1 (100cc)", None)])
    assert show(populated, "SHOW OBJECTS") == (
        ["name", "type", "comment"],
        [
            ("a_table", "table", None),
            ("mv", "materialized-view", None),
            ("t", "table", None),
            ("t_primary_idx", "index", None),
            ("v", "view", None),
            ("v_a_idx", "index", None),
        ],
    )
    assert show(populated, "SHOW OBJECTS FROM s")[1] == [("other", "table", None)]


def test_show_columns(populated: Catalog) -> None:
    stmt = g.parse_materialize_ddl("SHOW COLUMNS FROM t")
    assert isinstance(stmt, ShowColumns)
    fields, rows = show_objects(stmt, populated.state, Names())
    assert fields == (Field("name", 25), Field("nullable", 16, 1), Field("type", 25), Field("comment", 25))
    assert rows == [("a", False, "integer", None), ("b", True, "text", None), ("c", True, "numeric", None)]
    assert show(populated, "SHOW COLUMNS FROM v LIKE 'a'")[1] == [("a", True, "integer", None)]
    assert show(populated, "SHOW COLUMNS FROM s.other")[1] == [("y", True, "integer", None)]
    assert show_error(populated, "SHOW COLUMNS FROM nosuch")[:2] == ("42P01", 'relation "nosuch" does not exist')
    assert show_error(populated, "SHOW COLUMNS FROM t_primary_idx")[:2] == (
        "42809",
        "materialize.public.t_primary_idx is a index and so does not have columns",
    )
    assert show_error(populated, "SHOW COLUMNS FROM t WHERE name = 'a'")[0] == "0A000"


def test_show_create(populated: Catalog) -> None:
    assert show(populated, "SHOW CREATE TABLE t") == (
        ["name", "create_sql"],
        [
            (
                "materialize.public.t",
                "CREATE TABLE materialize.public.t (a integer NOT NULL, b text, c numeric(10,2))",
            )
        ],
    )
    assert show(populated, "SHOW CREATE VIEW v")[1] == [
        ("materialize.public.v", "CREATE VIEW materialize.public.v AS SELECT a FROM materialize.public.t")
    ]
    assert show(populated, "SHOW CREATE MATERIALIZED VIEW mv")[1][0][1] == (
        "CREATE MATERIALIZED VIEW materialize.public.mv IN CLUSTER quickstart AS SELECT b FROM materialize.public.t"
    )
    assert show(populated, "SHOW CREATE INDEX v_a_idx")[1] == [
        ("materialize.public.v_a_idx", "CREATE INDEX v_a_idx IN CLUSTER quickstart ON materialize.public.v (a)")
    ]
    assert show_error(populated, "SHOW CREATE VIEW mv") == (
        "42809",
        "materialize.public.mv is not a view",
        "Use SHOW CREATE MATERIALIZED VIEW to show a materialized view.",
    )
    assert show_error(populated, "SHOW CREATE TABLE v")[:2] == ("42809", "materialize.public.v is not a table")
    assert show_error(populated, "SHOW CREATE TABLE nosuch")[:2] == ("42P01", 'relation "nosuch" does not exist')
    assert show_error(populated, "SHOW CREATE TABLE nosuch.t")[:2] == ("3F000", 'schema "nosuch" does not exist')


def test_show_errors(populated: Catalog) -> None:
    assert show_error(populated, "SHOW TABLES FROM nosuch")[:2] == ("3F000", 'schema "nosuch" does not exist')
    assert show_error(populated, "SHOW MATERIALIZED VIEWS IN CLUSTER nosuch")[:2] == (
        "42704",
        'cluster "nosuch" does not exist',
    )
    with pytest.raises(PgError) as info:
        show(populated, "SHOW TABLES", Names(search_path=("nosuch",)))
    assert info.value.code == "3F000"
    with pytest.raises(PgError) as info:
        g.parse_materialize_ddl("SHOW TABLES LIKE")
    assert (info.value.code, info.value.message) == ("42601", "syntax error at end of input")
