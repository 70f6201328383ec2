"""IndexKeyEmpty: exact texts for `ON t ()`; default indexes and keyed indexes stay quiet."""

from __future__ import annotations

from sparkwire.catalog import Catalog
from tests.notices.test_notices_catalog import catalog, index, index_notices, redacted, table, texts

__all__ = ["catalog"]

KIND = "index_key_empty"


def test_empty_key_is_reported_with_materialize_texts(catalog: Catalog) -> None:
    t = table(catalog, "t", "a")
    i = index(catalog, "t_empty", t, [])
    (notice,) = index_notices(catalog, i)
    assert notice.notice_type == "Empty index key"
    assert notice.kind == KIND
    assert texts(notice) == (
        "Empty index key. The index will be completely skewed to one worker thread, which can lead to "
        "performance problems.",
        "CREATE DEFAULT INDEX is almost always better than an index with an empty key. (Except for cross joins "
        "with big inputs, which are better to avoid anyway.)",
        "Drop the enclosing index and re-create it using `CREATE DEFAULT INDEX ON` instead.",
    )
    assert notice.action_type == "plain_text"
    assert redacted(notice) == (None, None, None)
    assert (notice.object_id, notice.dependency_ids) == (i, ())


def test_default_and_keyed_indexes_are_not_empty(catalog: Catalog) -> None:
    t = table(catalog, "t", "a")
    assert index_notices(catalog, index(catalog, "t_default", t, [], default=True), KIND) == []
    assert index_notices(catalog, index(catalog, "t_a", t, ["a"]), KIND) == []
