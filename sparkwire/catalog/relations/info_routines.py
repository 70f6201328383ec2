"""information_schema.routines: PostgreSQL 15's view over pg_proc, pg_language and pg_type, with its 82 columns.

Contract: `ROUTINE_RELATIONS` holds the relation (OID 13377, as in PostgreSQL 15). One row per function of
sparkwire's pg_proc (`pgtypes.functions.BUILTIN_FUNCTIONS`: the type I/O functions and access-method handlers,
every one in pg_catalog, language internal, strict, not security definer, owned by the bootstrap role, EXECUTE
granted to PUBLIC) per database, as every information_schema relation here lists each database's rows (PostgreSQL
lists the current database's; clients filter by catalog name or use DISTINCT). The values are what PostgreSQL's
view computes for those pg_proc rows: routine_type FUNCTION (prokind f), specific_name `proname_oid`
(nameconcatoid), data_type `ARRAY` for a return type with an element and varlena length, else format_type(oid,
NULL) (bpchar is `character`), the type_udt_* of the return type, routine_body EXTERNAL, routine_definition and
external_language the prosrc and `INTERNAL`, is_deterministic YES for immutable functions, is_null_call YES
(strict); routine_definition is shown as PostgreSQL shows it to members of the owning role (superusers), as
information_schema.views shows every view's definition here. Harlequin's completions read routine_name /
routine_type / routine_schema from it.
"""

from __future__ import annotations

from functools import lru_cache

from sparkwire.catalog.relations.relation import BuiltinRelation, Row, parse_columns
from sparkwire.catalog.state import CatalogState
from sparkwire.pgtypes import registry
from sparkwire.pgtypes.functions import BUILTIN_FUNCTIONS, NOT_STRICT

_IDENTIFIER = "information_schema.sql_identifier"
_NUMBER = "information_schema.cardinal_number"
_TEXT = "information_schema.character_data"
_YES_NO = "information_schema.yes_or_no"
_TIME_STAMP = "information_schema.time_stamp"

# Return types of BUILTIN_FUNCTIONS that the registry does not hold: pseudo-types (typelem 0, so never ARRAY),
# whose typname is also their format_type.
_PSEUDO_TYPES: dict[int, str] = {
    269: "table_am_handler",
    325: "index_am_handler",
    2275: "cstring",
    2277: "anyarray",
    2279: "trigger",
    2281: "internal",
}

# (name, domain): the view's columns in PostgreSQL 15's order (the domains as format_type prints them).
_COLUMNS = (
    "specific_catalog identifier, specific_schema identifier, specific_name identifier, "
    "routine_catalog identifier, routine_schema identifier, routine_name identifier, routine_type text, "
    "module_catalog identifier, module_schema identifier, module_name identifier, udt_catalog identifier, "
    "udt_schema identifier, udt_name identifier, data_type text, character_maximum_length number, "
    "character_octet_length number, character_set_catalog identifier, character_set_schema identifier, "
    "character_set_name identifier, collation_catalog identifier, collation_schema identifier, "
    "collation_name identifier, numeric_precision number, numeric_precision_radix number, numeric_scale number, "
    "datetime_precision number, interval_type text, interval_precision number, type_udt_catalog identifier, "
    "type_udt_schema identifier, type_udt_name identifier, scope_catalog identifier, scope_schema identifier, "
    "scope_name identifier, maximum_cardinality number, dtd_identifier identifier, routine_body text, "
    "routine_definition text, external_name text, external_language text, parameter_style text, "
    "is_deterministic yes_no, sql_data_access text, is_null_call yes_no, sql_path text, "
    "schema_level_routine yes_no, max_dynamic_result_sets number, is_user_defined_cast yes_no, "
    "is_implicitly_invocable yes_no, security_type text, to_sql_specific_catalog identifier, "
    "to_sql_specific_schema identifier, to_sql_specific_name identifier, as_locator yes_no, created time_stamp, "
    "last_altered time_stamp, new_savepoint_level yes_no, is_udt_dependent yes_no, "
    "result_cast_from_data_type text, result_cast_as_locator yes_no, result_cast_char_max_length number, "
    "result_cast_char_octet_length number, result_cast_char_set_catalog identifier, "
    "result_cast_char_set_schema identifier, result_cast_char_set_name identifier, "
    "result_cast_collation_catalog identifier, result_cast_collation_schema identifier, "
    "result_cast_collation_name identifier, result_cast_numeric_precision number, "
    "result_cast_numeric_precision_radix number, result_cast_numeric_scale number, "
    "result_cast_datetime_precision number, result_cast_interval_type text, "
    "result_cast_interval_precision number, result_cast_type_udt_catalog identifier, "
    "result_cast_type_udt_schema identifier, result_cast_type_udt_name identifier, "
    "result_cast_scope_catalog identifier, result_cast_scope_schema identifier, "
    "result_cast_scope_name identifier, result_cast_maximum_cardinality number, "
    "result_cast_dtd_identifier identifier"
)
_DOMAINS = {"identifier": _IDENTIFIER, "number": _NUMBER, "text": _TEXT, "yes_no": _YES_NO, "time_stamp": _TIME_STAMP}
ROUTINES_COLUMNS: tuple[tuple[str, str], ...] = tuple(
    (name, _DOMAINS[domain]) for name, domain in parse_columns(_COLUMNS)
)


def _return_type(oid: int) -> tuple[str, str]:
    """(data_type, type_udt_name) of a pg_catalog return type, as the view computes them."""
    if oid in _PSEUDO_TYPES:
        return _PSEUDO_TYPES[oid], _PSEUDO_TYPES[oid]
    pgtype = registry.type_by_oid(oid)
    is_array = pgtype.element_oid != 0 and pgtype.typlen == -1
    return ("ARRAY" if is_array else pgtype.display), pgtype.name  # format_type(oid, NULL): bpchar is `character`


def _function_row(database: str, oid: int, name: str, volatility: str, returns: int) -> Row:
    data_type, udt_name = _return_type(returns)
    return (
        *(database, "pg_catalog", f"{name}_{oid}", database, "pg_catalog", name, "FUNCTION"),
        *(None,) * 6,  # module_*, udt_*
        data_type,
        *(None,) * 14,  # character_* … interval_precision
        *(database, "pg_catalog", udt_name),  # type_udt_*
        *(None,) * 4,  # scope_*, maximum_cardinality
        "0",  # dtd_identifier
        *("EXTERNAL", name, None, "INTERNAL", "GENERAL", "YES" if volatility == "i" else "NO", "MODIFIES"),
        "NO" if name in NOT_STRICT else "YES",  # is_null_call: strict (trigger_in is not)
        *(None, "YES", 0, None, None, "INVOKER", None, None, None, "NO", None, None, None, "NO"),
        *(None,) * 24,  # result_cast_*
    )


@lru_cache(maxsize=8)
def _rows_for(databases: tuple[str, ...]) -> tuple[Row, ...]:
    return tuple(
        _function_row(database, oid, name, volatility, returns)
        for database in databases
        for oid, name, volatility, returns, _ in BUILTIN_FUNCTIONS
    )


def routines_rows(state: CatalogState) -> tuple[Row, ...]:
    return _rows_for(tuple(d.name for d in sorted(state.databases.values(), key=lambda d: d.oid)))


ROUTINE_RELATIONS: tuple[BuiltinRelation, ...] = (
    BuiltinRelation("information_schema", "routines", 13377, ROUTINES_COLUMNS, routines_rows),
)
