"""Catalog ops on a real on-disk catalog: bootstrap, every op, validation errors (SQLSTATE + wording), name
resolution, all-or-nothing batches. The builders below are shared by the other test_catalog_* modules."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from sparkwire.catalog import Catalog
from sparkwire.catalog.objects import Column, ItemKind, ItemSpec, ObjectRef
from sparkwire.catalog.ops import (
    AlterRole,
    CreateCluster,
    CreateDatabase,
    CreateItem,
    CreateRole,
    CreateSchema,
    DropCluster,
    DropDatabase,
    DropRole,
    DropSchema,
    Op,
    RenameItem,
    ReplaceItem,
    ResetNoticeStatus,
    SetNoticeStatus,
    SetPassword,
)
from sparkwire.errors import PgError

MATERIALIZE_ROLE = "u1"
PUBLIC_SCHEMA = "u3"
QUICKSTART = "u1"
PATH = ("public",)

# ---- shared builders --------------------------------------------------------------------------------------


def spec(
    kind: ItemKind,
    name: str,
    *,
    deps: tuple[str, ...] = (),
    schema: str = PUBLIC_SCHEMA,
    owner: str = MATERIALIZE_ROLE,
    on: str | None = None,
    cluster: str | None = None,
) -> ItemSpec:
    return ItemSpec(
        kind=kind,
        schema_id=schema,
        name=name,
        owner_id=owner,
        create_sql=f"CREATE {kind.upper()} {name} ...",
        columns=(Column("a", 23), Column("b", 25, nullable=False)) if kind != "index" else (),
        dependencies=deps,
        on_id=on,
        keys=("a",) if kind == "index" else (),
        cluster_id=cluster if cluster is not None else (QUICKSTART if kind == "index" else None),
    )


def create(catalog: Catalog, *specs: ItemSpec) -> list[str]:
    """Create items in one transaction; return their ids."""
    result = catalog.transact([CreateItem(s) for s in specs])
    return [ref.id for ref in result.created]


def error(fn: Callable[[], object]) -> tuple[str, str, str | None, str | None]:
    """Run `fn`, which must raise a PgError; return (sqlstate, message, detail, hint)."""
    with pytest.raises(PgError) as info:
        fn()
    e = info.value
    return e.code, e.message, e.detail, e.hint


def fails(catalog: Catalog, ops: list[Op]) -> tuple[str, str, str | None, str | None]:
    return error(lambda: catalog.transact(ops))


# ---- bootstrap ------------------------------------------------------------------------------------------


def test_bootstrap_creates_materialize_defaults(catalog: Catalog) -> None:
    state = catalog.state
    assert catalog.revision == 1
    db = state.resolve_database("materialize")
    assert (db.id, db.oid, db.owner_id) == ("u1", 20001, "s1")
    public = state.resolve_schema("materialize", "public")
    assert (public.id, public.database_id) == (PUBLIC_SCHEMA, "u1")
    assert {s.name: s.id for s in state.schemas.values() if s.is_builtin} == {
        "mz_catalog": "s1",
        "pg_catalog": "s2",
        "mz_internal": "s4",
        "information_schema": "s5",
        "mz_introspection": "s8",
    }
    assert state.resolve_schema("materialize", "pg_catalog").oid == 11
    role = state.resolve_role("materialize")
    assert (role.id, role.superuser, role.login, role.password_verifier) == ("u1", True, True, None)
    assert {r.name: r.id for r in state.roles.values()} == {
        "mz_system": "s1",
        "mz_support": "s2",
        "mz_monitor": "g1",
        "mz_monitor_redacted": "g2",
        "materialize": "u1",
    }
    assert state.resolve_role("mz_system").superuser
    assert state.resolve_cluster("quickstart").id == QUICKSTART
    plain = catalog.transact([CreateRole("plain", login=True)]).created[0].id
    for ref in (
        ObjectRef("database", "u1"),
        ObjectRef("schema", PUBLIC_SCHEMA),
        ObjectRef("cluster", QUICKSTART),
    ):
        assert catalog.state.has_privilege(plain, ref, "U")
        assert not catalog.state.has_privilege(plain, ref, "C")


# ---- databases and schemas ------------------------------------------------------------------------------


def test_create_database_makes_public_schema_and_rejects_duplicates(catalog: Catalog) -> None:
    result = catalog.transact([CreateDatabase("d", MATERIALIZE_ROLE)])
    assert [(r.kind, r.id) for r in result.created] == [("database", "u2"), ("schema", "u4")]
    assert catalog.state.resolve_schema("d", "public").id == "u4"
    assert fails(catalog, [CreateDatabase("d", MATERIALIZE_ROLE)])[:2] == (
        "42P04",
        'database "d" already exists',
    )
    before = catalog.revision
    skipped = catalog.transact([CreateDatabase("d", MATERIALIZE_ROLE, if_not_exists=True)]).skipped
    assert [s.notice_message for s in skipped] == ['database "d" already exists, skipping']
    assert catalog.revision == before


def test_create_schema_rules(catalog: Catalog) -> None:
    catalog.transact([CreateSchema("u1", "s", MATERIALIZE_ROLE)])
    assert catalog.state.resolve_schema("materialize", "s").database_id == "u1"
    assert fails(catalog, [CreateSchema("u1", "s", MATERIALIZE_ROLE)])[:2] == (
        "42P06",
        'schema "s" already exists',
    )
    assert fails(catalog, [CreateSchema("u1", "pg_catalog", MATERIALIZE_ROLE)])[:2] == (
        "42P06",
        'schema "pg_catalog" already exists',
    )
    assert fails(catalog, [CreateSchema("u1", "pg_x", MATERIALIZE_ROLE)]) == (
        "42939",
        'unacceptable schema name "pg_x"',
        'The prefix "pg_" is reserved for system schemas.',
        None,
    )
    skipped = catalog.transact([CreateSchema("u1", "s", MATERIALIZE_ROLE, if_not_exists=True)]).skipped
    assert skipped[0].notice_message == 'schema "s" already exists, skipping'
    assert skipped[0].existing == ObjectRef("schema", catalog.state.resolve_schema("materialize", "s").id)


def test_drop_schema_and_database(catalog: Catalog) -> None:
    catalog.transact([CreateDatabase("d", MATERIALIZE_ROLE)])
    d_public = catalog.state.resolve_schema("d", "public").id
    s_id = catalog.transact([CreateSchema("u1", "s", MATERIALIZE_ROLE)]).created[0].id
    (t,) = create(catalog, spec("table", "t", schema=s_id))
    (v,) = create(catalog, spec("view", "v", deps=(t,)))  # in public: depends on s.t
    (dt,) = create(catalog, spec("table", "dt", schema=d_public))
    assert fails(catalog, [DropSchema(s_id, cascade=False)]) == (
        "2BP01",
        "cannot drop schema s because other objects depend on it",
        "table t depends on schema s",
        "Use DROP ... CASCADE to drop the dependent objects too.",
    )
    result = catalog.transact([DropSchema(s_id, cascade=True)])
    assert [r.id for r in result.dropped] == [v, t, s_id]
    assert catalog.state.find_schema("u1", "s") is None
    assert set(catalog.state.items) == {dt}
    assert fails(catalog, [DropSchema("s2", cascade=True)])[:2] == (
        "42501",
        "system schema 'pg_catalog' cannot be modified",
    )
    assert fails(catalog, [DropDatabase("u2", cascade=False)])[0] == "2BP01"
    catalog.transact([DropDatabase("u2", cascade=True)])
    assert catalog.state.database_by_name("d") is None
    assert d_public not in catalog.state.schemas and not catalog.state.items
    assert ObjectRef("database", "u2") not in {p.object for p in catalog.state.privileges.values()}


# ---- items ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "sqlstate", "message"),
    [
        ("table", "42P07", 'relation "x" already exists'),
        ("materialized-view", "42P07", 'relation "x" already exists'),
        ("type", "42710", 'type "x" already exists'),
        ("func", "42723", 'function "x" already exists'),
        ("secret", "42710", 'secret "x" already exists'),
    ],
)
def test_duplicate_item_names(catalog: Catalog, kind: ItemKind, sqlstate: str, message: str) -> None:
    create(catalog, spec("view", "x"))
    assert fails(catalog, [CreateItem(spec(kind, "x"))])[:2] == (sqlstate, message)
    skipped = catalog.transact([CreateItem(spec(kind, "x"), if_not_exists=True)]).skipped
    assert skipped[0].notice_message == f"{message}, skipping"


def test_batch_is_all_or_nothing_and_validated_in_order(catalog: Catalog) -> None:
    before = catalog.state
    assert fails(catalog, [CreateItem(spec("table", "a")), CreateItem(spec("table", "a"))])[0] == "42P07"
    assert catalog.state is before and catalog.state.find_item(PUBLIC_SCHEMA, "a") is None
    result = catalog.transact(
        [CreateItem(spec("table", "a")), CreateItem(spec("view", "a"), if_not_exists=True)]
    )
    assert [r.id for r in result.created] == ["u1"]  # the failed batch allocated nothing
    assert result.skipped[0].existing == ObjectRef("item", "u1")
    assert catalog.state.items["u1"].oid == before.counters.oid


def test_item_validation(catalog: Catalog) -> None:
    (t,) = create(catalog, spec("table", "t"))
    (i,) = create(catalog, spec("index", "t_idx", on=t))
    assert catalog.state.items[i].references == {t}
    assert fails(catalog, [CreateItem(spec("index", "bad", on=i))])[:2] == (
        "42809",
        'cannot create index on "t_idx" because it is an index',
    )
    assert fails(catalog, [CreateItem(spec("index", "bad"))])[0] == "42P17"
    assert fails(catalog, [CreateItem(spec("view", "v", deps=("u99",)))])[:2] == (
        "42704",
        "catalog item u99 does not exist",
    )
    assert fails(catalog, [CreateItem(spec("table", "t2", schema="s2"))])[:2] == (
        "42501",
        "system schema 'pg_catalog' cannot be modified",
    )
    assert fails(catalog, [CreateItem(spec("index", "j", on=t, cluster="u9"))])[0] == "42704"


def test_name_resolution(catalog: Catalog) -> None:
    s_id = catalog.transact([CreateSchema("u1", "s", MATERIALIZE_ROLE)]).created[0].id
    in_public, in_s = create(catalog, spec("table", "t"), spec("view", "t", schema=s_id))
    state = catalog.state
    assert state.resolve_item("t", current_database="materialize", search_path=PATH).id == in_public
    assert state.resolve_item("t", current_database="materialize", search_path=("s", "public")).id == in_s
    assert state.resolve_item("t", current_database="materialize", search_path=PATH, schema="s").id == in_s
    got = state.resolve_item(
        "t", current_database="other", search_path=(), schema="public", database="materialize"
    )
    assert got.id == in_public
    assert state.item_by_oid(state.items[in_s].oid) is state.items[in_s]
    missing = state.lookup_item("nope", current_database="materialize", search_path=PATH)
    assert missing is None

    def resolve(
        name: str, schema: str | None = None, database: str | None = None
    ) -> tuple[str, str, str | None, str | None]:
        return error(
            lambda: state.resolve_item(
                name, current_database="materialize", search_path=PATH, schema=schema, database=database
            )
        )

    assert resolve("nope")[:2] == ("42P01", 'relation "nope" does not exist')
    assert resolve("nope", schema="s")[:2] == ("42P01", 'relation "s.nope" does not exist')
    assert resolve("t", schema="nope")[:2] == ("42P01", 'relation "nope.t" does not exist')
    assert error(lambda: state.resolve_schema("materialize", "nope"))[:2] == (
        "3F000",
        'schema "nope" does not exist',
    )
    assert resolve("t", schema="public", database="nope")[:2] == ("3D000", 'database "nope" does not exist')
    assert error(
        lambda: state.resolve_item("t", current_database="materialize", search_path=PATH, expected="view")
    ) == ("42809", '"t" is not a view', None, "Use DROP TABLE to remove a table.")
    assert error(lambda: state.resolve_role("nobody"))[:2] == ("42704", 'role "nobody" does not exist')
    assert error(lambda: state.resolve_cluster("nope"))[:2] == ("42704", 'cluster "nope" does not exist')


def test_rename_item(catalog: Catalog) -> None:
    t, u = create(catalog, spec("table", "t"), spec("table", "u"))
    oid = catalog.state.items[t].oid
    catalog.transact([RenameItem(t, "t2", "CREATE TABLE t2 ...")])
    renamed = catalog.state.find_item(PUBLIC_SCHEMA, "t2")
    assert renamed is not None and (renamed.id, renamed.oid, renamed.create_sql) == (
        t,
        oid,
        "CREATE TABLE t2 ...",
    )
    assert catalog.state.find_item(PUBLIC_SCHEMA, "t") is None
    assert fails(catalog, [RenameItem(t, "u", "x")])[:2] == ("42P07", 'relation "u" already exists')
    assert u in catalog.state.items


def test_replace_item_gets_new_id_and_keeps_rules(catalog: Catalog) -> None:
    t, v = create(catalog, spec("table", "t"), spec("view", "v"))
    (v_idx,) = create(catalog, spec("index", "v_idx", on=v))
    old_oid = catalog.state.items[v].oid
    result = catalog.transact([ReplaceItem(v, spec("view", "v", deps=(t,)))])
    assert [r.id for r in result.dropped] == [v_idx, v]
    new = catalog.state.find_item(PUBLIC_SCHEMA, "v")
    assert new is not None and new.id not in (v, v_idx) and new.oid > old_oid and new.dependencies == (t,)
    (w,) = create(catalog, spec("view", "w", deps=(new.id,)))
    assert fails(catalog, [ReplaceItem(new.id, spec("view", "v"))]) == (
        "2BP01",
        "cannot drop view v because other objects depend on it",
        "view w depends on view v",
        "Use DROP ... CASCADE to drop the dependent objects too.",
    )
    assert fails(catalog, [ReplaceItem(w, spec("view", "w", deps=(w,)))])[0] == "42P17"
    assert fails(catalog, [ReplaceItem(t, spec("view", "t"))])[:2] == ("42809", '"t" is not a view')


def test_clusters(catalog: Catalog) -> None:
    c = catalog.transact([CreateCluster("c", MATERIALIZE_ROLE)]).created[0].id
    assert c == "u2"
    assert fails(catalog, [CreateCluster("c", MATERIALIZE_ROLE)])[:2] == (
        "42710",
        "cluster 'c' already exists",
    )
    assert fails(catalog, [CreateCluster("mz_x", MATERIALIZE_ROLE)])[0] == "42939"
    (t,) = create(catalog, spec("table", "t"))
    (i,) = create(catalog, spec("index", "i", on=t, cluster=c))
    assert fails(catalog, [DropCluster(c, cascade=False)]) == (
        "2BP01",
        "cannot drop cluster c because other objects depend on it",
        "index i depends on cluster c",
        "Use DROP ... CASCADE to drop the dependent objects too.",
    )
    result = catalog.transact([DropCluster(c, cascade=True)])
    assert [r.id for r in result.dropped] == [i, c]
    assert set(catalog.state.items) == {t}


# ---- roles ----------------------------------------------------------------------------------------------


def test_roles(catalog: Catalog) -> None:
    r = catalog.transact([CreateRole("r", login=True, password_verifier="SCRAM-SHA-256$4096:c2FsdA==$a:b")])
    rid = r.created[0].id
    assert rid == "u2" and catalog.state.roles[rid].oid >= 20000
    assert fails(catalog, [CreateRole("r")])[:2] == ("42710", 'role "r" already exists')
    assert fails(catalog, [CreateRole("mz_r")]) == (
        "42939",
        'role name "mz_r" is reserved',
        'Role names starting with "mz_" are reserved.',
        None,
    )
    assert fails(catalog, [CreateRole("public")])[:2] == ("42939", 'role name "public" is reserved')
    catalog.transact([AlterRole(rid, superuser=True, password=SetPassword(None))])
    role = catalog.state.roles[rid]
    assert (role.superuser, role.login, role.password_verifier) == (True, True, None)
    assert fails(catalog, [AlterRole("s1", login=False)])[:2] == (
        "42939",
        'role name "mz_system" is reserved',
    )
    assert fails(catalog, [DropRole("g1")])[0] == "42939"
    catalog.transact([DropRole(rid)])
    assert catalog.state.role_by_name("r") is None
    assert catalog.transact([CreateRole("r")]).created[0].id == "u3"  # ids are never reused


def test_notice_statuses(catalog: Catalog) -> None:
    result = catalog.transact([SetNoticeStatus("fp1", "ignored", MATERIALIZE_ROLE)])
    notice = catalog.state.notices["fp1"]
    assert (notice.status, notice.set_by, notice.set_at) == ("ignored", MATERIALIZE_ROLE, result.timestamp)
    catalog.transact([SetNoticeStatus("fp1", "resolved", MATERIALIZE_ROLE)])
    assert catalog.state.notices["fp1"].status == "resolved"
    catalog.transact([ResetNoticeStatus("fp1")])
    assert "fp1" not in catalog.state.notices
    assert fails(catalog, [SetNoticeStatus("fp2", "ignored", "u77")])[0] == "42704"
