"""EqualsNull: every comparison shape with a literal NULL (=, <>, !=, IN, NOT IN, NULLIF), once per query, and
the NULL tests and NULL uses that are fine."""

from __future__ import annotations

import pytest

from sparkwire.catalog import Catalog
from tests.notices.test_notices_catalog import catalog, redacted, select_notices, table, texts, view_notices

__all__ = ["catalog"]

KIND = "equals_null"


@pytest.mark.parametrize(
    "where",
    [
        "a = NULL",
        "NULL = a",
        "a <> NULL",
        "a != NULL",
        "a = (NULL)",
        "a IN (1, NULL)",
        "a NOT IN (1, NULL)",
        "NULLIF(a, NULL) = 1",
        "NULLIF(NULL, a) IS NULL",
        "a = 1 OR b = NULL",
        "a IN (SELECT b FROM t WHERE b <> NULL)",
    ],
)
def test_comparisons_with_null_are_reported(catalog: Catalog, where: str) -> None:
    table(catalog, "t", "a, b")
    (notice,) = select_notices(catalog, f"SELECT * FROM t WHERE {where}", KIND)
    assert notice.notice_type == "Comparison with NULL"
    assert texts(notice) == (
        "Comparison with NULL using `=`, `<>`, or `!=` always evaluates to NULL.",
        "Use `IS NULL` or `IS NOT NULL` instead.",
        None,
    )
    assert (notice.action_type, notice.dependency_ids) == (None, ())
    assert redacted(notice) == (None, None, None)


def test_reported_once_per_query_and_in_join_conditions_and_views(catalog: Catalog) -> None:
    table(catalog, "t", "a, b")
    assert len(select_notices(catalog, "SELECT * FROM t x JOIN t y ON x.a = y.a AND y.b = NULL WHERE x.a = NULL")) == 1
    assert len(view_notices(catalog, "CREATE MATERIALIZED VIEW mv AS SELECT a FROM t WHERE b <> NULL", KIND)) == 1


@pytest.mark.parametrize(
    "where",
    [
        "a IS NULL",
        "a IS NOT NULL",
        "a = 1",
        "a IN (1, 2)",
        "NULLIF(a, 0) = 1",
        "COALESCE(a, NULL) = 1",
        "a IS DISTINCT FROM NULL",
        "a = b",
    ],
)
def test_null_tests_and_other_null_uses_are_fine(catalog: Catalog, where: str) -> None:
    table(catalog, "t", "a, b")
    assert select_notices(catalog, f"SELECT * FROM t WHERE {where}", KIND) == []
