"""Spark's Arrow result conformed to what the client was told: the DuckDB description of the query.

Contract:
- `result_field(field, described)`: the Arrow field a result column is conformed to — the engine's description, or
  the field's own number type where PostgreSQL's rules gave it another; an unconstrained numeric keeps its values'
  own type (marked in the field's metadata).
- `conform(batch, schema)`: `batch` with `schema`'s names and types: Spark's day-time intervals become interval
  values, integers go to decimals through a wide decimal (values checked), unconstrained numerics stay as they are;
  a value the target type cannot hold is 22003.
"""

from __future__ import annotations

import pyarrow as pa

from sparkwire import errors as e
from sparkwire.api import Field
from sparkwire.pgtypes.interval import duration_to_interval
from sparkwire.pgtypes.mapping import arrow_type_for_pg, pg_type_for_arrow

NUMERIC_OID = 1700


def _cast(column: pa.Array, target: pa.DataType) -> pa.Array:
    if column.type.equals(target):
        return column
    if pa.types.is_null(target) and column.null_count == len(column):  # `w || NULL`: DuckDB's NULL type, Spark's text
        return pa.nulls(len(column))
    try:
        if pa.types.is_interval(target) and pa.types.is_duration(column.type):  # Spark's day-time intervals
            return duration_to_interval(column)
        if pa.types.is_decimal(target) and pa.types.is_integer(column.type):
            # pyarrow refuses int64 → decimal(18, 3) by type alone; go through a wide decimal and check values
            column = column.cast(pa.decimal128(38, target.scale))
        return column.cast(target)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        first = str(exc).splitlines()[0]
        raise e.NumericValueOutOfRange(f"value out of range for the result column: {first}") from None


# A result field of type numeric without typmod: its values keep their own scale (see `result_field`).
_AS_IS = {b"sparkwire": b"numeric as is"}


# Number types: a field of one whose engine description is another (PostgreSQL's result type by its rules,
# output_types.INFERRED) is conformed to the field's type, not to the engine's.
_NUMBER_OIDS = frozenset({20, 21, 23, 700, 701, NUMERIC_OID})


def result_field(field: Field, described: pa.DataType) -> pa.Field:
    """The Arrow field a result column is conformed to: the engine's description, or the field's own number type
    where PostgreSQL's rules gave it another. An unconstrained numeric keeps the values' own Arrow type
    (the exact text of a text-held column, a decimal with Spark's scale): PostgreSQL's numeric has a display scale
    per value, which a cast to the described DECIMAL(p, s) would change or overflow."""
    engine_oid = pg_type_for_arrow(described)[0]
    if field.type_oid != engine_oid and {field.type_oid, engine_oid} <= _NUMBER_OIDS:
        described = arrow_type_for_pg(field.type_oid, field.type_modifier)
    if field.type_oid == NUMERIC_OID and field.type_modifier < 0:
        return pa.field(field.name, described, metadata=_AS_IS)
    return pa.field(field.name, described)


def _numeric_as_is(column: pa.Array) -> bool:
    kind = column.type
    return bool(pa.types.is_decimal(kind) or pa.types.is_string(kind) or pa.types.is_integer(kind))


def conform(batch: pa.RecordBatch, schema: pa.Schema) -> pa.RecordBatch:
    """`batch` with `schema`'s names and types (Spark's Arrow → what DuckDB described to the client)."""
    if batch.schema.equals(schema):
        return batch
    columns = [
        column if target.metadata == _AS_IS and _numeric_as_is(column) else _cast(column, target.type)
        for column, target in zip(batch.columns, schema, strict=True)
    ]
    fields = [target.with_type(column.type) for column, target in zip(columns, schema, strict=True)]
    return pa.RecordBatch.from_arrays(columns, schema=pa.schema(fields))
