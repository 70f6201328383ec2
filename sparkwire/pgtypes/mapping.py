"""Engine types → PostgreSQL (oid, typmod), and PostgreSQL oid → the Arrow type sparkwire stores it as.

`pg_type_for_duckdb` reads DuckDB type strings as `str(relation.types[i])` prints them; `pg_type_for_arrow` maps
Arrow types (what Spark hands over). Types PostgreSQL has no equivalent for become text (ENUM, BIT, UNION) or
json (STRUCT, MAP) — the encoders render those values accordingly. `arrow_type_for_pg` is the inverse used by COPY
FROM and parameter handling.

int2vector and oidvector have no engine type of their own: they are held as lists of an unsigned integer type
nothing else produces, `USMALLINT[]` (Arrow `list<uint16>`) and `UBIGINT[]` (`list<uint64>`), which map back to
them (the introspection store declares its int2vector/oidvector columns so; see introspection/tables.py).
"""

from __future__ import annotations

import re

import pyarrow as pa

from sparkwire.pgtypes import typmod as tm
from sparkwire.pgtypes.registry import MZ_TIMESTAMP_OID, type_by_oid

BOOL, BYTEA, INT8, INT2, INT2VECTOR, INT4, TEXT, OID, OIDVECTOR, JSON = 16, 17, 20, 21, 22, 23, 25, 26, 30, 114
FLOAT4, FLOAT8, UNKNOWN, BPCHAR, VARCHAR = 700, 701, 705, 1042, 1043
DATE, TIME, TIMESTAMP, TIMESTAMPTZ, INTERVAL, TIMETZ, NUMERIC, UUID, JSONB = (
    1082,
    1083,
    1114,
    1184,
    1186,
    1266,
    1700,
    2950,
    3802,
)

_DUCKDB_SIMPLE: dict[str, int] = {
    "BOOLEAN": BOOL,
    "TINYINT": INT2,
    "SMALLINT": INT2,
    "UTINYINT": INT2,
    "INTEGER": INT4,
    "USMALLINT": INT4,
    "BIGINT": INT8,
    "UINTEGER": OID,  # DuckDB holds our oid columns and $n::oid as UINTEGER
    "UBIGINT": NUMERIC,
    "HUGEINT": NUMERIC,
    "UHUGEINT": MZ_TIMESTAMP_OID,  # nothing else makes one: mz_now() is described as CAST(… AS UHUGEINT)
    "VARINT": NUMERIC,
    "BIGNUM": NUMERIC,
    "FLOAT": FLOAT4,
    "DOUBLE": FLOAT8,
    "VARCHAR": TEXT,
    "BLOB": BYTEA,
    "BIT": TEXT,
    "DATE": DATE,
    "TIME": TIME,
    "TIME_NS": TIME,
    "TIME WITH TIME ZONE": TIME,  # DuckDB's Arrow export drops the offset, so the values are plain times
    "TIMESTAMP": TIMESTAMP,
    "TIMESTAMP_S": TIMESTAMP,
    "TIMESTAMP_MS": TIMESTAMP,
    "TIMESTAMP_NS": TIMESTAMP,
    "TIMESTAMP WITH TIME ZONE": TIMESTAMPTZ,
    "INTERVAL": INTERVAL,
    "UUID": UUID,
    "JSON": JSON,
    '"NULL"': TEXT,
    "NULL": TEXT,
}
# The engine types that hold vectors (and nothing else); their elements are unsigned, as no vector holds negatives.
VECTOR_ENGINE_TYPES: dict[int, str] = {INT2VECTOR: "USMALLINT[]", OIDVECTOR: "UBIGINT[]"}
_VECTOR_FOR_ENGINE = {engine: oid for oid, engine in VECTOR_ENGINE_TYPES.items()}
_VECTOR_ARROW_ELEMENTS: dict[int, pa.DataType] = {INT2VECTOR: pa.uint16(), OIDVECTOR: pa.uint64()}
_DECIMAL = re.compile(r"DECIMAL\((\d+),\s*(\d+)\)")
_LIST = re.compile(r"(.*?)((?:\[\d*\])+)")


def _array_of(element: int, typmod: int) -> tuple[int, int]:
    """The array type of `element`; lists of arrays stay that array type (PostgreSQL arrays are
    multi-dimensional); lists of json-rendered values (STRUCT, MAP) are json as a whole."""
    found = type_by_oid(element)
    if found.is_array:
        return element, typmod
    if element == JSON:
        return JSON, -1
    return (found.array_oid, typmod) if found.array_oid else (JSON, -1)


def pg_type_for_duckdb(type_name: str) -> tuple[int, int]:
    spelled = type_name.strip()
    list_match = _LIST.fullmatch(spelled)
    if list_match:
        element, dims = list_match.group(1), list_match.group(2)
        vector = _VECTOR_FOR_ENGINE.get(element.upper() + "[]")
        if vector is not None:
            return (vector, -1) if dims == "[]" else _array_of(vector, -1)
        return _array_of(*pg_type_for_duckdb(element))
    decimal = _DECIMAL.fullmatch(spelled)
    if decimal:
        return NUMERIC, tm.numeric_typmod(int(decimal.group(1)), int(decimal.group(2)))
    simple = _DUCKDB_SIMPLE.get(spelled.upper())
    if simple is not None:
        return simple, -1
    if spelled.upper().startswith(("STRUCT", "MAP")):
        return JSON, -1
    return TEXT, -1  # ENUM(...), UNION(...), and anything else renders as its text


def pg_type_for_arrow(dtype: pa.DataType) -> tuple[int, int]:
    if pa.types.is_dictionary(dtype):
        return pg_type_for_arrow(dtype.value_type)
    if (
        pa.types.is_list(dtype)
        or pa.types.is_large_list(dtype)
        or pa.types.is_fixed_size_list(dtype)
        or (pa.types.is_list_view(dtype) or pa.types.is_large_list_view(dtype))
    ):
        vector = next((oid for oid, element in _VECTOR_ARROW_ELEMENTS.items() if dtype.value_type == element), None)
        return (vector, -1) if vector is not None else _array_of(*pg_type_for_arrow(dtype.value_type))
    if pa.types.is_decimal(dtype):
        precision, scale = dtype.precision, dtype.scale
        return NUMERIC, (tm.numeric_typmod(precision, scale) if precision <= tm.NUMERIC_MAX_PRECISION else -1)
    simple: list[tuple[object, int]] = [
        (pa.types.is_boolean, BOOL),
        (pa.types.is_int8, INT2),
        (pa.types.is_int16, INT2),
        (pa.types.is_uint8, INT2),
        (pa.types.is_int32, INT4),
        (pa.types.is_uint16, INT4),
        (pa.types.is_int64, INT8),
        (pa.types.is_uint32, OID),
        (pa.types.is_uint64, NUMERIC),
        (pa.types.is_float16, FLOAT4),
        (pa.types.is_float32, FLOAT4),
        (pa.types.is_float64, FLOAT8),
        (pa.types.is_string, TEXT),
        (pa.types.is_large_string, TEXT),
        (pa.types.is_string_view, TEXT),
        (pa.types.is_binary, BYTEA),
        (pa.types.is_large_binary, BYTEA),
        (pa.types.is_binary_view, BYTEA),
        (pa.types.is_date, DATE),
        (pa.types.is_time, TIME),
        (pa.types.is_interval, INTERVAL),
        (pa.types.is_duration, INTERVAL),
        (pa.types.is_struct, JSON),
        (pa.types.is_map, JSON),
    ]
    if isinstance(dtype, pa.FixedSizeBinaryType):
        return (UUID if dtype.byte_width == 16 else BYTEA), -1
    if pa.types.is_timestamp(dtype):
        return (TIMESTAMPTZ if dtype.tz else TIMESTAMP), -1
    for predicate, oid in simple:
        if predicate(dtype):  # type: ignore[operator]
            return oid, -1
    return TEXT, -1


_ARROW_FOR_OID: dict[int, pa.DataType] = {
    BOOL: pa.bool_(),
    BYTEA: pa.binary(),
    18: pa.string(),
    19: pa.string(),
    INT8: pa.int64(),
    INT2: pa.int16(),
    INT4: pa.int32(),
    24: pa.uint32(),
    OID: pa.uint32(),
    28: pa.uint32(),
    194: pa.string(),
    2205: pa.uint32(),
    2206: pa.uint32(),
    4089: pa.uint32(),
    4096: pa.uint32(),
    FLOAT4: pa.float32(),
    FLOAT8: pa.float64(),
    DATE: pa.date32(),
    TIME: pa.time64("us"),
    TIMESTAMP: pa.timestamp("us"),
    TIMESTAMPTZ: pa.timestamp("us", "UTC"),
    INTERVAL: pa.month_day_nano_interval(),
}


def arrow_type_for_pg(oid: int, typmod: int = -1) -> pa.DataType:
    """The Arrow type values of `oid` are held in (strings for text-like types, json, uuid, timetz, xml)."""
    found = type_by_oid(oid)
    if found.is_array:
        return pa.list_(arrow_type_for_pg(found.element_oid, typmod))
    if found.vector:
        return pa.list_(_VECTOR_ARROW_ELEMENTS[oid])
    if oid == NUMERIC:
        if typmod >= tm.VARHDRSZ:
            precision, scale = tm.numeric_precision_scale(typmod)
            if precision <= 38 and 0 <= scale <= precision:
                return pa.decimal128(precision, scale)
        return pa.string()  # unconstrained numeric keeps its exact text (and NaN)
    return _ARROW_FOR_OID.get(oid, pa.string())
