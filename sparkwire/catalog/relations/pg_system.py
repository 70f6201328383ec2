"""The builtin relations of pg_catalog and information_schema as relations PostgreSQL lists in pg_class and
pg_attribute (`\\d pg_class`, `\\dS`, pgjdbc's SYSTEM TABLE / SYSTEM VIEW), rendered by pg_items.py.

Contract: `system_relations(relations)` describes each relation of those two schemas once: OID and name as
declared (PostgreSQL's), namespace pg_catalog (11) or information_schema (13183), relkind `r` for PostgreSQL's
catalog tables and `v` for its system views — PostgreSQL gives catalogs fixed OIDs below 10,000 and views the
OIDs of system_views.sql and information_schema.sql, above it — and each column's type as (oid, typmod). Types
the registry does not have are the nearest it has: information_schema domains their base types (sql_identifier
name, character_data and yes_or_no character varying, cardinal_number integer), aclitem[] text[], anyarray and
inet text. mz_catalog / mz_internal relations are not listed: PostgreSQL clients would take them for user tables.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from sparkwire import errors as e
from sparkwire.catalog.relations.relation import BuiltinRelation
from sparkwire.pgtypes.registry import parse_type_name

_NAMESPACES = {"pg_catalog": 11, "information_schema": 13183}
_FIRST_VIEW_OID = 10_000
_NEAREST = {
    "information_schema.sql_identifier": "name",
    "information_schema.character_data": "character varying",
    "information_schema.yes_or_no": "character varying",
    "information_schema.cardinal_number": "integer",
    "aclitem[]": "text[]",
    "anyarray": "text",
    "inet": "text",
}


@dataclass(frozen=True, slots=True)
class SystemRelation:
    oid: int
    name: str
    namespace: int
    kind: str  # r | v
    columns: tuple[tuple[str, int, int], ...]  # (name, type oid, typmod)


@lru_cache(maxsize=256)
def _column_type(spelled: str) -> tuple[int, int]:
    try:
        pgtype, typmod = parse_type_name(_NEAREST.get(spelled, spelled))
    except e.PgError:
        return 25, -1
    return pgtype.oid, typmod


def system_relations(relations: Iterable[BuiltinRelation]) -> list[SystemRelation]:
    return [
        SystemRelation(
            rel.oid,
            rel.name,
            _NAMESPACES[rel.schema],
            "r" if rel.oid < _FIRST_VIEW_OID else "v",
            tuple((name, *_column_type(spelled)) for name, spelled in rel.columns),
        )
        for rel in relations
        if rel.schema in _NAMESPACES
    ]
