"""The fast path: a SELECT answered by looking up literal keys in a resident index, without a Spark job.

Contract:
- `fast_path(tree, state, names, timezone=)` returns a `FastPathPlan` when the statement is exactly
  `SELECT <plain columns, aliased columns or *> FROM <one relation> [alias] [WHERE <equalities>] [LIMIT n]` and
  the equalities bind, each once, exactly the key columns of an index on that relation whose key is plain
  columns of a supported type (`resident.KEY_TYPES`); the oldest such index wins. An equality is
  `col = value` or `value = col`; `col IN (values)` and `(c1, c2) IN ((v, v), …)` give several lookups; a
  value is a literal (number, string, boolean, NULL, `-n`, a cast of a string literal to the key's type family)
  or a parameter `$n` (optionally cast). No WHERE matches an index with the empty key. Anything else — joins,
  GROUP BY, ORDER BY, DISTINCT, OFFSET, CTEs, other predicates, unknown columns, cross-type comparisons
  PostgreSQL would refuse — gives None and the statement takes the normal path, which reports any error.
  Resolving the relation raises what the normal path would (42P01 for an unknown name).
- Literals are coerced at plan time with PostgreSQL's input rules for the key column's type (a string literal
  is read by the type's input function: `a = 'x'` on an integer raises 22P02 `invalid input syntax for type
  integer: "x"`); numbers compare by value across numeric types (`int_col = 2.0` matches 2, `= 2.5` nothing).
- `run_fast_path(plan, resident, state, snapshot, params)` looks the keys up (parameters are decoded Python
  values, coerced the same way at run time; NULL matches nothing) and returns the projected rows, named as
  PostgreSQL names the output columns, at most `limit` of them.
"""

from __future__ import annotations

import datetime as dt
import itertools
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

import pyarrow as pa
from sqlglot import exp
from sqlglot.optimizer.normalize_identifiers import normalize_identifiers

from sparkwire import errors as e
from sparkwire.catalog import CatalogState
from sparkwire.catalog.objects import Item
from sparkwire.notices.query import conjuncts, indexes_on
from sparkwire.pgtypes.options import EncodeOptions
from sparkwire.pgtypes.params import decode_text
from sparkwire.pgtypes.registry import parse_type_name, type_by_oid
from sparkwire.planner.bind.resolve import Names, is_table_function, resolve_table
from sparkwire.planner.execute.resident import (
    BOOL,
    BYTEA,
    DATE,
    FLOAT_TYPES,
    INT_TYPES,
    KEY_TYPES,
    NUMBER_TYPES,
    NUMERIC,
    TEXT_TYPES,
    TIME,
    TIMESTAMP,
    TIMESTAMPTZ,
    UUID,
    ResidentRelations,
    index_key_columns,
)
from sparkwire.planner.translate.duckdb import parameter_index
from sparkwire.storage import Snapshot

MAX_LOOKUPS = 10_000
"""More key combinations than this (IN lists multiply) and the statement takes the normal path."""

_SELECT_ARGS = frozenset({"expressions", "from_", "where", "limit"})
_TABLE_ARGS = frozenset({"this", "db", "catalog", "alias"})
_PARAM_TYPE_NAMES: tuple[tuple[type, str], ...] = (
    (bool, "boolean"),
    (int, "bigint"),
    (float, "double precision"),
    (Decimal, "numeric"),
    (str, "text"),
    (bytes, "bytea"),
    (dt.datetime, "timestamp with time zone"),
    (dt.date, "date"),
    (dt.time, "time without time zone"),
    (uuid.UUID, "uuid"),
)


@dataclass(frozen=True, slots=True)
class KeyValue:
    """A value a key column is compared with: a coerced literal (`value`, None for NULL) or parameter `$param`."""

    sql: str
    value: object = None
    param: int | None = None


@dataclass(frozen=True, slots=True)
class FastPathPlan:
    """Look up `rows` (full keys, in `key_columns` order) in index `index_id` on `relation_id`; output the
    relation columns `output` as (column, output name); keep at most `limit` rows."""

    index_id: str
    relation_id: str
    key_columns: tuple[str, ...]
    key_types: tuple[int, ...]
    rows: tuple[tuple[KeyValue, ...], ...]
    output: tuple[tuple[str, str], ...]
    limit: int | None
    timezone: str = "UTC"


class _NotFast(Exception):
    """The statement is not of the fast path's shape."""


def fast_path(tree: exp.Expr, state: CatalogState, names: Names, *, timezone: str = "UTC") -> FastPathPlan | None:
    if not isinstance(tree, exp.Select) or _extra_args(tree, _SELECT_ARGS):
        return None  # before the copy below: most statements are ruled out by their clauses alone
    try:
        return _plan(normalize_identifiers(tree.copy(), dialect="postgres"), state, names, timezone)
    except _NotFast:
        return None


def single_table(
    tree: exp.Expr, state: CatalogState, names: Names, clauses: frozenset[str] = _SELECT_ARGS
) -> tuple[Item, tuple[tuple[str, str], ...], int | None] | None:
    """(relation, output columns as (column, output name), LIMIT) of `SELECT <plain columns, aliased columns or *>
    FROM <one relation> [alias] [LIMIT n]` with no clause but `clauses`; None for any other statement."""
    if not isinstance(tree, exp.Select) or _extra_args(tree, clauses):
        return None
    try:
        tree = normalize_identifiers(tree.copy(), dialect="postgres")
        relation, scope = _relation(tree, state, names, clauses)
        output = tuple(pair for node in tree.expressions for pair in scope.projection(node))
        return relation, output, _limit(tree.args.get("limit"))
    except _NotFast:
        return None


def _relation(tree: exp.Expr, state: CatalogState, names: Names, clauses: frozenset[str]) -> tuple[Item, _Scope]:
    if not isinstance(tree, exp.Select) or _extra_args(tree, clauses):
        raise _NotFast
    from_ = tree.args.get("from_")
    source = from_.this if isinstance(from_, exp.From) else None
    if not isinstance(source, exp.Table) or is_table_function(source) or _extra_args(source, _TABLE_ARGS):
        raise _NotFast
    alias = source.args.get("alias")
    if alias is not None and alias.columns:
        raise _NotFast
    relation = resolve_table(source, state, names)
    if relation is None:
        raise _NotFast
    return relation, _Scope(relation, source.alias_or_name)


def _plan(tree: exp.Expr, state: CatalogState, names: Names, timezone: str) -> FastPathPlan:
    relation, scope = _relation(tree, state, names, _SELECT_ARGS)
    output = tuple(pair for node in tree.expressions for pair in scope.projection(node))
    where = tree.args.get("where")
    bound = scope.bindings(conjuncts(where.this if where is not None else None))
    index, key_columns = _matching_index(state, relation, frozenset(bound))
    types = {column.name: column.type_oid for column in relation.columns}
    key_types = tuple(types[c] for c in key_columns)
    options = EncodeOptions(timezone=timezone)
    groups = [
        (columns, [tuple(_coerce(v, types[c], options) for c, v in zip(columns, row, strict=True)) for row in rows])
        for columns, rows in dict.fromkeys(bound.values())
    ]
    rows = _key_rows(groups, key_columns)
    return FastPathPlan(
        index.id, relation.id, key_columns, key_types, rows, output, _limit(tree.args.get("limit")), timezone
    )


def _extra_args(node: exp.Expr, allowed: frozenset[str]) -> bool:
    return any(v for k, v in node.args.items() if k not in allowed)


_Binding = tuple[tuple[str, ...], tuple[tuple[exp.Expr, ...], ...]]


class _Scope:
    def __init__(self, relation: Item, alias: str) -> None:
        self.alias = alias
        self.columns = tuple(column.name for column in relation.columns)

    def column(self, node: exp.Expr) -> str:
        node = _unparen(node)
        if not isinstance(node, exp.Column) or node.args.get("db") or node.args.get("catalog"):
            raise _NotFast
        if (node.table and node.table != self.alias) or node.name not in self.columns:
            raise _NotFast
        return node.name

    def projection(self, node: exp.Expr) -> list[tuple[str, str]]:
        if isinstance(node, exp.Star) or (
            isinstance(node, exp.Column) and isinstance(node.this, exp.Star) and node.table == self.alias
        ):
            return [(c, c) for c in self.columns]
        if isinstance(node, exp.Alias):
            return [(self.column(node.this), node.alias)]
        name = self.column(node)
        return [(name, name)]

    def bindings(self, conditions: list[exp.Expr]) -> dict[str, _Binding]:
        """Column → (the columns bound together, their value rows); each column bound once."""
        bound: dict[str, _Binding] = {}
        for condition in conditions:
            binding = self._binding(condition)
            for column in binding[0]:
                if column in bound:
                    raise _NotFast
                bound[column] = binding
        return bound

    def _binding(self, condition: exp.Expr) -> _Binding:
        if isinstance(condition, exp.EQ):
            left, right = condition.this, condition.expression
            if not isinstance(_unparen(left), exp.Column):
                left, right = right, left
            return (self.column(left),), ((_value(right),),)
        if isinstance(condition, exp.In) and not any(
            condition.args.get(k) for k in ("query", "unnest", "field", "is_global")
        ):
            target = condition.this
            targets = target.expressions if isinstance(target, exp.Tuple) else [target]
            columns = tuple(self.column(t) for t in targets)
            rows = []
            for value in condition.expressions:
                row = tuple(value.expressions) if isinstance(value, exp.Tuple) else (value,)
                if len(row) != len(columns):
                    raise _NotFast
                rows.append(tuple(_value(v) for v in row))
            return columns, tuple(rows)
        raise _NotFast


def _param(node: exp.Expr) -> int | None:
    return parameter_index(node) if isinstance(node, exp.Expression) else None


def _unparen(node: exp.Expr) -> exp.Expr:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def _value(node: exp.Expr) -> exp.Expr:
    node = _unparen(node)
    inner = node.this if isinstance(node, exp.Cast | exp.Neg) else node
    if isinstance(node, exp.Neg) and not (isinstance(inner, exp.Literal) and not inner.is_string):
        raise _NotFast
    is_param = _param(inner) is not None
    if isinstance(inner, exp.Literal | exp.Boolean | exp.Null) or is_param:
        return node
    raise _NotFast


def _matching_index(state: CatalogState, relation: Item, bound: frozenset[str]) -> tuple[Item, tuple[str, ...]]:
    for index in indexes_on(state, relation.id):
        columns = index_key_columns(index, relation)
        if columns is None or len(set(columns)) != len(columns) or set(columns) != bound:
            continue
        types = {column.name: column.type_oid for column in relation.columns}
        if all(types[c] in KEY_TYPES for c in columns):
            return index, columns
    raise _NotFast


def _key_rows(
    groups: list[tuple[tuple[str, ...], list[tuple[KeyValue, ...]]]], key_columns: tuple[str, ...]
) -> tuple[tuple[KeyValue, ...], ...]:
    count = 1
    for _, rows in groups:
        count *= len(rows)
    if count > MAX_LOOKUPS:
        raise _NotFast
    order = [column for columns, _ in groups for column in columns]
    positions = [order.index(c) for c in key_columns]
    combined = (tuple(v for row in combo for v in row) for combo in itertools.product(*(r for _, r in groups)))
    return tuple(dict.fromkeys(tuple(row[p] for p in positions) for row in combined))


def _limit(node: exp.Expr | None) -> int | None:
    if node is None:
        return None
    count = node.expression if isinstance(node, exp.Limit) else None
    if not isinstance(count, exp.Literal) or count.is_string or not count.name.isdigit():
        raise _NotFast
    return int(count.name)


# ---- coercion ---------------------------------------------------------------------------------------------


def _family(oid: int) -> object:
    return "int" if oid in INT_TYPES else "text" if oid in TEXT_TYPES else oid


def _coerce(node: exp.Expr, key_oid: int, options: EncodeOptions) -> KeyValue:
    sql = node.sql(dialect="postgres")
    if isinstance(node, exp.Cast):
        cast_oid = parse_type_name(node.to.sql(dialect="postgres"))[0].oid
        if _family(cast_oid) != _family(key_oid):
            raise _NotFast
        inner = node.this
        index = _param(inner)
        if index is not None:
            return KeyValue(sql, param=index)
        if not isinstance(inner, exp.Literal):
            raise _NotFast
        return KeyValue(sql, _from_text(inner.name, cast_oid, key_oid, options))
    index = _param(node)
    if index is not None:
        return KeyValue(sql, param=index)
    if isinstance(node, exp.Null):
        return KeyValue(sql)
    if isinstance(node, exp.Boolean):
        if key_oid != BOOL:
            raise _NotFast
        return KeyValue(sql, bool(node.this))
    if isinstance(node, exp.Literal) and node.is_string:
        return KeyValue(sql, _from_text(node.name, key_oid, key_oid, options))
    negative = isinstance(node, exp.Neg)
    literal = node.this if negative else node
    if key_oid not in NUMBER_TYPES or not isinstance(literal, exp.Literal):
        raise _NotFast
    number: int | Decimal = int(literal.name) if literal.name.isdigit() else Decimal(literal.name)
    return KeyValue(sql, _number_for(-number if negative else number, key_oid))


def _from_text(text: str, type_oid: int, key_oid: int, options: EncodeOptions) -> object:
    value = decode_text(text, type_oid, options)
    if isinstance(value, int | Decimal) and not isinstance(value, bool):
        return _number_for(value, key_oid)
    return value


def _number_for(value: int | float | Decimal, key_oid: int) -> object:
    """PostgreSQL compares a float key as double precision, an integer or numeric key with a number by value, and
    a numeric key with a double as doubles: the double's shortest decimal spelling finds the same rows."""
    if key_oid in FLOAT_TYPES:
        return float(value)
    return Decimal(repr(value)) if key_oid == NUMERIC and isinstance(value, float) else value


def _param_type_name(value: object) -> str:
    return next(name for kind, name in _PARAM_TYPE_NAMES if isinstance(value, kind))


def coerce_param(value: object, key_oid: int, options: EncodeOptions) -> object:
    """A decoded parameter value as a key of a `key_oid` column (None for NULL); 42883 on a type PostgreSQL
    cannot compare with the column."""
    if value is None:
        return None
    if isinstance(value, str):
        return value if key_oid in TEXT_TYPES else decode_text(value, key_oid, options)
    expected: dict[int, type | tuple[type, ...]] = {
        BOOL: bool,
        BYTEA: bytes,
        DATE: dt.date,
        TIME: dt.time,
        TIMESTAMP: dt.datetime,
        TIMESTAMPTZ: dt.datetime,
        UUID: uuid.UUID,
    }
    if key_oid in NUMBER_TYPES and isinstance(value, int | float | Decimal) and not isinstance(value, bool):
        return _number_for(value, key_oid)
    wanted = expected.get(key_oid)
    if wanted is not None and isinstance(value, wanted) and (key_oid != DATE or not isinstance(value, dt.datetime)):
        return str(value) if isinstance(value, uuid.UUID) else value
    raise e.UndefinedFunction(
        f"operator does not exist: {type_by_oid(key_oid).display} = {_param_type_name(value)}",
        hint="No operator matches the given name and argument types. You might need to add explicit type casts.",
    )


# ---- execution --------------------------------------------------------------------------------------------


def run_fast_path(
    plan: FastPathPlan,
    resident: ResidentRelations,
    state: CatalogState,
    snapshot: Snapshot,
    params: Sequence[object] = (),
) -> pa.Table:
    options = EncodeOptions(timezone=plan.timezone)

    def value_of(key: KeyValue, key_oid: int) -> object:
        if key.param is None:
            return key.value
        if not 1 <= key.param <= len(params):
            raise e.UndefinedParameter(f"there is no parameter ${key.param}")
        return coerce_param(params[key.param - 1], key_oid, options)

    keys = [tuple(value_of(v, oid) for v, oid in zip(row, plan.key_types, strict=True)) for row in plan.rows]
    found = resident.index(state.items[plan.index_id], state, snapshot).lookup_many(keys)
    names = found.schema.names
    table = found.select([names.index(column) for column, _ in plan.output])
    table = table.rename_columns([name for _, name in plan.output])
    return table if plan.limit is None else table.slice(0, plan.limit)
