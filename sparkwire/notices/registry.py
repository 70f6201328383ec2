"""The one list of optimizer notice types and their detection passes, in the order they run.

Contract: `NOTICE_TYPES` holds every notice class in the package (a test checks that each notice module is
listed here and has its docs page); `INDEX_PASSES` run on a new index (`IndexInput`), `QUERY_PASSES` on a
SELECT or the query of a view / materialized view (`QueryInput`). Passes are pure functions returning raw
notices; `detect_index` / `detect_query` run them in order, skipping kinds `enabled` turns off (the
`enable_notices_for_<kind>` settings).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sparkwire.notices import (
    cross_join,
    equals_null,
    index_already_exists,
    index_key_empty,
    index_too_wide_for_literal_constraints,
    indexed_column_in_expression,
    join_key_type_mismatch,
    order_by_without_limit,
)
from sparkwire.notices.base import RawNotice
from sparkwire.notices.query import IndexInput, QueryInput

IndexPass = Callable[[IndexInput], Sequence[RawNotice]]
QueryPass = Callable[[QueryInput], Sequence[RawNotice]]

NOTICE_TYPES: tuple[type[RawNotice], ...] = (
    index_already_exists.IndexAlreadyExists,
    index_key_empty.IndexKeyEmpty,
    index_too_wide_for_literal_constraints.IndexTooWideForLiteralConstraints,
    equals_null.EqualsNull,
    cross_join.CrossJoin,
    indexed_column_in_expression.IndexedColumnInExpression,
    join_key_type_mismatch.JoinKeyTypeMismatch,
    order_by_without_limit.OrderByWithoutLimit,
)

INDEX_PASSES: tuple[tuple[type[RawNotice], IndexPass], ...] = (
    (index_key_empty.IndexKeyEmpty, index_key_empty.detect),
    (index_already_exists.IndexAlreadyExists, index_already_exists.detect),
)

QUERY_PASSES: tuple[tuple[type[RawNotice], QueryPass], ...] = (
    (equals_null.EqualsNull, equals_null.detect),
    (
        index_too_wide_for_literal_constraints.IndexTooWideForLiteralConstraints,
        index_too_wide_for_literal_constraints.detect,
    ),
    (indexed_column_in_expression.IndexedColumnInExpression, indexed_column_in_expression.detect),
    (cross_join.CrossJoin, cross_join.detect),
    (join_key_type_mismatch.JoinKeyTypeMismatch, join_key_type_mismatch.detect),
    (order_by_without_limit.OrderByWithoutLimit, order_by_without_limit.detect),
)

KINDS: frozenset[str] = frozenset(t.kind for t in NOTICE_TYPES)


def _everything(kind: str) -> bool:
    return True


def detect_index(source: IndexInput, enabled: Callable[[str], bool] = _everything) -> list[RawNotice]:
    return [n for notice_type, run in INDEX_PASSES if enabled(notice_type.kind) for n in run(source)]


def detect_query(source: QueryInput, enabled: Callable[[str], bool] = _everything) -> list[RawNotice]:
    return [n for notice_type, run in QUERY_PASSES if enabled(notice_type.kind) for n in run(source)]
