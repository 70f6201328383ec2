"""The cells of `INSERT … VALUES (…), (…)` as Arrow arrays, each coerced to its column as PostgreSQL does.

Contract:
- `values_arrays(values, columns, explicit, evaluate, options)` returns one array per leading column of `columns`
  (as wide as the VALUES lists) and the row count. Each cell is typed on its own, as PostgreSQL types INSERT's
  VALUES: a string literal is untyped and goes through the column type's input function; a numeric constant is
  integer (int4, int8 past it) or numeric, `TRUE` / `FALSE` boolean, and these go through the assignment cast
  (`assign_column`) without any engine; `DEFAULT` is the column's default; anything else is one projection of a
  DuckDB SELECT (`evaluate`, up to `CHUNK` projections per SELECT). Cells of one type in one column are converted
  together, so a 10,000-row VALUES costs a few Arrow conversions, not 10,000 engine round trips.
- `is_default(node)`, `default_expression(column)`, `is_untyped_literal(node)` and `scalar(node, column, evaluate,
  options)` (one value, length 1) are the same rules for UPDATE's SET list and a column's DEFAULT.
Errors are PostgreSQL's: 42601 for lists of different widths or more expressions than target columns (or fewer,
with an explicit column list), and the input / assignment errors of write_values.py.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from decimal import Decimal

import numpy as np
import pyarrow as pa
from sqlglot import exp

from sparkwire import errors as e
from sparkwire.catalog.objects import Column
from sparkwire.pgtypes.options import EncodeOptions
from sparkwire.planner.execute.write_values import assign_column, column_type, input_column
from sparkwire.planner.translate.duckdb import parse

Evaluate = Callable[[Sequence[exp.Expr]], pa.Table]
"""`SELECT nodes[0], nodes[1], …` without FROM, computed (DuckDB): one column per node, in order."""

CHUNK = 1000  # projections per DuckDB SELECT for cells that need an engine
_DECIMAL = re.compile(r"(\d*)\.(\d*)")
_INT4 = 1 << 31
_INT8 = 1 << 63
_MAX_DIGITS = 38  # decimal128
NUMERIC_OID = 1700


def is_default(node: exp.Expr) -> bool:
    if isinstance(node, exp.Var):
        return node.name.upper() == "DEFAULT"
    return (
        isinstance(node, exp.Column)
        and not node.table
        and isinstance(node.this, exp.Identifier)
        and not node.this.quoted
        and node.name.lower() == "default"
    )


def default_expression(column: Column) -> exp.Expr:
    """The column's DEFAULT as a tree: parsed once per text and shared, so callers copy before changing it (and a
    prepared INSERT's default is the same node each time: evaluator.py remembers its DuckDB text by identity)."""
    return exp.Null() if column.default is None else _parsed_default(column.default)


@functools.lru_cache(maxsize=256)
def _parsed_default(text: str) -> exp.Expr:
    tree = parse(f"SELECT {text}")
    assert isinstance(tree, exp.Select)
    expression: exp.Expr = tree.expressions[0]
    return expression


def is_untyped_literal(node: exp.Expr) -> bool:
    return isinstance(node, exp.Literal) and node.is_string


def typed_constant(node: exp.Expr) -> tuple[pa.DataType, object] | None:
    """A numeric or boolean constant's PostgreSQL type (as Arrow) and value; None for anything else (or a number
    beyond what Arrow holds exactly, left to the engine). A leading minus belongs to the constant, as in
    PostgreSQL's grammar; the type follows the magnitude."""
    if isinstance(node, exp.Boolean):
        return pa.bool_(), bool(node.this)
    negative = isinstance(node, exp.Neg)
    literal = node.this if negative else node
    if not isinstance(literal, exp.Literal) or not literal.is_number:
        return None
    text: str = literal.this
    sign = -1 if negative else 1
    if text.isascii() and text.isdigit():
        magnitude = int(text)
        if magnitude < _INT4:
            return pa.int32(), sign * magnitude
        if magnitude < _INT8:
            return pa.int64(), sign * magnitude
        return None
    match = _DECIMAL.fullmatch(text)
    if match is None or not (match[1] or match[2]):
        return None
    whole = match[1].lstrip("0")
    if len(whole) + len(match[2]) > _MAX_DIGITS:
        return None
    value = Decimal(text)
    return pa.decimal128(_MAX_DIGITS, len(match[2])), -value if negative else value


def exact_numeric_text(node: exp.Expr, column: Column) -> str | None:
    """A numeric constant Arrow cannot hold exactly (past 38 digits, or with an exponent) bound for an unconstrained
    numeric column: its text, which that column's input function keeps exactly (the engine would make it a double)."""
    if column.type_oid != NUMERIC_OID or column.typmod >= 0 or typed_constant(node) is not None:
        return None
    negative = isinstance(node, exp.Neg)
    literal = node.this if negative else node
    if not isinstance(literal, exp.Literal) or not literal.is_number:
        return None
    return ("-" if negative else "") + str(literal.this)


def scalar(node: exp.Expr, column: Column, evaluate: Evaluate, options: EncodeOptions) -> pa.Array:
    """One value for `column` (length 1): a literal through the input function, NULL, or evaluated and assigned."""
    if is_untyped_literal(node):
        return input_column([node.name], column, options)
    if (text := exact_numeric_text(node, column)) is not None:
        return input_column([text], column, options)
    if isinstance(node, exp.Null):
        return pa.nulls(1, column_type(column))
    constant = typed_constant(node)
    if constant is not None:
        dtype, value = constant
        return assign_column(pa.array([value], dtype), column)
    return assign_column(evaluate([node]).column(0), column)


def values_arrays(
    values: exp.Values, columns: Sequence[Column], explicit: bool, evaluate: Evaluate, options: EncodeOptions
) -> tuple[list[pa.Array], int]:
    """Arrays for the first columns of `columns` from `VALUES (…), (…)` and the row count; columns past the lists'
    width are left to the caller."""
    rows = [list(t.expressions) if isinstance(t, exp.Tuple) else [t] for t in values.expressions]
    if len({len(r) for r in rows}) > 1:
        raise e.SyntaxError("VALUES lists must all be the same length")
    width = len(rows[0]) if rows else 0
    if width > len(columns):
        raise e.SyntaxError("INSERT has more expressions than target columns")
    if width < len(columns) and explicit:
        raise e.SyntaxError("INSERT has more target columns than expressions")
    pieces: list[list[tuple[list[int], pa.Array]]] = [[] for _ in range(width)]
    pending: list[tuple[tuple[int, int], exp.Expr]] = []
    for j, column in enumerate(columns[:width]):
        literals: list[tuple[int, str]] = []
        nulls: list[int] = []
        constants: dict[pa.DataType, list[tuple[int, object]]] = {}
        for i, row in enumerate(rows):
            node = default_expression(column) if is_default(row[j]) else row[j]
            if is_untyped_literal(node):
                literals.append((i, node.name))
            elif (text := exact_numeric_text(node, column)) is not None:
                literals.append((i, text))
            elif isinstance(node, exp.Null):
                nulls.append(i)
            elif (constant := typed_constant(node)) is not None:
                constants.setdefault(constant[0], []).append((i, constant[1]))
            else:
                pending.append(((i, j), node))
        if literals:
            typed = input_column([text for _, text in literals], column, options)
            pieces[j].append(([i for i, _ in literals], typed))
        if nulls:
            pieces[j].append((nulls, pa.nulls(len(nulls), column_type(column))))
        for dtype, items in constants.items():
            assigned = assign_column(pa.array([value for _, value in items], dtype), column)
            pieces[j].append(([i for i, _ in items], assigned))
    for start in range(0, len(pending), CHUNK):
        chunk = pending[start : start + CHUNK]
        result = evaluate([node for _, node in chunk])
        for k, ((i, j), _) in enumerate(chunk):
            pieces[j].append(([i], assign_column(result.column(k), columns[j])))
    return [_in_row_order(column_pieces, len(rows)) for column_pieces in pieces], len(rows)


def _in_row_order(pieces: list[tuple[list[int], pa.Array]], rows: int) -> pa.Array:
    """One column from pieces that each hold the values of some rows: concatenated once, then put in row order."""
    if len(pieces) == 1:
        return pieces[0][1]  # every row, in order
    combined = pa.concat_arrays([array for _, array in pieces])
    order = np.empty(rows, dtype=np.int64)
    offset = 0
    for positions, array in pieces:
        order[positions] = np.arange(offset, offset + len(array))
        offset += len(array)
    return combined.take(order)
