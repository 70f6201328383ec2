"""The catalog's errors against the PostgreSQL 15 oracle: the same DDL scenario runs on PostgreSQL (as SQL)
and on the catalog (as ops); SQLSTATE, message, detail and hint must match exactly."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import psycopg
import pytest

from sparkwire.catalog import Catalog, plan_drop
from sparkwire.catalog.drops import check_role_droppable, plan_drop_schema
from sparkwire.catalog.objects import ObjectRef
from sparkwire.catalog.ops import (
    CreateItem,
    CreateRole,
    CreateSchema,
    GrantPrivileges,
    GrantRole,
)
from sparkwire.catalog.state import NameContext
from tests.catalog.test_catalog_ops import MATERIALIZE_ROLE, PUBLIC_SCHEMA, create, error, spec
from tests.support.postgres import PostgresOracle

ErrorFields = tuple[str, str, str | None, str | None]
NAMES = NameContext("materialize", ("public",))


@pytest.fixture
def pg(oracle: PostgresOracle) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    """A connection inside a transaction that is rolled back afterwards (roles included)."""
    with psycopg.connect(oracle.dsn, autocommit=True) as conn, conn.transaction(force_rollback=True):
        conn.execute("SET search_path = public")
        yield conn


def pg_error(conn: psycopg.Connection[tuple[object, ...]], sql: str) -> ErrorFields:
    try:
        with conn.transaction():
            conn.execute(sql)
    except psycopg.Error as exc:
        d = exc.diag
        assert d.sqlstate is not None and d.message_primary is not None
        return d.sqlstate, d.message_primary, d.message_detail, d.message_hint
    raise AssertionError(f"PostgreSQL accepted {sql!r}")


def run(conn: psycopg.Connection[tuple[object, ...]], *sqls: str) -> None:
    for sql in sqls:
        conn.execute(sql)


def same(pg_fields: ErrorFields, fn: Callable[[], object]) -> None:
    assert error(fn) == pg_fields


def test_duplicate_relation(pg: psycopg.Connection[tuple[object, ...]], catalog: Catalog) -> None:
    run(pg, "CREATE TABLE t (a int)")
    create(catalog, spec("table", "t"))
    same(pg_error(pg, "CREATE VIEW t AS SELECT 1"), lambda: catalog.transact([CreateItem(spec("view", "t"))]))


def test_duplicate_and_reserved_schema(pg: psycopg.Connection[tuple[object, ...]], catalog: Catalog) -> None:
    run(pg, "CREATE SCHEMA s")
    catalog.transact([CreateSchema("u1", "s", MATERIALIZE_ROLE)])
    same(
        pg_error(pg, "CREATE SCHEMA s"), lambda: catalog.transact([CreateSchema("u1", "s", MATERIALIZE_ROLE)])
    )
    same(
        pg_error(pg, "CREATE SCHEMA pg_x"),
        lambda: catalog.transact([CreateSchema("u1", "pg_x", MATERIALIZE_ROLE)]),
    )


def test_drop_restrict_with_dependents(pg: psycopg.Connection[tuple[object, ...]], catalog: Catalog) -> None:
    run(pg, "CREATE TABLE t (a int)", "CREATE VIEW v AS SELECT * FROM t", "CREATE VIEW w AS SELECT * FROM v")
    run(pg, "CREATE INDEX t_idx ON t (a)", "CREATE TABLE u (a int)", "CREATE VIEW uv AS SELECT * FROM u")
    (t,) = create(catalog, spec("table", "t"))
    (v,) = create(catalog, spec("view", "v", deps=(t,)))
    create(catalog, spec("view", "w", deps=(v,)), spec("index", "t_idx", on=t))
    (u,) = create(catalog, spec("table", "u"))
    create(catalog, spec("view", "uv", deps=(u,)))
    same(pg_error(pg, "DROP TABLE t"), lambda: plan_drop(catalog.state, [t], cascade=False, names=NAMES))
    same(
        pg_error(pg, "DROP TABLE t, u"), lambda: plan_drop(catalog.state, [t, u], cascade=False, names=NAMES)
    )
    same(
        pg_error(pg, "DROP VIEW t"),
        lambda: catalog.state.resolve_item(
            "t", current_database="materialize", search_path=NAMES.search_path, expected="view"
        ),
    )


def test_drop_schema_restrict(pg: psycopg.Connection[tuple[object, ...]], catalog: Catalog) -> None:
    run(pg, "CREATE SCHEMA s", "CREATE TABLE s.t (a int)")
    s_id = catalog.transact([CreateSchema("u1", "s", MATERIALIZE_ROLE)]).created[0].id
    create(catalog, spec("table", "t", schema=s_id))
    same(
        pg_error(pg, "DROP SCHEMA s"),
        lambda: plan_drop_schema(catalog.state, s_id, cascade=False, names=NAMES),
    )


def test_missing_names(pg: psycopg.Connection[tuple[object, ...]], catalog: Catalog) -> None:
    state = catalog.state
    path = NAMES.search_path
    same(
        pg_error(pg, "SELECT * FROM nope"),
        lambda: state.resolve_item("nope", current_database="materialize", search_path=path),
    )
    same(
        pg_error(pg, "SELECT * FROM public.nope"),
        lambda: state.resolve_item("nope", current_database="materialize", search_path=path, schema="public"),
    )
    same(
        pg_error(pg, "SELECT * FROM nope.t"),
        lambda: state.resolve_item("t", current_database="materialize", search_path=path, schema="nope"),
    )
    same(pg_error(pg, "DROP ROLE nobody"), lambda: state.resolve_role("nobody"))


def test_role_errors(pg: psycopg.Connection[tuple[object, ...]], catalog: Catalog) -> None:
    run(pg, "CREATE ROLE a", "CREATE ROLE b", "GRANT a TO b")
    a, b = (r.id for r in catalog.transact([CreateRole("a"), CreateRole("b")]).created)
    catalog.transact([GrantRole(a, b, MATERIALIZE_ROLE)])
    same(pg_error(pg, "CREATE ROLE a"), lambda: catalog.transact([CreateRole("a")]))
    same(pg_error(pg, "CREATE ROLE pg_x"), lambda: catalog.transact([CreateRole("pg_x")]))
    same(pg_error(pg, "GRANT b TO a"), lambda: catalog.transact([GrantRole(b, a, MATERIALIZE_ROLE)]))
    same(pg_error(pg, "GRANT a TO a"), lambda: catalog.transact([GrantRole(a, a, MATERIALIZE_ROLE)]))


def test_drop_role_with_dependencies(pg: psycopg.Connection[tuple[object, ...]], catalog: Catalog) -> None:
    run(pg, "CREATE ROLE o", "CREATE TABLE t (a int)", "ALTER TABLE t OWNER TO o", "CREATE TABLE u (a int)")
    run(pg, "GRANT SELECT ON u TO o")
    (o,) = (r.id for r in catalog.transact([CreateRole("o")]).created)
    create(catalog, spec("table", "t", owner=o))
    (u,) = create(catalog, spec("table", "u"))
    catalog.transact([GrantPrivileges(ObjectRef("item", u), o, MATERIALIZE_ROLE, "r")])
    same(pg_error(pg, "DROP ROLE o"), lambda: check_role_droppable(catalog.state, o, names=NAMES))


def test_invalid_privilege(pg: psycopg.Connection[tuple[object, ...]], catalog: Catalog) -> None:
    run(pg, "CREATE TABLE t (a int)", "CREATE ROLE r")
    (t,) = create(catalog, spec("table", "t"))
    (r,) = (x.id for x in catalog.transact([CreateRole("r")]).created)
    same(
        pg_error(pg, "GRANT USAGE ON t TO r"),
        lambda: catalog.transact([GrantPrivileges(ObjectRef("item", t), r, MATERIALIZE_ROLE, "U")]),
    )
    run(pg, "SET ROLE r")
    same(
        pg_error(pg, "SELECT * FROM t"),
        lambda: catalog.state.check_privilege(r, ObjectRef("item", t), "r"),
    )
    assert PUBLIC_SCHEMA in catalog.state.schemas
