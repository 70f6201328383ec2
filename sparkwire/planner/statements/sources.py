"""CREATE SOURCE planning: a parsed `CreateSource` (grammar/sources.py) → the catalog items of a source.

Contract: `create_source(stmt, ctx, transact, data_dir)` resolves the schema, cluster (IN CLUSTER, else the
session's) and connection, asks the source type (sparkwire/sources/registry.py) to validate the options and open a
reader whose `subsources()` it selects from (FOR ALL TABLES / FOR TABLES / FOR SCHEMAS), then commits in two catalog
transactions: the source itself, then its subsources and its progress collection (`<name>_progress`, or EXPOSE
PROGRESS AS), which depend on it (catalog ops cannot name an id made in the same transaction). Ingestion starts
when the progress collection exists (sources/manager.py); if the second transaction fails the source is dropped
again. Returns the `DdlPlan` (tag CREATE SOURCE, NOTICEs) whose ops are already applied. Errors: a name taken 42P07
(IF NOT EXISTS: a NOTICE), a missing cluster or connection 42704, an option the type rejects (its module's
SQLSTATE), FOR … on a single-output source or none on a multi-output one 42601, a FOR TABLES reference the upstream
does not have 42P01.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from pathlib import Path

from sparkwire import errors as e
from sparkwire.catalog.catalog import TransactResult
from sparkwire.catalog.objects import Column, Item, ItemSpec, ObjectRef, Schema
from sparkwire.catalog.ops import CreateItem, DropItems, Op
from sparkwire.catalog.wording import duplicate_item
from sparkwire.pgtypes.registry import format_type
from sparkwire.planner.grammar.ddl_parser import Name, quote
from sparkwire.planner.grammar.sources import CreateSource, render
from sparkwire.planner.security.privileges import check_ops, check_privilege
from sparkwire.planner.statements.ddl import DdlContext, DdlPlan, _cluster, _creation_schema, _exists_notice
from sparkwire.sources.reader import SubsourceColumn, SubsourceSpec
from sparkwire.sources.registry import Selection, SourceContext, SourceRequest, SourceType, source_type

Transact = Callable[[Sequence[Op]], TransactResult]
TAG = "CREATE SOURCE"


def _columns(columns: Sequence[SubsourceColumn]) -> tuple[Column, ...]:
    return tuple(Column(c.name, c.type_oid, c.typmod, c.nullable) for c in columns)


def _connection(stmt: CreateSource, ctx: DdlContext) -> Item | None:
    if stmt.connection is None:
        return None
    name = stmt.connection
    found = ctx.state.lookup_item(
        name.name,
        current_database=ctx.names.database,
        search_path=ctx.names.search_path,
        schema=name.schema,
        database=name.database,
    )
    if found is None:
        raise e.UndefinedObject(f"unknown catalog item '{name.written}'")
    if found.kind != "connection":
        raise e.WrongObjectType(f"{name.written} is not a connection")
    check_privilege(ObjectRef("item", found.id), "USAGE", ctx.state, ctx.names.role_id)  # Materialize's RBAC
    return found


def _matches(reference: str, spec: SubsourceSpec) -> bool:
    return reference in (spec.name, spec.upstream) or spec.upstream.endswith("." + reference)


def select_outputs(
    selection: Selection, specs: Sequence[SubsourceSpec], primary: str | None
) -> list[tuple[SubsourceSpec, str | None]]:
    """The outputs that become subsources, each with the name FOR TABLES gave it (None: its own name)."""
    candidates = [s for s in specs if s.name != primary]
    if selection.all:
        return [(s, None) for s in candidates]
    if selection.schemas:
        return [(s, None) for s in candidates if s.upstream.split(".")[0] in selection.schemas]
    chosen: list[tuple[SubsourceSpec, str | None]] = []
    for reference, alias in selection.tables:
        spec = next((s for s in candidates if _matches(reference, s)), None)
        if spec is None:
            raise e.UndefinedTable(f"reference to {reference} not found in source")
        chosen.append((spec, alias))
    return chosen


def _check_selection(kind: SourceType, selection: Selection) -> None:
    if kind.requires_selection and not selection.given:
        raise e.SyntaxError(
            "multi-output sources require a FOR TABLES (..), FOR SCHEMAS (..), or FOR ALL TABLES statement"
        )
    if not kind.requires_selection and selection.given:
        raise e.SyntaxError("FOR ALL TABLES, FOR TABLES and FOR SCHEMAS are only valid for multi-output sources")


def _place(written: str | None, default: str, source_schema: Schema, ctx: DdlContext) -> tuple[Schema, str]:
    """The schema and name of a subsource: as written (possibly qualified), else `default` in the source's schema."""
    if written is None:
        return source_schema, default
    name = Name(tuple(written.split(".")))
    return (_creation_schema(name, ctx) if name.schema is not None else source_schema), name.name


def _subsource_sql(ctx: DdlContext, schema: Schema, name: str, columns: tuple[Column, ...], of: str, extra: str) -> str:
    database = ctx.state.databases[schema.database_id or ""].name
    qualified = ".".join(quote(p) for p in (database, schema.name, name))
    body = ", ".join(f"{quote(c.name)} {format_type(c.type_oid, c.typmod)}" for c in columns)
    return f"CREATE SUBSOURCE {qualified} ({body}) {extra}OF SOURCE {of}"


def create_source(stmt: CreateSource, ctx: DdlContext, transact: Transact, data_dir: Path | None) -> DdlPlan:
    state = ctx.state
    schema = _creation_schema(stmt.name, ctx)
    if (existing := state.find_item(schema.id, stmt.name.name)) is not None:
        if stmt.if_not_exists:
            return DdlPlan((), TAG, (_exists_notice(existing.kind, stmt.name.name),))
        raise duplicate_item(existing.kind, stmt.name.name)
    cluster = _cluster(state, stmt.cluster or ctx.cluster)
    kind = source_type(stmt.type_name, load_generator=stmt.load_generator)
    _check_selection(kind, stmt.selection)
    connection = _connection(stmt, ctx)
    context = SourceContext(state, data_dir, None, stmt.name.name)
    config = kind.configure(SourceRequest(kind.name, stmt.options, connection, stmt.selection), context)
    reader = kind.open(config, context)
    try:
        specs = reader.subsources()
    finally:
        reader.close()
    primary = kind.primary_output(config)
    chosen = select_outputs(stmt.selection, specs, primary)
    primary_columns = next((_columns(s.columns) for s in specs if s.name == primary), ())

    database = state.databases[schema.database_id or ""].name
    qualified = Name((database, schema.name, stmt.name.name))
    options = {"type": kind.name, "config": config, "output": primary}
    if connection is not None:
        options["connection_id"] = connection.id
    spec = ItemSpec(
        kind="source",
        schema_id=schema.id,
        name=stmt.name.name,
        owner_id=ctx.names.role_id,
        create_sql=render(dataclasses.replace(stmt, name=qualified, cluster=cluster.name, if_not_exists=False)),
        columns=primary_columns,
        dependencies=(connection.id,) if connection is not None else (),
        cluster_id=cluster.id,
        source_type=kind.mz_type,
        source_options=json.dumps(options, sort_keys=True),
    )
    first: tuple[Op, ...] = (CreateItem(spec, stmt.if_not_exists),)
    check_ops(first, state, ctx.names.role_id)
    result = transact(first)
    if result.skipped:
        return DdlPlan((), TAG, (_exists_notice("source", stmt.name.name),))
    source = next(result.state.items[r.id] for r in result.created if r.kind == "item")
    ops: list[Op] = []
    of = qualified.sql()
    for output, alias in chosen:
        sub_schema, sub_name = _place(alias, output.name, schema, ctx)
        columns = _columns(output.columns)
        sub = ItemSpec(
            kind="source",
            schema_id=sub_schema.id,
            name=sub_name,
            owner_id=ctx.names.role_id,
            create_sql=_subsource_sql(ctx, sub_schema, sub_name, columns, of, ""),
            columns=columns,
            dependencies=(source.id,),
            primary_key=output.key,
            source_type="subsource",
            source_options=json.dumps({"output": output.name, "upstream": output.upstream}, sort_keys=True),
        )
        ops.append(CreateItem(sub))
    progress_schema, progress_name = _place(
        stmt.progress.written if stmt.progress else None, f"{stmt.name.name}_progress", schema, ctx
    )
    progress_columns = _columns(kind.progress_columns)
    progress_sql = _subsource_sql(ctx, progress_schema, progress_name, progress_columns, of, "WITH (PROGRESS) ")
    ops.append(
        CreateItem(
            ItemSpec(
                kind="source",
                schema_id=progress_schema.id,
                name=progress_name,
                owner_id=ctx.names.role_id,
                create_sql=progress_sql,
                columns=progress_columns,
                dependencies=(source.id,),
                source_type="progress",
            )
        )
    )
    try:
        check_ops(ops, result.state, ctx.names.role_id)
        transact(ops)
    except BaseException:
        transact((DropItems((source.id,)),))
        raise
    return DdlPlan((), TAG)
