"""pg_catalog.pg_rewrite and pg_catalog.pg_depend for the catalog's items: what a view reads, what an index is on.

Contract: `PG_DEPEND_RELATIONS` lists both with PostgreSQL 15's columns; rows are functions of a `CatalogState`.
- pg_rewrite: every view and materialized view has its `_RETURN` rule, as in PostgreSQL (ev_type `1`, ev_enabled
  `O`, is_instead true). Its OID is derived from the relation's, `RULE_OID_BASE + oid` (stable across restarts,
  clear of the catalog's OIDs and of pg_keys.py's ranges); ev_qual is `<>` as PostgreSQL shows for no
  qualification, ev_action NULL (sparkwire keeps no node trees; pg_get_viewdef gives the text).
- pg_depend, the rows PostgreSQL 15 records for these objects:
  - the rule is internal to its relation (`i`) and, as in PostgreSQL 15 (whose view rules list the view itself),
    depends normally on it (`n`);
  - the rule depends normally (`n`) on every relation the view reads; PostgreSQL records one row per column the
    query uses, sparkwire one for the whole relation (refobjsubid 0), which is what dependency queries (dbt's, psql's
    `\\d+` of a view) read;
  - an index depends automatically (`a`) on each key column of its table (refobjsubid the column's number; an
    expression key: the whole table), a primary key's index is internal (`i`) to its constraint, and the
    constraint depends automatically (`a`) on the key columns;
  - every relation but an index depends normally (`n`) on its schema.
  Builtin objects are pinned in PostgreSQL and have no rows (nor here). Not recorded, as sparkwire has no such
  objects: row types (pg_type), TOAST tables.
"""

from __future__ import annotations

from sparkwire.catalog.objects import Item
from sparkwire.catalog.relations.pg_items import key_positions
from sparkwire.catalog.relations.pg_keys import KEY_CONSTRAINT_OID_BASE, is_key_index, key_indexes
from sparkwire.catalog.relations.relation import BuiltinRelation, Row, names_of, parse_columns
from sparkwire.catalog.state import CatalogState

RULE_OID_BASE = 1 << 29
PG_CLASS, PG_REWRITE, PG_CONSTRAINT, PG_NAMESPACE = 1259, 2618, 2606, 2615
_RELATIONS = ("table", "source", "view", "materialized-view", "index")
_WITH_RULES = ("view", "materialized-view")


def rule_oid(relation: Item) -> int:
    return RULE_OID_BASE + relation.oid


def _pg_rewrite_rows(state: CatalogState) -> list[Row]:
    return [
        (rule_oid(item), "_RETURN", item.oid, "1", "O", True, "<>", None)
        for item in names_of(state).items(*_WITH_RULES)
    ]


def _column_numbers(state: CatalogState, index: Item) -> list[int]:
    """The table column number of each key (0 for an expression key, as the whole table)."""
    return [position or 0 for position in key_positions(state, index)] or [0]


def _pg_depend_rows(state: CatalogState) -> list[Row]:
    names = names_of(state)
    rows: list[Row] = []
    relations = [*names.items(*_RELATIONS), *key_indexes(state)]
    for item in relations:
        if item.kind != "index":  # an index hangs on its table, not on its schema
            rows.append((PG_CLASS, item.oid, 0, PG_NAMESPACE, names.schema_oid(item.schema_id), 0, "n"))
        if item.kind in _WITH_RULES:
            rule = rule_oid(item)
            rows.append((PG_REWRITE, rule, 0, PG_CLASS, item.oid, 0, "i"))
            rows.append((PG_REWRITE, rule, 0, PG_CLASS, item.oid, 0, "n"))
            for ref in sorted({state.items[d].oid for d in item.dependencies if d in state.items}):
                rows.append((PG_REWRITE, rule, 0, PG_CLASS, ref, 0, "n"))
        elif item.kind == "index":
            table = state.items.get(item.on_id or "")
            if table is None:
                continue
            numbers = _column_numbers(state, item)
            if is_key_index(item):
                constraint = KEY_CONSTRAINT_OID_BASE + table.oid
                rows.append((PG_CLASS, item.oid, 0, PG_CONSTRAINT, constraint, 0, "i"))
                rows.extend((PG_CONSTRAINT, constraint, 0, PG_CLASS, table.oid, n, "a") for n in numbers)
            else:
                rows.extend((PG_CLASS, item.oid, 0, PG_CLASS, table.oid, n, "a") for n in numbers)
    return rows


PG_DEPEND_RELATIONS: tuple[BuiltinRelation, ...] = (
    BuiltinRelation(
        "pg_catalog",
        "pg_rewrite",
        2618,
        parse_columns(
            'oid oid, rulename name, ev_class oid, ev_type "char", ev_enabled "char", is_instead boolean, '
            "ev_qual pg_node_tree, ev_action pg_node_tree"
        ),
        _pg_rewrite_rows,
    ),
    BuiltinRelation(
        "pg_catalog",
        "pg_depend",
        2608,
        parse_columns(
            "classid oid, objid oid, objsubid integer, refclassid oid, refobjid oid, refobjsubid integer, "
            'deptype "char"'
        ),
        _pg_depend_rows,
    ),
)
