"""Rendering into stored notices: statuses from the durable catalog (and their parsing), created_at kept across
re-derivation, validity after drops of the object or a dependency, docs links, the per-kind switches."""

from __future__ import annotations

from pathlib import Path

import pytest

from sparkwire.catalog import Catalog
from sparkwire.catalog.ops import DropItems
from sparkwire.errors import InvalidParameterValue
from sparkwire.notices import NoticeStatus, detect_query, is_valid, parse_status, render_all, status_op
from tests.notices.test_notices_catalog import (
    ROLE,
    catalog,
    index,
    opened,
    query_input,
    select_notices,
    table,
    view_notices,
)

__all__ = ["catalog"]

SQL = "SELECT * FROM t6 WHERE x = 5"


def _wide(catalog: Catalog) -> tuple[str, str]:
    t6 = table(catalog, "t6", "x, y")
    return t6, index(catalog, "t6_idx_x_y", t6, ["x", "y"])


@pytest.mark.parametrize(
    ("text", "status"),
    [("new", NoticeStatus.NEW), ("Resolved", NoticeStatus.RESOLVED), (" IGNORED ", NoticeStatus.IGNORED)],
)
def test_parse_status(text: str, status: NoticeStatus) -> None:
    assert parse_status(text) is status


@pytest.mark.parametrize("text", ["", "done", "new!", "ignore"])
def test_bad_status_is_22023(text: str) -> None:
    with pytest.raises(InvalidParameterValue) as info:
        parse_status(text)
    assert info.value.code == "22023"
    assert info.value.message == f'invalid value for parameter "status": "{text}"'
    assert info.value.hint == "Available values: new, resolved, ignored."


def test_status_comes_from_the_durable_catalog(catalog: Catalog) -> None:
    _wide(catalog)
    (notice,) = select_notices(catalog, SQL)
    assert notice.status is NoticeStatus.NEW
    fingerprint = str(notice.fingerprint)
    for text in ("ignored", "resolved", "new", "ignored"):
        catalog.transact([status_op(fingerprint, parse_status(text), ROLE)])
        assert select_notices(catalog, SQL)[0].status is NoticeStatus(text)
    assert catalog.state.notices[fingerprint].set_by == ROLE
    catalog.transact([status_op(fingerprint, NoticeStatus.NEW, ROLE)])
    assert fingerprint not in catalog.state.notices
    assert select_notices(catalog, SQL)[0].status is NoticeStatus.NEW


def test_status_survives_a_restart(tmp_path: Path) -> None:
    with opened(tmp_path) as first:
        _wide(first)
        fingerprint = str(select_notices(first, SQL)[0].fingerprint)
        first.transact([status_op(fingerprint, NoticeStatus.IGNORED, ROLE)])
    with opened(tmp_path) as reopened:
        assert select_notices(reopened, SQL)[0].status is NoticeStatus.IGNORED


def test_rendered_fields(catalog: Catalog) -> None:
    _wide(catalog)
    (notice,) = select_notices(catalog, SQL)
    assert (notice.object_id, notice.created_at, notice.updated_at) == (None, 1, 1)
    assert notice.docs == "docs/notices/index_too_wide_for_literal_constraints.md"


def test_rederivation_keeps_created_at(catalog: Catalog) -> None:
    _wide(catalog)
    (first,) = select_notices(catalog, SQL)
    raws = detect_query(query_input(catalog, SQL))
    (again,) = render_all(raws, catalog.state, object_id=None, object_sql=SQL, now=50, previous=[first])
    assert (again.created_at, again.updated_at, again.fingerprint) == (1, 50, first.fingerprint)
    (fresh,) = render_all(raws, catalog.state, object_id=None, object_sql=SQL, now=60)
    assert fresh.created_at == 60


def test_validity_follows_the_object_and_every_dependency(catalog: Catalog) -> None:
    _, i = _wide(catalog)
    (notice,) = view_notices(catalog, "CREATE MATERIALIZED VIEW mv AS SELECT * FROM t6 WHERE x = 5")
    assert notice.object_id is not None
    assert is_valid(notice, catalog.state)
    catalog.transact([DropItems((notice.object_id,))])
    assert not is_valid(notice, catalog.state)

    (notice,) = view_notices(catalog, "CREATE MATERIALIZED VIEW mv2 AS SELECT * FROM t6 WHERE x = 5")
    catalog.transact([DropItems((i,))])  # a dependency (the index) goes; the view stays
    assert notice.object_id in catalog.state.items
    assert not is_valid(notice, catalog.state)


def test_per_kind_switches(catalog: Catalog) -> None:
    _wide(catalog)
    sql = "SELECT * FROM t6 a, t6 b WHERE a.x = 5 AND b.y = NULL"
    everything = {type(n).kind for n in detect_query(query_input(catalog, sql))}
    assert everything == {"index_too_wide_for_literal_constraints", "equals_null", "cross_join"}
    some = detect_query(query_input(catalog, sql), enabled=lambda kind: kind != "equals_null")
    assert {type(n).kind for n in some} == everything - {"equals_null"}
