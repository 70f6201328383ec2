"""Making written values fit a storage table: PostgreSQL's input and assignment casts, NOT NULL and PRIMARY KEY.

Contract (every function raises PostgreSQL's error with its SQLSTATE and wording):
- `column_type(column)` is the Arrow type a catalog column is stored as (`arrow_type_for_pg(oid, typmod)`).
- `input_column(texts, column, options)` applies the column type's input function to untyped literals (`'12'` in
  `INSERT … VALUES`): 22P02 invalid input syntax, 22003 out of range, 22001 value too long.
- `assign_column(values, column)` applies PostgreSQL's assignment cast to an evaluated column (engine output):
  integers range-checked (22003 `integer out of range`), floats rounded half-to-even and numerics half away from
  zero into integers, numeric(p,s) rounded with 22003 `numeric field overflow`, anything to text through its text
  form, varchar(n)/char(n) length-checked (22001; trailing blanks beyond n are cut, char(n) is blank-padded); a
  type with no assignment cast raises 42804 `column "a" is of type integer but expression is of type boolean`;
  `assign_rows(rows, columns)` does it for the unconstrained numeric columns of a query's rows (CREATE TABLE AS, by
  position): each value's text with its digits (a decimal's Arrow text would be E-notation: `0E-16`).
- `check_not_null(rows, item)`: 23502 for a NULL in a NOT NULL or primary-key column, with the failing row.
- `check_primary_key(rows, existing, item)`: 23505 `duplicate key value violates unique constraint "t_pkey"` when a
  new row's key equals an existing row's key or an earlier new row's (`existing` holds the key columns of the rows
  the write leaves in place).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal

import pyarrow as pa
import pyarrow.compute as pc

from sparkwire import errors as e
from sparkwire.catalog.objects import Column, Item
from sparkwire.pgtypes import typmod as tm
from sparkwire.pgtypes.copy.convert import TEXT_FAMILY, convert_column, to_arrow_value
from sparkwire.pgtypes.mapping import arrow_type_for_pg, pg_type_for_arrow
from sparkwire.pgtypes.options import EncodeOptions
from sparkwire.pgtypes.params import decode_text
from sparkwire.pgtypes.registry import format_type
from sparkwire.planner.execute.unique_keys import check_unique

NUMERIC, BPCHAR, VARCHAR, BOOL = 1700, 1042, 1043, 16
_INTEGER_NAMES = {21: "smallint", 23: "integer", 20: "bigint"}
_FLOATS = {700: "real", 701: "double precision"}


def column_type(column: Column) -> pa.DataType:
    return arrow_type_for_pg(column.type_oid, column.typmod)


def _array(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    return values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values


def input_column(texts: Sequence[str | None], column: Column, options: EncodeOptions) -> pa.Array:
    raw = [None if t is None else t.encode() for t in texts]
    try:
        converted = convert_column(raw, column.type_oid, column_type(column), options, lambda row: "")
    except e.PgError as error:
        error.detail = None  # convert_column adds COPY's context; a literal has none
        raise
    return fit_typmod(converted, column)


def fit_typmod(values: pa.Array, column: Column) -> pa.Array:
    """varchar(n)/char(n): 22001 for values longer than n (beyond trailing blanks); char(n) padded to n."""
    if column.type_oid not in (VARCHAR, BPCHAR) or column.typmod < tm.VARHDRSZ:
        return values
    limit = tm.char_length(column.typmod)
    lengths = pc.utf8_length(values)
    if pc.any(pc.greater(lengths, limit)).as_py():
        trimmed = pc.utf8_rtrim(values, characters=" ")
        if pc.any(pc.greater(pc.utf8_length(trimmed), limit)).as_py():
            raise e.StringDataRightTruncation(f"value too long for type {format_type(column.type_oid, column.typmod)}")
        values = pc.if_else(pc.greater(lengths, limit), pc.utf8_slice_codeunits(values, 0, limit), values)
    if column.type_oid == BPCHAR:
        values = pc.utf8_rpad(values, width=limit, padding=" ")
    return values


def _mismatch(column: Column, source: pa.DataType) -> e.DatatypeMismatch:
    return e.DatatypeMismatch(
        f'column "{column.name}" is of type {format_type(column.type_oid, column.typmod)} but expression is of type '
        f"{format_type(*pg_type_for_arrow(source))}",
        hint="You will need to rewrite or cast the expression.",
    )


def assign_column(values: pa.Array | pa.ChunkedArray, column: Column) -> pa.Array:
    array = _array(values)
    target, source = column_type(column), array.type
    if pa.types.is_null(source):
        return pa.nulls(len(array), target)
    oid = column.type_oid
    if oid in _INTEGER_NAMES:
        return _to_integer(array, column, target)
    if oid == NUMERIC:
        return _to_numeric(array, column, target)
    if oid in TEXT_FAMILY:
        return fit_typmod(_to_text(array), column)
    if oid in _FLOATS and not _is_number(source):
        raise _mismatch(column, source)
    if source == target:
        return array
    if oid == BOOL or pa.types.is_boolean(source) or (pa.types.is_string(source) and not pa.types.is_string(target)):
        raise _mismatch(column, source)
    try:
        result = array.cast(target)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        raise _mismatch(column, source) from None
    if oid in _FLOATS and _overflowed(array, result):
        raise e.NumericValueOutOfRange("value out of range: overflow")
    return result


def _is_number(dtype: pa.DataType) -> bool:
    return bool(pa.types.is_integer(dtype) or pa.types.is_floating(dtype) or pa.types.is_decimal(dtype))


def _overflowed(source: pa.Array, result: pa.Array) -> bool:
    if not pa.types.is_floating(result.type):
        return False
    finite_before = pc.is_finite(source) if pa.types.is_floating(source.type) else pc.is_valid(source)
    overflow: bool = pc.any(pc.and_(finite_before, pc.invert(pc.is_finite(result)))).as_py()
    return overflow


def _to_integer(array: pa.Array, column: Column, target: pa.DataType) -> pa.Array:
    name = _INTEGER_NAMES[column.type_oid]
    source = array.type
    if pa.types.is_floating(source):
        if pc.any(pc.invert(pc.is_finite(array))).as_py():
            raise e.NumericValueOutOfRange(f"{name} out of range")
        array = pc.round(array, round_mode="half_to_even")
    elif pa.types.is_decimal(source):
        array = pc.round(array, round_mode="half_towards_infinity")
    elif not pa.types.is_integer(source):
        raise _mismatch(column, source)
    try:
        return array.cast(target)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        raise e.NumericValueOutOfRange(f"{name} out of range") from None


def _as_decimal(value: object) -> Decimal:
    if isinstance(value, float):
        return Decimal("NaN") if math.isnan(value) else Decimal(format(value, ".15g"))
    if isinstance(value, str):
        decoded = decode_text(value, NUMERIC, EncodeOptions())
        assert isinstance(decoded, Decimal)
        return decoded
    assert isinstance(value, int | Decimal)
    return Decimal(value)


def assign_rows(rows: pa.Table, columns: Sequence[Column]) -> pa.Table:
    if rows.num_columns != len(columns):
        return rows
    arrays = [
        assign_column(rows.column(i), c) if c.type_oid == NUMERIC and c.typmod < 0 else rows.column(i)
        for i, c in enumerate(columns)
    ]
    return pa.table(arrays, names=rows.column_names)


def _to_numeric(array: pa.Array, column: Column, target: pa.DataType) -> pa.Array:
    source = array.type
    if source == target and not pa.types.is_string(source):
        return array
    if not (_is_number(source) or pa.types.is_string(source)):
        raise _mismatch(column, source)
    values = [None if v is None else to_arrow_value(_as_decimal(v), target) for v in array.to_pylist()]
    return pa.array(values, target)


def _to_text(array: pa.Array) -> pa.Array:
    """Any value's text form (PostgreSQL's I/O conversion, which assignment allows to string types)."""
    source = array.type
    if pa.types.is_string(source):
        return array
    if pa.types.is_boolean(source):
        return pc.if_else(array, pa.scalar("true"), pa.scalar("false"))
    return array.cast(pa.string())


# ---- constraints ---------------------------------------------------------------------------------------------


def _render(value: object) -> str:
    return "null" if value is None else str(value)


def check_not_null(rows: pa.Table, item: Item) -> None:
    for column in item.columns:
        if column.nullable and column.name not in item.primary_key:
            continue
        values = rows.column(column.name)
        if values.null_count:
            first = pc.index(pc.is_null(values), True).as_py()
            row = ", ".join(_render(rows.column(c.name)[first].as_py()) for c in item.columns)
            raise e.NotNullViolation(
                f'null value in column "{column.name}" of relation "{item.name}" violates not-null constraint',
                detail=f"Failing row contains ({row}).",
            )


def check_primary_key(rows: pa.Table, existing: pa.Table, item: Item) -> None:
    """A primary key is a unique constraint `<table>_pkey` over columns NOT NULL has already checked."""
    if item.primary_key:
        check_unique(rows, existing, f"{item.name}_pkey", list(item.primary_key))
