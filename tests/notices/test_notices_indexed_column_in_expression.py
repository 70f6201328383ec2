"""IndexedColumnInExpression: a literal equality on a function/cast/arithmetic of an indexed column, with exact
texts and redaction, and the cases where the index can be used or another index covers the expression."""

from __future__ import annotations

import pytest

from sparkwire.catalog import Catalog
from tests.notices.test_notices_catalog import TEXT, catalog, index, redacted, select_notices, table, texts

__all__ = ["catalog"]

KIND = "indexed_column_in_expression"


def test_function_over_indexed_column_texts(catalog: Catalog) -> None:
    people = table(catalog, "people", "name, city", types=TEXT)
    i = index(catalog, "people_name", people, ["name"])
    (notice,) = select_notices(catalog, "SELECT * FROM people WHERE LOWER(name) = 'ada'", KIND)
    assert notice.notice_type == "Indexed column wrapped in an expression"
    assert texts(notice) == (
        "Index materialize.public.people_name on people(name) cannot be used for the literal equality "
        "`lower(name) = 'ada'` because it wraps the indexed column name in an expression.",
        "Compare the indexed column itself, or create an index on the expression: (lower(name)).",
        "CREATE INDEX ON people(lower(name));",
    )
    assert notice.action_type == "sql_statements"
    assert redacted(notice) == (
        "Index materialize.public.people_name on people(name) cannot be used for the literal equality "
        "`lower(name) = █` because it wraps the indexed column name in an expression.",
        None,
        None,
    )
    assert notice.dependency_ids == (i, people)


@pytest.mark.parametrize(
    ("where", "equality", "expression"),
    [
        ("upper(name) IN ('A', 'B')", "upper(name) IN ('A', 'B')", "upper(name)"),
        ("CAST(name AS int) = 5", "CAST(name AS INT) = 5", "CAST(name AS INT)"),
        ("substr(name, 1, 2) = 'ad'", "SUBSTRING(name FROM 1 FOR 2) = 'ad'", "SUBSTRING(name FROM 1 FOR 2)"),
        ("name || 'x' = 'adax'", "(name || 'x') = 'adax'", "(name || 'x')"),
    ],
)
def test_expression_shapes(catalog: Catalog, where: str, equality: str, expression: str) -> None:
    people = table(catalog, "people", "name", types=TEXT)
    index(catalog, "people_name", people, ["name"])
    (notice,) = select_notices(catalog, f"SELECT * FROM people WHERE {where}", KIND)
    assert f"literal equality `{equality}` because" in notice.message
    assert notice.action == f"CREATE INDEX ON people({expression});"


def test_literals_inside_the_expression_are_redacted(catalog: Catalog) -> None:
    people = table(catalog, "people", "name", types=TEXT)
    index(catalog, "people_name", people, ["name"])
    (notice,) = select_notices(catalog, "SELECT * FROM people WHERE substr(name, 1, 2) = 'ad'", KIND)
    assert redacted(notice) == (
        "Index materialize.public.people_name on people(name) cannot be used for the literal equality "
        "`SUBSTRING(name FROM █ FOR █) = █` because it wraps the indexed column name in an expression.",
        "Compare the indexed column itself, or create an index on the expression: (SUBSTRING(name FROM █ FOR █)).",
        "CREATE INDEX ON people(SUBSTRING(name FROM █ FOR █));",
    )


@pytest.mark.parametrize(
    "where",
    [
        "name = 'ada'",  # the column itself: the index is used
        "lower(city) = 'x'",  # city is not indexed
        "lower(name) = city",  # not a literal
        "lower(name) = 'ada' AND name = 'Ada'",  # the index serves the lookup anyway
        "concat(name, city) = 'x'",  # two columns
    ],
)
def test_no_notice_when_the_index_can_be_used_or_is_irrelevant(catalog: Catalog, where: str) -> None:
    people = table(catalog, "people", "name, city", types=TEXT)
    index(catalog, "people_name", people, ["name"])
    assert select_notices(catalog, f"SELECT * FROM people WHERE {where}", KIND) == []


def test_an_index_on_the_expression_silences_it(catalog: Catalog) -> None:
    people = table(catalog, "people", "name", types=TEXT)
    index(catalog, "people_name", people, ["name"])
    index(catalog, "people_lower_name", people, ["lower(name)"])
    assert select_notices(catalog, "SELECT * FROM people WHERE lower(name) = 'ada'", KIND) == []
