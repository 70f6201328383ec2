"""pg_catalog.pg_type: one row per type sparkwire speaks (the pgtypes registry), with PostgreSQL 15's exact
pg_type values.

Contract: `pg_type_rows(state)` are the rows (constant: they do not depend on the catalog), `PG_TYPE_COLUMNS` the
columns. `type_details(t)` gives the pg_type values the registry does not carry (`_TYPE_DETAILS`: by-value, I/O
function stems, alignment, storage, type type, modifiers, collation, subscript handler, element; array types derive
theirs from their element) — pg_attribute uses it too.
"""

from __future__ import annotations

from dataclasses import dataclass

from sparkwire.catalog.relations.pg_oids import BUILTIN_OWNER_OID, DEFAULT_COLLATION_OID, PG_CATALOG_OID
from sparkwire.catalog.relations.relation import Row
from sparkwire.catalog.state import CatalogState
from sparkwire.pgtypes.registry import PgType, all_types

_RECORD = 2249


@dataclass(frozen=True, slots=True)
class TypeDetails:
    """pg_type values the registry does not carry. `io` is the stem of the I/O functions: `bool` → boolin, boolout,
    boolrecv, boolsend (`binary_io` False: no recv/send, `-`); `date_` → date_in, …; `modifiers` the stem of
    typmodin/typmodout."""

    byval: bool
    io: str
    align: str
    storage: str
    typtype: str = "b"
    preferred: bool = False
    modifiers: str = ""
    collation: int = 0
    subscript: str = "-"
    element: int = 0
    binary_io: bool = True


_TYPE_DETAILS: dict[int, TypeDetails] = {
    16: TypeDetails(True, "bool", "c", "p", preferred=True),
    17: TypeDetails(False, "bytea", "i", "x"),
    18: TypeDetails(True, "char", "c", "p"),
    19: TypeDetails(False, "name", "c", "p", collation=950, subscript="raw_array_subscript_handler", element=18),
    20: TypeDetails(True, "int8", "d", "p"),
    21: TypeDetails(True, "int2", "s", "p"),
    22: TypeDetails(False, "int2vector", "i", "p", subscript="array_subscript_handler", element=21),
    23: TypeDetails(True, "int4", "i", "p"),
    24: TypeDetails(True, "regproc", "i", "p"),
    25: TypeDetails(False, "text", "i", "x", preferred=True, collation=DEFAULT_COLLATION_OID),
    26: TypeDetails(True, "oid", "i", "p", preferred=True),
    28: TypeDetails(True, "xid", "i", "p"),
    30: TypeDetails(False, "oidvector", "i", "p", subscript="array_subscript_handler", element=26),
    114: TypeDetails(False, "json_", "i", "x"),
    142: TypeDetails(False, "xml_", "i", "x"),
    194: TypeDetails(False, "pg_node_tree_", "i", "x", collation=DEFAULT_COLLATION_OID),
    700: TypeDetails(True, "float4", "i", "p"),
    701: TypeDetails(True, "float8", "d", "p", preferred=True),
    705: TypeDetails(False, "unknown", "c", "p", typtype="p"),
    1042: TypeDetails(False, "bpchar", "i", "x", modifiers="bpchar", collation=DEFAULT_COLLATION_OID),
    1043: TypeDetails(False, "varchar", "i", "x", modifiers="varchar", collation=DEFAULT_COLLATION_OID),
    1082: TypeDetails(True, "date_", "i", "p"),
    1083: TypeDetails(True, "time_", "d", "p", modifiers="time"),
    1114: TypeDetails(True, "timestamp_", "d", "p", modifiers="timestamp"),
    1184: TypeDetails(True, "timestamptz_", "d", "p", preferred=True, modifiers="timestamptz"),
    1186: TypeDetails(False, "interval_", "d", "p", preferred=True, modifiers="interval"),
    1266: TypeDetails(False, "timetz_", "d", "p", modifiers="timetz"),
    1700: TypeDetails(False, "numeric_", "i", "m", modifiers="numeric"),
    2205: TypeDetails(True, "regclass", "i", "p"),
    2206: TypeDetails(True, "regtype", "i", "p"),
    4089: TypeDetails(True, "regnamespace", "i", "p"),
    4096: TypeDetails(True, "regrole", "i", "p"),
    2249: TypeDetails(False, "record_", "d", "x", typtype="p"),
    2278: TypeDetails(True, "void_", "i", "p", typtype="p"),
    2279: TypeDetails(True, "trigger_", "i", "p", typtype="p", binary_io=False),
    2950: TypeDetails(False, "uuid_", "c", "p"),
    3802: TypeDetails(False, "jsonb_", "i", "x", subscript="jsonb_subscript_handler"),
}

PG_TYPE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("oid", "oid"),
    ("typname", "name"),
    ("typnamespace", "oid"),
    ("typowner", "oid"),
    ("typlen", "smallint"),
    ("typbyval", "boolean"),
    ("typtype", '"char"'),
    ("typcategory", '"char"'),
    ("typispreferred", "boolean"),
    ("typisdefined", "boolean"),
    ("typdelim", '"char"'),
    ("typrelid", "oid"),
    ("typsubscript", "regproc"),
    ("typelem", "oid"),
    ("typarray", "oid"),
    ("typinput", "regproc"),
    ("typoutput", "regproc"),
    ("typreceive", "regproc"),
    ("typsend", "regproc"),
    ("typmodin", "regproc"),
    ("typmodout", "regproc"),
    ("typanalyze", "regproc"),
    ("typalign", '"char"'),
    ("typstorage", '"char"'),
    ("typnotnull", "boolean"),
    ("typbasetype", "oid"),
    ("typtypmod", "integer"),
    ("typndims", "integer"),
    ("typcollation", "oid"),
    ("typdefaultbin", "pg_node_tree"),
    ("typdefault", "text"),
    ("typacl", "aclitem[]"),
)


def _io(stem: str, binary: bool) -> tuple[str, str, str, str]:
    return stem + "in", stem + "out", stem + "recv" if binary else "-", stem + "send" if binary else "-"


def _modifier_functions(stem: str) -> tuple[str, str]:
    return (stem + "typmodin", stem + "typmodout") if stem else ("-", "-")


def type_details(t: PgType) -> TypeDetails:
    """The pg_type values of `t` that the registry does not carry (array types derive theirs from the element)."""
    if t.is_array or t.name == "_record":  # the registry gives _record no element; pg_type says record
        element_oid = t.element_oid or _RECORD
        element = _TYPE_DETAILS[element_oid]
        return TypeDetails(
            byval=False,
            io="array_",
            align="d" if element.align == "d" else "i",
            storage="x",
            typtype="p" if t.name == "_record" else "b",
            modifiers=element.modifiers if t.is_array else "",
            collation=element.collation if t.is_array else 0,
            subscript="array_subscript_handler",
            element=element_oid,
        )
    return _TYPE_DETAILS[t.oid]


def _pg_type_row(t: PgType) -> Row:
    details = type_details(t)
    analyze = "array_typanalyze" if details.io == "array_" else "-"
    modin, modout = _modifier_functions(details.modifiers)
    return (
        t.oid,
        t.name,
        PG_CATALOG_OID,
        BUILTIN_OWNER_OID,
        t.typlen,
        details.byval,
        details.typtype,
        t.category,
        details.preferred,
        True,
        ",",
        0,
        details.subscript,
        details.element,
        t.array_oid,
        *_io(details.io, details.binary_io),
        modin,
        modout,
        analyze,
        details.align,
        details.storage,
        False,
        0,
        -1,
        0,
        details.collation,
        None,
        None,
        None,
    )


def pg_type_rows(state: CatalogState) -> list[Row]:
    return [_pg_type_row(t) for t in sorted(all_types(), key=lambda t: t.oid)]
