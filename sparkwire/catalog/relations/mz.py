"""mz_catalog relations as Materialize documents them (column names and types), rendered from a `CatalogState`:
mz_databases, mz_schemas, mz_objects, mz_relations, mz_tables, mz_views, mz_materialized_views, mz_indexes,
mz_index_columns, mz_columns, mz_clusters, mz_roles, mz_role_members, mz_types.

Contract: `MZ_RELATIONS` lists them; column types are Materialize's names (`uint8`, `mz_aclitem[]`, `text list`,
…). Values as Materialize shows them: object types `table`, `source`, `view`, `materialized-view`, `index`,
`sink`, `type`, `function`, `secret`, `connection`; privileges as mz_aclitem text with role ids (the owner's
implicit privileges first, PUBLIC as an empty grantee); view definitions are the query of the CREATE statement;
redacted_create_sql is create_sql (the catalog stores no secret literals); mz_columns.type is the type's SQL name
without modifiers. mz_types lists the builtin types sparkwire speaks (schema pg_catalog, id `s<oid>`, category
`array`, `pseudo` or `base`, owner mz_system) and user types (category NULL: the catalog does not record one).
mz_clusters shows each cluster's size and replication factor (NULL for an unmanaged cluster; replicas are in
catalog/cluster_relations.py). mz_internal.mz_sessions (one row per connected session) is
not rendered from the catalog: `engine.introspection.sessions` adds and removes its rows as sessions come and go.
"""

from __future__ import annotations

import datetime

from sparkwire.catalog.builtins import MZ_SYSTEM_ROLE_ID
from sparkwire.catalog.clusters import effective_size
from sparkwire.catalog.objects import ITEM_KINDS, Item, ObjectRef
from sparkwire.catalog.relations.pg_items import key_positions
from sparkwire.catalog.relations.relation import (
    BuiltinRelation,
    Names,
    Row,
    RowsOf,
    names_of,
    no_rows,
    parse_columns,
    view_definition,
)
from sparkwire.catalog.state import CatalogState
from sparkwire.pgtypes.registry import PgType, all_types, type_by_oid

_OBJECT_TYPES = {"func": "function"}
_BUILTIN_TYPE_ACL = (f"{MZ_SYSTEM_ROLE_ID}=U/{MZ_SYSTEM_ROLE_ID}", f"=U/{MZ_SYSTEM_ROLE_ID}")
_RELATION_KINDS = ("table", "source", "view", "materialized-view")
_INTROSPECTION_INTERVAL = datetime.timedelta(seconds=1)


def _privileges(names: Names, item: Item) -> tuple[str, ...] | None:
    return names.acl(ObjectRef("item", item.id), item.owner_id, item.kind, by_id=True, always=True)


def _object_type(item: Item) -> str:
    return _OBJECT_TYPES.get(item.kind, item.kind)


def _databases(state: CatalogState) -> list[Row]:
    names = names_of(state)
    return [
        (
            d.id,
            d.oid,
            d.name,
            d.owner_id,
            names.acl(ObjectRef("database", d.id), d.owner_id, "database", by_id=True, always=True),
        )
        for d in sorted(state.databases.values(), key=lambda d: d.oid)
    ]


def _schemas(state: CatalogState) -> list[Row]:
    names = names_of(state)
    return [
        (
            s.id,
            s.oid,
            s.database_id,
            s.name,
            s.owner_id,
            names.acl(ObjectRef("schema", s.id), s.owner_id, "schema", by_id=True, always=True),
        )
        for s in sorted(state.schemas.values(), key=lambda s: s.oid)
    ]


def _objects_of(state: CatalogState, kinds: tuple[str, ...]) -> list[Row]:
    names = names_of(state)
    return [
        (i.id, i.oid, i.schema_id, i.name, _object_type(i), i.owner_id, i.cluster_id, _privileges(names, i))
        for i in names.items(*kinds)
    ]


def _objects(state: CatalogState) -> list[Row]:
    return _objects_of(state, ITEM_KINDS)


def _relations(state: CatalogState) -> list[Row]:
    return _objects_of(state, _RELATION_KINDS)


def _tables(state: CatalogState) -> list[Row]:
    names = names_of(state)
    return [
        (t.id, t.oid, t.schema_id, t.name, t.owner_id, _privileges(names, t), t.create_sql, t.create_sql, None)
        for t in names.items("table")
    ]


def _views(state: CatalogState) -> list[Row]:
    names = names_of(state)
    return [
        (
            v.id,
            v.oid,
            v.schema_id,
            v.name,
            view_definition(v.create_sql),
            v.owner_id,
            _privileges(names, v),
            v.create_sql,
            v.create_sql,
        )
        for v in names.items("view")
    ]


def _materialized_views(state: CatalogState) -> list[Row]:
    names = names_of(state)
    return [
        (
            m.id,
            m.oid,
            m.schema_id,
            m.name,
            m.cluster_id,
            view_definition(m.create_sql),
            m.owner_id,
            _privileges(names, m),
            m.create_sql,
            m.create_sql,
        )
        for m in names.items("materialized-view")
    ]


def _indexes(state: CatalogState) -> list[Row]:
    return [
        (i.id, i.oid, i.name, i.on_id, i.cluster_id, i.owner_id, i.create_sql, i.create_sql)
        for i in names_of(state).items("index")
    ]


def _index_columns(state: CatalogState) -> list[Row]:
    rows: list[Row] = []
    for index in names_of(state).items("index"):
        on = state.items.get(index.on_id or "")
        positions = key_positions(state, index)
        for number, (key, position) in enumerate(zip(index.keys, positions, strict=True), 1):
            nullable = on.columns[position - 1].nullable if on is not None and position is not None else True
            rows.append((index.id, number, position, None if position is not None else key, nullable))
    return rows


def _type_name(type_oid: int) -> str:
    pgtype = type_by_oid(type_oid)
    return "character" if type_oid == 1042 else pgtype.display


def _columns(state: CatalogState) -> list[Row]:
    return [
        (item.id, c.name, position, c.nullable, _type_name(c.type_oid), c.default, c.type_oid, c.typmod)
        for item in names_of(state).items(*_RELATION_KINDS)
        for position, c in enumerate(item.columns, 1)
    ]


def _clusters(state: CatalogState) -> list[Row]:
    names = names_of(state)
    return [
        (
            c.id,
            c.name,
            c.owner_id,
            names.acl(ObjectRef("cluster", c.id), c.owner_id, "cluster", by_id=True, always=True),
            c.managed,
            effective_size(c),
            c.replication_factor if c.replication_factor is not None or not c.managed else 1,
            False,
            None,
            False,
            _INTROSPECTION_INTERVAL,
        )
        for c in sorted(state.clusters.values(), key=lambda c: c.id)
    ]


def _roles(state: CatalogState) -> list[Row]:
    return [
        (r.id, r.oid, r.name, r.inherit, r.login, r.superuser)
        for r in sorted(state.roles.values(), key=lambda r: r.oid)
    ]


def _role_members(state: CatalogState) -> list[Row]:
    return [
        (m.role_id, m.member_id, m.grantor_id)
        for m in sorted(state.memberships.values(), key=lambda m: (m.role_id, m.member_id))
    ]


def _category(t: PgType) -> str:
    if t.category == "A":
        return "array"
    return "pseudo" if t.category in ("P", "X") else "base"


def _types(state: CatalogState) -> list[Row]:
    pg_catalog = next(s.id for s in state.schemas.values() if s.database_id is None and s.name == "pg_catalog")
    builtin: list[Row] = [
        (
            f"s{t.oid}",
            t.oid,
            pg_catalog,
            t.name,
            _category(t),
            MZ_SYSTEM_ROLE_ID,
            _BUILTIN_TYPE_ACL,
            None,
            None,
        )
        for t in sorted(all_types(), key=lambda t: t.oid)
    ]
    names = names_of(state)
    user: list[Row] = [
        (t.id, t.oid, t.schema_id, t.name, None, t.owner_id, _privileges(names, t), t.create_sql, t.create_sql)
        for t in names.items("type")
    ]
    return [*builtin, *user]


_ACL = "mz_aclitem[]"


def _mz(name: str, oid: int, columns: str, rows: RowsOf) -> BuiltinRelation:
    return BuiltinRelation("mz_catalog", name, oid, parse_columns(columns.replace(" acl", " " + _ACL)), rows)


_OBJECT_COLUMNS = (
    "id text, oid oid, schema_id text, name text, type text, owner_id text, cluster_id text, privileges acl"
)

MZ_RELATIONS: tuple[BuiltinRelation, ...] = (
    _mz("mz_databases", 16700, "id text, oid oid, name text, owner_id text, privileges acl", _databases),
    _mz("mz_schemas", 16701, "id text, oid oid, database_id text, name text, owner_id text, privileges acl", _schemas),
    _mz("mz_objects", 16702, _OBJECT_COLUMNS, _objects),
    _mz("mz_relations", 16703, _OBJECT_COLUMNS, _relations),
    _mz(
        "mz_tables",
        16704,
        "id text, oid oid, schema_id text, name text, owner_id text, privileges acl, create_sql text, "
        "redacted_create_sql text, source_id text",
        _tables,
    ),
    _mz(
        "mz_views",
        16705,
        "id text, oid oid, schema_id text, name text, definition text, owner_id text, privileges acl, "
        "create_sql text, redacted_create_sql text",
        _views,
    ),
    _mz(
        "mz_materialized_views",
        16706,
        "id text, oid oid, schema_id text, name text, cluster_id text, definition text, owner_id text, "
        "privileges acl, create_sql text, redacted_create_sql text",
        _materialized_views,
    ),
    _mz(
        "mz_indexes",
        16707,
        "id text, oid oid, name text, on_id text, cluster_id text, owner_id text, create_sql text, "
        "redacted_create_sql text",
        _indexes,
    ),
    _mz(
        "mz_index_columns",
        16708,
        "index_id text, index_position uint8, on_position uint8, on_expression text, nullable boolean",
        _index_columns,
    ),
    _mz(
        "mz_columns",
        16709,
        "id text, name text, position uint8, nullable boolean, type text, default text, type_oid oid, type_mod integer",
        _columns,
    ),
    _mz(
        "mz_clusters",
        16710,
        "id text, name text, owner_id text, privileges acl, managed boolean, size text, "
        "replication_factor uint4, disk boolean, availability_zones text list, introspection_debugging boolean, "
        "introspection_interval interval",
        _clusters,
    ),
    _mz(
        "mz_roles", 16711, "id text, oid oid, name text, inherit boolean, rolcanlogin boolean, rolsuper boolean", _roles
    ),
    _mz("mz_role_members", 16712, "role_id text, member text, grantor text", _role_members),
    _mz(
        "mz_types",
        16713,
        "id text, oid oid, schema_id text, name text, category text, owner_id text, privileges acl, "
        "create_sql text, redacted_create_sql text",
        _types,
    ),
    # mz_sources is in catalog/source_relations.py. No sinks exist (CREATE SINK is not supported): no rows.
    BuiltinRelation(
        "mz_catalog",
        "mz_sinks",
        16717,
        parse_columns(
            "id text, oid oid, schema_id text, name text, type text, connection_id text, size text, "
            "envelope_type text, format text, key_format text, value_format text, cluster_id text, owner_id text, "
            "create_sql text, redacted_create_sql text"
        ),
        no_rows,
        from_state=False,
    ),
    BuiltinRelation(
        "mz_internal",
        "mz_sessions",
        16714,
        parse_columns(
            "id uuid, connection_id uint4, role_id text, client_ip text, connected_at timestamp with time zone"
        ),
        no_rows,
        from_state=False,
        live=True,
    ),
)
