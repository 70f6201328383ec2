"""The notice lifecycle through the in-process API: DDL planned by planner/statements/ddl.py and committed to a real
durable Catalog in tmp_path; notices derived by `NoticeService` / `CatalogNotices` and read from the mz_internal
notice relations (rendered rows, and loaded into a real DuckDB through the introspection store's table layout)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
import sqlglot

from sparkwire.api import Notice
from sparkwire.catalog import Catalog
from sparkwire.catalog.ops import CreateRole
from sparkwire.catalog.relations.relation import Row
from sparkwire.introspection.relations import RELATIONS
from sparkwire.introspection.tables import STORE_CATALOG, arrow_rows, create_sql, engine_name, quoted
from sparkwire.notices import KINDS, NoticeStatus, QueryInput, detect_query, render
from sparkwire.notices.alter import AlterNotice, plan_alter_notice
from sparkwire.notices.catalog_notices import CatalogNotices
from sparkwire.notices.relations import NOTICE_RELATIONS
from sparkwire.planner.bind.resolve import Names
from sparkwire.planner.grammar.alter_notice import parse_alter_notice
from sparkwire.planner.statements.notice_service import NOTICE_VARIABLES, NoticeService, enabled_by, everything
from tests.planner.test_planner_ddl import run

WIDE_MESSAGE = "Index materialize.public.t6_idx_x_y on t6(x, y) is too wide to use for literal equalities `x = 5`."
WIDE_HINT = (
    "If your literal equalities filter out many rows, create an index whose key exactly matches your literal "
    "equalities: (x)."
)


def ddl(catalog: Catalog, sql: str, service: NoticeService, names: Names | None = None) -> list[Notice]:
    """Run one DDL statement; return the NoticeResponses the session would send after it."""
    _, result = run(catalog, sql, names)
    assert result is not None
    return service.after_ddl(result.state, [r.id for r in result.created if r.kind == "item"])


def said(notices: list[Notice]) -> list[tuple[str, str | None]]:
    return [(n.message, n.hint) for n in notices]


def rows(catalog: Catalog, name: str) -> list[Row]:
    relation = next(r for r in NOTICE_RELATIONS if r.name == name)
    return list(relation.rows(catalog.state))


def item_id(catalog: Catalog, name: str) -> str:
    return next(i.id for i in catalog.state.items.values() if i.name == name)


def wide(catalog: Catalog, service: NoticeService) -> list[Notice]:
    ddl(catalog, "CREATE TABLE t6 (x int, y int, z int)", service)
    ddl(catalog, "CREATE INDEX t6_idx_x_y ON t6 (x, y)", service)
    return ddl(catalog, "CREATE MATERIALIZED VIEW mv AS SELECT z FROM t6 WHERE x = 5", service)


def test_create_index_and_materialized_view_send_their_notices(catalog: Catalog) -> None:
    service = NoticeService(CatalogNotices())
    ddl(catalog, "CREATE TABLE t (a int)", service)
    assert ddl(catalog, "CREATE INDEX t_idx1 ON t ((a + 7))", service) == []
    assert said(ddl(catalog, "CREATE INDEX t_idx2 ON t ((a + 7))", service)) == [
        (
            "Index materialize.public.t_idx2 is identical to materialize.public.t_idx1, which is also defined on "
            "t((a + 7)).",
            "Please drop all indexes except the first index created on t((a + 7)) and recreate all dependent objects.",
        )
    ]
    (sent,) = wide(catalog, service)
    assert said([sent]) == [(WIDE_MESSAGE, WIDE_HINT)]
    stored = service.notices(catalog.state)[-1]
    assert sent.detail == f"Notice {stored.fingerprint}; see docs/notices/index_too_wide_for_literal_constraints.md."
    notice = ddl(catalog, "CREATE INDEX ON t ()", service)[0]
    assert (notice.severity, notice.sqlstate) == ("NOTICE", "00000")
    assert notice.message.startswith("Empty index key.")
    assert ddl(catalog, "CREATE VIEW v AS SELECT z FROM t6 WHERE x = 5", service) == []


def test_an_index_on_a_view_carries_the_notices_of_the_views_query(catalog: Catalog) -> None:
    service = NoticeService(CatalogNotices())
    ddl(catalog, "CREATE TABLE t6 (x int, y int, z int)", service)
    ddl(catalog, "CREATE INDEX t6_idx_x_y ON t6 (x, y)", service)
    assert ddl(catalog, "CREATE VIEW v AS SELECT z FROM t6 WHERE x = 5", service) == []
    assert said(ddl(catalog, "CREATE DEFAULT INDEX ON v", service)) == [(WIDE_MESSAGE, WIDE_HINT)]


def test_mz_optimizer_notices_rows(catalog: Catalog) -> None:
    service = NoticeService(CatalogNotices())
    wide(catalog, service)
    mv, index, t6 = item_id(catalog, "mv"), item_id(catalog, "t6_idx_x_y"), item_id(catalog, "t6")
    (row,) = rows(catalog, "mz_optimizer_notices")
    created = catalog.state.items[mv].created_at * 1000
    (notice,) = service.notices(catalog.state)
    assert row == (
        f"{mv}.1",
        "Index too wide for literal constraints",
        WIDE_MESSAGE,
        WIDE_HINT,
        "CREATE INDEX ON t6(x);",
        "Index materialize.public.t6_idx_x_y on t6(x, y) is too wide to use for literal equalities `x = █`.",
        None,
        None,
        "sql_statements",
        mv,
        (index, t6),
        created,
        created,
        str(notice.fingerprint),
        "new",
        "docs/notices/index_too_wide_for_literal_constraints.md",
    )
    (plain,) = rows(catalog, "mz_notices")
    assert plain == row[:10] + row[11:]
    (redacted,) = rows(catalog, "mz_notices_redacted")
    assert redacted[:7] == (f"{mv}.1", row[1], row[5], WIDE_HINT, "CREATE INDEX ON t6(x);", "sql_statements", mv)
    assert rows(catalog, "mz_ignored_optimizer_notices") == []


def test_notices_go_with_their_object_and_with_any_dependency(catalog: Catalog) -> None:
    service = NoticeService(CatalogNotices())
    wide(catalog, service)
    assert len(rows(catalog, "mz_optimizer_notices")) == 1
    run(catalog, "DROP INDEX t6_idx_x_y")  # a dependency of the notice, not of the view
    assert rows(catalog, "mz_optimizer_notices") == []
    ddl(catalog, "CREATE INDEX t6_idx_x_y ON t6 (x, y)", service)
    assert len(rows(catalog, "mz_optimizer_notices")) == 1
    run(catalog, "DROP MATERIALIZED VIEW mv")
    assert rows(catalog, "mz_optimizer_notices") == []
    assert service.notices(catalog.state) == ()


def test_fingerprint_and_created_at_survive_a_restart(tmp_path: Path) -> None:
    catalog = Catalog.open(tmp_path)
    try:
        wide(catalog, NoticeService(CatalogNotices()))
        before = rows(catalog, "mz_optimizer_notices")
    finally:
        catalog.close()
    catalog = Catalog.open(tmp_path)
    try:
        service = NoticeService(CatalogNotices())  # nothing remembered: re-derived from the durable catalog
        service.start(catalog.state)
        assert rows(catalog, "mz_optimizer_notices") == before
    finally:
        catalog.close()


def test_identical_ddl_gets_the_same_fingerprint_and_keeps_its_status(catalog: Catalog) -> None:
    service = NoticeService(CatalogNotices())
    wide(catalog, service)
    (first,) = service.notices(catalog.state)
    ops = plan_alter_notice(AlterNotice(str(first.fingerprint), NoticeStatus.IGNORED), catalog.state, "u1", service)
    catalog.transact(ops)
    assert service.notices(catalog.state)[0].status == NoticeStatus.IGNORED
    run(catalog, "DROP MATERIALIZED VIEW mv")
    run(catalog, "DROP INDEX t6_idx_x_y")
    ddl(catalog, "CREATE INDEX t6_idx_x_y ON t6 (x, y)", service)
    sent = ddl(catalog, "CREATE MATERIALIZED VIEW mv AS SELECT z FROM t6 WHERE x = 5", service)
    assert sent == []  # ignored: not sent
    (again,) = service.notices(catalog.state)
    assert again.fingerprint == first.fingerprint and again.status == NoticeStatus.IGNORED
    assert again.object_id != first.object_id
    ddl(catalog, "CREATE MATERIALIZED VIEW mv2 AS SELECT z FROM t6 WHERE x = 6", service)
    assert len({n.fingerprint for n in service.notices(catalog.state)}) == 2


def test_create_or_replace_keeps_created_at_and_moves_updated_at(catalog: Catalog) -> None:
    service = NoticeService(CatalogNotices())
    wide(catalog, service)
    (first,) = service.notices(catalog.state)
    sent = ddl(catalog, "CREATE OR REPLACE MATERIALIZED VIEW mv AS SELECT z FROM t6 WHERE x = 5", service)
    assert said(sent) == [(WIDE_MESSAGE, WIDE_HINT)]
    (replaced,) = service.notices(catalog.state)
    assert replaced.fingerprint == first.fingerprint
    assert replaced.created_at == first.created_at
    assert replaced.updated_at > first.updated_at
    assert replaced.updated_at == catalog.state.items[item_id(catalog, "mv")].updated_at


def test_per_type_switches_and_ignored_notices_filter_what_is_sent(catalog: Catalog) -> None:
    service = NoticeService(CatalogNotices())
    ddl(catalog, "CREATE TABLE t (a int)", service)
    tree = sqlglot.parse_one("SELECT a FROM t WHERE a = NULL", read="postgres")
    sent = service.for_query(tree, catalog.state, Names(), everything)
    assert said(sent) == [
        (
            "Comparison with NULL using `=`, `<>`, or `!=` always evaluates to NULL.",
            "Use `IS NULL` or `IS NOT NULL` instead.",
        )
    ]
    settings = {"enable_notices_for_equals_null": "off"}
    assert service.for_query(tree, catalog.state, Names(), enabled_by(lambda n: settings.get(n, "on"))) == []
    ddl(catalog, "CREATE INDEX i1 ON t (a)", service)
    off = enabled_by(lambda n: "off" if n == "enable_notices_for_index_already_exists" else "on")
    _, result = run(catalog, "CREATE INDEX i2 ON t (a)")
    assert result is not None
    assert service.after_ddl(result.state, [r.id for r in result.created], off) == []
    assert len(service.after_ddl(result.state, [r.id for r in result.created])) == 1


def test_select_notices_can_be_ignored_by_fingerprint(catalog: Catalog) -> None:
    service = NoticeService(CatalogNotices())
    tree = sqlglot.parse_one("SELECT 1 WHERE 1 <> NULL", read="postgres")
    (sent,) = service.for_query(tree, catalog.state, Names(), everything)
    (raw,) = detect_query(QueryInput(tree, catalog.state, "materialize", ("public",)))
    rendered = render(raw, catalog.state, object_id=None, object_sql=tree.sql(dialect="postgres"), now=0)
    assert sent.detail == f"Notice {rendered.fingerprint}; see docs/notices/equals_null.md."
    ops = plan_alter_notice(AlterNotice(str(rendered.fingerprint), NoticeStatus.IGNORED), catalog.state, "u1", service)
    catalog.transact(ops)
    assert service.for_query(tree, catalog.state, Names(), everything) == []
    other = sqlglot.parse_one("SELECT 2 WHERE 1 <> NULL", read="postgres")
    assert len(service.for_query(other, catalog.state, Names(), everything)) == 1


def test_explain_lines(catalog: Catalog) -> None:
    service = NoticeService(CatalogNotices())
    wide(catalog, service)
    mv = catalog.state.items[item_id(catalog, "mv")]
    assert service.explain_lines(mv, catalog.state, Names(), False, everything) == [
        "Notices:",
        f"  - Notice: {WIDE_MESSAGE}",
        f"    Hint: {WIDE_HINT}",
    ]
    assert service.explain_lines(mv, catalog.state, Names(), True, everything)[1] == (
        "  - Notice: Index materialize.public.t6_idx_x_y on t6(x, y) is too wide to use for literal equalities `x = █`."
    )
    query = sqlglot.parse_one("SELECT z FROM t6 WHERE x = 5", read="postgres")
    assert service.explain_lines(query, catalog.state, Names(), False, everything)[1:] == [
        f"  - Notice: {WIDE_MESSAGE}",
        f"    Hint: {WIDE_HINT}",
    ]
    plain = sqlglot.parse_one("SELECT z FROM t6 WHERE z = 5", read="postgres")
    assert service.explain_lines(plain, catalog.state, Names(), False, everything) == []
    ddl(catalog, "CREATE VIEW v AS SELECT z FROM t6 WHERE x = 5", service)
    v = catalog.state.items[item_id(catalog, "v")]
    assert service.explain_lines(v, catalog.state, Names(), False, everything)[1] == f"  - Notice: {WIDE_MESSAGE}"


def test_alter_notice_grammar() -> None:
    fp = "8e5c2a1e-7c39-5f4b-9a4e-0d1f2e3a4b5c"
    assert parse_alter_notice(f"ALTER NOTICE '{fp}' SET STATUS = 'ignored'") == AlterNotice(fp, NoticeStatus.IGNORED)
    assert parse_alter_notice(f"alter  notice '{fp}' set status to Resolved;") == AlterNotice(fp, NoticeStatus.RESOLVED)
    assert parse_alter_notice(f"ALTER NOTICE '{fp}' RESET STATUS") == AlterNotice(fp, NoticeStatus.NEW)
    assert parse_alter_notice("ALTER TABLE t RENAME TO u") is None
    assert parse_alter_notice("SELECT 1") is None
    for sql, code in (
        (f"ALTER NOTICE '{fp}' SET STATUS = 'done'", "22023"),
        (f"ALTER NOTICE '{fp}' SET STATUS", "42601"),
        (f"ALTER NOTICE {fp} RESET STATUS", "42601"),
        (f"ALTER NOTICE '{fp}' RESET STATUS now", "42601"),
    ):
        with pytest.raises(Exception) as info:
            parse_alter_notice(sql)
        assert getattr(info.value, "sqlstate", None) == code, sql


def _role(catalog: Catalog, name: str) -> str:
    return catalog.transact([CreateRole(name, login=True)]).created[0].id


def test_alter_notice_status_persists_and_is_checked(tmp_path: Path) -> None:
    catalog = Catalog.open(tmp_path)
    service = NoticeService(CatalogNotices())
    try:
        alice, bob = _role(catalog, "alice"), _role(catalog, "bob")
        wide(catalog, service)
        (notice,) = service.notices(catalog.state)
        fp = str(notice.fingerprint)
        with pytest.raises(Exception) as info:
            plan_alter_notice(AlterNotice(fp, NoticeStatus.IGNORED), catalog.state, bob, service)
        assert getattr(info.value, "sqlstate", None) == "42501"
        for unknown in ("00000000-0000-0000-0000-000000000000", "not a uuid"):
            with pytest.raises(Exception) as info:
                plan_alter_notice(AlterNotice(unknown, NoticeStatus.IGNORED), catalog.state, "u1", service)
            assert getattr(info.value, "sqlstate", None) == "42704"
            assert str(info.value) == f'notice "{unknown}" does not exist'
        catalog.transact(
            plan_alter_notice(AlterNotice(fp.upper(), NoticeStatus.RESOLVED), catalog.state, "u1", service)
        )
        assert rows(catalog, "mz_optimizer_notices")[0][14] == "resolved"
        (ignored,) = rows(catalog, "mz_ignored_optimizer_notices")
        assert ignored[:3] == (fp, "resolved", "u1")
    finally:
        catalog.close()
    catalog = Catalog.open(tmp_path)
    try:
        assert rows(catalog, "mz_optimizer_notices")[0][14] == "resolved"
        catalog.transact(plan_alter_notice(AlterNotice(fp, NoticeStatus.NEW), catalog.state, "u1", service))
        assert rows(catalog, "mz_optimizer_notices")[0][14] == "new"
        assert rows(catalog, "mz_ignored_optimizer_notices") == []
        # the owner of the notice's object may change it too
        ddl(catalog, "CREATE TABLE owned (x int, y int)", service, Names(role_id=alice))
        ddl(catalog, "CREATE INDEX ON owned (x)", service, Names(role_id=alice))
        ddl(catalog, "CREATE INDEX ON owned (x)", service, Names(role_id=alice))
        mine = next(n for n in service.notices(catalog.state) if n.kind == "index_already_exists")
        ops = plan_alter_notice(AlterNotice(str(mine.fingerprint), NoticeStatus.IGNORED), catalog.state, alice, service)
        catalog.transact(ops)
        found = service.find(catalog.state, str(mine.fingerprint))
        assert found is not None and found.status == NoticeStatus.IGNORED
    finally:
        catalog.close()


def test_relations_are_registered_in_the_introspection_store_once() -> None:
    assert all(relation in RELATIONS for relation in NOTICE_RELATIONS)
    assert len({r.oid for r in RELATIONS}) == len(RELATIONS)
    assert len({(r.schema, r.name) for r in RELATIONS}) == len(RELATIONS)


def test_rows_load_into_the_store_layout(catalog: Catalog) -> None:
    service = NoticeService(CatalogNotices())
    wide(catalog, service)
    state = catalog.state
    (notice,) = service.notices(state)
    catalog.transact(
        plan_alter_notice(AlterNotice(str(notice.fingerprint), NoticeStatus.IGNORED), state, "u1", service)
    )
    con = duckdb.connect()
    con.execute(f"ATTACH ':memory:' AS {STORE_CATALOG}")
    con.execute(f"CREATE SCHEMA {STORE_CATALOG}.{quoted(engine_name('mz_internal'))}")
    for relation in NOTICE_RELATIONS:
        con.execute(create_sql(relation))
        table = arrow_rows(relation, relation.rows(catalog.state))
        con.register("incoming", table)
        con.execute(f"INSERT INTO {STORE_CATALOG}.mz_internal.{relation.name} SELECT * FROM incoming")
        con.unregister("incoming")
    got = con.execute(
        f"SELECT status, dependency_ids, fingerprint::text, created_at > TIMESTAMPTZ '2020-01-01' "
        f"FROM {STORE_CATALOG}.mz_internal.mz_optimizer_notices"
    ).fetchall()
    assert got == [("ignored", list(notice.dependency_ids), str(notice.fingerprint), True)]
    (ignored,) = con.execute(
        f"SELECT fingerprint::text, status FROM {STORE_CATALOG}.mz_internal.mz_ignored_optimizer_notices"
    ).fetchall()
    assert ignored == (str(notice.fingerprint), "ignored")


def test_one_setting_per_notice_kind() -> None:
    assert {name for name, _, _ in NOTICE_VARIABLES} == {f"enable_notices_for_{k}" for k in KINDS}
    assert {default for _, default, _ in NOTICE_VARIABLES} == {"on"}
