"""information_schema relations with PostgreSQL 15's columns: schemata, tables, columns, views, and the constraint
relations (table_constraints and key_column_usage: primary keys and NOT NULL checks, see pg_keys.py;
referential_constraints is empty: the catalog holds no foreign keys).

Contract: `INFO_RELATIONS` lists them; rows are functions of a `CatalogState` and carry PostgreSQL's values:
`tables` has tables and sources as `BASE TABLE` and views as `VIEW` (PostgreSQL lists no materialized views there,
nor in `columns`); `columns` describes each column as PostgreSQL's information_schema does (data_type is
format_type without modifiers, `ARRAY` for arrays; character_maximum_length, character_octet_length,
numeric_precision / radix / scale and datetime_precision follow `_pg_char_max_length`, `_pg_numeric_precision`, …;
udt_name is the typname). Column types are PostgreSQL's information_schema domains. Every schema belongs to one
database; builtin schemas are ambient and appear once per database. Views are not updatable (the catalog does not
know whether a view's query is) and their columns are nullable, as PostgreSQL reports them. view_definition and
column_default are pg_get_viewdef's and pg_get_expr's text (deparse.py).
"""

from __future__ import annotations

from functools import lru_cache

from sparkwire.catalog.objects import Column, Item
from sparkwire.catalog.relations.deparse import column_default, view_definition_text
from sparkwire.catalog.relations.pg_keys import key_column_usage_rows, table_constraints_rows
from sparkwire.catalog.relations.relation import (
    BuiltinRelation,
    Row,
    RowsOf,
    names_of,
    no_rows,
    parse_columns,
)
from sparkwire.catalog.state import CatalogState
from sparkwire.pgtypes import typmod as tm
from sparkwire.pgtypes.registry import type_by_oid

_IDENTIFIER = "information_schema.sql_identifier"
_NUMBER = "information_schema.cardinal_number"
_TEXT = "information_schema.character_data"
_YES_NO = "information_schema.yes_or_no"

_CHARACTER_TYPES = (1042, 1043)  # bpchar, varchar: lengths in typmod
_TEXT_TYPES = (25, 1042, 1043)
_INTEGER_BITS = {21: 16, 23: 32, 20: 64}
_FLOAT_BITS = {700: 24, 701: 53}
_DATETIME_TYPES = (1083, 1114, 1184, 1266)
_DATE = 1082
_INTERVAL = 1186
_NUMERIC = 1700
_MAX_ENCODING_LENGTH = 4  # UTF8
_UNLIMITED_OCTETS = 1 << 30


def _yes(flag: bool) -> str:
    return "YES" if flag else "NO"


def _schemata(state: CatalogState) -> list[tuple[str, str, str]]:
    """(database name, schema name, owner id) of every schema as each database sees it."""
    builtin = [s for s in state.schemas.values() if s.database_id is None]
    out: list[tuple[str, str, str]] = []
    for database in sorted(state.databases.values(), key=lambda d: d.oid):
        own = [s for s in state.schemas.values() if s.database_id == database.id]
        out.extend((database.name, s.name, s.owner_id) for s in sorted([*builtin, *own], key=lambda s: s.oid))
    return out


def _schemata_rows(state: CatalogState) -> list[Row]:
    names = names_of(state)
    return [(db, schema, names.role(owner), None, None, None, None) for db, schema, owner in _schemata(state)]


def _relations(state: CatalogState, *kinds: str) -> list[tuple[str, str, Item]]:
    return names_of(state).placed_items(*kinds)


def _tables_rows(state: CatalogState) -> list[Row]:
    rows: list[Row] = []
    for database, schema, item in _relations(state, "table", "source", "view"):
        table = item.kind != "view"
        kind = "BASE TABLE" if table else "VIEW"
        rows.append((database, schema, item.name, kind, None, None, None, None, None, _yes(table), "NO", None))
    return rows


def _precision(column: Column) -> tuple[int | None, int | None, int | None]:
    """(numeric_precision, numeric_precision_radix, numeric_scale)."""
    oid, typmod = column.type_oid, column.typmod
    if oid in _INTEGER_BITS:
        return _INTEGER_BITS[oid], 2, 0
    if oid in _FLOAT_BITS:
        return _FLOAT_BITS[oid], 2, None
    if oid == _NUMERIC:
        if typmod < 0:
            return None, 10, None
        precision, scale = tm.numeric_precision_scale(typmod)
        return precision, 10, scale
    return None, None, None


def _datetime_precision(column: Column) -> int | None:
    oid, typmod = column.type_oid, column.typmod
    if oid == _DATE:
        return 0
    if oid in _DATETIME_TYPES:
        return 6 if typmod < 0 else typmod
    if oid == _INTERVAL:
        precision = tm.interval_precision(typmod) if typmod >= 0 else None
        return 6 if precision is None else precision
    return None


def _lengths(column: Column) -> tuple[int | None, int | None]:
    """(character_maximum_length, character_octet_length)."""
    oid, typmod = column.type_oid, column.typmod
    maximum = tm.char_length(typmod) if oid in _CHARACTER_TYPES and typmod >= 0 else None
    if oid not in _TEXT_TYPES:
        return maximum, None
    return maximum, _UNLIMITED_OCTETS if maximum is None else maximum * _MAX_ENCODING_LENGTH


def data_type(type_oid: int) -> str:
    """information_schema's data_type: the type's SQL name without modifiers, `ARRAY` for arrays (and, as in
    PostgreSQL, for the vector types, which have an element type too)."""
    pgtype = type_by_oid(type_oid)
    if pgtype.is_array or pgtype.vector:
        return "ARRAY"
    return "character" if type_oid == 1042 else pgtype.display


def _column_row(database: str, schema: str, item: Item, position: int, column: Column) -> Row:
    precision, radix, scale = _precision(column)
    maximum, octets = _lengths(column)
    return (
        database,
        schema,
        item.name,
        column.name,
        position,
        column_default(column),
        _yes(column.nullable or item.kind == "view"),
        data_type(column.type_oid),
        maximum,
        octets,
        precision,
        radix,
        scale,
        _datetime_precision(column),
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        database,
        "pg_catalog",
        type_by_oid(column.type_oid).name,
        None,
        None,
        None,
        None,
        str(position),
        "NO",
        "NO",
        None,
        None,
        None,
        None,
        None,
        "NO",
        "NEVER",
        None,
        _yes(item.kind != "view"),
    )


@lru_cache(maxsize=1 << 14)
def _item_columns(database: str, schema: str, item: Item) -> tuple[Row, ...]:
    """The columns rows of one relation; memoized per item value (items are immutable)."""
    return tuple(
        _column_row(database, schema, item, position, column) for position, column in enumerate(item.columns, 1)
    )


def _columns_rows(state: CatalogState) -> list[Row]:
    return [
        row
        for database, schema, item in _relations(state, "table", "source", "view")
        for row in _item_columns(database, schema, item)
    ]


def _views_rows(state: CatalogState) -> list[Row]:
    return [
        (database, schema, v.name, view_definition_text(state, v, False), "NONE", "NO", "NO", "NO", "NO", "NO")
        for database, schema, v in _relations(state, "view")
    ]


def _info(name: str, oid: int, columns: str, rows: RowsOf) -> BuiltinRelation:
    spelled = (
        columns.replace(" identifier", " " + _IDENTIFIER)
        .replace(" number", " " + _NUMBER)
        .replace(" characters", " " + _TEXT)
        .replace(" yes_no", " " + _YES_NO)
    )
    return BuiltinRelation("information_schema", name, oid, parse_columns(spelled), rows)


INFO_RELATIONS: tuple[BuiltinRelation, ...] = (
    _info(
        "schemata",
        13382,
        "catalog_name identifier, schema_name identifier, schema_owner identifier, "
        "default_character_set_catalog identifier, default_character_set_schema identifier, "
        "default_character_set_name identifier, sql_path characters",
        _schemata_rows,
    ),
    _info(
        "tables",
        13425,
        "table_catalog identifier, table_schema identifier, table_name identifier, table_type characters, "
        "self_referencing_column_name identifier, reference_generation characters, "
        "user_defined_type_catalog identifier, user_defined_type_schema identifier, "
        "user_defined_type_name identifier, is_insertable_into yes_no, is_typed yes_no, commit_action characters",
        _tables_rows,
    ),
    _info(
        "columns",
        13295,
        "table_catalog identifier, table_schema identifier, table_name identifier, column_name identifier, "
        "ordinal_position number, column_default characters, is_nullable yes_no, data_type characters, "
        "character_maximum_length number, character_octet_length number, numeric_precision number, "
        "numeric_precision_radix number, numeric_scale number, datetime_precision number, "
        "interval_type characters, interval_precision number, character_set_catalog identifier, "
        "character_set_schema identifier, character_set_name identifier, collation_catalog identifier, "
        "collation_schema identifier, collation_name identifier, domain_catalog identifier, "
        "domain_schema identifier, domain_name identifier, udt_catalog identifier, udt_schema identifier, "
        "udt_name identifier, scope_catalog identifier, scope_schema identifier, scope_name identifier, "
        "maximum_cardinality number, dtd_identifier identifier, is_self_referencing yes_no, is_identity yes_no, "
        "identity_generation characters, identity_start characters, identity_increment characters, "
        "identity_maximum characters, identity_minimum characters, identity_cycle yes_no, "
        "is_generated characters, generation_expression characters, is_updatable yes_no",
        _columns_rows,
    ),
    _info(
        "views",
        13483,
        "table_catalog identifier, table_schema identifier, table_name identifier, view_definition characters, "
        "check_option characters, is_updatable yes_no, is_insertable_into yes_no, is_trigger_updatable yes_no, "
        "is_trigger_deletable yes_no, is_trigger_insertable_into yes_no",
        _views_rows,
    ),
    _info(
        "table_constraints",
        13411,
        "constraint_catalog identifier, constraint_schema identifier, constraint_name identifier, "
        "table_catalog identifier, table_schema identifier, table_name identifier, constraint_type characters, "
        "is_deferrable yes_no, initially_deferred yes_no, enforced yes_no, nulls_distinct yes_no",
        table_constraints_rows,
    ),
    _info(
        "key_column_usage",
        13329,
        "constraint_catalog identifier, constraint_schema identifier, constraint_name identifier, "
        "table_catalog identifier, table_schema identifier, table_name identifier, column_name identifier, "
        "ordinal_position number, position_in_unique_constraint number",
        key_column_usage_rows,
    ),
    _info(
        "referential_constraints",
        13339,
        "constraint_catalog identifier, constraint_schema identifier, constraint_name identifier, "
        "unique_constraint_catalog identifier, unique_constraint_schema identifier, "
        "unique_constraint_name identifier, match_option characters, update_rule characters, "
        "delete_rule characters",
        no_rows,
    ),
)
