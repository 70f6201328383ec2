"""Primary keys as PostgreSQL shows them: a table's PRIMARY KEY is a unique btree index `<table>_pkey` and a
constraint of type `p` of the same name.

Contract: the catalog records a key as the table item's `primary_key` (column names) and enforces it on writes;
it is not a catalog item of its own (sparkwire's indexes are Materialize indexes, relations kept in memory, which
a key is not). The pg_catalog / information_schema rows render it as PostgreSQL 15 does for
`CREATE TABLE t (…, PRIMARY KEY (a, b))`:
- `key_index(table)` is the key's index as an `Item` (kind index, on the table, the key columns as keys, named
  `<table>_pkey` with the table name cut so that the whole fits in 63 bytes), for pg_class, pg_attribute, pg_index,
  pg_indexes and pg_get_indexdef; `key_indexes(state)` lists them; `is_key_index(item)` tells them apart;
- `pg_constraint_rows(state)`: the `p` constraints (conkey the key's column numbers, conindid the index);
- `pg_get_constraintdef(state, oid)`: `PRIMARY KEY (a, b)`.
Neither has an OID of its own in the catalog: they are derived from the table's, `KEY_INDEX_OID_BASE + oid` and
`KEY_CONSTRAINT_OID_BASE + oid`, stable across restarts and clear of the catalog's OIDs (allocated upwards from
20,000).
"""

from __future__ import annotations

from functools import lru_cache

from sparkwire.catalog.objects import Item
from sparkwire.catalog.relations.relation import Row, names_of, quote_ident
from sparkwire.catalog.state import CatalogState

KEY_INDEX_OID_BASE = 1 << 30
KEY_CONSTRAINT_OID_BASE = 3 << 29
_NAME_BYTES = 63
_SUFFIX = "_pkey"


def key_name(table_name: str) -> str:
    """PostgreSQL's ChooseRelationName for `<table>_pkey`: the table name is cut (at a character boundary) so
    that the name fits in NAMEDATALEN - 1 bytes."""
    room = _NAME_BYTES - len(_SUFFIX)
    cut = table_name.encode()[:room].decode(errors="ignore")
    return cut + _SUFFIX


@lru_cache(maxsize=1 << 14)
def key_index(table: Item) -> Item | None:
    if not table.primary_key:
        return None
    return Item(
        id=f"{table.id}.pkey",
        oid=KEY_INDEX_OID_BASE + table.oid,
        kind="index",
        schema_id=table.schema_id,
        name=key_name(table.name),
        owner_id=table.owner_id,
        create_sql="",
        on_id=table.id,
        keys=tuple(quote_ident(column) for column in table.primary_key),
        created_at=table.created_at,
        updated_at=table.updated_at,
    )


def is_key_index(item: Item) -> bool:
    return item.kind == "index" and item.oid >= KEY_INDEX_OID_BASE


def key_indexes(state: CatalogState) -> list[Item]:
    """The key index of every table with a primary key, in the tables' OID order."""
    found = (key_index(t) for t in names_of(state).items("table", "source"))
    return [index for index in found if index is not None]


def key_columns(table: Item) -> tuple[int, ...]:
    """The 1-based numbers of the key's columns."""
    names = [c.name for c in table.columns]
    return tuple(names.index(column) + 1 for column in table.primary_key)


def pg_constraint_rows(state: CatalogState) -> list[Row]:
    names = names_of(state)
    rows: list[Row] = []
    for table in names.items("table", "source"):
        index = key_index(table)
        if index is None:
            continue
        rows.append(
            (
                KEY_CONSTRAINT_OID_BASE + table.oid,
                index.name,
                names.schema_oid(table.schema_id),
                "p",
                False,
                False,
                True,
                table.oid,
                0,
                index.oid,
                0,
                0,
                " ",
                " ",
                " ",
                True,
                0,
                True,
                key_columns(table),
                None,
                None,
                None,
                None,
                None,
                None,
                None,
            )
        )
    return rows


def pg_get_constraintdef(state: CatalogState, oid: int | None, pretty: bool | None) -> str | None:
    """The same text in both modes (a key has no expression to print differently)."""
    if oid is None or oid < KEY_CONSTRAINT_OID_BASE:
        return None
    table = next((t for t in state.items.values() if t.oid == oid - KEY_CONSTRAINT_OID_BASE), None)
    if table is None or not table.primary_key:
        return None
    return f"PRIMARY KEY ({', '.join(quote_ident(c) for c in table.primary_key)})"


def _keyed_tables(state: CatalogState) -> list[tuple[str, str, Item]]:
    return names_of(state).placed_items("table", "source")


def table_constraints_rows(state: CatalogState) -> list[Row]:
    """information_schema.table_constraints: each primary key, and (as PostgreSQL 15 lists them) each NOT NULL
    column as a CHECK constraint named `<namespace oid>_<table oid>_<column number>_not_null`."""
    names = names_of(state)
    rows: list[Row] = []
    for database, schema, table in _keyed_tables(state):
        index = key_index(table)
        where = (database, schema, table.name)
        if index is not None:
            rows.append((database, schema, index.name, *where, "PRIMARY KEY", "NO", "NO", "YES", None))
        namespace = names.schema_oid(table.schema_id)
        for number, column in enumerate(table.columns, 1):
            if not column.nullable:
                name = f"{namespace}_{table.oid}_{number}_not_null"
                rows.append((database, schema, name, *where, "CHECK", "NO", "NO", "YES", None))
    return rows


def key_column_usage_rows(state: CatalogState) -> list[Row]:
    rows: list[Row] = []
    for database, schema, table in _keyed_tables(state):
        index = key_index(table)
        if index is None:
            continue
        for position, column in enumerate(table.primary_key, 1):
            rows.append((database, schema, index.name, database, schema, table.name, column, position, None))
    return rows
