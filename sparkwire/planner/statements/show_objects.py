"""Materialize's SHOW commands over the catalog: SHOW TABLES / VIEWS / MATERIALIZED VIEWS / INDEXES / SCHEMAS /
DATABASES / CLUSTERS / OBJECTS, SHOW COLUMNS and SHOW CREATE ….

Contract: `show_objects(stmt, state, names)` returns the RowDescription fields and the rows, computed from the
catalog snapshot alone. Columns, their order and the row order are Materialize's (its `mz_show_*` projections,
rows sorted by every column, SHOW COLUMNS by position): SHOW TABLES / VIEWS / SCHEMAS / DATABASES → name, comment;
SHOW MATERIALIZED VIEWS → name, cluster, comment; SHOW SOURCES → name, type, cluster, comment; SHOW SUBSOURCES
[ON source] → name, type; SHOW INDEXES → name, on, cluster, key (text[], a Python list of
key expressions), comment; SHOW CLUSTERS → name, replicas, comment; SHOW OBJECTS → name, type, comment; SHOW
COLUMNS → name, nullable (bool), type, comment; SHOW CREATE … → name (fully qualified), create_sql. Comments are
COMMENT ON's; replicas are not recorded: NULL. Without FROM, objects come from the first schema of the search path
that exists (SHOW INDEXES: also unless ON or IN CLUSTER is given). `LIKE 'pattern'` filters on name; WHERE raises 0A000.
"""

from __future__ import annotations

import re

from sparkwire import errors as e
from sparkwire.api import Field
from sparkwire.catalog import CatalogState
from sparkwire.catalog.clusters import replicas
from sparkwire.catalog.objects import Item, ObjectKind, ObjectRef, Schema
from sparkwire.catalog.wording import noun
from sparkwire.pgtypes.registry import type_by_oid
from sparkwire.planner.bind.resolve import Names
from sparkwire.planner.grammar.ddl_parser import Name
from sparkwire.planner.grammar.show import ShowColumns, ShowCreate, ShowObjects, ShowStatement

TEXT, BOOL, TEXT_ARRAY = 25, 16, 1009
Row = tuple[object, ...]
_RELATIONS = ("table", "view", "materialized-view", "source")


def _fields(*names: str) -> tuple[Field, ...]:
    return tuple(Field(n, TEXT) for n in names)


def show_objects(stmt: ShowStatement, state: CatalogState, names: Names) -> tuple[tuple[Field, ...], list[Row]]:
    match stmt:
        case ShowCreate():
            return _fields("name", "create_sql"), [_show_create(stmt, state, names)]
        case ShowColumns():
            columns = (Field("name", TEXT), Field("nullable", BOOL, 1), Field("type", TEXT), Field("comment", TEXT))
            return columns, _filter(_columns(stmt, state, names), stmt.like, stmt.where)
        case ShowObjects():
            fields, rows = _objects(stmt, state, names)
            return fields, sorted(_filter(rows, stmt.like, stmt.where), key=_sort_key)


def _comment(state: CatalogState, kind: ObjectKind, object_id: str, sub_id: int = 0) -> str | None:
    found = state.comments.get((ObjectRef(kind, object_id), sub_id))
    return None if found is None else found.text


def _sort_key(row: Row) -> tuple[tuple[bool, str], ...]:
    """Every column ascending, NULLs last (as Materialize's ORDER BY q.*)."""
    return tuple((value is None, str(value)) for value in row)


def _filter(rows: list[Row], like: str | None, where: str | None) -> list[Row]:
    if where is not None:
        raise e.FeatureNotSupported("SHOW … WHERE is not supported", hint="Use SHOW … LIKE 'pattern'.")
    if like is None:
        return rows
    pattern = _like_regex(like)
    return [row for row in rows if pattern.fullmatch(str(row[0]))]


def _like_regex(like: str) -> re.Pattern[str]:
    out: list[str] = []
    chars = iter(like)
    for ch in chars:
        if ch == "\\":
            out.append(re.escape(next(chars, "\\")))
        elif ch == "%":
            out.append(".*")
        elif ch == "_":
            out.append(".")
        else:
            out.append(re.escape(ch))
    return re.compile("".join(out), re.S)


# ---- names ----------------------------------------------------------------------------------------------------


def _schema(name: Name | None, state: CatalogState, names: Names) -> Schema:
    """The schema FROM names, else the first schema of the search path that exists (Materialize's active one)."""
    if name is not None:
        if len(name.parts) > 2:
            raise e.SyntaxError(f"improper qualified name (too many dotted names): {name.written}")
        db = state.resolve_database(name.parts[0] if len(name.parts) == 2 else names.database)
        found = state.find_schema(db.id, name.name)
        if found is None:
            raise e.InvalidSchemaName(f'schema "{name.name}" does not exist')
        return found
    db = state.resolve_database(names.database)
    for schema_name in names.search_path:
        if (active := state.find_schema(db.id, schema_name)) is not None:
            return active
    raise e.InvalidSchemaName("no schema has been selected")


def _item(name: Name, state: CatalogState, names: Names) -> Item:
    if name.schema is not None:
        _schema(Name(name.parts[:-1]), state, names)
    found = state.lookup_item(
        name.name,
        current_database=names.database,
        search_path=names.search_path,
        schema=name.schema,
        database=name.database,
    )
    if found is None:
        raise e.UndefinedTable(f'relation "{name.written}" does not exist')
    return found


def _cluster_name(state: CatalogState, cluster_id: str | None) -> str | None:
    cluster = state.clusters.get(cluster_id) if cluster_id is not None else None
    return cluster.name if cluster is not None else None


# ---- SHOW <objects> -------------------------------------------------------------------------------------------


def _objects(stmt: ShowObjects, state: CatalogState, names: Names) -> tuple[tuple[Field, ...], list[Row]]:
    match stmt.what:
        case "databases":
            databases = state.databases.values()
            return _fields("name", "comment"), [(d.name, _comment(state, "database", d.id)) for d in databases]
        case "schemas":
            db = state.resolve_database(stmt.from_.name if stmt.from_ is not None else names.database)
            schemas = [s for s in state.schemas.values() if s.database_id in (None, db.id)]
            return _fields("name", "comment"), [(s.name, _comment(state, "schema", s.id)) for s in schemas]
        case "clusters":
            return _fields("name", "replicas", "comment"), [
                (c.name, ", ".join(f"{r.name} ({r.size})" for r in replicas(c)), _comment(state, "cluster", c.id))
                for c in sorted(state.clusters.values(), key=lambda c: c.name)
            ]
        case "cluster-replicas":
            fields = (*_fields("cluster", "replica", "size"), Field("ready", BOOL), *_fields("comment"))
            return fields, [
                (c.name, r.name, r.size, True, None)
                for c in sorted(state.clusters.values(), key=lambda c: c.name)
                for r in replicas(c)
            ]
        case "indexes":
            return _indexes(stmt, state, names)
    schema = _schema(stmt.from_, state, names)
    items = state.items_in_schema(schema.id)
    match stmt.what:
        case "tables" | "views":
            kind = stmt.what[:-1]
            named: list[Row] = [(i.name, _comment(state, "item", i.id)) for i in items if i.kind == kind]
            return _fields("name", "comment"), named
        case "materialized-views":
            cluster = state.resolve_cluster(stmt.cluster).id if stmt.cluster is not None else None
            rows: list[Row] = [
                (i.name, _cluster_name(state, i.cluster_id), _comment(state, "item", i.id))
                for i in items
                if i.kind == "materialized-view" and cluster in (None, i.cluster_id)
            ]
            return _fields("name", "cluster", "comment"), rows
        case "sources":
            cluster = state.resolve_cluster(stmt.cluster).id if stmt.cluster is not None else None
            sources = [i for i in items if i.kind == "source" and cluster in (None, _source_cluster(state, i))]
            return _fields("name", "type", "cluster", "comment"), [
                (i.name, i.source_type, _cluster_name(state, _source_cluster(state, i)), _comment(state, "item", i.id))
                for i in sources
            ]
        case "subsources":
            on = _item(stmt.on, state, names).id if stmt.on is not None else None
            subsources = [i for i in items if i.kind == "source" and i.source_type in ("subsource", "progress")]
            rows = [(i.name, i.source_type) for i in subsources if on in (None, *i.dependencies)]
            return _fields("name", "type"), list(rows)
        case _:  # objects
            return _fields("name", "type", "comment"), [(i.name, i.kind, _comment(state, "item", i.id)) for i in items]


def _source_cluster(state: CatalogState, item: Item) -> str | None:
    """A source's cluster; a subsource's is its source's."""
    if item.cluster_id is not None:
        return item.cluster_id
    owner = next((state.items[d] for d in item.dependencies if d in state.items), None)
    return None if owner is None else owner.cluster_id


def _indexes(stmt: ShowObjects, state: CatalogState, names: Names) -> tuple[tuple[Field, ...], list[Row]]:
    indexes = [i for i in state.items.values() if i.kind == "index"]
    if stmt.on is None and stmt.from_ is None and stmt.cluster is None:
        active = _schema(None, state, names)
        indexes = [i for i in indexes if i.schema_id == active.id]
    if stmt.on is not None:
        on = _item(stmt.on, state, names)
        if on.kind not in _RELATIONS:
            raise e.WrongObjectType(
                f"cannot show indexes on {state.qualified_name(on)} because it is a {noun(on.kind)}"
            )
        indexes = [i for i in indexes if i.on_id == on.id]
    if stmt.from_ is not None:
        schema = _schema(stmt.from_, state, names)
        indexes = [i for i in indexes if i.schema_id == schema.id]
    if stmt.cluster is not None:
        cluster = state.resolve_cluster(stmt.cluster)
        indexes = [i for i in indexes if i.cluster_id == cluster.id]
    fields = (*_fields("name", "on", "cluster"), Field("key", TEXT_ARRAY), Field("comment", TEXT))
    rows: list[Row] = [
        (
            i.name,
            state.items[i.on_id].name if i.on_id else None,
            _cluster_name(state, i.cluster_id),
            list(i.keys),
            _comment(state, "item", i.id),
        )
        for i in indexes
    ]
    return fields, rows


# ---- SHOW COLUMNS, SHOW CREATE --------------------------------------------------------------------------------


def _type_name(type_oid: int) -> str:
    """The type as mz_columns.type names it: its SQL name without modifiers."""
    return "character" if type_oid == 1042 else type_by_oid(type_oid).display


def _columns(stmt: ShowColumns, state: CatalogState, names: Names) -> list[Row]:
    item = _item(stmt.name, state, names)
    if item.kind not in _RELATIONS:
        raise e.WrongObjectType(f"{state.qualified_name(item)} is a {noun(item.kind)} and so does not have columns")
    return [
        (c.name, c.nullable, _type_name(c.type_oid), _comment(state, "item", item.id, n))
        for n, c in enumerate(item.columns, start=1)
    ]


def _show_create(stmt: ShowCreate, state: CatalogState, names: Names) -> Row:
    item = _item(stmt.name, state, names)
    qualified = state.qualified_name(item)
    if item.kind == "materialized-view" and stmt.kind == "view":
        raise e.WrongObjectType(
            f"{qualified} is not a view", hint="Use SHOW CREATE MATERIALIZED VIEW to show a materialized view."
        )
    if item.kind != stmt.kind:
        raise e.WrongObjectType(f"{qualified} is not a {noun(stmt.kind)}")
    return (qualified, item.create_sql)
