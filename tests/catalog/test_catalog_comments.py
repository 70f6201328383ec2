"""Comments in the catalog: COMMENT ON's ops are durable, replace and remove as PostgreSQL's `IS ''` / `IS NULL`,
go with their object (a dropped table, a dropped column's relation, a replaced view), and a rename carries its
rewritten dependents or fails when the dependents changed under it."""

from __future__ import annotations

from pathlib import Path

import pytest

from sparkwire.catalog import Catalog
from sparkwire.catalog.objects import ObjectRef
from sparkwire.catalog.ops import DropItems, RenameItem, ReplaceItem, SetComment
from sparkwire.errors import DependentObjectsStillExist, UndefinedColumn, UndefinedObject
from tests.catalog.test_catalog_ops import PUBLIC_SCHEMA, create, spec


def _table(cat: Catalog, name: str) -> str:
    (item,) = create(cat, spec("table", name))
    return item


def test_comments_survive_reopen_and_replace(tmp_path: Path) -> None:
    cat = Catalog.open(tmp_path)
    t = _table(cat, "t")
    table, schema = ObjectRef("item", t), ObjectRef("schema", PUBLIC_SCHEMA)
    cat.transact([SetComment(table, 0, "first"), SetComment(schema, 0, "the schema")])
    cat.transact([SetComment(table, 0, "second")])
    cat.close()
    reopened = Catalog.open(tmp_path)
    assert {k: c.text for k, c in reopened.state.comments.items()} == {(table, 0): "second", (schema, 0): "the schema"}
    for removal in ("", None):
        reopened.transact([SetComment(table, 0, "again"), SetComment(table, 0, removal)])
        assert (table, 0) not in reopened.state.comments
    reopened.close()
    assert (table, 0) not in Catalog.open(tmp_path).state.comments


def test_column_comments_need_the_column(tmp_path: Path) -> None:
    cat = Catalog.open(tmp_path)
    t = _table(cat, "t")
    columns = len(cat.state.items[t].columns)
    cat.transact([SetComment(ObjectRef("item", t), columns, "last column")])
    with pytest.raises(UndefinedColumn):
        cat.transact([SetComment(ObjectRef("item", t), columns + 1, "no such column")])
    with pytest.raises(UndefinedObject):
        cat.transact([SetComment(ObjectRef("item", "u999"), 0, "no such item")])


def test_comments_go_with_their_object(tmp_path: Path) -> None:
    cat = Catalog.open(tmp_path)
    t = _table(cat, "t")
    (v,) = create(cat, spec("view", "v", deps=(t,)))
    cat.transact([SetComment(ObjectRef("item", t), 1, "a column"), SetComment(ObjectRef("item", v), 0, "a view")])
    cat.transact([ReplaceItem(v, spec("view", "v", deps=(t,)))])
    assert [c.object for c in cat.state.comments.values()] == [ObjectRef("item", t)]
    (v2,) = [i.id for i in cat.state.items.values() if i.name == "v"]
    cat.transact([DropItems((v2, t))])
    assert not cat.state.comments
    cat.close()
    assert not Catalog.open(tmp_path).state.comments


def test_rename_rewrites_dependents_or_fails(tmp_path: Path) -> None:
    cat = Catalog.open(tmp_path)
    t = _table(cat, "t")
    (v,) = create(cat, spec("view", "v", deps=(t,)))
    with pytest.raises(DependentObjectsStillExist):  # the planner saw no dependent: a concurrent CREATE VIEW
        cat.transact([RenameItem(t, "t2", "CREATE TABLE t2 ()")])
    cat.transact([RenameItem(t, "t2", "CREATE TABLE t2 ()", ((v, "CREATE VIEW v AS SELECT 1 FROM t2"),))])
    assert cat.state.items[t].name == "t2"
    assert cat.state.items[v].create_sql == "CREATE VIEW v AS SELECT 1 FROM t2"
    cat.close()
    assert Catalog.open(tmp_path).state.items[v].create_sql == "CREATE VIEW v AS SELECT 1 FROM t2"
