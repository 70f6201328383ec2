"""OrderByWithoutLimit: ORDER BY without LIMIT in view definitions and subqueries, with redaction; the outermost
ORDER BY of a SELECT, ORDER BY with LIMIT/OFFSET/FETCH and window/aggregate orderings stay quiet."""

from __future__ import annotations

import pytest

from sparkwire.catalog import Catalog
from tests.notices.test_notices_catalog import catalog, redacted, select_notices, table, texts, view_notices

__all__ = ["catalog"]

KIND = "order_by_without_limit"


def test_view_definition_texts(catalog: Catalog) -> None:
    table(catalog, "t", "a, b")
    (notice,) = view_notices(catalog, "CREATE MATERIALIZED VIEW mv AS SELECT a FROM t ORDER BY a DESC, b", KIND)
    assert notice.notice_type == "ORDER BY without LIMIT"
    assert texts(notice) == (
        "`ORDER BY a DESC, b` without LIMIT in a view or subquery does not order the rows its readers see, but "
        "Spark still sorts them with a full shuffle.",
        "Order the outermost query that reads the rows instead, or add a LIMIT if you want the first rows.",
        "Remove the ORDER BY clause from the definition and re-create the object.",
    )
    assert notice.action_type == "plain_text"
    assert redacted(notice) == (None, None, None)
    assert notice.dependency_ids == ()


def test_positional_and_expression_orderings_are_redacted(catalog: Catalog) -> None:
    table(catalog, "t", "a")
    (notice,) = view_notices(catalog, "CREATE MATERIALIZED VIEW mv AS SELECT a FROM t ORDER BY 1, a % 10", KIND)
    assert notice.message.startswith("`ORDER BY 1, (a % 10)` without LIMIT")
    assert notice.redacted_message is not None
    assert notice.redacted_message.startswith("`ORDER BY █, (a % █)` without LIMIT")


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM (SELECT a FROM t ORDER BY a) s",
        "SELECT * FROM t WHERE a IN (SELECT a FROM t ORDER BY a)",
        "WITH c AS (SELECT a FROM t ORDER BY a) SELECT * FROM c",
    ],
)
def test_subqueries_of_a_select(catalog: Catalog, sql: str) -> None:
    table(catalog, "t", "a")
    (notice,) = select_notices(catalog, sql, KIND)
    assert notice.message.startswith("`ORDER BY a` without LIMIT")


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT a FROM t ORDER BY a",
        "SELECT * FROM (SELECT a FROM t ORDER BY a LIMIT 3) s",
        "SELECT * FROM (SELECT a FROM t ORDER BY a OFFSET 3) s",
        "SELECT * FROM (SELECT a FROM t ORDER BY a FETCH FIRST 3 ROWS ONLY) s",
        "SELECT a, row_number() OVER (ORDER BY a) FROM t",
        "SELECT array_agg(a ORDER BY a) FROM t",
    ],
)
def test_meaningful_orderings(catalog: Catalog, sql: str) -> None:
    table(catalog, "t", "a")
    assert select_notices(catalog, sql, KIND) == []


def test_view_definition_with_limit_is_fine(catalog: Catalog) -> None:
    table(catalog, "t", "a")
    assert view_notices(catalog, "CREATE MATERIALIZED VIEW mv AS SELECT a FROM t ORDER BY a LIMIT 10", KIND) == []
