"""The activity log's newest rows in memory, newest first: an arrangement that answers its top-N peeks.

Contract: `RecentActivity` holds the newest `CAPACITY` rows of mz_internal.mz_recent_activity_log as an Arrow table,
exactly as DuckDB answers `SELECT * … ORDER BY began_at DESC LIMIT CAPACITY` (the history's writer runs that after
each batch it commits, on its own thread: `set(columns, table, complete)`), and whether that is every row of the
log. `answer(tree)` answers a statement of exactly the shape monitoring polls —

    SELECT <*, plain or aliased columns> FROM mz_internal.mz_recent_activity_log[_redacted] [alias]
    ORDER BY began_at DESC [NULLS FIRST | LAST] [LIMIT n] [OFFSET m]

(literal n and m; without LIMIT only while the table holds the whole log) — from that table, as the same DuckDB
columns and Arrow batches the store would return; anything else, or rows beyond what it holds, is None and the
statement takes the store's path. The caller decides whether a statement may read from here (no row filter of
RBAC's, no transaction snapshot, no AS OF): a commit of the writer's is one snapshot, and this is the last one.

Why (issue 14): DuckDB binds the 32-column view, runs its top-N over the newest row group and exports each column
at a fixed cost of its own, ~3 ms of the ~8 ms this query cost the server, twice PostgreSQL's whole answer; the
writer pays that once per batch instead of every reader on every poll. `began_at` is never NULL, so the NULLS
placement does not change the order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa
from sqlglot import exp

from sparkwire.catalog.relations.mz_history import (
    ACTIVITY_COLUMNS,
    ACTIVITY_LOG,
    ACTIVITY_LOG_REDACTED,
    REDACTED_COLUMNS,
)
from sparkwire.engine.base import Column

CAPACITY = 500
"""Rows held: more than a console page (100) or a psql screen, few enough that the writer's query stays cheap."""

_SCHEMA = "mz_internal"
_RELATIONS = {
    ACTIVITY_LOG: tuple(name for name, _ in ACTIVITY_COLUMNS),
    ACTIVITY_LOG_REDACTED: tuple(name for name, _ in REDACTED_COLUMNS),
}
_SELECT_ARGS = frozenset({"expressions", "from_", "order", "limit", "offset"})
_TABLE_ARGS = frozenset({"this", "db", "catalog", "alias"})
_ORDER_COLUMN = "began_at"


@dataclass(frozen=True, slots=True)
class _Held:
    columns: tuple[Column, ...]  # the activity log's, as DuckDB types them
    table: pa.Table  # newest first
    complete: bool  # the table holds every row of the log


@dataclass(frozen=True, slots=True)
class _TopN:
    relation: str
    output: tuple[tuple[str, str], ...]  # (column, output name)
    limit: int | None
    offset: int


class RecentActivity:
    def __init__(self) -> None:
        self._held: _Held | None = None

    def set(self, columns: Sequence[Column], table: pa.Table, complete: bool) -> None:
        """What the writer's connection answered after its last commit (one assignment: readers see all or none)."""
        self._held = _Held(tuple(columns), table, complete)

    def clear(self) -> None:
        """Nothing is held (the writer could not read the log back): every statement takes the store's path."""
        self._held = None

    def answer(self, tree: exp.Expr | None) -> tuple[list[Column], list[pa.RecordBatch]] | None:
        held = self._held
        shape = _top_n(tree) if held is not None and tree is not None else None
        if held is None or shape is None:
            return None
        rows = held.table.num_rows
        end = None if shape.limit is None else shape.offset + shape.limit
        if not held.complete and (end is None or end > rows):
            return None  # the log holds more rows than are kept here: the store answers
        index = {column.name: i for i, column in enumerate(held.columns)}
        picked = [index[name] for name, _ in shape.output]
        start = min(shape.offset, rows)
        table = held.table.slice(start, (rows if end is None else min(end, rows)) - start)
        table = table.select(picked).rename_columns([out for _, out in shape.output])
        columns = [Column(out, held.columns[i].engine_type) for i, (_, out) in zip(picked, shape.output, strict=True)]
        return columns, table.to_batches()


def _name(node: exp.Expr | None) -> str | None:
    """An identifier as PostgreSQL folds it (unquoted: lower case)."""
    if not isinstance(node, exp.Identifier):
        return None
    text = str(node.this)
    return text if node.quoted else text.lower()


def _extra(node: exp.Expr, allowed: frozenset[str]) -> bool:
    return any(value not in (None, [], False) for key, value in node.args.items() if key not in allowed)


def _int(node: exp.Expr | None) -> int | None:
    value = node.args.get("expression") if isinstance(node, exp.Limit | exp.Offset) else None
    if not isinstance(value, exp.Literal) or value.is_string or not value.this.isdigit():
        return None
    return int(value.this)


def _top_n(tree: exp.Expr) -> _TopN | None:
    if not isinstance(tree, exp.Select) or _extra(tree, _SELECT_ARGS) or tree.args.get("order") is None:
        return None
    from_ = tree.args.get("from_")
    table = from_.this if isinstance(from_, exp.From) else None
    if not isinstance(table, exp.Table) or _extra(table, _TABLE_ARGS) or not isinstance(table.this, exp.Identifier):
        return None
    relation, schema = _name(table.this), _name(table.args.get("db"))
    catalog = table.args.get("catalog")
    if schema != _SCHEMA or relation not in _RELATIONS or (catalog is not None and _name(catalog) != "materialize"):
        return None
    alias = table.args.get("alias")
    if alias is not None and (alias.columns or not isinstance(alias.this, exp.Identifier)):
        return None
    qualifier = _name(alias.this) if alias is not None else relation
    names = _RELATIONS[relation]
    output = _projection(tree.expressions, names, qualifier)
    if output is None or not _newest_first(tree.args["order"], qualifier):
        return None
    limit_node, offset_node = tree.args.get("limit"), tree.args.get("offset")
    limit = _int(limit_node) if limit_node is not None else None
    offset = _int(offset_node) if offset_node is not None else 0
    if (limit_node is not None and limit is None) or offset is None:
        return None
    return _TopN(relation, output, limit, offset)


def _column(node: exp.Expr, names: tuple[str, ...], qualifier: str | None) -> str | None:
    if not isinstance(node, exp.Column) or _extra(node, frozenset({"this", "table"})):
        return None
    table = node.args.get("table")
    if table is not None and _name(table) != qualifier:
        return None
    name = _name(node.this)
    return name if name in names else None


def _projection(
    items: list[exp.Expr], names: tuple[str, ...], qualifier: str | None
) -> tuple[tuple[str, str], ...] | None:
    output: list[tuple[str, str]] = []
    for item in items:
        if isinstance(item, exp.Star) and not _extra(item, frozenset()):
            output.extend((name, name) for name in names)
        elif isinstance(item, exp.Column) and isinstance(item.this, exp.Star):
            if _extra(item, frozenset({"this", "table"})) or _name(item.args.get("table")) != qualifier:
                return None
            output.extend((name, name) for name in names)
        elif isinstance(item, exp.Alias) and (alias := _name(item.args.get("alias"))) is not None:
            column = _column(item.this, names, qualifier)
            if column is None:
                return None
            output.append((column, alias))
        elif (column := _column(item, names, qualifier)) is not None:
            output.append((column, column))
        else:
            return None
    return tuple(output) or None


def _newest_first(order: exp.Expr, qualifier: str | None) -> bool:
    if not isinstance(order, exp.Order) or _extra(order, frozenset({"expressions"})) or len(order.expressions) != 1:
        return False
    ordered = order.expressions[0]
    if not isinstance(ordered, exp.Ordered) or not ordered.args.get("desc"):
        return False
    if _extra(ordered, frozenset({"this", "desc", "nulls_first"})):
        return False
    return _column(ordered.this, (_ORDER_COLUMN,), qualifier) == _ORDER_COLUMN
