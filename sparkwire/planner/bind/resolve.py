"""Name resolution of relation references: a catalog item (user data, on Spark) or a builtin relation (DuckDB).

Contract:
- `Names` is a session's naming context: current database, search path and role (owner of what it creates).
- `resolve_table(node, state, names)` returns the catalog `Item` a table reference names, or None when it names a
  builtin relation (pg_catalog, information_schema, mz_catalog, mz_internal: served by the introspection store). An
  unqualified name is looked up as PostgreSQL does: the implicit schemas (mz_catalog, pg_catalog) first, then the
  search path. A name that is neither raises 42P01 `relation "x" does not exist`; a schema-qualified name in a
  schema that does not exist raises 3F000.
- `cte_names(node)`: the names of the CTEs in scope at `node` (they hide relations of the same name).
- `relation_references(tree, state, names)`: every reference, as (node, item) or (node, None) for a builtin.
- `user_relations(tree, state, names)` lists every reference to a user relation in a statement, in tree order,
  skipping CTE names, table functions (`generate_series(…)`) and builtin relations.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from sqlglot import exp

from sparkwire import errors as e
from sparkwire.catalog import CatalogState
from sparkwire.catalog.builtins import IMPLICIT_SEARCH_SCHEMAS
from sparkwire.catalog.objects import Item
from sparkwire.catalog.state import NameContext

BUILTIN_SCHEMAS = frozenset({"pg_catalog", "information_schema", "mz_catalog", "mz_internal", "mz_introspection"})


@dataclass(frozen=True, slots=True)
class Names:
    database: str = "materialize"
    search_path: tuple[str, ...] = ("public",)
    role_id: str = "u1"

    @property
    def context(self) -> NameContext:
        return NameContext(self.database, self.search_path)


@cache
def _builtin_relations() -> frozenset[tuple[str, str]]:
    from sparkwire.introspection.relations import RELATIONS

    return frozenset((rel.schema, rel.name) for rel in RELATIONS)


def is_builtin_relation(schema: str | None, name: str) -> bool:
    builtins = _builtin_relations()
    if schema is not None:
        return schema in BUILTIN_SCHEMAS
    return any((implicit, name) in builtins for implicit in IMPLICIT_SEARCH_SCHEMAS)


def cte_names(node: exp.Expression) -> set[str]:
    names: set[str] = set()
    scope: exp.Expr | None = node
    while scope is not None:
        with_ = scope.args.get("with_") or scope.args.get("with")
        if isinstance(with_, exp.With):
            names.update(cte.alias_or_name for cte in with_.expressions)
        scope = scope.parent
    return names


def is_table_function(node: exp.Table) -> bool:
    return not isinstance(node.this, exp.Identifier)


def resolve_table(node: exp.Table, state: CatalogState, names: Names) -> Item | None:
    name = node.name
    schema = node.db or None
    database = node.catalog or None
    if schema is None and is_builtin_relation(None, name):
        return None
    if schema is not None and schema in BUILTIN_SCHEMAS and database in (None, names.database):
        return None
    if schema is not None:
        db = state.resolve_database(database or names.database)
        if state.find_schema(db.id, schema) is None:
            raise e.InvalidSchemaName(f'schema "{schema}" does not exist')
    item = state.lookup_item(
        name, current_database=names.database, search_path=names.search_path, schema=schema, database=database
    )
    if item is None or item.kind not in ("table", "view", "materialized-view", "source"):
        written = ".".join(p for p in (database, schema, name) if p)
        raise e.UndefinedTable(f'relation "{written}" does not exist')
    if item.kind == "source" and not item.columns:  # AUCTION, TPCH, POSTGRES: the data is in the subsources
        raise e.WrongObjectType(
            f'source "{item.name}" has no columns: its data is in its subsources',
            hint=f"SHOW SUBSOURCES ON {item.name} lists them.",
        )
    return item


def relation_references(
    tree: exp.Expression, state: CatalogState, names: Names
) -> Iterator[tuple[exp.Table, Item | None]]:
    """Every relation reference in tree order: (node, catalog item), or (node, None) for a builtin relation."""
    for node in tree.find_all(exp.Table):
        if is_table_function(node) or (not node.db and node.name in cte_names(node)):
            continue
        yield node, resolve_table(node, state, names)


def user_relations(tree: exp.Expression, state: CatalogState, names: Names) -> list[tuple[exp.Table, Item]]:
    return [(node, item) for node, item in relation_references(tree, state, names) if item is not None]
