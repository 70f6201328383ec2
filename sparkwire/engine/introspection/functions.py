"""PostgreSQL's catalog functions over the builtin relations, as engine UDFs named `sw_<function>`.

Contract: `install(engine, state)` registers every function in `UDFS` and `STATE_UDFS`; `rewrite` turns calls of
the PostgreSQL name into calls of the UDF. Each follows PostgreSQL 15 for the objects the store knows (types of the
pgtypes registry, builtin relations of `relations`, roles): `to_regtype`/`to_regclass` return the OID or NULL
(an unqualified relation name resolves in the implicitly searched mz_catalog and pg_catalog only),
`regtype_out`/`regclass_out` the text `::regtype::text` / `::regclass::text` print (the OID itself when unknown,
`-` for 0),
`format_type(oid, typmod)` distinguishes a NULL typmod (`character`) from -1 (`bpchar`) as PostgreSQL does,
`pg_get_userbyid` names the roles of the catalog's committed state (the store's listener passes it, see
`STATE_UDFS`) and answers `unknown (OID=n)` for unknown roles, `pg_encoding_to_char` knows UTF8 only (the only
encoding sparkwire speaks) and returns '' otherwise, `pg_type_is_visible` is true for known types (all live in
pg_catalog, which is always searched) and NULL otherwise. `lookup_type` and `lookup_relation` raise PostgreSQL's
errors (42704, 42P01) for the `'name'::regtype` literals the rewrite resolves while planning.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sparkwire import errors as e
from sparkwire.catalog import CatalogState
from sparkwire.catalog.builtins import IMPLICIT_SEARCH_SCHEMAS
from sparkwire.catalog.builtins_pg import UTF8_ENCODING
from sparkwire.engine.duckdb import DuckDBEngine
from sparkwire.engine.introspection.relations import RELATIONS
from sparkwire.pgtypes.registry import format_type, parse_type_name, type_by_oid

_BPCHAR = 1042


def _unqualified(name: str) -> str:
    text = name.strip()
    if text.lower().startswith("pg_catalog."):
        text = text[len("pg_catalog.") :]
    return text


def to_regtype(name: str | None) -> int | None:
    if name is None:
        return None
    try:
        return parse_type_name(_unqualified(name))[0].oid
    except e.PgError:
        return None


def lookup_type(name: str) -> int:
    found = to_regtype(name)
    if found is None:
        raise e.UndefinedObject(f'type "{name}" does not exist')
    return found


def _known(oid: int) -> bool:
    try:
        type_by_oid(oid)
    except e.PgError:
        return False
    return True


def sql_format_type(oid: int | None, typmod: int | None) -> str | None:
    if oid is None:
        return None
    if not _known(oid):
        return "???"
    if typmod is None:  # PostgreSQL prints `character`, not `bpchar`, when no typmod is given at all
        pgtype = type_by_oid(oid)
        if (pgtype.element_oid or oid) == _BPCHAR:
            return "character[]" if pgtype.is_array else "character"
        typmod = -1
    return format_type(oid, typmod)


def regtype_out(oid: int | None) -> str | None:
    if oid is None:
        return None
    if oid == 0:
        return "-"
    return sql_format_type(oid, None) if _known(oid) else str(oid)


def _relation_key(name: str) -> tuple[str | None, str]:
    schema, dot, relname = name.strip().rpartition(".")
    return (schema.strip('"') if dot else None), relname.strip('"')


def to_regclass(name: str | None) -> int | None:
    if name is None:
        return None
    schema, relname = _relation_key(name)
    for rel in RELATIONS:
        if rel.name == relname and (schema == rel.schema or (schema is None and rel.schema in IMPLICIT_SEARCH_SCHEMAS)):
            return rel.oid
    return None


def lookup_relation(name: str) -> int:
    found = to_regclass(name)
    if found is None:
        raise e.UndefinedTable(f'relation "{name}" does not exist')
    return found


def regclass_out(oid: int | None) -> str | None:
    if oid is None:
        return None
    if oid == 0:
        return "-"
    return next((rel.name for rel in RELATIONS if rel.oid == oid), str(oid))


def pg_get_userbyid(state: CatalogState, oid: int | None) -> str | None:
    if oid is None:
        return None
    return next((r.name for r in state.roles.values() if r.oid == oid), f"unknown (OID={oid})")


def pg_encoding_to_char(encoding: int | None) -> str | None:
    if encoding is None:
        return None
    return "UTF8" if encoding == UTF8_ENCODING else ""


def pg_type_is_visible(oid: int | None) -> bool | None:
    return True if oid is not None and _known(oid) else None


@dataclass(frozen=True, slots=True)
class Udf:
    fn: Callable[..., object]
    params: list[str]
    returns: str


UDFS: dict[str, Udf] = {
    "to_regtype": Udf(to_regtype, ["VARCHAR"], "UINTEGER"),
    "to_regclass": Udf(to_regclass, ["VARCHAR"], "UINTEGER"),
    "regtype_out": Udf(regtype_out, ["BIGINT"], "VARCHAR"),
    "regclass_out": Udf(regclass_out, ["BIGINT"], "VARCHAR"),
    "format_type": Udf(sql_format_type, ["BIGINT", "INTEGER"], "VARCHAR"),
    "pg_encoding_to_char": Udf(pg_encoding_to_char, ["INTEGER"], "VARCHAR"),
    "pg_type_is_visible": Udf(pg_type_is_visible, ["BIGINT"], "BOOLEAN"),
}


# Functions of the catalog state: `fn(state, *args)`.
STATE_UDFS: dict[str, Udf] = {
    "pg_get_userbyid": Udf(pg_get_userbyid, ["BIGINT"], "VARCHAR"),
}


def udf_name(function: str) -> str:
    return "sw_" + function


def _bound(fn: Callable[..., object], state: Callable[[], CatalogState]) -> Callable[..., object]:
    return lambda *args: fn(state(), *args)


def install(engine: DuckDBEngine, state: Callable[[], CatalogState]) -> None:
    """Register the UDFs; `state` returns the catalog state the state functions describe."""
    for name, udf in UDFS.items():
        engine.register_function(udf_name(name), udf.fn, udf.params, udf.returns, null_handling=True)
    for name, udf in STATE_UDFS.items():
        engine.register_function(udf_name(name), _bound(udf.fn, state), udf.params, udf.returns, null_handling=True)
