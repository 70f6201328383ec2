"""Fingerprints: stable across catalog restarts and drop/re-create with identical (or merely reformatted) DDL,
different for different DDL or notice types, never derived from catalog ids."""

from __future__ import annotations

import uuid
from pathlib import Path

import sqlglot

from sparkwire.catalog import Catalog
from sparkwire.catalog.ops import DropItems
from sparkwire.notices import OptimizerNotice, detect_query, render_all
from sparkwire.notices.fingerprint import fingerprint, normalize_ddl
from tests.notices.test_notices_catalog import catalog, index, opened, query_input, table, view_notices

__all__ = ["catalog"]

MV = "CREATE MATERIALIZED VIEW mv AS SELECT q.y FROM t6 AS q WHERE q.x = 5 AND q.y <> NULL"


def _setup(catalog: Catalog, mv_sql: str = MV) -> list[OptimizerNotice]:
    t6 = table(catalog, "t6", "x, y")
    index(catalog, "t6_idx_x_y", t6, ["x", "y"])
    return view_notices(catalog, mv_sql)


def _rederive(catalog: Catalog, mv_id: str) -> list[OptimizerNotice]:
    create_sql = catalog.state.items[mv_id].create_sql
    tree = sqlglot.parse_one(create_sql, read="postgres").expression
    raws = detect_query(query_input(catalog, tree, definition=True))
    return render_all(raws, catalog.state, object_id=mv_id, object_sql=create_sql, now=2)


def _prints(notices: list[OptimizerNotice]) -> dict[str, uuid.UUID]:
    return {n.kind: n.fingerprint for n in notices}


def test_fingerprints_survive_a_restart(tmp_path: Path) -> None:
    with opened(tmp_path) as first:
        before = _setup(first)
    assert {n.kind for n in before} == {"equals_null", "index_too_wide_for_literal_constraints"}
    with opened(tmp_path) as reopened:
        mv_id = next(i.id for i in reopened.state.items.values() if i.kind == "materialized-view")
        assert _prints(_rederive(reopened, mv_id)) == _prints(before)


def test_fingerprints_survive_drop_and_recreate_with_identical_ddl(catalog: Catalog) -> None:
    before = _setup(catalog)
    ids = [i.id for i in sorted(catalog.state.items.values(), key=lambda i: -i.oid)]
    catalog.transact([DropItems(tuple(ids))])
    after = _setup(catalog)
    assert {n.object_id for n in after}.isdisjoint({n.object_id for n in before})
    assert _prints(after) == _prints(before)


def test_ids_do_not_enter_the_fingerprint(catalog: Catalog, tmp_path: Path) -> None:
    with opened(tmp_path / "other") as other:
        table(other, "unrelated", "a")  # shifts every id and OID in this catalog
        shifted = _setup(other)
    here = _setup(catalog)
    assert [n.object_id for n in here] != [n.object_id for n in shifted]
    assert _prints(here) == _prints(shifted)


def test_reformatted_ddl_keeps_the_fingerprint(catalog: Catalog, tmp_path: Path) -> None:
    before = _setup(catalog)
    with opened(tmp_path / "other") as other:
        reformatted = "create materialized view MV as\n  select Z.y  from T6 z where z.X=5 and z.Y <> null"
        assert _prints(_setup(other, reformatted)) == _prints(before)


def test_different_ddl_changes_the_fingerprint(catalog: Catalog, tmp_path: Path) -> None:
    before = _setup(catalog)
    with opened(tmp_path / "other") as other:
        changed = _setup(other, MV.replace("q.x = 5", "q.x = 6"))
        assert set(_prints(changed).values()).isdisjoint(_prints(before).values())


def test_normalized_ddl() -> None:
    assert normalize_ddl("CREATE VIEW V AS select T1.a from T as t1 where t1.a = 5") == normalize_ddl(
        "create view v as SELECT q.a FROM t q WHERE q.a=5"
    )
    assert normalize_ddl("CREATE INDEX i IN CLUSTER quickstart ON t (a + 7)") == normalize_ddl(
        "create index I in cluster QUICKSTART on T(A+7)"
    )
    assert normalize_ddl("CREATE INDEX i IN CLUSTER quickstart ON t (a)") != normalize_ddl(
        "CREATE INDEX i IN CLUSTER other ON t (a)"
    )
    assert normalize_ddl("CREATE DEFAULT INDEX IN CLUSTER c ON t") == normalize_ddl(
        "create default  index in cluster C on T"
    )
    assert normalize_ddl("CREATE VIEW v AS SELECT 'A'") != normalize_ddl("CREATE VIEW v AS SELECT 'a'")
    assert normalize_ddl('CREATE VIEW v AS SELECT 1 AS "A"') != normalize_ddl("CREATE VIEW v AS SELECT 1 AS a")


def test_notice_type_dependencies_and_discriminator_all_count() -> None:
    base = fingerprint("Cross join", "CREATE VIEW v AS SELECT 1", ["CREATE TABLE t (a int)"], "m")
    assert base == fingerprint("Cross join", "create view V as select 1", ["create table T (A int)"], "m")
    assert base.version == 5
    assert base != fingerprint("Comparison with NULL", "CREATE VIEW v AS SELECT 1", ["CREATE TABLE t (a int)"], "m")
    assert base != fingerprint("Cross join", "CREATE VIEW v AS SELECT 1", ["CREATE TABLE t (b int)"], "m")
    assert base != fingerprint("Cross join", "CREATE VIEW v AS SELECT 1", ["CREATE TABLE t (a int)"], "n")
    assert base != fingerprint("Cross join", "CREATE VIEW v AS SELECT 2", ["CREATE TABLE t (a int)"], "m")
