"""CrossJoin: join stages without an equality key (CROSS JOIN, unconnected comma joins, non-equi joins),
worded for Spark, and the joins that have a key (ON/WHERE equalities, USING, NATURAL, reorderable chains)."""

from __future__ import annotations

import pytest

from sparkwire.catalog import Catalog
from tests.notices.test_notices_catalog import catalog, redacted, select_notices, table, texts, view_notices

__all__ = ["catalog"]

KIND = "cross_join"


def test_cross_join_texts(catalog: Catalog) -> None:
    a = table(catalog, "a", "x, y")
    b = table(catalog, "b", "x, z")
    (notice,) = select_notices(catalog, "SELECT * FROM a CROSS JOIN b", KIND)
    assert notice.notice_type == "Cross join"
    assert texts(notice) == (
        "The join with materialize.public.b has no equality condition on the relations joined before it, so it "
        "runs as a cartesian product (a broadcast nested loop join on Spark).",
        "A cross join's cost grows with the product of its input sizes and it cannot be partitioned. Join on an "
        "equality between the relations if there is one; otherwise shrink the inputs first.",
        "Add an equality condition between materialize.public.b and the relations joined before it.",
    )
    assert notice.action_type == "plain_text"
    assert redacted(notice) == (None, None, None)
    assert notice.dependency_ids == (a, b)


@pytest.mark.parametrize(
    ("from_", "joined"),
    [
        ("a, b", "materialize.public.b"),
        ("a JOIN b ON a.x < b.x", "materialize.public.b"),
        ("a JOIN b ON a.x <> b.x AND b.z > 3", "materialize.public.b"),
        ("a JOIN b ON TRUE", "materialize.public.b"),
        ("a LEFT JOIN b ON a.y > b.z", "materialize.public.b"),
        ("a JOIN b p ON a.x BETWEEN p.x AND p.z", "materialize.public.b AS p"),
        ("a p, a q WHERE p.x = 1", "materialize.public.a AS q"),
        ("a, b, c WHERE a.x = b.x", "materialize.public.c"),
        ("a, (SELECT 1 AS k) s WHERE a.x = 1", "subquery s"),
    ],
)
def test_join_stages_without_an_equality_key(catalog: Catalog, from_: str, joined: str) -> None:
    for name in "abc":
        table(catalog, name, "x, y, z")
    (notice,) = select_notices(catalog, f"SELECT 1 FROM {from_}", KIND)
    assert notice.message.startswith(f"The join with {joined} has no equality condition")


def test_in_a_materialized_view_and_in_subqueries(catalog: Catalog) -> None:
    table(catalog, "a", "x")
    table(catalog, "b", "x")
    (notice,) = view_notices(catalog, "CREATE MATERIALIZED VIEW mv AS SELECT * FROM (SELECT 1 FROM a, b) s", KIND)
    assert notice.object_id is not None


@pytest.mark.parametrize(
    "from_",
    [
        "a",
        "a JOIN b ON a.x = b.x",
        "a JOIN b ON b.x = a.x AND a.y < b.y",
        "a, b WHERE a.x = b.x",
        "a JOIN b USING (x)",
        "a NATURAL JOIN b",
        "a LEFT JOIN b ON a.x = b.x",
        "a, b, c WHERE a.x = c.x AND b.y = c.y",
        "a JOIN b ON a.x + 1 = b.x * 2",
        "a p JOIN a q ON p.x = q.x",
    ],
)
def test_joins_with_an_equality_key(catalog: Catalog, from_: str) -> None:
    for name in "abc":
        table(catalog, name, "x, y, z")
    assert select_notices(catalog, f"SELECT 1 FROM {from_}", KIND) == []
