"""The introspection store kept in step with a real durable catalog by its listener.

A real `Catalog` in a temp dir, a real DuckDB engine with the store installed from the catalog's state and the
listener registered; every test runs real ops through `transact` and reads the store's tables back through the
engine (what sessions read). Also: a failing listener or a failing transact leaves the store as it was, and a
store rebuilt from the final state equals the one kept incrementally.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from sparkwire.catalog import Catalog, CatalogChange
from sparkwire.catalog.objects import Column, ItemKind, ItemSpec, ObjectRef
from sparkwire.catalog.ops import (
    AlterOwner,
    CreateItem,
    CreateRole,
    CreateSchema,
    DropItems,
    DropRole,
    DropSchema,
    GrantPrivileges,
    GrantRole,
    RenameItem,
)
from sparkwire.engine.duckdb import DuckDBEngine
from sparkwire.errors import PgError
from sparkwire.introspection import store
from sparkwire.introspection.listener import StoreListener
from sparkwire.introspection.relations import RELATIONS, STATE_RELATIONS
from sparkwire.introspection.tables import table_sql

MATERIALIZE_ROLE = "u1"
PUBLIC_SCHEMA = "u3"
QUICKSTART = "u1"
FIRST_USER_OID = 16384  # below: builtin relations (pg_catalog and information_schema are in pg_class)
INT8, INT4, TEXT, VARCHAR = 20, 23, 25, 1043


@dataclass
class Fixture:
    catalog: Catalog
    engine: DuckDBEngine
    listener: StoreListener

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        con = self.engine.connect()
        try:
            _, batches = con.query(sql)
            return [tuple(row.values()) for batch in batches for row in batch.to_pylist()]
        finally:
            con.close()

    def table(self, schema: str, name: str) -> list[tuple[Any, ...]]:
        rel = next(r for r in RELATIONS if (r.schema, r.name) == (schema, name))
        return sorted(self.rows(f"SELECT * FROM {table_sql(rel)}"), key=repr)

    def snapshot(self) -> dict[str, list[tuple[Any, ...]]]:
        return {f"{rel.schema}.{rel.name}": self.table(rel.schema, rel.name) for rel in STATE_RELATIONS}

    def create(self, *specs: ItemSpec) -> list[str]:
        return [ref.id for ref in self.catalog.transact([CreateItem(s) for s in specs]).created]


def _open(data_dir: Path, catalog: Catalog) -> Fixture:
    engine = DuckDBEngine(data_dir / "duckdb" / "store.duckdb")
    listener = store.install(engine, [], catalog.state)
    catalog.add_listener(listener)
    return Fixture(catalog, engine, listener)


@pytest.fixture
def fx(tmp_path: Path) -> Iterator[Fixture]:
    catalog = Catalog.open(tmp_path / "catalog")
    fixture = _open(tmp_path, catalog)
    try:
        yield fixture
    finally:
        fixture.listener.close()
        fixture.engine.close()
        catalog.close()


def table(name: str, schema: str = PUBLIC_SCHEMA, columns: tuple[Column, ...] | None = None) -> ItemSpec:
    return ItemSpec(
        kind="table",
        schema_id=schema,
        name=name,
        owner_id=MATERIALIZE_ROLE,
        create_sql=f"CREATE TABLE {name} (a int4, b varchar(10))",
        columns=columns or (Column("a", INT4), Column("b", VARCHAR, typmod=14, nullable=False, default="'x'")),
    )


def view(kind: ItemKind, name: str, on: str) -> ItemSpec:
    sql = "MATERIALIZED VIEW" if kind == "materialized-view" else "VIEW"
    return ItemSpec(
        kind=kind,
        schema_id=PUBLIC_SCHEMA,
        name=name,
        owner_id=MATERIALIZE_ROLE,
        create_sql=f"CREATE {sql} {name} AS SELECT a FROM t",
        columns=(Column("a", INT4),),
        dependencies=(on,),
        cluster_id=QUICKSTART if kind == "materialized-view" else None,
    )


def index(name: str, on: str, *keys: str) -> ItemSpec:
    return ItemSpec(
        kind="index",
        schema_id=PUBLIC_SCHEMA,
        name=name,
        owner_id=MATERIALIZE_ROLE,
        create_sql=f"CREATE INDEX {name} ON t ({', '.join(keys)})",
        on_id=on,
        keys=keys,
        cluster_id=QUICKSTART,
    )


# ---- the bootstrap state ------------------------------------------------------------------------------------


def test_bootstrap_rows(fx: Fixture) -> None:
    assert fx.table("mz_catalog", "mz_databases") == [("u1", 20001, "materialize", "s1", ["s1=UC/s1", "=U/s1"])]
    assert fx.rows(f"SELECT name, database_id FROM {table_sql(_rel('mz_catalog', 'mz_schemas'))} ORDER BY oid") == [
        ("pg_catalog", None),
        ("information_schema", None),
        ("mz_catalog", None),
        ("mz_internal", None),
        ("mz_introspection", None),
        ("public", "u1"),
    ]
    assert fx.table("mz_catalog", "mz_roles") == sorted(
        [
            ("g1", 16664, "mz_monitor", True, False, False),
            ("g2", 16665, "mz_monitor_redacted", True, False, False),
            ("s1", 16662, "mz_system", True, True, True),
            ("s2", 16663, "mz_support", True, True, False),
            ("u1", 20000, "materialize", True, True, True),
        ],
        key=repr,
    )
    (cluster,) = fx.table("mz_catalog", "mz_clusters")
    assert cluster[:5] == ("u1", "quickstart", "s1", ["s1=UC/s1", "=U/s1"], True)
    assert fx.table("mz_catalog", "mz_objects") == []
    namespaces = dict(fx.rows(f"SELECT nspname, oid FROM {table_sql(_rel('pg_catalog', 'pg_namespace'))}"))
    assert namespaces == {
        "pg_catalog": 11,
        "information_schema": 13183,
        "mz_catalog": 16656,
        "mz_internal": 16657,
        "mz_introspection": 16658,
        "public": 20002,
    }
    assert fx.rows(f"SELECT datname, datdba FROM {table_sql(_rel('pg_catalog', 'pg_database'))}") == [
        ("materialize", 16662)
    ]
    assert fx.table("information_schema", "schemata")[0][:3] == ("materialize", "information_schema", "mz_system")


def _rel(schema: str, name: str) -> Any:
    return next(r for r in RELATIONS if (r.schema, r.name) == (schema, name))


def test_mz_types_has_every_builtin_type(fx: Fixture) -> None:
    rows = fx.rows(f"SELECT oid, name, category FROM {table_sql(_rel('mz_catalog', 'mz_types'))}")
    by_oid = {oid: (name, category) for oid, name, category in rows}
    assert by_oid[23] == ("int4", "base")
    assert by_oid[1007] == ("_int4", "array")
    assert by_oid[2249] == ("record", "pseudo")


# ---- items --------------------------------------------------------------------------------------------------


def test_table_view_materialized_view_and_index(fx: Fixture) -> None:
    (t,) = fx.create(table("t"))
    v, m = fx.create(view("view", "v", t), view("materialized-view", "m", t))
    (i,) = fx.create(index("t_a", t, "a"))
    assert fx.rows(
        f"SELECT id, name, type, cluster_id, privileges FROM {table_sql(_rel('mz_catalog', 'mz_objects'))} ORDER BY oid"
    ) == [
        (t, "t", "table", None, ["u1=arwd/u1"]),
        (v, "v", "view", None, ["u1=r/u1"]),
        (m, "m", "materialized-view", QUICKSTART, ["u1=r/u1"]),
        (i, "t_a", "index", QUICKSTART, []),
    ]
    assert [r[0] for r in fx.table("mz_catalog", "mz_relations")] == sorted([t, v, m], key=repr)
    assert fx.table("mz_catalog", "mz_tables")[0][-3:] == (
        "CREATE TABLE t (a int4, b varchar(10))",
        "CREATE TABLE t (a int4, b varchar(10))",
        None,
    )
    assert fx.table("mz_catalog", "mz_views")[0][4] == "SELECT a FROM t;"
    assert fx.table("mz_catalog", "mz_materialized_views")[0][4:6] == (QUICKSTART, "SELECT a FROM t;")
    assert fx.table("mz_catalog", "mz_indexes") == [
        (i, 20006, "t_a", t, QUICKSTART, MATERIALIZE_ROLE, "CREATE INDEX t_a ON t (a)", "CREATE INDEX t_a ON t (a)")
    ]
    assert fx.table("mz_catalog", "mz_index_columns") == [(i, 1, 1, None, True)]
    columns = fx.rows(
        f'SELECT id, name, position, nullable, type, "default", type_oid, type_mod '
        f"FROM {table_sql(_rel('mz_catalog', 'mz_columns'))} WHERE id = '{t}' ORDER BY position"
    )
    assert columns == [
        (t, "a", 1, True, "integer", None, INT4, -1),
        (t, "b", 2, False, "character varying", "'x'", VARCHAR, 14),
    ]
    pg_class = fx.rows(
        f"SELECT relname, relkind, relnatts, relhasindex, relam, relhasrules "
        f"FROM {table_sql(_rel('pg_catalog', 'pg_class'))} WHERE oid >= {FIRST_USER_OID} ORDER BY oid"
    )
    assert pg_class == [
        ("t", "r", 2, True, 2, False),
        ("v", "v", 1, False, 0, True),
        ("m", "m", 1, False, 2, True),
        ("t_a", "i", 1, False, 403, False),
    ]
    assert fx.table("pg_catalog", "pg_indexes") == [
        ("public", "t", "t_a", None, "CREATE INDEX t_a ON public.t USING btree (a)")
    ]
    assert fx.table("pg_catalog", "pg_tables") == [("public", "t", "materialize", None, True, False, False, False)]
    assert fx.table("pg_catalog", "pg_views") == [("public", "v", "materialize", " SELECT t.a\n   FROM t;")]
    assert fx.table("pg_catalog", "pg_matviews") == [
        ("public", "m", "materialize", None, False, True, " SELECT t.a\n   FROM t;")
    ]
    assert fx.table("pg_catalog", "pg_attrdef") == [(None, 20003, 2, "'x'::character varying")]
    assert [r[:3] for r in fx.table("information_schema", "tables")] == [
        ("materialize", "public", "t"),
        ("materialize", "public", "v"),
    ]


def test_index_on_expression(fx: Fixture) -> None:
    (t,) = fx.create(table("t"))
    (i,) = fx.create(index("t_e", t, "b", "a + 1"))
    assert fx.table("mz_catalog", "mz_index_columns") == [(i, 1, 2, None, False), (i, 2, None, "a + 1", True)]
    assert fx.rows(f"SELECT indkey, indexprs FROM {table_sql(_rel('pg_catalog', 'pg_index'))}") == [([2, 0], "a + 1")]
    # PostgreSQL parenthesizes the operator expression and the index expression: ((a + 1))
    assert fx.table("pg_catalog", "pg_indexes")[0][-1] == "CREATE INDEX t_e ON public.t USING btree (b, ((a + 1)))"


def test_index_expression_types_come_from_the_index_columns(fx: Fixture) -> None:
    (t,) = fx.create(table("t"))
    untyped = index("t_u", t, "b", "a + 1")
    typed = replace(index("t_e", t, "b", "a + 1"), columns=(Column("b", VARCHAR, typmod=14), Column("expr", INT8)))
    fx.create(untyped, typed)
    attributes = (
        f"SELECT c.relname, a.attname, a.atttypid, a.atttypmod FROM {table_sql(_rel('pg_catalog', 'pg_attribute'))} a "
        f"JOIN {table_sql(_rel('pg_catalog', 'pg_class'))} c ON c.oid = a.attrelid WHERE c.relkind = 'i' ORDER BY 1, 2"
    )
    assert fx.rows(attributes) == [
        ("t_e", "b", VARCHAR, 14),
        ("t_e", "expr", INT8, -1),
        ("t_u", "b", VARCHAR, 14),
        ("t_u", "expr", 0, -1),
    ]


def test_drop_rename_and_schemas(fx: Fixture) -> None:
    (t,) = fx.create(table("t"))
    (v,) = fx.create(view("view", "v", t))
    v_sql = "CREATE VIEW v AS SELECT a FROM t2"
    fx.catalog.transact([RenameItem(t, "t2", "CREATE TABLE t2 (a int4, b varchar(10))", ((v, v_sql),))])
    assert [r[3] for r in fx.table("mz_catalog", "mz_objects")] == ["t2", "v"]
    assert [r[0] for r in fx.table("pg_catalog", "pg_tables")] == ["public"]
    assert fx.table("pg_catalog", "pg_tables")[0][1] == "t2"
    fx.catalog.transact([DropItems((v, t))])
    assert fx.table("mz_catalog", "mz_objects") == []
    assert [r for r in fx.table("pg_catalog", "pg_attribute") if r[0] >= FIRST_USER_OID] == []
    assert fx.table("information_schema", "columns") == []
    schema = fx.catalog.transact([CreateSchema("u1", "s", MATERIALIZE_ROLE)]).created[0].id
    fx.create(table("t", schema=schema))
    assert ("s", "t") in [(r[1], r[2]) for r in fx.table("information_schema", "tables")]
    assert "s" in [r[1] for r in fx.table("pg_catalog", "pg_namespace")]
    fx.catalog.transact([DropSchema(schema, cascade=True)])
    assert "s" not in [r[1] for r in fx.table("pg_catalog", "pg_namespace")]
    assert fx.table("mz_catalog", "mz_tables") == []


def test_roles_members_owners_and_grants(fx: Fixture) -> None:
    (t,) = fx.create(table("t"))
    r = fx.catalog.transact([CreateRole("r", login=True)]).created[0].id
    g = fx.catalog.transact([CreateRole("g")]).created[0].id
    fx.catalog.transact([GrantRole(g, r, MATERIALIZE_ROLE)])
    assert fx.table("mz_catalog", "mz_role_members") == [(g, r, MATERIALIZE_ROLE)]
    role_oids = dict(fx.rows(f"SELECT rolname, oid FROM {table_sql(_rel('pg_catalog', 'pg_roles'))}"))
    assert fx.table("pg_catalog", "pg_auth_members") == [(role_oids["g"], role_oids["r"], 20000, False)]
    assert ("r", role_oids["r"]) in [r[:2] for r in fx.table("pg_catalog", "pg_user")]
    fx.catalog.transact([GrantPrivileges(ObjectRef("item", t), "p", MATERIALIZE_ROLE, "r")])
    fx.catalog.transact([AlterOwner(ObjectRef("item", t), r)])
    ((relacl,),) = fx.rows(f"SELECT relacl FROM {table_sql(_rel('pg_catalog', 'pg_class'))} WHERE relname = 't'")
    assert relacl == ["r=arwd/r", "=r/materialize"]
    assert fx.table("mz_catalog", "mz_tables")[0][4:6] == (r, [f"{r}=arwd/{r}", f"=r/{MATERIALIZE_ROLE}"])
    assert fx.table("pg_catalog", "pg_tables")[0][2] == "r"
    fx.catalog.transact([DropItems((t,))])
    fx.catalog.transact([DropRole(r)])
    assert "r" not in [row[2] for row in fx.table("mz_catalog", "mz_roles")]
    assert fx.table("mz_catalog", "mz_role_members") == []


# ---- atomicity -----------------------------------------------------------------------------------------------


class FailingListener:
    def prepare(self, change: CatalogChange) -> None:
        raise RuntimeError("listener failed")

    def commit(self, change: CatalogChange) -> None:
        raise AssertionError("never committed")

    def abort(self, change: CatalogChange) -> None:
        pass


def test_a_failing_listener_leaves_the_store_unchanged(fx: Fixture) -> None:
    fx.create(table("t"))
    before = fx.snapshot()
    failing = FailingListener()
    fx.catalog.add_listener(failing)
    with pytest.raises(RuntimeError, match="listener failed"):
        fx.create(table("u"))
    fx.catalog.remove_listener(failing)
    assert fx.snapshot() == before
    fx.create(table("u"))  # the store still follows the catalog afterwards
    assert [r[3] for r in fx.table("mz_catalog", "mz_objects")] == ["t", "u"]


def test_the_store_listener_failing_aborts_the_transact(fx: Fixture) -> None:
    before = fx.snapshot()
    revision = fx.catalog.revision
    unknown_type = table("t", columns=(Column("a", 424242),))  # pg_attribute cannot render it
    with pytest.raises(PgError):
        fx.create(unknown_type)
    assert fx.catalog.revision == revision
    assert fx.snapshot() == before
    fx.create(table("t"))
    assert len(fx.table("mz_catalog", "mz_tables")) == 1


def test_a_rejected_transact_changes_nothing(fx: Fixture) -> None:
    fx.create(table("t"))
    before = fx.snapshot()
    with pytest.raises(PgError, match="already exists"):
        fx.create(table("x"), table("t"))
    assert fx.snapshot() == before


def test_readers_see_the_old_rows_until_commit(fx: Fixture) -> None:
    seen: list[list[tuple[Any, ...]]] = []

    class Reader:
        def prepare(self, change: CatalogChange) -> None:
            seen.append(fx.table("mz_catalog", "mz_objects"))

        def commit(self, change: CatalogChange) -> None:
            pass

        def abort(self, change: CatalogChange) -> None:
            pass

    fx.catalog.add_listener(Reader())
    fx.create(table("t"))
    assert seen == [[]]
    assert len(fx.table("mz_catalog", "mz_objects")) == 1


def test_a_run_of_ddl_reaches_the_store_at_its_first_read(fx: Fixture) -> None:
    """Commits are applied to the tables lazily, all at once, by the first statement that reads the store; a
    connection that does not catch up (the listener's own kind) still sees the tables as they were."""
    raw = fx.engine.connect(catches_up=False)
    try:
        rel = next(r for r in RELATIONS if (r.schema, r.name) == ("mz_catalog", "mz_objects"))
        names = f"SELECT name FROM {table_sql(rel)} ORDER BY name"
        generation = fx.engine.write_generation
        fx.create(table("t"))
        fx.create(table("u"))
        assert fx.engine.write_generation > generation  # cached catalog answers are not served again
        assert [b.to_pylist() for b in raw.query(names)[1]] == []  # not applied yet
        assert [r[0] for r in fx.rows(names)] == ["t", "u"]  # the reader caught up first
        assert [row["name"] for b in raw.query(names)[1] for row in b.to_pylist()] == ["t", "u"]
    finally:
        raw.close()


# ---- rebuild ------------------------------------------------------------------------------------------------


def test_rebuild_from_state_equals_incremental(fx: Fixture, tmp_path: Path) -> None:
    (t,) = fx.create(table("t"))
    v, m = fx.create(view("view", "v", t), view("materialized-view", "m", t))
    fx.create(index("t_a", t, "a"), index("t_e", t, "b", "a + 1"))
    r = fx.catalog.transact([CreateRole("r")]).created[0].id
    fx.catalog.transact([GrantPrivileges(ObjectRef("item", v), r, MATERIALIZE_ROLE, "r")])
    fx.catalog.transact([RenameItem(m, "m2", "CREATE MATERIALIZED VIEW m2 AS SELECT a FROM t")])
    fx.catalog.transact([CreateSchema("u1", "other", MATERIALIZE_ROLE)])
    incremental = fx.snapshot()
    engine = DuckDBEngine(tmp_path / "rebuilt" / "x.duckdb")
    rebuilt = Fixture(fx.catalog, engine, store.install(engine, [], fx.catalog.state))
    try:
        assert rebuilt.snapshot() == incremental
        assert any(incremental.values())
    finally:
        rebuilt.listener.close()
        rebuilt.engine.close()


def test_reopened_catalog_rebuilds_the_same_store(tmp_path: Path) -> None:
    catalog = Catalog.open(tmp_path / "catalog")
    first = _open(tmp_path / "first", catalog)
    try:
        (t,) = first.create(table("t"))
        first.create(index("t_a", t, "a"))
        before = first.snapshot()
    finally:
        first.listener.close()
        first.engine.close()
        catalog.close()
    reopened = Catalog.open(tmp_path / "catalog")
    second = _open(tmp_path / "second", reopened)
    try:
        assert second.snapshot() == before
    finally:
        second.listener.close()
        second.engine.close()
        reopened.close()


def test_every_relation_has_distinct_rows_and_a_sensitivity(fx: Fixture) -> None:
    (t,) = fx.create(table("t"))
    fx.create(view("view", "v", t), index("t_a", t, "a"))
    for rel in RELATIONS:
        rows = list(rel.rows(fx.catalog.state))
        assert len(rows) == len(set(rows)), rel.name
        assert all(len(row) == len(rel.columns) for row in rows), rel.name
        assert rel.sensitivity in ("public", "superuser_and_support", "superuser")
