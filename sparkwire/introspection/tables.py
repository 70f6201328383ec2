"""How a builtin relation is laid out in the store's DuckDB: names, engine types, Arrow batches of rows.

Contract: the store is the attached in-memory database `STORE_CATALOG`; `engine_name(schema)` is the store schema
hosting a builtin schema (DuckDB reserves `pg_catalog` and `information_schema` in every database, so those are
hosted as `pg_catalog_sw` and `information_schema_sw`); `table_sql(rel)` is the table's qualified name;
`create_sql(rel)` its CREATE TABLE; `arrow_rows(rel, rows)` the rows as an Arrow table with the engine types (array
values given as tuples). Types DuckDB lacks are stored as their closest value type: oid/xid/uint4 as UINTEGER, uint8
as UBIGINT, regproc as its name (VARCHAR, as PostgreSQL prints it), name/"char"/aclitem/mz_aclitem/
pg_node_tree/inet and information_schema's text domains as VARCHAR, uuid as UUID (filled from text), Materialize
lists as arrays, int2vector/oidvector as the list types pgtypes reserves for them
(`pgtypes.mapping.VECTOR_ENGINE_TYPES`: USMALLINT[] and UBIGINT[]), so that results report them as int2vector /
oidvector.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

import pyarrow as pa

from sparkwire.catalog.relations.relation import BuiltinRelation, Row
from sparkwire.pgtypes.mapping import INT2VECTOR, OIDVECTOR, VECTOR_ENGINE_TYPES

STORE_CATALOG = "sw_introspection"
_RESERVED_BY_DUCKDB = frozenset({"pg_catalog", "information_schema"})

_ENGINE_TYPES: dict[str, str] = {
    "oid": "UINTEGER",
    "xid": "UINTEGER",
    "uint4": "UINTEGER",
    "uint8": "UBIGINT",
    "regproc": "VARCHAR",
    "name": "VARCHAR",
    '"char"': "VARCHAR",
    "text": "VARCHAR",
    "aclitem": "VARCHAR",
    "mz_aclitem": "VARCHAR",
    "pg_node_tree": "VARCHAR",
    "anyarray": "VARCHAR",
    "uuid": "UUID",
    "inet": "VARCHAR",
    "boolean": "BOOLEAN",
    "bytea": "BLOB",
    "smallint": "SMALLINT",
    "integer": "INTEGER",
    "bigint": "BIGINT",
    "real": "FLOAT",
    "double precision": "DOUBLE",
    "interval": "INTERVAL",
    "timestamp with time zone": "TIMESTAMPTZ",
    "int2vector": VECTOR_ENGINE_TYPES[INT2VECTOR],
    "oidvector": VECTOR_ENGINE_TYPES[OIDVECTOR],
    "information_schema.sql_identifier": "VARCHAR",
    "information_schema.character_data": "VARCHAR",
    "information_schema.yes_or_no": "VARCHAR",
    "information_schema.cardinal_number": "INTEGER",
    "information_schema.time_stamp": "TIMESTAMPTZ",
}

_ARROW_TYPES: dict[str, pa.DataType] = {
    "UINTEGER": pa.uint32(),
    "UBIGINT": pa.uint64(),
    "VARCHAR": pa.string(),
    "BOOLEAN": pa.bool_(),
    "BLOB": pa.binary(),
    "UUID": pa.string(),
    "SMALLINT": pa.int16(),
    "USMALLINT": pa.uint16(),
    "INTEGER": pa.int32(),
    "BIGINT": pa.int64(),
    "FLOAT": pa.float32(),
    "DOUBLE": pa.float64(),
    "INTERVAL": pa.duration("us"),
    "TIMESTAMPTZ": pa.timestamp("us", tz="UTC"),
}


def engine_name(schema: str) -> str:
    return schema + "_sw" if schema in _RESERVED_BY_DUCKDB else schema


def engine_type(pg_type: str) -> str:
    if pg_type.endswith("[]"):
        return engine_type(pg_type[:-2]) + "[]"
    if pg_type.endswith(" list"):
        return engine_type(pg_type[: -len(" list")]) + "[]"
    return _ENGINE_TYPES[pg_type]


def arrow_type(engine: str) -> pa.DataType:
    """The Arrow type of a DuckDB column type as the store spells it (`engine_type`)."""
    if engine.endswith("[]"):
        return pa.list_(arrow_type(engine[:-2]))
    return _ARROW_TYPES[engine]


def quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def table_sql(rel: BuiltinRelation) -> str:
    return f"{STORE_CATALOG}.{quoted(engine_name(rel.schema))}.{quoted(rel.name)}"


def create_sql(rel: BuiltinRelation) -> str:
    columns = ", ".join(f"{quoted(name)} {engine_type(pg_type)}" for name, pg_type in rel.columns)
    return f"CREATE TABLE {table_sql(rel)} ({columns})"


def column_sqls(rel: BuiltinRelation) -> list[str]:
    return [quoted(name) for name, _ in rel.columns]


def arrow_rows(rel: BuiltinRelation, rows: Iterable[Row]) -> pa.Table:
    schema = _arrow_schema(rel)
    materialized = list(rows)
    values = zip(*materialized, strict=True) if materialized else ([] for _ in schema)  # rows → columns, in C
    columns = [pa.array(column, type=field.type) for column, field in zip(values, schema, strict=True)]
    return pa.Table.from_arrays(columns, schema=schema)


@functools.cache
def _arrow_schema(rel: BuiltinRelation) -> pa.Schema:
    return pa.schema([(name, arrow_type(engine_type(pg_type))) for name, pg_type in rel.columns])
