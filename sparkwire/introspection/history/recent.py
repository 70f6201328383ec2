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

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

import pyarrow as pa
from sqlglot import exp

from sparkwire.catalog.relations.mz_history import (
    ACTIVITY_COLUMNS,
    ACTIVITY_LOG,
    ACTIVITY_LOG_REDACTED,
    REDACTED_COLUMNS,
)
from sparkwire.engine.base import Column
from sparkwire.introspection.peeks import Answer, column_of, extra, projection, relation_of, remembered, select

CAPACITY = 500
"""Rows held: more than a console page (100) or a psql screen, few enough that the writer's query stays cheap."""

_RELATIONS = {
    ("mz_internal", ACTIVITY_LOG): tuple(name for name, _ in ACTIVITY_COLUMNS),
    ("mz_internal", ACTIVITY_LOG_REDACTED): tuple(name for name, _ in REDACTED_COLUMNS),
}
_CLAUSES = frozenset({"order", "limit", "offset"})
_ORDER_COLUMN = "began_at"


@dataclass(frozen=True, slots=True)
class _Held:
    columns: tuple[Column, ...]  # the activity log's, as DuckDB types them
    table: pa.Table  # newest first
    complete: bool  # the table holds every row of the log
    answers: dict[Hashable, Answer] = field(default_factory=dict)  # given from this table (peeks.remembered)


@dataclass(frozen=True, slots=True)
class _TopN:
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

    def answer(self, tree: exp.Expr) -> Answer | None:
        held = self._held
        shape = _top_n(tree) if held is not None else None
        if held is None or shape is None:
            return None
        rows = held.table.num_rows
        end = None if shape.limit is None else shape.offset + shape.limit
        if not held.complete and (end is None or end > rows):
            return None  # the log holds more rows than are kept here: the store answers
        start = min(shape.offset, rows)
        stop = rows if end is None else min(end, rows)
        return remembered(
            held.answers,
            (start, stop, shape.output),
            lambda: select(held.table.slice(start, stop - start), list(held.columns), shape.output),
        )


def _int(node: exp.Expr | None) -> int | None:
    value = node.args.get("expression") if isinstance(node, exp.Limit | exp.Offset) else None
    if not isinstance(value, exp.Literal) or value.is_string or not value.this.isdigit():
        return None
    return int(value.this)


def _top_n(tree: exp.Expr) -> _TopN | None:
    found = relation_of(tree, _RELATIONS, _CLAUSES)
    if found is None or tree.args.get("order") is None:
        return None
    schema, relation, qualifier = found
    output = projection(tree.expressions, _RELATIONS[(schema, relation)], qualifier)
    if output is None or not _newest_first(tree.args["order"], qualifier):
        return None
    limit_node, offset_node = tree.args.get("limit"), tree.args.get("offset")
    limit = _int(limit_node) if limit_node is not None else None
    offset = _int(offset_node) if offset_node is not None else 0
    if (limit_node is not None and limit is None) or offset is None:
        return None
    return _TopN(output, limit, offset)


def _newest_first(order: exp.Expr, qualifier: str | None) -> bool:
    if not isinstance(order, exp.Order) or extra(order, frozenset({"expressions"})) or len(order.expressions) != 1:
        return False
    ordered = order.expressions[0]
    if not isinstance(ordered, exp.Ordered) or not ordered.args.get("desc"):
        return False
    if extra(ordered, frozenset({"this", "desc", "nulls_first"})):
        return False
    return column_of(ordered.this, (_ORDER_COLUMN,), qualifier) == _ORDER_COLUMN
