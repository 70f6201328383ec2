"""pg_catalog relations that describe catalog items: pg_class, pg_attribute, pg_attrdef, pg_index, pg_constraint,
pg_tables, pg_views, pg_matviews, pg_indexes, pg_stat_user_tables, pg_inherits.

Contract: `PG_ITEM_RELATIONS` lists them with PostgreSQL 15's columns; rows are functions of a `CatalogState`.
Mapping (as Materialize's pg_catalog): tables and sources are relkind `r`, views `v`, materialized views `m`,
indexes `i` (access method btree); other items (sinks, types, functions, secrets, connections) are not relations.
Values follow what PostgreSQL 15 shows for a freshly created object of the kind: reltuples -1 (an index: 0, with one
page, its metapage), relpersistence `p`, views and materialized views have rules, only table columns are attnotnull;
statistics are zeros. Index keys that name a column of the indexed relation are attributes with that column's
number, name and type; expression keys are named and typed by the index item's `columns` (one per key, when
the DDL recorded them: `lower`, `expr`, `expr1`, … as PostgreSQL names them) and else `expr`, `expr1`, … of type 0,
and make `indexprs` the comma-joined expressions; each key's indclass
is the default btree operator class PostgreSQL gives its type (0 for an untyped expression). Differences from
PostgreSQL, by design: no system columns (attnum < 0), no row types (reltype 0), pg_attrdef.oid is NULL (the catalog
allocates no OIDs for defaults; Materialize does the same) and adbin holds the default as PostgreSQL's pg_get_expr
prints it (deparse.py: `'x'::text`, `0`, `now()`; a DEFAULT NULL is no default, as in PostgreSQL), which pg_get_expr
returns as is; pg_views / pg_matviews definitions are pg_get_viewdef's non-pretty text (deparse.py);
pg_inherits is empty (the catalog holds no inheritance; comments are in comments.py). A table's primary key
shows as PostgreSQL shows it, a unique index `<table>_pkey` and a `p` constraint
(pg_keys.py). Per-item rows are memoized by item value (items are immutable), so a transact re-renders only
what changed.
"""

from __future__ import annotations

from functools import lru_cache

import sqlglot
import sqlglot.errors
from sqlglot import exp

from sparkwire.catalog.objects import Column, Item, ObjectRef
from sparkwire.catalog.relations.deparse import column_default, view_definition_text
from sparkwire.catalog.relations.info import INFO_RELATIONS
from sparkwire.catalog.relations.pg import BUILTIN_RELATIONS
from sparkwire.catalog.relations.pg_keys import is_key_index, key_indexes, pg_constraint_rows
from sparkwire.catalog.relations.pg_oids import BUILTIN_OWNER_OID
from sparkwire.catalog.relations.pg_opclasses import DEFAULT_BTREE_OPCLASSES
from sparkwire.catalog.relations.pg_system import system_relations
from sparkwire.catalog.relations.pg_type import type_details
from sparkwire.catalog.relations.relation import (
    BuiltinRelation,
    Row,
    RowsOf,
    names_of,
    no_rows,
    parse_columns,
    quote_ident,
    unquote_ident,
)
from sparkwire.catalog.state import CatalogState
from sparkwire.pgtypes.registry import type_by_oid

RELKINDS = {"table": "r", "source": "r", "view": "v", "materialized-view": "m", "index": "i"}
# PostgreSQL records NOT NULL for table columns only (a view's columns are always attnotnull = false).
_STORED_NULLABILITY = ("table", "source")
HEAP_AM = 2
BTREE_AM = 403


def column_collation(column_type: int) -> int:
    """attcollation: the type's collation (100 for text types, 950 `C` for name), 0 for the others."""
    return type_details(type_by_oid(column_type)).collation


def key_positions(state: CatalogState, index: Item) -> list[int | None]:
    """For each key of the index, the 1-based position of the column it names, None for an expression."""
    on = state.items.get(index.on_id or "")
    names = [c.name for c in on.columns] if on is not None else []
    return [names.index(name) + 1 if (name := unquote_ident(key)) in names else None for key in index.keys]


def _index_columns(state: CatalogState, index: Item) -> list[tuple[str, int, int]]:
    """(attname, type oid, typmod) of each key of the index: a column key is the column (its exact type); an
    expression key is named and typed as the DDL recorded it (`lower`, `expr`, `expr1`, …, see
    planner/statements/ddl.py), or, for indexes recorded without key columns, `expr`, `expr1`, … of type 0."""
    on = state.items.get(index.on_id or "")
    typed = len(index.columns) == len(index.keys)
    out: list[tuple[str, int, int]] = []
    expressions = 0
    for number, position in enumerate(key_positions(state, index)):
        if position is not None and on is not None:
            column = on.columns[position - 1]
            out.append((column.name, column.type_oid, column.typmod))
        elif typed:
            recorded = index.columns[number]
            out.append((recorded.name, recorded.type_oid, recorded.typmod))
        else:
            out.append(("expr" if expressions == 0 else f"expr{expressions}", 0, -1))
            expressions += 1
    return out


def _relations(state: CatalogState) -> list[Item]:
    """The items that are relations, then the primary keys' indexes (pg_keys.py)."""
    return [*names_of(state).items(*RELKINDS), *key_indexes(state)]


def _indexes(state: CatalogState) -> list[Item]:
    return [*names_of(state).items("index"), *key_indexes(state)]


def _has_index(state: CatalogState, item: Item) -> bool:
    return item.id in names_of(state).indexed or bool(item.primary_key)


def _relnatts(state: CatalogState, item: Item) -> int:
    return len(item.keys) if item.kind == "index" else len(item.columns)


def _pg_class_rows(state: CatalogState) -> list[Row]:
    names = names_of(state)
    rows: list[Row] = []
    for item in _relations(state):
        kind = RELKINDS[item.kind]
        stored = kind != "v"
        rows.append(
            (
                item.oid,
                item.name,
                names.schema_oid(item.schema_id),
                0,
                0,
                names.role_oid(item.owner_id),
                BTREE_AM if kind == "i" else HEAP_AM if stored else 0,
                item.oid if stored else 0,
                0,
                1 if kind == "i" else 0,  # a new btree index has its metapage
                0.0 if kind == "i" else -1.0,
                0,
                0,
                _has_index(state, item),
                False,
                "p",
                kind,
                _relnatts(state, item),
                0,
                kind in ("v", "m"),
                False,
                False,
                False,
                False,
                True,
                "d" if kind in ("r", "m") else "n",
                False,
                0,
                0,
                0,
                None
                if kind == "i"
                else names.acl(ObjectRef("item", item.id), item.owner_id, item.kind, by_id=False, always=False),
                None,
                None,
            )
        )
    rows.extend(_system()[0])
    return rows


@lru_cache(maxsize=1)
def _system() -> tuple[tuple[Row, ...], tuple[Row, ...]]:
    """pg_class and pg_attribute rows of the builtin pg_catalog / information_schema relations (constant)."""
    relations = system_relations([*BUILTIN_RELATIONS, *PG_ITEM_RELATIONS, *INFO_RELATIONS])
    classes = tuple(
        _system_class_row(rel.oid, rel.name, rel.namespace, rel.kind, len(rel.columns)) for rel in relations
    )
    attributes = tuple(
        _attribute(rel.oid, number, name, type_oid, typmod, False, False)
        for rel in relations
        for number, (name, type_oid, typmod) in enumerate(rel.columns, 1)
    )
    return classes, attributes


def _system_class_row(oid: int, name: str, namespace: int, kind: str, natts: int) -> Row:
    table = kind == "r"
    return (
        oid,
        name,
        namespace,
        0,
        0,
        BUILTIN_OWNER_OID,
        HEAP_AM if table else 0,
        oid if table else 0,
        0,
        0,
        -1.0,
        0,
        0,
        False,
        False,
        "p",
        kind,
        natts,
        0,
        not table,
        False,
        False,
        False,
        False,
        True,
        "n",
        False,
        0,
        0,
        0,
        None,
        None,
        None,
    )


def _attribute(
    relation_oid: int, number: int, name: str, type_oid: int, typmod: int, notnull: bool, has_default: bool
) -> Row:
    known = type_oid != 0
    pgtype = type_by_oid(type_oid) if known else None
    details = type_details(pgtype) if pgtype is not None else None
    return (
        relation_oid,
        name,
        type_oid,
        -1,
        pgtype.typlen if pgtype is not None else -1,
        number,
        1 if pgtype is not None and pgtype.is_array else 0,
        -1,
        typmod,
        details.byval if details is not None else False,
        details.align if details is not None else "i",
        details.storage if details is not None else "p",
        "",
        notnull,
        has_default,
        False,
        "",
        "",
        False,
        True,
        0,
        column_collation(type_oid) if known else 0,
        None,
        None,
        None,
        None,
    )


@lru_cache(maxsize=1 << 14)
def _relation_attributes(item: Item) -> tuple[Row, ...]:
    """The attributes of a relation with columns; memoized per item value (items are immutable)."""
    return tuple(
        _attribute(
            item.oid,
            number,
            column.name,
            column.type_oid,
            column.typmod,
            not column.nullable and item.kind in _STORED_NULLABILITY,
            column_default(column) is not None,
        )
        for number, column in enumerate(item.columns, 1)
    )


def _pg_attribute_rows(state: CatalogState) -> list[Row]:
    rows: list[Row] = []
    for item in _relations(state):
        if item.kind == "index":
            for number, (name, type_oid, typmod) in enumerate(_index_columns(state, item), 1):
                rows.append(_attribute(item.oid, number, name, type_oid, typmod, False, False))
        else:
            rows.extend(_relation_attributes(item))
    rows.extend(_system()[1])
    return rows


def _defaults(state: CatalogState) -> list[tuple[Item, int, Column]]:
    return [
        (item, number, column)
        for item in names_of(state).items("table", "source", "view", "materialized-view")
        for number, column in enumerate(item.columns, 1)
        if column_default(column) is not None
    ]


def _pg_attrdef_rows(state: CatalogState) -> list[Row]:
    return [(None, item.oid, number, column_default(column)) for item, number, column in _defaults(state)]


def _pg_index_rows(state: CatalogState) -> list[Row]:
    rows: list[Row] = []
    for index in _indexes(state):
        on = state.items.get(index.on_id or "")
        if on is None:
            continue
        key = is_key_index(index)
        positions = key_positions(state, index)
        columns = _index_columns(state, index)
        expressions = [key for key, position in zip(index.keys, positions, strict=True) if position is None]
        rows.append(
            (
                index.oid,
                on.oid,
                len(index.keys),
                len(index.keys),
                key or index.unique,
                False,
                key,
                False,
                True,
                False,
                True,
                False,
                True,
                True,
                False,
                tuple(p or 0 for p in positions),
                tuple(column_collation(type_oid) if type_oid else 0 for _, type_oid, _ in columns),
                tuple(DEFAULT_BTREE_OPCLASSES.get(type_oid, 0) for _, type_oid, _ in columns),
                tuple(0 for _ in positions),
                ", ".join(expressions) if expressions else None,
                None,
            )
        )
    return rows


def _key_text(key: str, pretty: bool) -> str:
    """An expression key as pg_get_indexdef prints it: a function call as it is, anything else in parentheses —
    and an operator expression, which non-pretty mode parenthesizes itself, in two."""
    try:
        tree = sqlglot.parse_one(key, read="postgres").unnest()
    except sqlglot.errors.ParseError:
        return f"({key})"
    core = tree.sql(dialect="postgres", normalize_functions="lower")
    if isinstance(tree, exp.Func) and not isinstance(tree, exp.Binary | exp.Unary | exp.Cast | exp.Case):
        return core
    operator = isinstance(tree, exp.Binary | exp.Unary) and not pretty
    return f"(({core}))" if operator else f"({core})"


def index_definition(state: CatalogState, index: Item, qualified: bool = True, pretty: bool = False) -> str:
    """pg_get_indexdef's text: `CREATE INDEX i ON public.t USING btree (a)` (`ON t` when not `qualified`;
    `pretty` parenthesizes expression keys as pretty mode does)."""
    on = state.items[index.on_id or ""]
    schema = f"{quote_ident(state.schemas[on.schema_id].name)}." if qualified else ""
    relation = f"{schema}{quote_ident(on.name)}"
    positions = key_positions(state, index)
    keys = [
        quote_ident(on.columns[position - 1].name) if position is not None else _key_text(key, pretty)
        for key, position in zip(index.keys, positions, strict=True)
    ]
    unique = " UNIQUE" if is_key_index(index) or index.unique else ""
    return f"CREATE{unique} INDEX {quote_ident(index.name)} ON {relation} USING btree ({', '.join(keys)})"


def _pg_tables_rows(state: CatalogState) -> list[Row]:
    names = names_of(state)
    return [
        (names.schema(t.schema_id), t.name, names.role(t.owner_id), None, _has_index(state, t), False, False, False)
        for t in names.items("table", "source")
    ]


def _pg_views_rows(state: CatalogState) -> list[Row]:
    names = names_of(state)
    return [
        (names.schema(v.schema_id), v.name, names.role(v.owner_id), view_definition_text(state, v, False))
        for v in names.items("view")
    ]


def _pg_matviews_rows(state: CatalogState) -> list[Row]:
    names = names_of(state)
    return [
        (
            names.schema(m.schema_id),
            m.name,
            names.role(m.owner_id),
            None,
            m.id in names.indexed,
            True,
            view_definition_text(state, m, False),
        )
        for m in names.items("materialized-view")
    ]


def _pg_indexes_rows(state: CatalogState) -> list[Row]:
    names = names_of(state)
    rows: list[Row] = []
    for index in _indexes(state):
        on = state.items.get(index.on_id or "")
        if on is not None and RELKINDS.get(on.kind) in ("r", "m"):
            rows.append((names.schema(on.schema_id), on.name, index.name, None, index_definition(state, index)))
    return rows


def _pg_stat_user_tables_rows(state: CatalogState) -> list[Row]:
    names = names_of(state)
    rows: list[Row] = []
    for t in names.items("table", "source", "materialized-view"):
        index_counter = 0 if t.id in names.indexed else None
        rows.append(
            (
                t.oid,
                names.schema(t.schema_id),
                t.name,
                0,
                0,
                index_counter,
                index_counter,
                *(0,) * 8,
                None,
                None,
                None,
                None,
                0,
                0,
                0,
                0,
            )
        )
    return rows


def _pg(name: str, oid: int, columns: str, rows: RowsOf) -> BuiltinRelation:
    return BuiltinRelation("pg_catalog", name, oid, parse_columns(columns), rows)


PG_ITEM_RELATIONS: tuple[BuiltinRelation, ...] = (
    _pg(
        "pg_class",
        1259,
        "oid oid, relname name, relnamespace oid, reltype oid, reloftype oid, relowner oid, relam oid, "
        "relfilenode oid, reltablespace oid, relpages integer, reltuples real, relallvisible integer, "
        'reltoastrelid oid, relhasindex boolean, relisshared boolean, relpersistence "char", relkind "char", '
        "relnatts smallint, relchecks smallint, relhasrules boolean, relhastriggers boolean, "
        "relhassubclass boolean, relrowsecurity boolean, relforcerowsecurity boolean, relispopulated boolean, "
        'relreplident "char", relispartition boolean, relrewrite oid, relfrozenxid xid, relminmxid xid, '
        "relacl aclitem[], reloptions text[], relpartbound pg_node_tree",
        _pg_class_rows,
    ),
    _pg(
        "pg_attribute",
        1249,
        "attrelid oid, attname name, atttypid oid, attstattarget integer, attlen smallint, attnum smallint, "
        'attndims integer, attcacheoff integer, atttypmod integer, attbyval boolean, attalign "char", '
        'attstorage "char", attcompression "char", attnotnull boolean, atthasdef boolean, '
        'atthasmissing boolean, attidentity "char", attgenerated "char", attisdropped boolean, '
        "attislocal boolean, attinhcount integer, attcollation oid, attacl aclitem[], attoptions text[], "
        "attfdwoptions text[], attmissingval anyarray",
        _pg_attribute_rows,
    ),
    _pg("pg_attrdef", 2604, "oid oid, adrelid oid, adnum smallint, adbin pg_node_tree", _pg_attrdef_rows),
    _pg(
        "pg_index",
        2610,
        "indexrelid oid, indrelid oid, indnatts smallint, indnkeyatts smallint, indisunique boolean, "
        "indnullsnotdistinct boolean, indisprimary boolean, indisexclusion boolean, indimmediate boolean, "
        "indisclustered boolean, indisvalid boolean, indcheckxmin boolean, indisready boolean, indislive boolean, "
        "indisreplident boolean, indkey int2vector, indcollation oidvector, indclass oidvector, "
        "indoption int2vector, indexprs pg_node_tree, indpred pg_node_tree",
        _pg_index_rows,
    ),
    _pg(
        "pg_constraint",
        2606,
        'oid oid, conname name, connamespace oid, contype "char", condeferrable boolean, condeferred boolean, '
        "convalidated boolean, conrelid oid, contypid oid, conindid oid, conparentid oid, confrelid oid, "
        'confupdtype "char", confdeltype "char", confmatchtype "char", conislocal boolean, coninhcount integer, '
        "connoinherit boolean, conkey smallint[], confkey smallint[], conpfeqop oid[], conppeqop oid[], "
        "conffeqop oid[], confdelsetcols smallint[], conexclop oid[], conbin pg_node_tree",
        pg_constraint_rows,
    ),
    _pg(
        "pg_tables",
        12033,
        "schemaname name, tablename name, tableowner name, tablespace name, hasindexes boolean, hasrules boolean, "
        "hastriggers boolean, rowsecurity boolean",
        _pg_tables_rows,
    ),
    _pg("pg_views", 12028, "schemaname name, viewname name, viewowner name, definition text", _pg_views_rows),
    _pg(
        "pg_matviews",
        12038,
        "schemaname name, matviewname name, matviewowner name, tablespace name, hasindexes boolean, "
        "ispopulated boolean, definition text",
        _pg_matviews_rows,
    ),
    _pg(
        "pg_indexes",
        12043,
        "schemaname name, tablename name, indexname name, tablespace name, indexdef text",
        _pg_indexes_rows,
    ),
    _pg(
        "pg_stat_user_tables",
        12161,
        "relid oid, schemaname name, relname name, seq_scan bigint, seq_tup_read bigint, idx_scan bigint, "
        "idx_tup_fetch bigint, n_tup_ins bigint, n_tup_upd bigint, n_tup_del bigint, n_tup_hot_upd bigint, "
        "n_live_tup bigint, n_dead_tup bigint, n_mod_since_analyze bigint, n_ins_since_vacuum bigint, "
        "last_vacuum timestamp with time zone, last_autovacuum timestamp with time zone, "
        "last_analyze timestamp with time zone, last_autoanalyze timestamp with time zone, vacuum_count bigint, "
        "autovacuum_count bigint, analyze_count bigint, autoanalyze_count bigint",
        _pg_stat_user_tables_rows,
    ),
    _pg("pg_inherits", 2611, "inhrelid oid, inhparent oid, inhseqno integer, inhdetachpending boolean", no_rows),
)
