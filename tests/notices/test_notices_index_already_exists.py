"""IndexAlreadyExists: exact texts, redaction of literals in index keys, and the cases that must stay quiet."""

from __future__ import annotations

from sparkwire.catalog import Catalog
from tests.notices.test_notices_catalog import catalog, index, index_notices, redacted, table, texts

__all__ = ["catalog"]

KIND = "index_already_exists"


def test_identical_index_is_reported_with_materialize_texts(catalog: Catalog) -> None:
    t = table(catalog, "t", "a")
    first = index(catalog, "t_idx1", t, ["a + 7"])
    second = index(catalog, "t_idx2", t, ["(A+7)"])
    (notice,) = index_notices(catalog, second, KIND)
    assert notice.notice_type == "An identical index already exists"
    assert texts(notice) == (
        "Index materialize.public.t_idx2 is identical to materialize.public.t_idx1, which is also defined on "
        "t((a + 7)).",
        "Please drop all indexes except the first index created on t((a + 7)) and recreate all dependent objects.",
        None,
    )
    assert notice.action_type is None
    assert redacted(notice) == (
        "Index materialize.public.t_idx2 is identical to materialize.public.t_idx1, which is also defined on "
        "t((a + █)).",
        "Please drop all indexes except the first index created on t((a + █)) and recreate all dependent objects.",
        None,
    )
    assert notice.object_id == second
    assert notice.dependency_ids == (first, t)
    assert index_notices(catalog, first, KIND) == []


def test_plain_column_keys_have_nothing_to_redact(catalog: Catalog) -> None:
    t = table(catalog, "t", "a, b")
    index(catalog, "t_ab", t, ["a", "b"])
    (notice,) = index_notices(catalog, index(catalog, "t_ab2", t, ["a", "b"]), KIND)
    assert notice.message.endswith("which is also defined on t(a, b).")
    assert redacted(notice) == (None, None, None)


def test_third_copy_points_at_the_first_index(catalog: Catalog) -> None:
    t = table(catalog, "t", "a")
    index(catalog, "i1", t, ["a"])
    index(catalog, "i2", t, ["a"])
    (notice,) = index_notices(catalog, index(catalog, "i3", t, ["a"]), KIND)
    assert "materialize.public.i3 is identical to materialize.public.i1," in notice.message


def test_different_keys_order_or_relation_are_not_identical(catalog: Catalog) -> None:
    t = table(catalog, "t", "a, b")
    u = table(catalog, "u", "a, b")
    index(catalog, "t_ab", t, ["a", "b"])
    index(catalog, "t_a7", t, ["a + 7"])
    for name, on, keys in [
        ("t_ba", t, ["b", "a"]),
        ("t_a", t, ["a"]),
        ("t_abb", t, ["a", "b", "b"]),
        ("t_a8", t, ["a + 8"]),
        ("u_ab", u, ["a", "b"]),
        ("u_empty", u, []),
    ]:
        assert index_notices(catalog, index(catalog, name, on, keys), KIND) == [], name


def test_two_default_indexes_are_identical_but_not_an_empty_key_and_a_default(catalog: Catalog) -> None:
    t = table(catalog, "t", "a")
    index(catalog, "t_empty", t, [])
    first = index(catalog, "t_default", t, [], default=True)
    (notice,) = index_notices(catalog, index(catalog, "t_default2", t, [], default=True), KIND)
    assert notice.dependency_ids == (first, t)
