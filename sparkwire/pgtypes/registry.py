"""The PostgreSQL types sparkwire speaks, keyed by OID and by every SQL spelling.

Contract: `type_by_oid(oid)` and `type_by_name(name)` return the same frozen `PgType` objects PostgreSQL 15 has in
pg_type (oid, typname, typlen, typarray, typelem, typcategory) plus `display`, the name `format_type()` prints.
int2vector and oidvector are `vector`s: they have an element type (typelem) but are not arrays (`is_array` is
False, format_type prints their own name); their subscripts start at 0.
Materialize's `mz_timestamp` (OID 16552, array 16553: Materialize's OIDs; the type of mz_now()) is known by OID and
name, but is not one of `all_types()` (pg_type lists PostgreSQL's types).
`parse_type_name("numeric(10,2)")` also returns the typmod the spelling implies. Unknown OIDs/names raise
`UndefinedObject` (42704) with PostgreSQL's wording. Typmod arithmetic lives in `typmod`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sparkwire.errors import UndefinedObject
from sparkwire.pgtypes import typmod as tm


@dataclass(frozen=True, slots=True)
class PgType:
    """One pg_type row. `array_oid` is 0 for types without an array type; `element_oid` is 0 except for arrays
    and vectors."""

    oid: int
    name: str
    typlen: int
    array_oid: int
    element_oid: int
    category: str
    display: str
    vector: bool = False

    @property
    def is_array(self) -> bool:
        return self.element_oid != 0 and not self.vector


# (oid, typname, typlen, array oid, category, format_type name)
_BASE: tuple[tuple[int, str, int, int, str, str], ...] = (
    (16, "bool", 1, 1000, "B", "boolean"),
    (17, "bytea", -1, 1001, "U", "bytea"),
    (18, "char", 1, 1002, "Z", '"char"'),
    (19, "name", 64, 1003, "S", "name"),
    (20, "int8", 8, 1016, "N", "bigint"),
    (21, "int2", 2, 1005, "N", "smallint"),
    (22, "int2vector", -1, 1006, "A", "int2vector"),
    (23, "int4", 4, 1007, "N", "integer"),
    (24, "regproc", 4, 1008, "N", "regproc"),
    (25, "text", -1, 1009, "S", "text"),
    (26, "oid", 4, 1028, "N", "oid"),
    (28, "xid", 4, 1011, "U", "xid"),
    (30, "oidvector", -1, 1013, "A", "oidvector"),
    (114, "json", -1, 199, "U", "json"),
    (142, "xml", -1, 143, "U", "xml"),
    (194, "pg_node_tree", -1, 0, "Z", "pg_node_tree"),
    (700, "float4", 4, 1021, "N", "real"),
    (701, "float8", 8, 1022, "N", "double precision"),
    (705, "unknown", -2, 0, "X", "unknown"),
    (1042, "bpchar", -1, 1014, "S", "character"),
    (1043, "varchar", -1, 1015, "S", "character varying"),
    (1082, "date", 4, 1182, "D", "date"),
    (1083, "time", 8, 1183, "D", "time without time zone"),
    (1114, "timestamp", 8, 1115, "D", "timestamp without time zone"),
    (1184, "timestamptz", 8, 1185, "D", "timestamp with time zone"),
    (1186, "interval", 16, 1187, "T", "interval"),
    (1266, "timetz", 12, 1270, "D", "time with time zone"),
    (1700, "numeric", -1, 1231, "N", "numeric"),
    (2205, "regclass", 4, 2210, "N", "regclass"),
    (2206, "regtype", 4, 2211, "N", "regtype"),
    (4089, "regnamespace", 4, 4090, "N", "regnamespace"),
    (4096, "regrole", 4, 4097, "N", "regrole"),
    (2249, "record", -1, 2287, "P", "record"),
    (2278, "void", 4, 0, "P", "void"),
    (2279, "trigger", 4, 0, "P", "trigger"),  # pseudo-type: catalog queries compare with 'trigger'::regtype
    (2950, "uuid", 16, 2951, "U", "uuid"),
    (3802, "jsonb", -1, 3807, "U", "jsonb"),
)

# vector type → its element type: int2vector holds int2, oidvector oid (subscripts from 0, space-separated text)
VECTOR_ELEMENTS: dict[int, int] = {22: 21, 30: 26}


def _build() -> dict[int, PgType]:
    types: dict[int, PgType] = {}
    for oid, name, typlen, array_oid, category, display in _BASE:
        element = VECTOR_ELEMENTS.get(oid, 0)
        types[oid] = PgType(oid, name, typlen, array_oid, element, category, display, vector=element != 0)
        if array_oid == 2287:  # _record is a pseudo-type: no element, category P
            types[array_oid] = PgType(array_oid, "_record", -1, 0, 0, "P", "record[]")
        elif array_oid:
            types[array_oid] = PgType(array_oid, "_" + name, -1, 0, oid, "A", display + "[]")
    return types


MZ_TIMESTAMP_OID = 16552
_PG_OIDS = frozenset(_build())
_BY_OID = _build() | {
    MZ_TIMESTAMP_OID: PgType(MZ_TIMESTAMP_OID, "mz_timestamp", 8, 16553, 0, "N", "mz_timestamp"),
    16553: PgType(16553, "_mz_timestamp", -1, 0, MZ_TIMESTAMP_OID, "A", "mz_timestamp[]"),
}

# SQL spellings (lower case, modifiers removed, whitespace collapsed) that are not a typname.
_ALIASES: dict[str, int] = {
    "boolean": 16,
    '"char"': 18,
    "bigint": 20,
    "smallint": 21,
    "int": 23,
    "integer": 23,
    "real": 700,
    "double precision": 701,
    "float": 701,
    "character": 1042,
    "char": 1042,
    "character varying": 1043,
    "char varying": 1043,
    "decimal": 1700,
    "dec": 1700,
    "timestamp without time zone": 1114,
    "timestamp with time zone": 1184,
    "time without time zone": 1083,
    "time with time zone": 1266,
}
_BY_NAME: dict[str, int] = {t.name: t.oid for t in _BY_OID.values()} | _ALIASES

_MODIFIER = re.compile(r"\s*\(([^)]*)\)")


def type_by_oid(oid: int) -> PgType:
    found = _BY_OID.get(oid)
    if found is None:
        raise UndefinedObject(f"cache lookup failed for type {oid}")
    return found


def all_types() -> tuple[PgType, ...]:
    return tuple(t for t in _BY_OID.values() if t.oid in _PG_OIDS)


def parse_type_name(name: str) -> tuple[PgType, int]:
    """`name` as written in SQL ("character varying(10)", "int4[]", "_int4", "timestamp(3) with time zone")
    → (type, typmod); typmod is -1 when the spelling carries none."""
    spelled = " ".join(name.strip().lower().split())
    dims = 0
    while spelled.endswith("[]"):
        dims += 1
        spelled = spelled[:-2].rstrip()
    modifiers: list[str] = []
    match = _MODIFIER.search(spelled)
    if match:
        modifiers = [m.strip() for m in match.group(1).split(",") if m.strip()]
        spelled = (spelled[: match.start()] + spelled[match.end() :]).strip()
        spelled = " ".join(spelled.split())
    if spelled == "float" and modifiers:
        spelled, modifiers = ("real" if _int_modifier(name, modifiers[0]) <= 24 else "double precision"), []
    oid = _BY_NAME.get(spelled)
    if oid is None:
        raise UndefinedObject(f'type "{name.strip()}" does not exist')
    found = _BY_OID[oid]
    if spelled in ("character", "char") and not modifiers:
        modifiers = ["1"]  # SQL's bare CHARACTER is CHARACTER(1)
    typmod = _typmod_for(found.oid, [_int_modifier(name, m) for m in modifiers])
    if dims and not found.is_array:
        if not found.array_oid:
            raise UndefinedObject(f'type "{name.strip()}" does not exist')
        found = _BY_OID[found.array_oid]
    return found, typmod


def type_by_name(name: str) -> PgType:
    return parse_type_name(name)[0]


def _int_modifier(name: str, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise UndefinedObject(f'type "{name.strip()}" does not exist') from None


def _typmod_for(oid: int, modifiers: list[int]) -> int:
    base = _BY_OID[oid].element_oid or oid
    if not modifiers:
        return -1
    if base == 1700:
        return tm.numeric_typmod(modifiers[0], modifiers[1] if len(modifiers) > 1 else 0)
    if base in (1042, 1043):
        return tm.char_typmod(modifiers[0])
    if base in (1083, 1114, 1184, 1266):
        return modifiers[0]
    if base == 1186:
        return tm.interval_typmod(modifiers[0])
    return -1


def format_type(oid: int, typmod: int = -1) -> str:
    """What PostgreSQL's format_type(oid, typmod) returns."""
    found = _BY_OID.get(oid)
    if found is None:
        return "???"
    if found.is_array:
        return format_type(found.element_oid, typmod) + "[]"
    if oid == 1042 and typmod < 0:
        return "bpchar"
    if typmod < 0:
        return found.display
    if oid == 1700:
        precision, scale = tm.numeric_precision_scale(typmod)
        return f"numeric({precision},{scale})"
    if oid in (1042, 1043):
        return f"{found.display}({tm.char_length(typmod)})"
    if oid in (1083, 1114, 1184, 1266):
        head, _, zone = found.display.partition(" ")
        return f"{head}({typmod}) {zone}"
    if oid == 1186:
        interval_precision = tm.interval_precision(typmod)
        return found.display if interval_precision is None else f"interval({interval_precision})"
    return found.display
