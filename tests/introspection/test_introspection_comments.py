"""COMMENT ON against PostgreSQL 15: the same statements on both servers give the same pg_description rows,
obj_description / col_description / shobj_description answers and errors; Materialize's mz_internal.mz_comments and
SHOW … comment columns show them too. Also what dbt's relation swap needs: renaming a relation other objects depend
on (their definitions follow the new name, as PostgreSQL's do), and unquoted upper-case names folded to lower case
(`"materialize".INFORMATION_SCHEMA.columns`)."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer

Conn = psycopg.Connection[Any]

SCHEMA = [
    "CREATE SCHEMA cmt",
    "CREATE TABLE cmt.t (a int, b text, c date)",
    "CREATE VIEW cmt.v AS SELECT a, b FROM cmt.t WHERE a > 0",
    "CREATE MATERIALIZED VIEW cmt.m AS SELECT count(*) AS n FROM cmt.t",
    "CREATE INDEX t_b ON cmt.t (b)",
    "COMMENT ON SCHEMA cmt IS 'the schema'",
    "COMMENT ON TABLE cmt.t IS 'a table'",
    "COMMENT ON COLUMN cmt.t.b IS $$it's b$$",
    "COMMENT ON COLUMN cmt.t.c IS $body$c, with $$ inside$body$",
    "COMMENT ON VIEW cmt.v IS 'a view'",
    "COMMENT ON COLUMN cmt.v.a IS 'view column'",
    "COMMENT ON MATERIALIZED VIEW cmt.m IS 'a materialized view'",
    "COMMENT ON INDEX cmt.t_b IS 'an index'",
    "COMMENT ON COLUMN cmt.t.a IS 'to be removed'",
    "COMMENT ON COLUMN cmt.t.a IS NULL",
]

DESCRIPTIONS = """
select c.relname, d.objsubid, d.description, d.classoid::regclass::text
from pg_description d join pg_class c on c.oid = d.objoid
where c.relnamespace = 'cmt'::regnamespace
order by 1, 2
"""


@pytest.fixture(scope="module")
def both(server: SparkwireServer, oracle: PostgresOracle) -> tuple[Conn, Conn]:
    sw = psycopg.connect(server.dsn, autocommit=True)
    pg = psycopg.connect(oracle.dsn, autocommit=True)
    pg.execute("DROP SCHEMA IF EXISTS cmt CASCADE")
    for statement in SCHEMA:
        tags = sw.execute(statement).statusmessage, pg.execute(statement).statusmessage
        if statement.startswith("COMMENT"):
            assert tags == ("COMMENT", "COMMENT")
    return sw, pg


def _same(both: tuple[Conn, Conn], sql: str) -> list[tuple[Any, ...]]:
    sw, pg = both
    rows = sw.execute(sql).fetchall()
    assert rows == pg.execute(sql).fetchall()
    return rows


def test_pg_description_rows(both: tuple[Conn, Conn]) -> None:
    rows = _same(both, DESCRIPTIONS)
    assert ("t", 2, "it's b", "pg_class") in rows
    assert ("t", 3, "c, with $$ inside", "pg_class") in rows
    assert not [r for r in rows if r[0] == "t" and r[1] == 1]


def test_description_functions(both: tuple[Conn, Conn]) -> None:
    rows = _same(
        both,
        "select obj_description('cmt.t'::regclass, 'pg_class'), obj_description('cmt.t'::regclass), "
        "col_description('cmt.t'::regclass, 2), col_description('cmt.t'::regclass, 1), "
        "obj_description('cmt'::regnamespace, 'pg_namespace'), obj_description('cmt.v'::regclass, 'pg_type'), "
        "obj_description(NULL, 'pg_class'), col_description('cmt.v'::regclass, 1)",
    )
    assert rows == [("a table", "a table", "it's b", None, "the schema", None, None, "view column")]


def test_psql_style_listing(both: tuple[Conn, Conn]) -> None:
    """What psql's `\\dt+` / `\\d+` read: the description next to each relation and column."""
    _same(
        both,
        "select c.relname, pg_catalog.obj_description(c.oid, 'pg_class') from pg_catalog.pg_class c "
        "where c.relnamespace = 'cmt'::regnamespace order by 1",
    )
    _same(
        both,
        "select a.attname, pg_catalog.col_description(a.attrelid, a.attnum) from pg_catalog.pg_attribute a "
        "where a.attrelid = 'cmt.t'::regclass and a.attnum > 0 order by a.attnum",
    )


def test_database_and_role_comments_are_shared(server: SparkwireServer, sw: Conn) -> None:
    sw.execute("COMMENT ON DATABASE materialize IS 'the database'")
    sw.execute("COMMENT ON ROLE materialize IS 'the superuser'")
    try:
        rows = sw.execute(
            "select shobj_description(oid, 'pg_database') from pg_database where datname = 'materialize' "
            "union all select shobj_description(oid, 'pg_authid') from pg_roles where rolname = 'materialize'"
        ).fetchall()
        assert rows == [("the database",), ("the superuser",)]
        assert sw.execute(
            "select count(*) from pg_shdescription d join pg_database b on b.oid = d.objoid "
            "where d.classoid = 'pg_database'::regclass"
        ).fetchone() == (1,)
    finally:
        sw.execute("COMMENT ON DATABASE materialize IS NULL")
        sw.execute("COMMENT ON ROLE materialize IS NULL")


def test_mz_comments_and_show(both: tuple[Conn, Conn]) -> None:
    sw, _ = both
    rows = sw.execute(
        "select o.name, c.object_type, c.object_sub_id, c.comment from mz_internal.mz_comments c "
        "join mz_objects o on o.id = c.id join mz_schemas s on s.id = o.schema_id where s.name = 'cmt' "
        "order by 1, 3 nulls first"
    ).fetchall()
    assert ("t", "table", None, "a table") in rows
    assert ("t", "table", 2, "it's b") in rows
    assert ("m", "materialized-view", None, "a materialized view") in rows
    assert ("t_b", "index", None, "an index") in rows
    assert sw.execute("SHOW TABLES FROM cmt").fetchall() == [("t", "a table")]
    columns = sw.execute("SHOW COLUMNS FROM cmt.t").fetchall()
    expected = [("a", None), ("b", "it's b"), ("c", "c, with $$ inside")]
    assert [(name, comment) for name, _, _, comment in columns] == expected


@pytest.mark.parametrize(
    "statement",
    [
        "COMMENT ON TABLE cmt.nope IS 'x'",
        "COMMENT ON COLUMN cmt.t.nope IS 'x'",
        "COMMENT ON VIEW cmt.t IS 'x'",
        "COMMENT ON MATERIALIZED VIEW cmt.v IS 'x'",
        "COMMENT ON INDEX cmt.t IS 'x'",
        "COMMENT ON TABLE cmt.m IS 'x'",
        "COMMENT ON TABLE cmt.v IS 'x'",
        "COMMENT ON SCHEMA nope IS 'x'",
        "COMMENT ON ROLE nope IS 'x'",
        "COMMENT ON TABLE cmt.t IS 42",
        "COMMENT ON TABLE cmt.t 'x'",
        "COMMENT ON COLUMN t IS 'x'",
    ],
)
def test_errors_as_postgresql(both: tuple[Conn, Conn], statement: str) -> None:
    sw, pg = both
    codes = []
    for conn in (sw, pg):
        with pytest.raises(psycopg.Error) as info:
            conn.execute(statement)
        codes.append(info.value.sqlstate)
    assert codes[0] == codes[1], statement
    assert sw.execute("select 1").fetchone() == (1,)


def test_only_the_owner_comments(server: SparkwireServer, sw: Conn) -> None:
    sw.execute("CREATE ROLE cmt_other LOGIN")
    try:
        with psycopg.connect(server.dsn.replace("user=materialize", "user=cmt_other"), autocommit=True) as other:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                other.execute("COMMENT ON TABLE cmt.t IS 'not mine'")
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                other.execute("COMMENT ON ROLE materialize IS 'not mine'")
        assert sw.execute("select obj_description('cmt.t'::regclass, 'pg_class')").fetchone() == ("a table",)
    finally:
        sw.execute("DROP ROLE cmt_other")


def test_unquoted_names_fold_to_lower_case(both: tuple[Conn, Conn]) -> None:
    _same(both, "SELECT COUNT(*) FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = 'cmt'")
    _same(both, "SELECT A, B AS Bee, C AS \"Cee\" FROM CMT.T")
    sw, _ = both
    for conn in both:
        cursor = conn.execute("SELECT 1 AS Foo, 2 AS \"Bar\"")
        assert [d.name for d in cursor.description or ()] == ["foo", "Bar"]
    with pytest.raises(psycopg.errors.UndefinedTable):
        sw.execute('SELECT * FROM cmt."T"')


def test_rename_with_dependents(both: tuple[Conn, Conn]) -> None:
    """PostgreSQL's views follow a renamed relation; so do sparkwire's (their definitions are rewritten)."""
    statements = [
        "CREATE TABLE cmt.r (x int)",
        "CREATE VIEW cmt.rv AS SELECT x, x + 1 AS y FROM cmt.r",
        "CREATE VIEW cmt.rv2 AS SELECT r.x FROM cmt.r JOIN cmt.rv ON rv.x = r.x",
        "CREATE INDEX r_x ON cmt.r (x)",
        "INSERT INTO cmt.r VALUES (1), (2)",
        "ALTER TABLE cmt.r RENAME TO r2",
        "ALTER VIEW cmt.rv RENAME TO rv_renamed",
    ]
    sw, pg = both
    for statement in statements:
        sw.execute(statement)
        pg.execute(statement)
    _same(both, "SELECT * FROM cmt.rv_renamed ORDER BY 1")
    _same(both, "SELECT * FROM cmt.rv2 ORDER BY 1")
    _same(both, "SELECT pg_get_viewdef('cmt.rv2'::regclass, true)")
    _same(both, "SELECT indexdef FROM pg_indexes WHERE schemaname = 'cmt' AND indexname = 'r_x'")
    with pytest.raises(psycopg.errors.UndefinedTable):
        sw.execute("SELECT * FROM cmt.r")
