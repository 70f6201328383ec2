"""DDL planning: a parsed DDL statement (grammar/ddl.py) → the typed catalog ops that carry it out, with no side effect.

Contract: `plan_ddl(stmt, ctx)` resolves names against `ctx.state` the way PostgreSQL does and returns a `DdlPlan`:
the ops for one `catalog.transact`, the CommandComplete tag, the NOTICEs to send, and for CREATE TABLE … AS and
CREATE MATERIALIZED VIEW the query whose rows fill the new object. Errors are raised before any op is built, with
PostgreSQL's SQLSTATE and wording (42P07, 42P01, 42704, 3F000, 42P06, 42809, 2BP01, 42701, 42703, 42601, …); what
sparkwire does not support raises 0A000 naming it.

- IF NOT EXISTS on an existing name plans no op and a NOTICE (`relation "t" already exists, skipping`); the create
  op still carries `if_not_exists`, so a name taken between planning and transact is reported by the catalog in
  `TransactResult.skipped` (whose `notice_message` the caller sends) instead of failing.
- Queries of views, materialized views and CREATE TABLE … AS are stored and returned with every user relation
  qualified as `database.schema.name`, so that they mean the same thing under any search_path; their user
  relations are the item's dependencies, which RESTRICT/CASCADE follow. `ctx.describe_query` gives the columns.
- `create_sql` is `grammar.ddl.render` of the normalized statement: qualified names, types as format_type prints
  them, CREATE TABLE … AS stored as the plain CREATE TABLE it produced, indexes with their name, cluster and key.
- Index names default as Materialize: `<obj>_primary_idx` (CREATE DEFAULT INDEX, whose key is the primary key or
  else every column), `<obj>_<col>_…_idx` (`expr` for a key that is not a column), numbered `…_idx1`, `…_idx2` when
  taken. Indexes live in their relation's schema and default to `ctx.cluster`, as do materialized views.
- CREATE TABLE … AS has the tag "SELECT": the caller appends the row count, as PostgreSQL reports it (when IF NOT
  EXISTS skips it, the tag is PostgreSQL's "CREATE TABLE AS" and there is no query).
- ALTER … RENAME is refused (0A000) when other objects depend on the item, since their stored SQL names it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from sqlglot import exp

from sparkwire import errors as e
from sparkwire.api import Notice
from sparkwire.catalog import CatalogState
from sparkwire.catalog.drops import plan_drop, plan_drop_schema
from sparkwire.catalog.objects import INDEXABLE_KINDS, Cluster, Column, Item, ItemKind, ItemSpec, Schema
from sparkwire.catalog.ops import CreateItem, CreateSchema, DropItems, DropSchema, Op, RenameItem, ReplaceItem
from sparkwire.catalog.wording import duplicate_item, noun, with_article
from sparkwire.pgtypes.registry import format_type, parse_type_name
from sparkwire.planner.bind.naming import align_names, column_name, projection_names
from sparkwire.planner.bind.resolve import Names, is_builtin_relation, user_relations
from sparkwire.planner.grammar import ddl as g
from sparkwire.planner.grammar.ddl_parser import Name, quote
from sparkwire.planner.grammar.dialect import PG
from sparkwire.planner.statements.ddl_expressions import check_default, index_key
from sparkwire.planner.statements.renames import dependent_sql, rename_sql
from sparkwire.planner.translate.duckdb import parse

DescribeQuery = Callable[[exp.Expression], tuple[Column, ...]]


@dataclass(frozen=True, slots=True)
class DdlContext:
    state: CatalogState
    names: Names
    describe_query: DescribeQuery  # the catalog Columns of a query's result
    cluster: str = "quickstart"  # the session's active cluster (indexes, materialized views)


@dataclass(frozen=True, slots=True)
class DdlPlan:
    ops: tuple[Op, ...]
    tag: str
    notices: tuple[Notice, ...] = ()
    query: exp.Expression | None = None


def plan_ddl(stmt: g.DdlStatement, ctx: DdlContext) -> DdlPlan:
    match stmt:
        case g.CreateTable(query=None):
            return _create_table(stmt, ctx)
        case g.CreateTable():
            return _create_table_as(stmt, ctx)
        case g.CreateView():
            return _create_view(stmt, ctx)
        case g.CreateIndex():
            return _create_index(stmt, ctx)
        case g.CreateSchema():
            return _create_schema(stmt, ctx)
        case g.DropObjects(kind="schema"):
            return _drop_schemas(stmt, ctx)
        case g.DropObjects():
            return _drop_items(stmt, ctx)
        case g.AlterRename():
            return _rename(stmt, ctx)
        case _:  # the cluster statements: planner/statements/clusters.py
            raise e.FeatureNotSupported("this statement is not supported")


# ---- names --------------------------------------------------------------------------------------------------


def _cluster(state: CatalogState, name: str) -> Cluster:
    """The cluster an index or materialized view goes to (IN CLUSTER, else the session's): Materialize's 42704."""
    cluster = state.cluster_by_name(name)
    if cluster is None:
        raise e.UndefinedObject(f"unknown cluster '{name}'")
    return cluster


def _creation_schema(name: Name, ctx: DdlContext) -> Schema:
    """The schema a CREATE puts `name` in: the one it names, or the first existing schema of the search path."""
    state = ctx.state
    if name.schema is None:
        db = state.resolve_database(ctx.names.database)
        for schema_name in ctx.names.search_path:
            found = state.find_schema(db.id, schema_name)
            if found is not None:
                break
        else:
            raise e.InvalidSchemaName("no schema has been selected to create in")
    else:
        db = state.resolve_database(name.database or ctx.names.database)
        found = state.find_schema(db.id, name.schema)
        if found is None:
            raise e.InvalidSchemaName(f'schema "{name.schema}" does not exist')
    if found.is_builtin:
        raise e.InsufficientPrivilege(
            f'permission denied to create "{found.name}.{name.name}"',
            detail="System catalog modifications are currently disallowed.",
        )
    return found


def _qualified(schema: Schema, name: str, state: CatalogState) -> Name:
    database = state.databases[schema.database_id].name if schema.database_id else None
    return Name((database, schema.name, name) if database else (schema.name, name))


def _missing_schema(name: Name, ctx: DdlContext) -> str | None:
    """The schema `name` is qualified with when it does not exist (3F000, or a NOTICE with IF EXISTS)."""
    if name.schema is None:
        return None
    db = ctx.state.resolve_database(name.database or ctx.names.database)
    return name.schema if ctx.state.find_schema(db.id, name.schema) is None else None


def _find(name: Name, ctx: DdlContext, if_exists: bool, notices: list[Notice]) -> Item | None:
    """The item `name` refers to, or None; a name in a missing schema raises 3F000, or with IF EXISTS adds
    PostgreSQL's NOTICE and returns None. A builtin relation (pg_catalog.pg_type, …) cannot be changed: 42501."""
    if is_builtin_relation(name.schema, name.name) and name.database in (None, ctx.names.database):
        raise e.InsufficientPrivilege(f"permission denied for table {name.name}")
    if (schema := _missing_schema(name, ctx)) is not None:
        if not if_exists:
            raise e.InvalidSchemaName(f'schema "{schema}" does not exist')
        notices.append(Notice(f'schema "{schema}" does not exist, skipping'))
        return None
    return ctx.state.lookup_item(
        name.name,
        current_database=ctx.names.database,
        search_path=ctx.names.search_path,
        schema=name.schema,
        database=name.database,
    )


def _ident(name: str) -> exp.Identifier:
    return exp.to_identifier(name, quoted=quote(name) != name)


def _exists_notice(kind: str, name: str) -> Notice:
    return (
        Notice(f'relation "{name}" already exists, skipping', sqlstate="42P07")
        if kind != "schema"
        else Notice(f'schema "{name}" already exists, skipping', sqlstate="42P06")
    )


def _check_distinct(names: Iterable[str]) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise e.DuplicateColumn(f'column "{name}" specified more than once')
        seen.add(name)


# ---- queries ------------------------------------------------------------------------------------------------


_QUERY_START = re.compile(r"\s*(\(|[A-Za-z_]\w*)")


def _parse_query(text: str, offset: int) -> exp.Expression:
    """Parse an embedded query; syntax errors are positioned in the whole statement."""
    head = _QUERY_START.match(text)
    if head is None or head.group(1).lower() not in ("(", "select", "with", "values", "table"):
        near = head.group(1) if head else text.strip()[:1]
        start = head.start(1) if head else 0
        raise e.SyntaxError(f'syntax error at or near "{near}"', position=offset + start + 1)
    try:
        tree = parse(text)
    except e.SyntaxError as err:
        if err.position is not None:
            err.position += offset
        raise
    if not isinstance(tree, exp.Query | exp.Values):
        raise e.SyntaxError(f'syntax error at or near "{head.group(1)}"', position=offset + head.start(1) + 1)
    return tree


def _qualify(tree: exp.Expression, ctx: DdlContext) -> tuple[exp.Expression, tuple[str, ...]]:
    """A copy of `tree` with every user relation qualified, and the ids of those relations (in order)."""
    tree = tree.copy()
    found = user_relations(tree, ctx.state, ctx.names)
    for node, item in found:
        schema = ctx.state.schemas[item.schema_id]
        qualified = _qualified(schema, item.name, ctx.state)
        node.set("this", _ident(item.name))
        node.set("db", _ident(schema.name))
        if qualified.database is not None:
            node.set("catalog", _ident(qualified.database))
    return tree, tuple(dict.fromkeys(item.id for _, item in found))


def _query_columns(tree: exp.Expression, names: tuple[str, ...], ctx: DdlContext, too_many: str) -> tuple[Column, ...]:
    """The query's columns, named by `names` (a view's column list), else as PostgreSQL names projections
    (`sum(amount)` is `sum`; a `*` keeps the columns' own names)."""
    described = ctx.describe_query(tree)
    if len(names) > len(described):
        raise e.SyntaxError(too_many)
    figured = align_names(projection_names(tree), len(described)) or [None] * len(described)
    columns = [dataclasses.replace(c, name=n) if n is not None else c for c, n in zip(described, figured, strict=True)]
    renamed = tuple(dataclasses.replace(c, name=names[i]) if i < len(names) else c for i, c in enumerate(columns))
    _check_distinct(c.name for c in renamed)
    return renamed


# ---- CREATE TABLE -------------------------------------------------------------------------------------------


def _table_columns(stmt: g.CreateTable) -> tuple[tuple[Column, ...], tuple[str, ...]]:
    _check_distinct(c.name for c in stmt.columns)
    key = stmt.primary_key or tuple(c.name for c in stmt.columns if c.primary_key)
    names = {c.name for c in stmt.columns}
    seen: set[str] = set()
    for column in key:
        if column not in names:
            raise e.UndefinedColumn(f'column "{column}" named in key does not exist')
        if column in seen:
            raise e.DuplicateColumn(f'column "{column}" appears twice in primary key constraint')
        seen.add(column)
    columns: list[Column] = []
    for c in stmt.columns:
        try:
            pgtype, typmod = parse_type_name(c.type_name)
        except e.PgError as err:
            err.position = c.type_position
            raise
        element = pgtype.element_oid or pgtype.oid
        if element in UNSTORABLE_TYPES:
            raise e.FeatureNotSupported(
                f"columns of type {format_type(element, -1)} are not supported yet",
                detail="Table data is stored as Parquet and read by Spark, which has no such type.",
                position=c.type_position,
            )
        if c.default is not None:
            check_default(c.default)
        not_null = c.not_null or c.name in seen
        columns.append(Column(c.name, pgtype.oid, typmod, nullable=not not_null, default=c.default))
    return tuple(columns), key


UNSTORABLE_TYPES = frozenset({1186})  # interval: Parquet has no months-days-microseconds type


def _table_sql(name: Name, columns: tuple[Column, ...], key: tuple[str, ...]) -> str:
    defs = tuple(g.ColumnDef(c.name, format_type(c.type_oid, c.typmod), 0, not c.nullable, c.default) for c in columns)
    return g.render(g.CreateTable(name, defs, key))


def _existing_skip(schema: Schema, name: str, ctx: DdlContext, if_not_exists: bool, tag: str) -> DdlPlan | None:
    existing = ctx.state.find_item(schema.id, name)
    if existing is None:
        return None
    if if_not_exists:
        return DdlPlan((), tag, (_exists_notice(existing.kind, name),))
    raise duplicate_item(existing.kind, name)


def _create_table(stmt: g.CreateTable, ctx: DdlContext) -> DdlPlan:
    schema = _creation_schema(stmt.name, ctx)
    if (skipped := _existing_skip(schema, stmt.name.name, ctx, stmt.if_not_exists, "CREATE TABLE")) is not None:
        return skipped
    columns, key = _table_columns(stmt)
    spec = ItemSpec(
        kind="table",
        schema_id=schema.id,
        name=stmt.name.name,
        owner_id=ctx.names.role_id,
        create_sql=_table_sql(_qualified(schema, stmt.name.name, ctx.state), columns, key),
        columns=columns,
        primary_key=key,
    )
    return DdlPlan((CreateItem(spec, stmt.if_not_exists),), "CREATE TABLE")


def _create_table_as(stmt: g.CreateTable, ctx: DdlContext) -> DdlPlan:
    assert stmt.query is not None
    schema = _creation_schema(stmt.name, ctx)
    skipped = _existing_skip(schema, stmt.name.name, ctx, stmt.if_not_exists, "CREATE TABLE AS")
    if skipped is not None:
        return skipped
    tree, _ = _qualify(_parse_query(stmt.query, stmt.query_offset), ctx)
    described = _query_columns(tree, stmt.column_names, ctx, "too many column names were specified")
    columns = tuple(dataclasses.replace(c, nullable=True, default=None) for c in described)
    spec = ItemSpec(
        kind="table",
        schema_id=schema.id,
        name=stmt.name.name,
        owner_id=ctx.names.role_id,
        create_sql=_table_sql(_qualified(schema, stmt.name.name, ctx.state), columns, ()),
        columns=columns,
    )
    return DdlPlan((CreateItem(spec, stmt.if_not_exists),), "SELECT", query=tree)


# ---- CREATE VIEW / MATERIALIZED VIEW ------------------------------------------------------------------------


def _create_view(stmt: g.CreateView, ctx: DdlContext) -> DdlPlan:
    kind: ItemKind = "materialized-view" if stmt.materialized else "view"
    tag = f"CREATE {noun(kind).upper()}"
    schema = _creation_schema(stmt.name, ctx)
    existing = ctx.state.find_item(schema.id, stmt.name.name)
    if existing is not None and not stmt.replace:
        if stmt.if_not_exists:
            return DdlPlan((), tag, (_exists_notice(existing.kind, stmt.name.name),))
        raise duplicate_item(existing.kind, stmt.name.name)
    if existing is not None and existing.kind != kind:
        raise e.WrongObjectType(f'"{stmt.name.name}" is not {with_article(noun(kind))}')
    cluster = _cluster(ctx.state, stmt.cluster or ctx.cluster) if stmt.materialized else None
    tree, dependencies = _qualify(_parse_query(stmt.query, stmt.query_offset), ctx)
    columns = _query_columns(
        tree, stmt.columns, ctx, f"CREATE {noun(kind).upper()} specifies more column names than columns"
    )
    normalized = g.CreateView(
        _qualified(schema, stmt.name.name, ctx.state),
        tree.sql(dialect=PG),
        columns=stmt.columns,
        materialized=stmt.materialized,
        cluster=cluster.name if cluster else None,
    )
    spec = ItemSpec(
        kind=kind,
        schema_id=schema.id,
        name=stmt.name.name,
        owner_id=ctx.names.role_id,
        create_sql=g.render(normalized),
        columns=columns,
        dependencies=dependencies,
        cluster_id=cluster.id if cluster else None,
    )
    op: Op = ReplaceItem(existing.id, spec) if existing is not None else CreateItem(spec, stmt.if_not_exists)
    return DdlPlan((op,), tag, query=tree if stmt.materialized else None)


# ---- CREATE INDEX -------------------------------------------------------------------------------------------


def _key_columns(keys: tuple[str, ...], on: Item, schema: Schema, ctx: DdlContext) -> tuple[Column, ...]:
    """The index's attributes as PostgreSQL names them (ChooseIndexColumnNames: a column key is the column, a
    function call its function's name, any other expression `expr`; repeats get 1, 2, …) with the key types,
    which DuckDB describes over the relation's schema shadow. None described (an expression DuckDB cannot type)
    leaves them untyped: (). Names follow FigureIndexColname: the result column name (naming.py), `expr` where
    that would be `?column?`."""
    select = f"SELECT {', '.join(keys)} FROM {_qualified(schema, on.name, ctx.state).sql()}"
    try:
        described = ctx.describe_query(parse(select))
    except e.PgError:
        return ()
    if len(described) != len(keys):
        return ()
    taken: set[str] = set()
    out: list[Column] = []
    for key, column in zip(keys, described, strict=True):
        figured = column_name(parse(f"SELECT {key}").expressions[0])
        base = "expr" if figured in (None, "?column?") else figured
        name, number = base, 0
        while name in taken:
            number += 1
            name = f"{base}{number}"
        taken.add(name)
        out.append(Column(name, column.type_oid, column.typmod))
    return tuple(out)


def _available_name(state: CatalogState, schema_id: str, base: str) -> str:
    name, number = base, 0
    while state.find_item(schema_id, name) is not None:
        number += 1
        name = f"{base}{number}"
    return name


def _create_index(stmt: g.CreateIndex, ctx: DdlContext) -> DdlPlan:
    state = ctx.state
    on = _find(stmt.on, ctx, False, [])
    if on is None:
        raise e.UndefinedTable(f'relation "{stmt.on.written}" does not exist')
    if on.kind not in INDEXABLE_KINDS:
        raise e.WrongObjectType(f'cannot create index on "{on.name}" because it is {with_article(noun(on.kind))}')
    if stmt.keys is None:
        keys = tuple(quote(c) for c in (on.primary_key or tuple(c.name for c in on.columns)))
        base = f"{on.name}_primary_idx"
    else:
        normalized = [index_key(k, on) for k in stmt.keys]
        keys = tuple(sql for sql, _ in normalized)
        if stmt.unique and (not keys or any(sql != quote(part) for sql, part in normalized)):
            raise e.FeatureNotSupported("CREATE UNIQUE INDEX is supported on columns only")
        base = f"{on.name}_{'_'.join(part for _, part in normalized)}_idx"
    if stmt.name is not None:
        name = stmt.name
    else:
        name = base if stmt.if_not_exists else _available_name(state, on.schema_id, base)
    existing = state.find_item(on.schema_id, name)
    if existing is not None:
        if stmt.if_not_exists:
            return DdlPlan((), "CREATE INDEX", (_exists_notice(existing.kind, name),))
        raise duplicate_item(existing.kind, name)
    cluster = _cluster(state, stmt.cluster or ctx.cluster)
    schema = state.schemas[on.schema_id]
    normalized_stmt = g.CreateIndex(
        _qualified(schema, on.name, state), keys, name, cluster=cluster.name, unique=stmt.unique
    )
    spec = ItemSpec(
        kind="index",
        schema_id=on.schema_id,
        name=name,
        owner_id=ctx.names.role_id,
        create_sql=g.render(normalized_stmt),
        on_id=on.id,
        keys=keys,
        columns=_key_columns(keys, on, schema, ctx) if stmt.keys else (),
        is_default_index=stmt.keys is None,
        cluster_id=cluster.id,
        unique=stmt.unique,
    )
    return DdlPlan((CreateItem(spec, stmt.if_not_exists),), "CREATE INDEX")


# ---- CREATE SCHEMA ------------------------------------------------------------------------------------------


def _create_schema(stmt: g.CreateSchema, ctx: DdlContext) -> DdlPlan:
    db = ctx.state.resolve_database(stmt.name.schema or ctx.names.database)  # `db.s`: parts[-2] is the database
    existing = ctx.state.find_schema(db.id, stmt.name.name)
    if existing is not None:
        if stmt.if_not_exists:
            return DdlPlan((), "CREATE SCHEMA", (_exists_notice("schema", stmt.name.name),))
        raise e.DuplicateSchema(f'schema "{stmt.name.name}" already exists')
    op = CreateSchema(db.id, stmt.name.name, ctx.names.role_id, stmt.if_not_exists)
    return DdlPlan((op,), "CREATE SCHEMA")


# ---- DROP ---------------------------------------------------------------------------------------------------


def _cascade_notices(descriptions: list[str]) -> tuple[Notice, ...]:
    if not descriptions:
        return ()
    if len(descriptions) == 1:
        return (Notice(f"drop cascades to {descriptions[0]}"),)
    detail = "\n".join(f"drop cascades to {d}" for d in descriptions)
    return (Notice(f"drop cascades to {len(descriptions)} other objects", detail=detail),)


def _drop_items(stmt: g.DropObjects, ctx: DdlContext) -> DdlPlan:
    state = ctx.state
    kind = stmt.kind
    tag = f"DROP {noun(kind).upper()}"
    notices: list[Notice] = []
    ids: list[str] = []
    for name in stmt.names:
        if (item := _find(name, ctx, stmt.if_exists, notices)) is None:
            if _missing_schema(name, ctx) is not None:
                continue
            message = f'{noun(kind)} "{name.written}" does not exist'
            if stmt.if_exists:
                notices.append(Notice(f"{message}, skipping"))
                continue
            raise e.UndefinedObject(message) if kind == "index" else e.UndefinedTable(message)
        if item.source_type == "progress":
            raise e.FeatureNotSupported(
                f'cannot drop progress collection "{name.written}"', hint="DROP SOURCE drops it with its source."
            )
        if item.kind != kind:
            raise e.WrongObjectType(
                f'"{name.written}" is not {with_article(noun(kind))}',
                hint=f"Use DROP {noun(item.kind).upper()} to remove {with_article(noun(item.kind))}.",
            )
        ids.append(item.id)
    if not ids:
        return DdlPlan((), tag, tuple(notices))
    plan = plan_drop(state, ids, stmt.cascade, ctx.names.context)
    notices += _cascade_notices([state.describe_item(i, ctx.names.context) for i in plan.cascaded])
    return DdlPlan((DropItems(plan.order),), tag, tuple(notices))


def _drop_schemas(stmt: g.DropObjects, ctx: DdlContext) -> DdlPlan:
    state = ctx.state
    notices: list[Notice] = []
    ops: list[Op] = []
    cascaded: list[str] = []
    for name in stmt.names:
        if len(name.parts) > 2:
            raise e.SyntaxError(f"improper qualified name (too many dotted names): {name.written}")
        db = state.resolve_database(name.schema or ctx.names.database)  # `db.s`: parts[-2] is the database
        schema = state.find_schema(db.id, name.name)
        if schema is None:
            if stmt.if_exists:
                notices.append(Notice(f'schema "{name.name}" does not exist, skipping'))
                continue
            raise e.InvalidSchemaName(f'schema "{name.name}" does not exist')
        if schema.is_builtin:
            raise e.DependentObjectsStillExist(
                f"cannot drop schema {schema.name} because it is required by the database system"
            )
        plan = plan_drop_schema(state, schema.id, stmt.cascade, ctx.names.context)
        dropping = set(plan.order)
        cascaded += [i for i in plan.order if not (state.items[i].kind == "index" and state.items[i].on_id in dropping)]
        ops.append(DropSchema(schema.id, stmt.cascade))
    described = [state.describe_item(i, ctx.names.context) for i in sorted(cascaded, key=_oid_order(state))]
    return DdlPlan(tuple(ops), "DROP SCHEMA", (*notices, *_cascade_notices(described)))


def _oid_order(state: CatalogState) -> Callable[[str], int]:
    return lambda item_id: state.items[item_id].oid


# ---- ALTER … RENAME -----------------------------------------------------------------------------------------


def _rename(stmt: g.AlterRename, ctx: DdlContext) -> DdlPlan:
    state = ctx.state
    written = "MATERIALIZED VIEW" if stmt.kind == "materialized-view" else stmt.kind.upper()
    tag = f"ALTER {written}"
    notices: list[Notice] = []
    item = _find(stmt.name, ctx, stmt.if_exists, notices)
    if item is None:
        if notices:  # IF EXISTS in a missing schema
            return DdlPlan((), tag, tuple(notices))
        message = f'relation "{stmt.name.written}" does not exist'
        if stmt.if_exists:
            return DdlPlan((), tag, (Notice(f"{message}, skipping"),))
        raise e.UndefinedTable(message)
    # PostgreSQL: ALTER TABLE / ALTER INDEX rename any relation; ALTER [MATERIALIZED] VIEW only its own kind.
    if stmt.kind in ("view", "materialized-view") and item.kind != stmt.kind:
        raise e.WrongObjectType(f'"{stmt.name.written}" is not {with_article(noun(stmt.kind))}')
    if state.find_item(item.schema_id, stmt.new_name) is not None:
        raise duplicate_item(item.kind, stmt.new_name)
    rename = RenameItem(
        item.id, stmt.new_name, rename_sql(item, stmt.new_name), dependent_sql(state, item, stmt.new_name)
    )
    return DdlPlan((rename,), tag)
