"""PostgreSQL's catalog functions over the builtin relations, as engine UDFs named `sw_<function>`.

Contract: `install(engine, state)` registers every function in `UDFS` and `STATE_UDFS`; `rewrite` turns calls of
the PostgreSQL name into calls of the UDF. Each follows PostgreSQL 15 for the objects the store knows (types of the
pgtypes registry, builtin relations of `relations`, the catalog's items, roles): `to_regtype`/`to_regclass`
return the OID or NULL (an unqualified relation name resolves in the implicitly searched mz_catalog and pg_catalog,
then in the session's schema),
`regtype_out`/`regclass_out` the text `::regtype::text` / `::regclass::text` print (the OID itself when unknown,
`-` for 0),
`format_type(oid, typmod)` distinguishes a NULL typmod (`character`) from -1 (`bpchar`) as PostgreSQL does,
`pg_get_userbyid` names the roles of the catalog's committed state (the store's listener passes it, see
`STATE_UDFS`) and answers `unknown (OID=n)` for unknown roles, `pg_encoding_to_char` knows UTF8 only (the only
encoding sparkwire speaks) and returns '' otherwise, `pg_type_is_visible` is true for known types (all live in
pg_catalog, which is always searched) and NULL otherwise; the pg_proc functions (`function_info`, also
pg_get_ruledef and pg_get_statisticsobjdef_columns) answer NULL, as for any OID that names no function, rule or
statistics object; the size functions answer 0 (`no_object_size`), pg_size_pretty prints as PostgreSQL 15,
pg_relation_is_publishable is false, pg_get_serial_sequence NULL, pg_collation_is_visible true for pg_collation's
rows, parse_ident splits a qualified name, `regproc_oid` is the pg_proc OID of a function named by a regproc column
(regprocs.py). `to_regclass` / `regclass_in` / `regclass_out` read the catalog state
too (user relations, searched in the session's database and search path, which the rewrite passes), as do
`pg_get_viewdef(oid, pretty, wrap)` (the view's query deparsed as PostgreSQL prints it, catalog/relations/deparse.py)
and `pg_get_indexdef` (CREATE INDEX, or the n-th key; primary keys' indexes included), `pg_get_constraintdef` (primary
keys, pg_keys.py), `regnamespace_in/out`
(`'name'::regnamespace`: 3F000 when unknown) and `regrole_in/out` (42704 when unknown), and `pg_table_is_visible`
(the relation's plain name resolves to it in the session's search path; NULL for an OID of no relation).
`lookup_type` raises PostgreSQL's 42704 for the `'name'::regtype` literals the rewrite resolves while planning;
`lookup_relation` resolves builtin relation names then (others resolve in the catalog when the query runs).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from sparkwire import errors as e
from sparkwire.catalog import CatalogState
from sparkwire.catalog.builtins import IMPLICIT_SEARCH_SCHEMAS
from sparkwire.catalog.objects import Item
from sparkwire.catalog.relations.deparse import view_definition_text
from sparkwire.catalog.relations.pg import COLLATION_OIDS
from sparkwire.catalog.relations.pg_items import index_definition
from sparkwire.catalog.relations.pg_keys import is_key_index, key_indexes, pg_get_constraintdef
from sparkwire.catalog.relations.pg_oids import UTF8_ENCODING
from sparkwire.catalog.relations.relation import quote_ident
from sparkwire.engine.duckdb import DuckDBEngine
from sparkwire.introspection.comment_functions import col_description, obj_description, shobj_description
from sparkwire.introspection.relations import RELATIONS
from sparkwire.pgtypes.functions import function_oid
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


def _builtin_relation(schema: str | None, relname: str) -> int | None:
    for rel in RELATIONS:
        if rel.name == relname and (schema == rel.schema or (schema is None and rel.schema in IMPLICIT_SEARCH_SCHEMAS)):
            return rel.oid
    return None


SEARCH_SEPARATOR = "\x1f"  # joins the session's search path into one argument of the UDFs (`search`)


def _searched(search: str) -> tuple[str, ...]:
    return tuple(schema for schema in search.split(SEARCH_SEPARATOR) if schema)


def _user_relation(state: CatalogState, schema: str | None, relname: str, database: str, search: str) -> int | None:
    try:
        item = state.lookup_item(relname, current_database=database, search_path=_searched(search), schema=schema)
    except e.PgError:
        return None
    return item.oid if item is not None and item.kind in _RELATION_KINDS else None


_RELATION_KINDS = frozenset({"table", "source", "view", "materialized-view", "index"})


def to_regclass(state: CatalogState, name: str | None, database: str, search: str) -> int | None:
    """The relation's OID: builtin relations (unqualified names search mz_catalog and pg_catalog), then the
    catalog's items (unqualified names search the session's search path `search` in `database`); NULL when unknown."""
    if name is None:
        return None
    schema, relname = _relation_key(name)
    found = _builtin_relation(schema, relname)
    if found is None:
        found = _user_relation(state, schema, relname, database, search)
    return found if found is not None else _key_index(state, (schema,) if schema else _searched(search), relname)


def pg_table_is_visible(state: CatalogState, oid: int | None, database: str, search: str) -> bool | None:
    """Whether the relation's plain name finds it: its schema is searched and no schema searched before it has a
    relation of that name (psql's and pgspecial's `\\dt` list only those); NULL for an OID of no relation."""
    if oid is None:
        return None
    builtin = next((rel.name for rel in RELATIONS if rel.oid == oid), None)
    item = _items_by_oid(state).get(oid)
    name = builtin if builtin is not None else item.name if item is not None else None
    if name is None:
        return None
    found = _builtin_relation(None, name)
    if found is None:
        found = _user_relation(state, None, name, database, search)
    return (found if found is not None else _key_index(state, _searched(search), name)) == oid


def _key_index(state: CatalogState, schemas: tuple[str, ...], relname: str) -> int | None:
    """A primary key's index (not a catalog item, see pg_keys.py) by name, in the first of `schemas` that has one."""
    named = [index for index in key_indexes(state) if index.name == relname]
    for schema in schemas:
        for index in named:
            if state.schemas[index.schema_id].name == schema:
                return index.oid
    return None


def lookup_relation(name: str) -> int | None:
    """A builtin relation's OID, for `'name'::regclass` literals resolved while planning; None otherwise."""
    schema, relname = _relation_key(name)
    return _builtin_relation(schema, relname)


def regclass_in(state: CatalogState, name: str | None, database: str, search: str) -> int | None:
    """`'name'::regclass` of a name that is not a builtin relation: its OID or PostgreSQL's 42P01."""
    found = to_regclass(state, name, database, search)
    if found is None and name is not None:
        raise e.UndefinedTable(f'relation "{name}" does not exist')
    return found


def regclass_out(state: CatalogState, oid: int | None, database: str, search: str) -> str | None:
    """`::regclass::text`: the relation's name, schema-qualified when its plain name does not resolve to it,
    each part quoted as quote_ident quotes it."""
    if oid is None:
        return None
    if oid == 0:
        return "-"
    builtin = next((rel.name for rel in RELATIONS if rel.oid == oid), None)
    if builtin is not None:
        return quote_ident(builtin)
    item = _items_by_oid(state).get(oid)
    if item is None:
        return str(oid)
    if _user_relation(state, None, item.name, database, search) == oid:
        return quote_ident(item.name)
    if is_key_index(item) and _key_index(state, _searched(search), item.name) == oid:  # not a catalog item
        return quote_ident(item.name)
    return f"{quote_ident(state.schemas[item.schema_id].name)}.{quote_ident(item.name)}"


_BY_OID: dict[int, tuple[CatalogState, dict[int, Item]]] = {}


def _items_by_oid(state: CatalogState) -> dict[int, Item]:
    """The state's relations by OID, memoized for the latest state seen (states are immutable)."""
    cached = _BY_OID.get(0)
    if cached is None or cached[0] is not state:
        relations = [item for item in state.items.values() if item.kind in _RELATION_KINDS]
        cached = (state, {item.oid: item for item in [*relations, *key_indexes(state)]})
        _BY_OID[0] = cached
    return cached[1]


def regnamespace_in(state: CatalogState, name: str | None, database: str) -> int | None:
    """`'name'::regnamespace`: a builtin schema or a schema of the session's database; 3F000 when unknown."""
    if name is None:
        return None
    wanted = _unquoted(name)
    for schema in state.schemas.values():
        if schema.name == wanted and (
            schema.database_id is None or state.databases[schema.database_id].name == database
        ):
            return schema.oid
    raise e.InvalidSchemaName(f'schema "{name}" does not exist')


def regnamespace_out(state: CatalogState, oid: int | None) -> str | None:
    if oid is None:
        return None
    found = next((s.name for s in state.schemas.values() if s.oid == oid), None)
    return _name_out(found, oid)


def _name_out(found: str | None, oid: int) -> str:
    """What `::regnamespace::text` / `::regrole::text` print: the quoted name, `-` for 0, else the OID."""
    return quote_ident(found) if found is not None else ("-" if oid == 0 else str(oid))


def regrole_in(state: CatalogState, name: str | None) -> int | None:
    """`'name'::regrole`: the role's OID; 42704 when unknown."""
    if name is None:
        return None
    wanted = _unquoted(name)
    found = next((r.oid for r in state.roles.values() if r.name == wanted), None)
    if found is None:
        raise e.UndefinedObject(f'role "{name}" does not exist')
    return found


def regrole_out(state: CatalogState, oid: int | None) -> str | None:
    if oid is None:
        return None
    found = next((r.name for r in state.roles.values() if r.oid == oid), None)
    return _name_out(found, oid)


def _unquoted(name: str) -> str:
    text = name.strip()
    return text[1:-1].replace('""', '"') if len(text) > 1 and text[0] == text[-1] == '"' else text.lower()


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


def function_info(oid: int | None) -> str | None:
    """pg_get_function_result / pg_get_function_arguments / pg_function_is_visible: NULL, as PostgreSQL answers
    for an OID that names no function (pg_proc lists none)."""
    return None


def pg_get_viewdef(state: CatalogState, oid: int | None, pretty: bool | None, wrap: int | None) -> str | None:
    """A view's or materialized view's query deparsed as PostgreSQL 15 prints it (catalog/relations/deparse.py);
    `wrap` is the wrap column of pg_get_viewdef(oid, int), 0 for the other forms."""
    item = _items_by_oid(state).get(oid) if oid is not None else None
    if item is None or item.kind not in ("view", "materialized-view"):
        return None
    return view_definition_text(state, item, bool(pretty), wrap or 0)


def pg_get_indexdef(
    state: CatalogState, oid: int | None, column: int | None, pretty: bool | None, search: str
) -> str | None:
    """Column 0: the index's CREATE INDEX statement, the table schema-qualified unless `pretty` and in the
    session's schema `search` (as PostgreSQL's pretty mode qualifies only names not visible); column n: the n-th
    key (a column name or an expression)."""
    item = _items_by_oid(state).get(oid) if oid is not None else None
    if item is None or item.kind != "index":
        return None
    if not column:
        visible = bool(pretty) and state.schemas[item.schema_id].name == search
        return index_definition(state, item, qualified=not visible, pretty=bool(pretty))
    if column > len(item.keys):
        return ""
    return item.keys[column - 1]


def sql_quote_ident(name: str | None) -> str | None:
    return None if name is None else quote_ident(name)


def no_object_size(oid: object) -> int | None:
    """pg_table_size / pg_database_size / …: 0 for every object (the store does not see storage's files)."""
    return None if oid is None else 0


def pg_collation_is_visible(oid: int | None) -> bool | None:
    """True for the collations of pg_collation (all live in pg_catalog), NULL for other OIDs."""
    return None if oid is None or oid not in COLLATION_OIDS else True


def parse_ident(text: str | None) -> list[str] | None:
    """PostgreSQL's parse_ident (strict): the dot-separated identifiers, unquoted ones folded to lower case."""
    if text is None:
        return None
    parts: list[str] = []
    for match in re.finditer(r'\s*(?:"((?:[^"]|"")*)"|([^."\s]+))\s*(\.|$)', text):
        quoted, plain, dot = match.groups()
        parts.append(quoted.replace('""', '"') if quoted is not None else plain.lower())
        if not dot:
            break
    return parts


def no_sequence(table: str | None, column: str | None) -> str | None:
    """pg_get_serial_sequence: NULL, no column owns a sequence (sparkwire has none)."""
    return None


def no_publication(oid: int | None) -> bool | None:
    """pg_relation_is_publishable: false, sparkwire has no logical replication."""
    return None if oid is None else False


def _half_rounded(value: int) -> int:
    return int((value + (-1 if value < 0 else 1)) / 2)


def pg_size_pretty(size: int | None) -> str | None:
    """PostgreSQL 15's pg_size_pretty(bigint): bytes below 10 kB, then kB, MB, GB, TB, half-rounded."""
    if size is None:
        return None
    if abs(size) < 10 * 1024:
        return f"{size} bytes"
    size >>= 9
    for unit in ("kB", "MB", "GB"):
        if abs(size) < 20 * 1024 - 1:
            return f"{_half_rounded(size)} {unit}"
        size >>= 10
    return f"{_half_rounded(size)} TB"


@dataclass(frozen=True, slots=True)
class Udf:
    fn: Callable[..., object]
    params: list[str]
    returns: str


UDFS: dict[str, Udf] = {
    "to_regtype": Udf(to_regtype, ["VARCHAR"], "UINTEGER"),
    "regtype_out": Udf(regtype_out, ["BIGINT"], "VARCHAR"),
    "format_type": Udf(sql_format_type, ["BIGINT", "INTEGER"], "VARCHAR"),
    "pg_encoding_to_char": Udf(pg_encoding_to_char, ["INTEGER"], "VARCHAR"),
    "pg_type_is_visible": Udf(pg_type_is_visible, ["BIGINT"], "BOOLEAN"),
    "quote_ident": Udf(sql_quote_ident, ["VARCHAR"], "VARCHAR"),
    "pg_get_function_result": Udf(function_info, ["BIGINT"], "VARCHAR"),
    "pg_get_function_arguments": Udf(function_info, ["BIGINT"], "VARCHAR"),
    "pg_get_function_identity_arguments": Udf(function_info, ["BIGINT"], "VARCHAR"),
    "pg_function_is_visible": Udf(function_info, ["BIGINT"], "BOOLEAN"),
    "pg_get_ruledef": Udf(function_info, ["BIGINT"], "VARCHAR"),
    "pg_get_function_sqlbody": Udf(function_info, ["BIGINT"], "VARCHAR"),
    "pg_get_statisticsobjdef_columns": Udf(function_info, ["BIGINT"], "VARCHAR"),
    "pg_table_size": Udf(no_object_size, ["BIGINT"], "BIGINT"),
    "pg_relation_size": Udf(no_object_size, ["BIGINT"], "BIGINT"),
    "pg_total_relation_size": Udf(no_object_size, ["BIGINT"], "BIGINT"),
    "pg_indexes_size": Udf(no_object_size, ["BIGINT"], "BIGINT"),
    "pg_database_size": Udf(no_object_size, ["VARCHAR"], "BIGINT"),
    "pg_size_pretty": Udf(pg_size_pretty, ["BIGINT"], "VARCHAR"),
    "pg_relation_is_publishable": Udf(no_publication, ["BIGINT"], "BOOLEAN"),
    "pg_collation_is_visible": Udf(pg_collation_is_visible, ["BIGINT"], "BOOLEAN"),
    "parse_ident": Udf(parse_ident, ["VARCHAR"], "VARCHAR[]"),
    "pg_get_serial_sequence": Udf(no_sequence, ["VARCHAR", "VARCHAR"], "VARCHAR"),
    "regproc_oid": Udf(function_oid, ["VARCHAR"], "UINTEGER"),
}


# Functions of the catalog state: `fn(state, *args)`.
STATE_UDFS: dict[str, Udf] = {
    "pg_get_userbyid": Udf(pg_get_userbyid, ["BIGINT"], "VARCHAR"),
    "pg_get_viewdef": Udf(pg_get_viewdef, ["BIGINT", "BOOLEAN", "INTEGER"], "VARCHAR"),
    "pg_get_indexdef": Udf(pg_get_indexdef, ["BIGINT", "BIGINT", "BOOLEAN", "VARCHAR"], "VARCHAR"),
    "pg_get_constraintdef": Udf(pg_get_constraintdef, ["BIGINT", "BOOLEAN"], "VARCHAR"),
    "to_regclass": Udf(to_regclass, ["VARCHAR", "VARCHAR", "VARCHAR"], "UINTEGER"),
    "regclass_in": Udf(regclass_in, ["VARCHAR", "VARCHAR", "VARCHAR"], "UINTEGER"),
    "regclass_out": Udf(regclass_out, ["BIGINT", "VARCHAR", "VARCHAR"], "VARCHAR"),
    "pg_table_is_visible": Udf(pg_table_is_visible, ["BIGINT", "VARCHAR", "VARCHAR"], "BOOLEAN"),
    "regnamespace_in": Udf(regnamespace_in, ["VARCHAR", "VARCHAR"], "UINTEGER"),
    "regnamespace_out": Udf(regnamespace_out, ["BIGINT"], "VARCHAR"),
    "regrole_in": Udf(regrole_in, ["VARCHAR"], "UINTEGER"),
    "regrole_out": Udf(regrole_out, ["BIGINT"], "VARCHAR"),
    "obj_description": Udf(obj_description, ["BIGINT", "VARCHAR"], "VARCHAR"),
    "col_description": Udf(col_description, ["BIGINT", "INTEGER"], "VARCHAR"),
    "shobj_description": Udf(shobj_description, ["BIGINT", "VARCHAR"], "VARCHAR"),
}


def udf_name(function: str) -> str:
    return "sw_" + function


def _bound(fn: Callable[..., object], arity: int, state: Callable[[], CatalogState]) -> Callable[..., object]:
    """`fn(state(), *args)` with exactly `arity` parameters: DuckDB reads a UDF's arity from its signature."""
    if arity == 1:
        return lambda a: fn(state(), a)
    if arity == 2:
        return lambda a, b: fn(state(), a, b)
    if arity == 3:
        return lambda a, b, c: fn(state(), a, b, c)
    if arity == 4:
        return lambda a, b, c, d: fn(state(), a, b, c, d)
    raise ValueError(f"no binding for {arity} arguments")


def install(engine: DuckDBEngine, state: Callable[[], CatalogState]) -> None:
    """Register the UDFs; `state` returns the catalog state the state functions describe."""
    for name, udf in UDFS.items():
        engine.register_function(udf_name(name), udf.fn, udf.params, udf.returns, null_handling=True)
    for name, udf in STATE_UDFS.items():
        engine.register_function(
            udf_name(name), _bound(udf.fn, len(udf.params), state), udf.params, udf.returns, null_handling=True
        )
