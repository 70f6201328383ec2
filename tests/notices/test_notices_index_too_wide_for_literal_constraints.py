"""IndexTooWideForLiteralConstraints: every literal-equality shape with exact texts and redaction, views and
SELECTs, and the cases where an index serves the lookup or nothing is constrained."""

from __future__ import annotations

import pytest

from sparkwire.catalog import Catalog
from tests.notices.test_notices_catalog import (
    catalog,
    index,
    redacted,
    schema,
    select_notices,
    table,
    texts,
    view_notices,
)

__all__ = ["catalog"]

KIND = "index_too_wide_for_literal_constraints"
HINT = (
    "If your literal equalities filter out many rows, create an index whose key exactly matches your literal "
    "equalities: "
)


def test_single_equality_on_t6_with_materialize_texts(catalog: Catalog) -> None:
    t6 = table(catalog, "t6", "x, y")
    i = index(catalog, "t6_idx_x_y", t6, ["x", "y"])
    (notice,) = select_notices(catalog, "SELECT * FROM t6 WHERE x = 5", KIND)
    assert notice.notice_type == "Index too wide for literal constraints"
    assert texts(notice) == (
        "Index materialize.public.t6_idx_x_y on t6(x, y) is too wide to use for literal equalities `x = 5`.",
        HINT + "(x).",
        "CREATE INDEX ON t6(x);",
    )
    assert notice.action_type == "sql_statements"
    assert redacted(notice) == (
        "Index materialize.public.t6_idx_x_y on t6(x, y) is too wide to use for literal equalities `x = █`.",
        None,
        None,
    )
    assert notice.dependency_ids == (i, t6)


@pytest.mark.parametrize(
    ("where", "equalities", "redacted_equalities", "key"),
    [
        ("x = 5", "x = 5", "x = █", "x"),
        ("5 = x", "x = 5", "x = █", "x"),
        ("(x = -5)", "x = -5", "x = -█", "x"),
        ("y IN (4, 8)", "y IN (4, 8)", "y IN (█, █)", "y"),
        ("y = 4 OR y = 8", "y IN (4, 8)", "y IN (█, █)", "y"),
        ("x = 1 AND y = 2", "x = 1 AND y = 2", "x = █ AND y = █", "x, y"),
        ("y = 2 AND x = 1", "x = 1 AND y = 2", "x = █ AND y = █", "x, y"),
        ("(y, z) IN ((2, 3), (5, 7))", "(y, z) IN ((2, 3), (5, 7))", "(y, z) IN ((█, █), (█, █))", "y, z"),
        ("(y = 2 AND z = 3) OR (y = 5 AND z = 7)", "(y, z) IN ((2, 3), (5, 7))", "(y, z) IN ((█, █), (█, █))", "y, z"),
        ("y IN (2, 5) AND z = 3", "(y, z) IN ((2, 3), (5, 3))", "(y, z) IN ((█, █), (█, █))", "y, z"),
        ("y = 1 AND v = 2", "y = 1", "y = █", "y, v"),
        ("y = 1 AND x > 2", "y = 1", "y = █", "y"),
    ],
)
def test_every_literal_equality_shape(
    catalog: Catalog, where: str, equalities: str, redacted_equalities: str, key: str
) -> None:
    t = table(catalog, "t", "x, y, z, v")
    index(catalog, "t_xyz", t, ["x", "y", "z"])
    (notice,) = select_notices(catalog, f"SELECT * FROM t WHERE {where}", KIND)
    prefix = "Index materialize.public.t_xyz on t(x, y, z) is too wide to use for literal equalities "
    assert texts(notice) == (f"{prefix}`{equalities}`.", f"{HINT}({key}).", f"CREATE INDEX ON t({key});")
    assert notice.redacted_message == f"{prefix}`{redacted_equalities}`."


def test_issue_shapes_a_b_and_y_z(catalog: Catalog) -> None:
    t = table(catalog, "t", "a, b, c")
    index(catalog, "t_idx_a_b_c", t, ["a", "b", "c"])
    (notice,) = select_notices(catalog, "SELECT * FROM t WHERE a = 1 AND b = 2", KIND)
    assert notice.message == (
        "Index materialize.public.t_idx_a_b_c on t(a, b, c) is too wide to use for literal equalities "
        "`a = 1 AND b = 2`."
    )
    assert notice.hint == HINT + "(a, b)."
    assert notice.action == "CREATE INDEX ON t(a, b);"


def test_string_literals_and_expression_keys_are_redacted(catalog: Catalog) -> None:
    t = table(catalog, "t", "a, b")
    index(catalog, "t_expr", t, ["a + 7", "b"])
    (notice,) = select_notices(catalog, "SELECT * FROM t WHERE a+7 = '12'", KIND)
    assert texts(notice) == (
        "Index materialize.public.t_expr on t((a + 7), b) is too wide to use for literal equalities `(a + 7) = '12'`.",
        HINT + "((a + 7)).",
        "CREATE INDEX ON t((a + 7));",
    )
    assert redacted(notice) == (
        "Index materialize.public.t_expr on t((a + █), b) is too wide to use for literal equalities `(a + █) = █`.",
        HINT + "((a + █)).",
        "CREATE INDEX ON t((a + █));",
    )


def test_materialized_view_definition_and_qualified_names(catalog: Catalog) -> None:
    other = schema(catalog, "analytics")
    t6 = table(catalog, "t6", "x, y")
    i = index(catalog, "t6_idx_x_y", t6, ["x", "y"], schema=other)
    (notice,) = view_notices(catalog, "CREATE MATERIALIZED VIEW mv AS SELECT q.y FROM t6 AS q WHERE q.x = 5", KIND)
    assert notice.message.startswith("Index materialize.analytics.t6_idx_x_y on t6(x, y) is too wide")
    assert notice.object_id is not None and notice.object_id != i
    assert notice.dependency_ids == (i, t6)


def test_constraint_on_one_side_of_a_join(catalog: Catalog) -> None:
    t6 = table(catalog, "t6", "x, y")
    table(catalog, "u", "k")
    index(catalog, "t6_idx_x_y", t6, ["x", "y"])
    (notice,) = select_notices(catalog, "SELECT * FROM u JOIN t6 ON u.k = t6.y WHERE t6.x = 5 AND u.k = 3", KIND)
    assert notice.message.endswith("literal equalities `x = 5`.")


def test_the_widest_usable_index_is_reported_once(catalog: Catalog) -> None:
    t = table(catalog, "t", "x, y, z, w")
    index(catalog, "t_xz", t, ["x", "z"])  # binds fewer constrained expressions
    index(catalog, "t_xyzw", t, ["x", "y", "z", "w"])  # wider than needed
    index(catalog, "t_xyz", t, ["x", "y", "z"])
    (notice,) = select_notices(catalog, "SELECT * FROM t WHERE x = 1 AND y = 2", KIND)
    assert notice.message == (
        "Index materialize.public.t_xyz on t(x, y, z) is too wide to use for literal equalities `x = 1 AND y = 2`."
    )


@pytest.mark.parametrize(
    "where",
    [
        "x = 5 AND y = 6",  # the index serves the lookup exactly
        "y = 6 AND x = 5 AND z = 1",  # the index key is bound entirely (the rest is a filter)
        "x = y",  # not a literal
        "x > 5",  # not an equality
        "x = 5 OR y = 6",  # different expressions in the branches
        "z = 5",  # no index has z in its key
        "x IN (SELECT 1)",  # a subquery, not literals
        "x NOT IN (1, 2)",
    ],
)
def test_no_notice_when_an_index_serves_or_nothing_usable_is_constrained(catalog: Catalog, where: str) -> None:
    t = table(catalog, "t", "x, y, z")
    index(catalog, "t_xy", t, ["x", "y"])
    assert select_notices(catalog, f"SELECT * FROM t WHERE {where}", KIND) == []


def test_a_narrower_index_serving_the_lookup_silences_the_wide_one(catalog: Catalog) -> None:
    t = table(catalog, "t", "x, y")
    index(catalog, "t_xy", t, ["x", "y"])
    assert len(select_notices(catalog, "SELECT * FROM t WHERE x = 5", KIND)) == 1
    index(catalog, "t_x", t, ["x"])
    assert select_notices(catalog, "SELECT * FROM t WHERE x = 5", KIND) == []


def test_relations_without_indexes_or_catalog_items_are_ignored(catalog: Catalog) -> None:
    table(catalog, "t", "x, y")
    assert select_notices(catalog, "SELECT * FROM t WHERE x = 5", KIND) == []
    assert select_notices(catalog, "SELECT * FROM (SELECT 1 AS x) s WHERE x = 5", KIND) == []
