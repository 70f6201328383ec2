"""Schema shadows: every user relation of the catalog as an empty DuckDB table or view, for planning only.

Contract: `ShadowListener(con, state)` creates, on its own DuckDB connection, one schema per user schema and one
empty relation per catalog table, view and materialized view of `state` (tables and materialized views as empty
tables with the catalog's column types, views as DuckDB views of their translated definition, whose number columns
are cast to the catalog's types), and, registered with
`Catalog.add_listener`, keeps them in step in the catalog's two phases (DDL inside a DuckDB transaction it commits
or rolls back with the catalog's). Rows never live here: user data is in storage and queries over it run on Spark.

Why: the planner resolves names, infers parameter types and describes results (RowDescription, view columns)
with DuckDB, whose PostgreSQL-semantics translation types results as PostgreSQL does. Planning over empty shadows
needs no Spark (Describe answers while Spark is still starting) and costs well under a millisecond; execution then
casts Spark's Arrow to the described types, so what the client was told and what it gets always agree.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire import errors as e
from sparkwire.catalog import CatalogChange, CatalogState
from sparkwire.catalog.objects import Item
from sparkwire.engine.duckdb import DuckDBConnection
from sparkwire.pgtypes.registry import format_type
from sparkwire.planner.bind.resolve import Names, user_relations
from sparkwire.planner.grammar.ddl import CreateView, parse_materialize_ddl
from sparkwire.planner.translate.duckdb import SessionContext, parse, to_duckdb

SHADOWED_KINDS = frozenset({"table", "view", "materialized-view", "source"})
_CONTEXT = SessionContext(0, "materialize", 0)


def quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _schema_name(state: CatalogState, item: Item) -> str:
    return state.schemas[item.schema_id].name


def _user_schemas(state: CatalogState) -> list[str]:
    return sorted({s.name for s in state.schemas.values() if not s.is_builtin})


def definition_query(item: Item) -> exp.Expression:
    """The query of a view or materialized view, parsed from its stored `create_sql`."""
    statement = parse_materialize_ddl(item.create_sql)
    if not isinstance(statement, CreateView):
        raise e.InternalError(f"the definition of {item.name} is not a view")
    return parse(statement.query)


def _column_types(state: CatalogState, item: Item, query: exp.Expression) -> dict[str, dict[str, str]]:
    """The column types of the user relations a view's query reads, by name and alias, resolved as the view's own
    schema resolves them (translate/numeric_types.py)."""
    schema = state.schemas[item.schema_id]
    database = state.databases[schema.database_id or ""]
    names = Names(database=database.name, search_path=tuple(dict.fromkeys((schema.name, *Names().search_path))))
    found: dict[str, dict[str, str]] = {}
    try:
        relations = user_relations(query, state, names)
    except e.PgError:  # typing quotients is best effort; the view's own resolution reports its errors
        return found
    for node, relation in relations:
        types = {c.name: format_type(c.type_oid, c.typmod) for c in relation.columns}
        found[node.name] = types
        found[node.alias_or_name] = types
    return found


# The number types a view's column is described as from the catalog (its type by PostgreSQL's rules, as
# UserData.describe_query recorded it), whatever DuckDB makes of the definition (its avg() is a double).
_NUMBER_TYPES = {20: "BIGINT", 21: "SMALLINT", 23: "INTEGER", 700: "FLOAT", 701: "DOUBLE", 1700: "DECIMAL"}


def _typed_column(n: int, oid: int, typmod: int) -> str:
    spelled = _NUMBER_TYPES.get(oid) if oid != 1700 or typmod < 0 else None
    return f"CAST(c{n} AS {spelled})" if spelled else f"c{n}"


def shadow_ddl(state: CatalogState, item: Item) -> str:
    """The DuckDB statement that creates the shadow of `item`."""
    name = f"{quote(_schema_name(state, item))}.{quote(item.name)}"
    if item.kind == "view":
        columns = ", ".join(quote(c.name) for c in item.columns)
        query = definition_query(item)
        known = _column_types(state, item, query)  # numeric quotients typed as Spark computes them
        body = to_duckdb(query, _CONTEXT, [], columns=known)
        typed = [_typed_column(n, c.type_oid, c.typmod) for n, c in enumerate(item.columns)]
        if any(t != f"c{n}" for n, t in enumerate(typed)):  # the catalog's number types (PostgreSQL's rules)
            names = ", ".join(f"c{n}" for n in range(len(item.columns)))
            body = f"SELECT {', '.join(typed)} FROM ({body}) AS q ({names})"
        return f"CREATE VIEW {name} ({columns}) AS {body}"
    columns = ", ".join(f"{quote(c.name)} {format_type(c.type_oid, c.typmod)}" for c in item.columns)
    return to_duckdb(parse(f"CREATE TABLE {name} ({columns})"), _CONTEXT, [])


def _drop_ddl(state: CatalogState, item: Item) -> str:
    kind = "VIEW" if item.kind == "view" else "TABLE"
    return f"DROP {kind} IF EXISTS {quote(_schema_name(state, item))}.{quote(item.name)}"


def _shadowed(state: CatalogState) -> dict[str, Item]:
    return {i.id: i for i in state.items.values() if i.kind in SHADOWED_KINDS and (i.columns or i.kind != "source")}


class ShadowListener:
    def __init__(self, con: DuckDBConnection, state: CatalogState) -> None:
        self._con = con
        self._open = False
        con.begin()
        try:
            for schema in _user_schemas(state):
                con.command(f"CREATE SCHEMA IF NOT EXISTS {quote(schema)}")
            for item in sorted(_shadowed(state).values(), key=lambda i: i.oid):
                con.command(shadow_ddl(state, item))
            con.commit()
        except BaseException:
            con.rollback()
            raise

    def prepare(self, change: CatalogChange) -> None:
        """The shadows' DDL for the change, as one script in a transaction left open until commit / abort; none at
        all when no shadowed object or schema changed (a CREATE INDEX, a GRANT): DuckDB statements cost ~1 ms."""
        old, new = _shadowed(change.old), _shadowed(change.new)
        old_schemas, new_schemas = _user_schemas(change.old), _user_schemas(change.new)
        gone = [i for i_id, i in old.items() if new.get(i_id) != i]
        statements = [_drop_ddl(change.old, item) for item in sorted(gone, key=lambda i: -i.oid)]  # dependents first
        statements += [f"DROP SCHEMA IF EXISTS {quote(s)} CASCADE" for s in sorted(set(old_schemas) - set(new_schemas))]
        statements += [f"CREATE SCHEMA IF NOT EXISTS {quote(s)}" for s in new_schemas if s not in old_schemas]
        added = [i for i_id, i in new.items() if old.get(i_id) != i]
        statements += [shadow_ddl(change.new, item) for item in sorted(added, key=lambda i: i.oid)]
        if not statements:
            return
        self._con.begin()
        self._open = True
        self._con.command(";\n".join(statements))

    def commit(self, change: CatalogChange) -> None:
        if self._open:
            self._con.commit()
            self._open = False

    def abort(self, change: CatalogChange) -> None:
        if self._open:
            self._con.rollback()
            self._open = False
