"""ALTER … RENAME of a relation other objects depend on: their definitions, rewritten to the new name.

PostgreSQL's views and indexes refer to relations by OID, so a rename carries them along and `pg_get_viewdef`
prints the new name; Materialize rewrites its dependents' `create_sql`. sparkwire stores definitions as SQL with
every user relation qualified `database.schema.name` (statements/ddl.py), so `rename_sql(item, new_name)` is the
item's own definition under its new name and `dependent_sql(state, item, new_name)` each direct dependent's definition
with the references to `item` renamed: a view's or materialized view's query (each table reference whose qualified
name is the item's; an unaliased reference's column qualifiers `r.x` follow to `r2.x`, as PostgreSQL's deparsed
views show, unless another reference already goes by the new name, when the old name stays as an alias), an
index's ON. dbt's relation swap (`ALTER VIEW v
RENAME TO v__dbt_backup`, then `DROP … CASCADE`) relies on it. A definition that cannot be rewritten is an
InternalError, never a silently stale dependent.
"""

from __future__ import annotations

import dataclasses

from sqlglot import exp

from sparkwire import errors as e
from sparkwire.catalog import CatalogState
from sparkwire.catalog.objects import Item
from sparkwire.catalog.wording import noun
from sparkwire.planner.grammar import ddl as g
from sparkwire.planner.grammar.ddl_parser import Name, quote
from sparkwire.planner.grammar.dialect import PG
from sparkwire.planner.translate.duckdb import parse


def rename_sql(item: Item, new_name: str) -> str:
    parsed = g.parse_materialize_ddl(item.create_sql)
    if isinstance(parsed, g.CreateIndex):
        return g.render(dataclasses.replace(parsed, name=new_name))
    if isinstance(parsed, g.CreateTable | g.CreateView):
        return g.render(dataclasses.replace(parsed, name=Name((*parsed.name.parts[:-1], new_name))))
    raise e.InternalError(f"cannot rewrite the definition of {noun(item.kind)} {item.name}")


def _qualified(state: CatalogState, item: Item) -> tuple[str, ...]:
    schema = state.schemas[item.schema_id]
    database = state.databases[schema.database_id].name if schema.database_id else None
    return (database, schema.name, item.name) if database else (schema.name, item.name)


def _ident(name: str) -> exp.Identifier:
    return exp.to_identifier(name, quoted=quote(name) != name)


def _renamed_query(query: str, old: tuple[str, ...], new_name: str) -> str:
    tree = parse(query)
    renamed = [t for t in tree.find_all(exp.Table) if tuple(p for p in (t.catalog, t.db, t.name) if p) == old]
    if not renamed:
        raise e.InternalError(f"no reference to {'.'.join(old)} in a dependent's definition")
    taken = {t.alias_or_name for t in tree.find_all(exp.Table) if t not in renamed}
    # An unaliased reference is named by its relation: its columns' qualifiers follow the new name, as PostgreSQL
    # prints them; when the new name is taken by another reference, the old one stays as an alias instead.
    follow = new_name not in taken
    for table in renamed:
        if not table.alias and not follow:
            table.set("alias", exp.TableAlias(this=_ident(old[-1])))
        table.set("this", _ident(new_name))
    if follow and any(not t.alias for t in renamed):
        for column in tree.find_all(exp.Column):
            if column.table == old[-1] and old[-1] not in taken:
                column.set("table", _ident(new_name))
    return tree.sql(dialect=PG)


def _dependent(state: CatalogState, dependent: Item, old: tuple[str, ...], new_name: str) -> str:
    parsed = g.parse_materialize_ddl(dependent.create_sql)
    if isinstance(parsed, g.CreateIndex) and parsed.on.parts == old:
        return g.render(dataclasses.replace(parsed, on=Name((*old[:-1], new_name))))
    if isinstance(parsed, g.CreateView):
        return g.render(dataclasses.replace(parsed, query=_renamed_query(parsed.query, old, new_name)))
    raise e.InternalError(f"cannot rewrite the definition of {noun(dependent.kind)} {dependent.name}")


def dependent_sql(state: CatalogState, item: Item, new_name: str) -> tuple[tuple[str, str], ...]:
    """(dependent id, its definition with `item` renamed) for every item that refers to `item` directly."""
    old = _qualified(state, item)
    dependents = sorted(state.direct_dependents(item.id), key=lambda i: state.items[i].oid)
    return tuple((d, _dependent(state, state.items[d], old, new_name)) for d in dependents)
