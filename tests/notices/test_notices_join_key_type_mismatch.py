"""JoinKeyTypeMismatch: equality joins between columns of different type families, exact texts, and the joins
Spark does without a value-changing cast (same type, integer widths, string types) or that are not joins."""

from __future__ import annotations

import pytest

from sparkwire.catalog import Catalog
from tests.notices.test_notices_catalog import catalog, redacted, select_notices, table, texts, view_notices

__all__ = ["catalog"]

KIND = "join_key_type_mismatch"


def test_integer_against_text_texts(catalog: Catalog) -> None:
    customers = table(catalog, "customers", "id integer, name text")
    orders = table(catalog, "orders", "customer_id text, total numeric")
    (notice,) = select_notices(catalog, "SELECT * FROM customers c JOIN orders o ON c.id = o.customer_id", KIND)
    assert notice.notice_type == "Join key type mismatch"
    assert texts(notice) == (
        "The join key materialize.public.customers.id (integer) is compared with "
        "materialize.public.orders.customer_id (text), so Spark casts one side on every row before it can join "
        "them.",
        "The cast hides the key from how the inputs are partitioned, which forces a shuffle, and values that look "
        "equal may not match after it. Join on columns of the same type.",
        "Change the type of materialize.public.orders.customer_id to integer or of materialize.public.customers.id "
        "to text, so both join keys match.",
    )
    assert notice.action_type == "plain_text"
    assert redacted(notice) == (None, None, None)
    assert notice.dependency_ids == (customers, orders)


@pytest.mark.parametrize(
    ("left", "right", "condition"),
    [
        ("k numeric", "k double precision", "ON a.k = b.k"),
        ("k date", "k timestamp", "ON b.k = a.k"),
        ("k bigint", "k real", "ON a.k = b.k AND a.k > 0"),
        ("k integer", "k varchar", "ON TRUE WHERE a.k = b.k"),
    ],
)
def test_mismatched_families(catalog: Catalog, left: str, right: str, condition: str) -> None:
    table(catalog, "a", left)
    table(catalog, "b", right)
    (notice,) = select_notices(catalog, f"SELECT 1 FROM a JOIN b {condition}", KIND)
    assert "materialize.public.a.k" in notice.message and "materialize.public.b.k" in notice.message


def test_in_a_materialized_view(catalog: Catalog) -> None:
    table(catalog, "a", "k integer")
    table(catalog, "b", "k text")
    assert len(view_notices(catalog, "CREATE MATERIALIZED VIEW mv AS SELECT a.k FROM a, b WHERE a.k = b.k", KIND)) == 1


@pytest.mark.parametrize(
    ("left", "right", "sql"),
    [
        ("k integer", "k integer", "SELECT 1 FROM a JOIN b ON a.k = b.k"),
        ("k smallint", "k bigint", "SELECT 1 FROM a JOIN b ON a.k = b.k"),
        ("k text", "k varchar", "SELECT 1 FROM a JOIN b ON a.k = b.k"),
        ("k integer", "k text", "SELECT 1 FROM a JOIN b ON a.k = CAST(b.k AS integer)"),  # explicit cast
        ("k integer, s text", "k text", "SELECT 1 FROM a WHERE a.k = a.s"),  # one relation
        ("k integer", "k text", "SELECT 1 FROM a JOIN b ON a.k < 3"),  # not an equality between them
    ],
)
def test_same_family_or_no_implicit_cast(catalog: Catalog, left: str, right: str, sql: str) -> None:
    table(catalog, "a", left)
    table(catalog, "b", right)
    assert select_notices(catalog, sql, KIND) == []
