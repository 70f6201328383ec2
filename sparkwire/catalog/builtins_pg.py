"""The builtin PostgreSQL catalog relations sparkwire serves, declared as data: name, schema, OID, columns with their
PostgreSQL types, sensitivity, and the rows they hold.

Contract: `BUILTIN_RELATIONS` lists every `BuiltinRelation`; `relation(schema, name)` finds one. A relation's
`rows()` returns tuples in column order, generated from code-defined sources: pg_type from the pgtypes registry
(every type sparkwire speaks, with PostgreSQL 15's exact pg_type values — `_TYPE_DETAILS` carries what the registry
does not), pg_namespace / pg_roles / pg_user / pg_database from `catalog.builtins` plus the objects the catalog
bootstraps (`BOOTSTRAP_OIDS`, the OIDs `Catalog._bootstrap` assigns on first open: role `materialize`, database
`materialize`, schema `public` — sparkwire's own OIDs, not PostgreSQL's 2200 for public, so that they agree with
mz_catalog once it is served). Relations that describe user objects (pg_class, pg_attribute) are empty until the
durable catalog is wired into the store. pg_settings is the exception whose rows come from another layer:
`settings_rows(definitions)` turns the planner's variables into its rows, and its `setting` column is per session,
so the store holds NULL there and the rewrite computes it with current_setting(). Column types are PostgreSQL type
names as `format_type` prints them; the store maps them to engine types. Sensitivity follows Materialize: `public`
(anyone may read), `superuser_and_support`, `superuser`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from sparkwire.catalog.builtins import BUILTIN_ROLES, BUILTIN_SCHEMAS, DEFAULT_DATABASE, DEFAULT_ROLE, DEFAULT_SCHEMA
from sparkwire.pgtypes.registry import PgType, all_types

Sensitivity = Literal["public", "superuser_and_support", "superuser"]
Value = str | int | float | bool | list[str] | list[int] | None
Row = tuple[Value, ...]

PG_CATALOG_OID = 11
# What `Catalog._bootstrap` assigns on first open (FIRST_USER_OID onwards, in creation order).
BOOTSTRAP_OIDS = {"role": 20000, "database": 20001, "schema": 20002}
BUILTIN_OWNER_OID = next(r.oid for r in BUILTIN_ROLES if r.name == "mz_system")
UTF8_ENCODING = 6
DEFAULT_COLLATION_OID = 100
_RECORD = 2249


@dataclass(frozen=True, slots=True)
class BuiltinRelation:
    schema: str
    name: str
    oid: int
    columns: tuple[tuple[str, str], ...]  # (column name, PostgreSQL type)
    rows: Callable[[], Sequence[Row]]
    sensitivity: Sensitivity = "public"


# ---- pg_type --------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _TypeDetails:
    """pg_type values the registry does not carry. `io` is the stem of the I/O functions: `bool` → boolin, boolout,
    boolrecv, boolsend; `date_` → date_in, …; `modifiers` the stem of typmodin/typmodout."""

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


_TYPE_DETAILS: dict[int, _TypeDetails] = {
    16: _TypeDetails(True, "bool", "c", "p", preferred=True),
    17: _TypeDetails(False, "bytea", "i", "x"),
    18: _TypeDetails(True, "char", "c", "p"),
    19: _TypeDetails(False, "name", "c", "p", collation=950, subscript="raw_array_subscript_handler", element=18),
    20: _TypeDetails(True, "int8", "d", "p"),
    21: _TypeDetails(True, "int2", "s", "p"),
    23: _TypeDetails(True, "int4", "i", "p"),
    24: _TypeDetails(True, "regproc", "i", "p"),
    25: _TypeDetails(False, "text", "i", "x", preferred=True, collation=DEFAULT_COLLATION_OID),
    26: _TypeDetails(True, "oid", "i", "p", preferred=True),
    114: _TypeDetails(False, "json_", "i", "x"),
    142: _TypeDetails(False, "xml_", "i", "x"),
    700: _TypeDetails(True, "float4", "i", "p"),
    701: _TypeDetails(True, "float8", "d", "p", preferred=True),
    705: _TypeDetails(False, "unknown", "c", "p", typtype="p"),
    1042: _TypeDetails(False, "bpchar", "i", "x", modifiers="bpchar", collation=DEFAULT_COLLATION_OID),
    1043: _TypeDetails(False, "varchar", "i", "x", modifiers="varchar", collation=DEFAULT_COLLATION_OID),
    1082: _TypeDetails(True, "date_", "i", "p"),
    1083: _TypeDetails(True, "time_", "d", "p", modifiers="time"),
    1114: _TypeDetails(True, "timestamp_", "d", "p", modifiers="timestamp"),
    1184: _TypeDetails(True, "timestamptz_", "d", "p", preferred=True, modifiers="timestamptz"),
    1186: _TypeDetails(False, "interval_", "d", "p", preferred=True, modifiers="interval"),
    1266: _TypeDetails(False, "timetz_", "d", "p", modifiers="timetz"),
    1700: _TypeDetails(False, "numeric_", "i", "m", modifiers="numeric"),
    2205: _TypeDetails(True, "regclass", "i", "p"),
    2206: _TypeDetails(True, "regtype", "i", "p"),
    2249: _TypeDetails(False, "record_", "d", "x", typtype="p"),
    2278: _TypeDetails(True, "void_", "i", "p", typtype="p"),
    2950: _TypeDetails(False, "uuid_", "c", "p"),
    3802: _TypeDetails(False, "jsonb_", "i", "x", subscript="jsonb_subscript_handler"),
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


def _io(stem: str) -> tuple[str, str, str, str]:
    return stem + "in", stem + "out", stem + "recv", stem + "send"


def _modifier_functions(stem: str) -> tuple[str, str]:
    return (stem + "typmodin", stem + "typmodout") if stem else ("-", "-")


def _pg_type_row(t: PgType) -> Row:
    if t.is_array or t.name == "_record":  # the registry gives _record no element; pg_type says record
        element_oid = t.element_oid or _RECORD
        element = _TYPE_DETAILS[element_oid]
        details = _TypeDetails(
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
        analyze = "array_typanalyze"
    else:
        details = _TYPE_DETAILS[t.oid]
        analyze = "-"
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
        *_io(details.io),
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


def _pg_type_rows() -> list[Row]:
    return [_pg_type_row(t) for t in sorted(all_types(), key=lambda t: t.oid)]


# ---- namespaces, roles, databases -----------------------------------------------------------------------------


def _pg_namespace_rows() -> list[Row]:
    builtin: list[Row] = [(s.oid, s.name, BUILTIN_OWNER_OID, None) for s in BUILTIN_SCHEMAS]
    return [*builtin, (BOOTSTRAP_OIDS["schema"], DEFAULT_SCHEMA, BOOTSTRAP_OIDS["role"], None)]


def _roles() -> list[tuple[int, str, bool, bool]]:
    """(oid, name, superuser, login) of every role."""
    builtin = [(r.oid, r.name, r.superuser, r.login) for r in BUILTIN_ROLES]
    return [*builtin, (BOOTSTRAP_OIDS["role"], DEFAULT_ROLE, True, True)]


def _pg_roles_rows() -> list[Row]:
    return [
        (name, superuser, True, superuser, superuser, login, False, -1, "********", None, superuser, None, oid)
        for oid, name, superuser, login in _roles()
    ]


def _pg_user_rows() -> list[Row]:
    return [
        (name, oid, superuser, superuser, False, superuser, "********", None, None)
        for oid, name, superuser, login in _roles()
        if login
    ]


def role_name(oid: int) -> str | None:
    """The name of the role with this OID, None if there is none."""
    return next((name for role_oid, name, _, _ in _roles() if role_oid == oid), None)


def _pg_database_rows() -> list[Row]:
    return [
        (
            BOOTSTRAP_OIDS["database"],
            DEFAULT_DATABASE,
            BOOTSTRAP_OIDS["role"],
            UTF8_ENCODING,
            "c",
            False,
            True,
            -1,
            0,
            0,
            0,
            "C",
            "C",
            None,
            None,
            None,
        )
    ]


@dataclass(frozen=True, slots=True)
class SettingDefinition:
    """What pg_settings shows of one session variable."""

    name: str
    default: str
    description: str
    settable: bool


def settings_rows(definitions: Sequence[SettingDefinition]) -> list[Row]:
    return [
        (
            d.name,
            None,
            None,
            "Ungrouped",
            d.description,
            None,
            "user" if d.settable else "internal",
            "string",
            "default",
            None,
            None,
            None,
            d.default,
            d.default,
            None,
            None,
            False,
        )
        for d in definitions
    ]


PG_SETTINGS = "pg_settings"


def _no_rows() -> list[Row]:
    return []


def _constant(rows: list[Row]) -> Callable[[], list[Row]]:
    return lambda: rows


_AM_ROWS: list[Row] = [
    (2, "heap", "heap_tableam_handler", "t"),
    (403, "btree", "bthandler", "i"),
    (405, "hash", "hashhandler", "i"),
    (783, "gist", "gisthandler", "i"),
    (2742, "gin", "ginhandler", "i"),
    (4000, "spgist", "spghandler", "i"),
    (3580, "brin", "brinhandler", "i"),
]
_COLLATION_ROWS: list[Row] = [
    (DEFAULT_COLLATION_OID, "default", PG_CATALOG_OID, BUILTIN_OWNER_OID, "d", True, -1, None, None, None, None),
    (950, "C", PG_CATALOG_OID, BUILTIN_OWNER_OID, "c", True, -1, "C", "C", None, None),
    (951, "POSIX", PG_CATALOG_OID, BUILTIN_OWNER_OID, "c", True, -1, "POSIX", "POSIX", None, None),
]


def _pg(name: str, oid: int, columns: str, rows: Callable[[], Sequence[Row]]) -> BuiltinRelation:
    """A pg_catalog relation; `columns` is "name type, name type, …" (types may contain spaces, not commas)."""
    parsed = tuple(
        (spec.strip().split(" ", 1)[0], spec.strip().split(" ", 1)[1].strip()) for spec in columns.split(",")
    )
    return BuiltinRelation("pg_catalog", name, oid, parsed, rows)


BUILTIN_RELATIONS: tuple[BuiltinRelation, ...] = (
    BuiltinRelation("pg_catalog", "pg_type", 1247, PG_TYPE_COLUMNS, _pg_type_rows),
    _pg("pg_namespace", 2615, "oid oid, nspname name, nspowner oid, nspacl aclitem[]", _pg_namespace_rows),
    _pg(
        "pg_range",
        3541,
        "rngtypid oid, rngsubtype oid, rngmultitypid oid, rngcollation oid, rngsubopc oid, rngcanonical regproc, "
        "rngsubdiff regproc",
        _no_rows,
    ),
    _pg("pg_enum", 3501, "oid oid, enumtypid oid, enumsortorder real, enumlabel name", _no_rows),
    _pg(
        "pg_database",
        1262,
        'oid oid, datname name, datdba oid, encoding integer, datlocprovider "char", datistemplate boolean, '
        "datallowconn boolean, datconnlimit integer, datfrozenxid xid, datminmxid xid, dattablespace oid, "
        "datcollate text, datctype text, daticulocale text, datcollversion text, datacl aclitem[]",
        _pg_database_rows,
    ),
    _pg("pg_am", 2601, 'oid oid, amname name, amhandler regproc, amtype "char"', _constant(_AM_ROWS)),
    _pg(
        "pg_collation",
        3456,
        'oid oid, collname name, collnamespace oid, collowner oid, collprovider "char", '
        "collisdeterministic boolean, collencoding integer, collcollate text, collctype text, colliculocale text, "
        "collversion text",
        _constant(_COLLATION_ROWS),
    ),
    _pg(
        "pg_extension",
        3079,
        "oid oid, extname name, extowner oid, extnamespace oid, extrelocatable boolean, extversion text, "
        "extconfig oid[], extcondition text[]",
        _no_rows,
    ),
    _pg(
        "pg_roles",
        12000,
        "rolname name, rolsuper boolean, rolinherit boolean, rolcreaterole boolean, rolcreatedb boolean, "
        "rolcanlogin boolean, rolreplication boolean, rolconnlimit integer, rolpassword text, "
        "rolvaliduntil timestamp with time zone, rolbypassrls boolean, rolconfig text[], oid oid",
        _pg_roles_rows,
    ),
    _pg(
        "pg_user",
        12014,
        "usename name, usesysid oid, usecreatedb boolean, usesuper boolean, userepl boolean, usebypassrls boolean, "
        "passwd text, valuntil timestamp with time zone, useconfig text[]",
        _pg_user_rows,
    ),
    _pg(
        PG_SETTINGS,
        12104,
        "name text, setting text, unit text, category text, short_desc text, extra_desc text, context text, "
        "vartype text, source text, min_val text, max_val text, enumvals text[], boot_val text, reset_val text, "
        "sourcefile text, sourceline integer, pending_restart boolean",
        _no_rows,
    ),
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
        _no_rows,
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
        _no_rows,
    ),
)

_BY_NAME = {(r.schema, r.name): r for r in BUILTIN_RELATIONS}


def relation(schema: str, name: str) -> BuiltinRelation | None:
    return _BY_NAME.get((schema, name))
