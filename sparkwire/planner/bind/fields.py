"""Engine result columns → RowDescription fields, and PostgreSQL type OIDs ↔ DuckDB type spellings for
parameters.

Contract: `fields_for(columns, names)` builds one `Field` per engine column: PostgreSQL oid/typmod from the
engine type (pgtypes.mapping), `type_size` from pg_type.typlen, and the name from `names` where it gives one
(PostgreSQL's naming rules, see naming.py) else the engine's; `void_columns` are typed void (pg_sleep);
`declared` gives PostgreSQL's (oid, typmod) per column where the engine's type is coarser (casts, builtin columns
of type name, see output_types.py), which win when the engine's values fit them (varchar, jsonb, numeric(p,s),
name, regclass printed as a name, …); a declared type PostgreSQL's rules give a computed column (output_types.INFERRED)
always wins. `duckdb_type_for_oid(oid)` is the DuckDB type a parameter of that
PostgreSQL type is cast to; unknown/unspecified types are text, as in PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from sparkwire import errors as e
from sparkwire.api import Field
from sparkwire.engine.base import Column
from sparkwire.pgtypes.mapping import pg_type_for_duckdb
from sparkwire.pgtypes.registry import type_by_oid
from sparkwire.planner.bind.output_types import COMPUTED, NUMERIC_QUOTIENT, inferred

TEXT_OID = 25
NUMERIC_OID = 1700
NUMERIC_ARRAY_OID = 1231
TEXT_ARRAY_OID = 1009
INT8_OID = 20

# PostgreSQL's `numeric` without precision: no DuckDB type matches, so such parameters stay uncast and DuckDB
# types each value by its own digits (a Python Decimal binds as DECIMAL(p, s) with its exact p and s).
UNCONSTRAINED_DECIMAL = "DECIMAL"
DUCKDB_UNCONSTRAINED_NUMERIC = "DECIMAL(18,3)"  # what DuckDB makes of `numeric` without precision

_DUCKDB_FOR_OID: dict[int, str] = {
    16: "BOOLEAN",
    17: "BLOB",
    18: "VARCHAR",
    19: "VARCHAR",
    20: "BIGINT",
    21: "SMALLINT",
    23: "INTEGER",
    25: "VARCHAR",
    26: "UINTEGER",
    114: "JSON",
    700: "FLOAT",
    701: "DOUBLE",
    705: "VARCHAR",
    1042: "VARCHAR",
    1043: "VARCHAR",
    1082: "DATE",
    1083: "TIME",
    1114: "TIMESTAMP",
    1184: "TIMESTAMPTZ",
    1186: "INTERVAL",
    1266: "TIMETZ",
    1700: UNCONSTRAINED_DECIMAL,
    2950: "UUID",
    3802: "JSON",
}


def duckdb_type_for_oid(oid: int) -> str:
    if oid in _DUCKDB_FOR_OID:
        return _DUCKDB_FOR_OID[oid]
    try:
        pgtype = type_by_oid(oid)
    except e.PgError:
        return "VARCHAR"
    if pgtype.is_array:
        return duckdb_type_for_oid(pgtype.element_oid) + "[]"
    return "VARCHAR"


@cache
def pg_type(engine_type: str) -> tuple[int, int, int]:
    """(oid, typmod, typlen) for an engine type spelling."""
    oid, typmod = pg_type_for_duckdb(engine_type)
    if oid == NUMERIC_OID and engine_type.replace(" ", "").upper() == DUCKDB_UNCONSTRAINED_NUMERIC:
        typmod = -1  # DuckDB's `numeric` (a shadow's unconstrained numeric column, `x::numeric`)
    try:
        size = type_by_oid(oid).typlen
    except e.PgError:
        size = -1
    return oid, typmod, size


VOID_OID = 2278


# Engine types whose values also encode correctly as these PostgreSQL types (text-like values).
_TEXT_LIKE = frozenset({25, 114, 1043, 1042, 18, 19, 194, 3802})
# Arrays of text-like values, and the OID-sized integer types (xid values are held as OIDs are).
_TEXT_ARRAYS = frozenset({1002, 1003, 1009, 1014, 1015})
_OID_LIKE = frozenset({26, 28})
# OID alias types whose projections the engine prints as names (see rewrite.reg_outputs): text values.
_PRINTED_AS_NAMES = frozenset({24, 2205, 2206, 4089, 4096})


def _declared(engine: tuple[int, int, int], declared: tuple[int, int] | None) -> tuple[int, int, int]:
    """A projection written `expr::T` has PostgreSQL type T when the engine's values fit T."""
    if declared is None:
        return engine
    if inferred(declared):  # PostgreSQL's rules (pg_result_types.py): the rows are conformed to it
        try:
            return declared[0], -1, type_by_oid(declared[0]).typlen
        except e.PgError:
            return engine
    if declared in (COMPUTED, NUMERIC_QUOTIENT):
        quotient_text = declared == NUMERIC_QUOTIENT and engine[0] == TEXT_OID
        return (NUMERIC_OID, -1, -1) if engine[0] == NUMERIC_OID or quotient_text else engine
    oid, typmod = declared
    numeric_text = oid == NUMERIC_OID and typmod < 0 and engine[0] == TEXT_OID  # exact numeric literals
    numeric_array_text = oid == NUMERIC_ARRAY_OID and typmod < 0 and engine[0] == TEXT_ARRAY_OID  # exact elements
    text_like = (oid in _TEXT_LIKE | _PRINTED_AS_NAMES and engine[0] in _TEXT_LIKE) or (
        {oid, engine[0]} <= _TEXT_ARRAYS or {oid, engine[0]} <= _OID_LIKE
    )
    if oid == engine[0] or text_like or numeric_text or numeric_array_text:
        try:
            size = type_by_oid(oid).typlen
        except e.PgError:
            return engine
        return oid, typmod, size
    return engine


def fields_for(
    columns: Sequence[Column],
    names: Sequence[str | None] | None = None,
    void_columns: Sequence[int] = (),
    declared: Sequence[tuple[int, int] | None] | None = None,
) -> tuple[Field, ...]:
    out: list[Field] = []
    for i, col in enumerate(columns):
        if i in void_columns:
            oid, typmod, size = VOID_OID, -1, 4
        else:
            given = declared[i] if declared is not None and i < len(declared) else None
            oid, typmod, size = _declared(pg_type(col.engine_type), given)
        name = names[i] if names is not None and i < len(names) and names[i] is not None else col.name
        out.append(Field(name=name or col.name, type_oid=oid, type_size=size, type_modifier=typmod))
    return tuple(out)
