"""Optimizer notices as a client sees them (issue 5, items 3-6 and 9), through psycopg against a real server.

NoticeResponses after CREATE INDEX, CREATE MATERIALIZED VIEW and SELECT (severity NOTICE, SQLSTATE 00000, message,
hint, and the fingerprint and docs page as detail), the per-type switches, the mz_internal notice relations, cleanup
on DROP of the object and of a dependency, ALTER NOTICE (persistence and errors), EXPLAIN's `Notices:` section
(plain and redacted), fingerprint / created_at / status stability across a restart and re-creation, and the
per-type switches set for every session with ALTER SYSTEM (durable, superuser only).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests.support.server import SparkwireServer

pytestmark = pytest.mark.timeout(600)

Conn = psycopg.Connection[tuple[object, ...]]
Said = tuple[str | None, str | None, str | None, str | None]  # severity, sqlstate, message, hint

EQUALS_NULL = (
    "NOTICE",
    "00000",
    "Comparison with NULL using `=`, `<>`, or `!=` always evaluates to NULL.",
    "Use `IS NULL` or `IS NOT NULL` instead.",
)
SPARK_WAIT = "waiting for the Spark engine to start"  # sent once by the first Spark query; not a notice of ours
ROWS = (
    "SELECT n.notice_type, n.message, n.redacted_message, n.action, n.action_type, n.dependency_ids::text, "
    "n.fingerprint::text, n.status, n.created_at, n.updated_at FROM mz_internal.mz_optimizer_notices n "
    "JOIN mz_catalog.mz_objects o ON o.id = n.object_id WHERE o.name = %s ORDER BY n.id"
)


def diagnostics(conn: Conn, sql: str) -> list[tuple[Said, str | None]]:
    """Run `sql`; the NoticeResponses it produced, with their detail (read inside the handler: psycopg frees a
    Diagnostic's result once the handler returns)."""
    out: list[tuple[Said, str | None]] = []

    def collect(d: psycopg.errors.Diagnostic) -> None:
        if d.message_primary != SPARK_WAIT:
            out.append(((d.severity, d.sqlstate, d.message_primary, d.message_hint), d.message_detail))

    conn.add_notice_handler(collect)
    try:
        conn.execute(sql)
    finally:
        conn.remove_notice_handler(collect)
    return out


def said(conn: Conn, sql: str) -> list[Said]:
    return [notice for notice, _ in diagnostics(conn, sql)]


def error(conn: Conn, sql: str) -> tuple[str | None, str | None]:
    with pytest.raises(psycopg.Error) as info:
        conn.execute(sql)
    return info.value.diag.sqlstate, info.value.diag.message_primary


@pytest.fixture
def conn(dsn: str) -> Iterator[Conn]:
    with psycopg.connect(dsn, autocommit=True) as c:
        yield c


def test_create_index_sends_index_already_exists(conn: Conn) -> None:
    conn.execute("CREATE TABLE cn_t (a int)")
    assert said(conn, "CREATE INDEX cn_t_idx1 ON cn_t ((a + 7))") == []
    assert said(conn, "CREATE INDEX cn_t_idx2 ON cn_t ((a + 7))") == [
        (
            "NOTICE",
            "00000",
            "Index materialize.public.cn_t_idx2 is identical to materialize.public.cn_t_idx1, which is also defined "
            "on cn_t((a + 7)).",
            "Please drop all indexes except the first index created on cn_t((a + 7)) and recreate all dependent "
            "objects.",
        )
    ]
    (row,) = conn.execute(ROWS, ("cn_t_idx2",)).fetchall()
    assert row[0] == "An identical index already exists" and row[3] is None and row[7] == "new"
    conn.execute("DROP INDEX cn_t_idx1")  # a dependency of the notice
    assert conn.execute(ROWS, ("cn_t_idx2",)).fetchall() == []


def test_materialized_view_notice_rows_and_cleanup(conn: Conn) -> None:
    conn.execute("CREATE TABLE cn_t6 (x int, y int, z int)")
    conn.execute("CREATE INDEX cn_t6_idx_x_y ON cn_t6 (x, y)")
    message = "Index materialize.public.cn_t6_idx_x_y on cn_t6(x, y) is too wide to use for literal equalities `x = 5`."
    hint = (
        "If your literal equalities filter out many rows, create an index whose key exactly matches your literal "
        "equalities: (x)."
    )
    assert said(conn, "CREATE MATERIALIZED VIEW cn_mv AS SELECT z FROM cn_t6 WHERE x = 5") == [
        ("NOTICE", "00000", message, hint)
    ]
    (row,) = conn.execute(ROWS, ("cn_mv",)).fetchall()
    assert row[:5] == (
        "Index too wide for literal constraints",
        message,
        message.replace("`x = 5`", "`x = █`"),
        "CREATE INDEX ON cn_t6(x);",
        "sql_statements",
    )
    assert row[7] == "new" and row[8] == row[9]
    redacted = conn.execute(
        "SELECT message, hint FROM mz_internal.mz_notices_redacted WHERE fingerprint::text = %s", (row[6],)
    ).fetchall()
    assert redacted == [(row[2], hint)]
    conn.execute("DROP MATERIALIZED VIEW cn_mv")
    assert conn.execute(ROWS, ("cn_mv",)).fetchall() == []
    assert conn.execute(
        "SELECT count(*) FROM mz_internal.mz_notices WHERE fingerprint::text = %s", (row[6],)
    ).fetchone() == (0,)


def test_select_notices_and_the_per_type_switch(conn: Conn) -> None:
    ((notice, detail),) = diagnostics(conn, "SELECT 1 WHERE 1 = NULL")
    assert notice == EQUALS_NULL
    assert (detail or "").endswith("; see docs/notices/equals_null.md.")
    conn.execute("CREATE TABLE cn_s (a int)")
    assert said(conn, "SELECT a FROM cn_s WHERE a NOT IN (1, NULL)") == [EQUALS_NULL]
    conn.execute("SET enable_notices_for_equals_null = off")
    assert said(conn, "SELECT 1 WHERE 1 = NULL") == []
    conn.execute("RESET enable_notices_for_equals_null")
    assert said(conn, "SELECT 1 WHERE 1 IS NULL") == []


def test_explain_ends_with_the_notices(conn: Conn) -> None:
    lines = [r[0] for r in conn.execute("EXPLAIN SELECT 1 WHERE 1 = NULL").fetchall()]
    assert lines[-3:] == ["Notices:", f"  - Notice: {EQUALS_NULL[2]}", f"    Hint: {EQUALS_NULL[3]}"]
    conn.execute("CREATE TABLE cn_e (x int, y int, z int)")
    conn.execute("CREATE INDEX cn_e_idx ON cn_e (x, y)")
    plain = [r[0] for r in conn.execute("EXPLAIN SELECT z FROM cn_e WHERE x = 5").fetchall()]
    assert plain[-2] == (
        "  - Notice: Index materialize.public.cn_e_idx on cn_e(x, y) is too wide to use for literal equalities `x = 5`."
    )
    redacted = [str(r[0]) for r in conn.execute("EXPLAIN WITH (redacted) SELECT z FROM cn_e WHERE x = 5").fetchall()]
    assert redacted[-2].endswith("`x = █`.") and redacted[-1].endswith("matches your literal equalities: (x).")
    assert "Notices:" not in [r[0] for r in conn.execute("EXPLAIN SELECT z FROM cn_e WHERE z = 5").fetchall()]


def test_alter_notice(conn: Conn) -> None:
    conn.execute("CREATE TABLE cn_a (a int)")
    conn.execute("CREATE INDEX cn_a_i1 ON cn_a (a)")
    assert len(said(conn, "CREATE INDEX cn_a_i2 ON cn_a (a)")) == 1
    ((fingerprint,),) = conn.execute(
        "SELECT fingerprint::text FROM mz_internal.mz_optimizer_notices n JOIN mz_catalog.mz_objects o "
        "ON o.id = n.object_id WHERE o.name = 'cn_a_i2'"
    ).fetchall()
    assert conn.execute(f"ALTER NOTICE '{fingerprint}' SET STATUS = 'ignored'").statusmessage == "ALTER NOTICE"
    assert conn.execute(
        "SELECT status, set_by FROM mz_internal.mz_ignored_optimizer_notices WHERE fingerprint::text = %s",
        (fingerprint,),
    ).fetchall() == [("ignored", "u1")]
    conn.execute("DROP INDEX cn_a_i2")
    assert said(conn, "CREATE INDEX cn_a_i2 ON cn_a (a)") == []  # identical DDL: same fingerprint, still ignored
    assert conn.execute(ROWS, ("cn_a_i2",)).fetchall()[0][6:8] == (fingerprint, "ignored")
    conn.execute(f"ALTER NOTICE '{fingerprint}' RESET STATUS")
    assert conn.execute(ROWS, ("cn_a_i2",)).fetchall()[0][7] == "new"
    assert error(conn, "ALTER NOTICE '00000000-0000-0000-0000-000000000000' SET STATUS = 'ignored'") == (
        "42704",
        'notice "00000000-0000-0000-0000-000000000000" does not exist',
    )
    assert error(conn, f"ALTER NOTICE '{fingerprint}' SET STATUS = 'done'")[0] == "22023"
    assert error(conn, f"ALTER NOTICE '{fingerprint}' SET STATUS")[0] == "42601"


def _start(data_dir: Path) -> SparkwireServer:
    return SparkwireServer.start(data_dir, "--spark-start", "on-demand", "--spark-master", "local[1]")


def test_fingerprints_created_at_and_statuses_survive_a_restart(tmp_path: Path) -> None:
    query = "SELECT id, fingerprint::text, status, created_at, updated_at, message FROM mz_internal.mz_notices"
    srv = _start(tmp_path / "data")
    try:
        with psycopg.connect(srv.dsn, autocommit=True) as c:
            c.execute("CREATE TABLE t (a int)")
            c.execute("CREATE INDEX t_i1 ON t (a)")
            c.execute("CREATE INDEX t_i2 ON t (a)")
            c.execute("CREATE INDEX ON t ()")
            (fingerprint,) = c.execute("SELECT min(fingerprint::text) FROM mz_internal.mz_notices").fetchone() or ("",)
            c.execute(f"ALTER NOTICE '{fingerprint}' SET STATUS = 'resolved'")
            before = sorted(c.execute(query).fetchall())
    finally:
        srv.stop()
    assert len(before) == 2
    srv = _start(tmp_path / "data")
    try:
        with psycopg.connect(srv.dsn, autocommit=True) as c:
            assert sorted(c.execute(query).fetchall()) == before
    finally:
        srv.stop()


def test_alter_system_sets_the_switch_for_every_session_and_survives_a_restart(tmp_path: Path) -> None:
    """ALTER SYSTEM SET enable_notices_for_<type> (issue 5 item 6) is durable and the default of every session
    that has not SET the switch itself; only superusers may run it."""
    srv = _start(tmp_path / "data")
    try:
        with psycopg.connect(srv.dsn, autocommit=True) as admin, psycopg.connect(srv.dsn, autocommit=True) as other:
            assert said(other, "SELECT 1 WHERE 1 = NULL") == [EQUALS_NULL]
            assert admin.execute("ALTER SYSTEM SET enable_notices_for_equals_null = off").statusmessage == (
                "ALTER SYSTEM"
            )
            assert other.execute("SHOW enable_notices_for_equals_null").fetchall() == [("off",)]
            assert said(other, "SELECT 1 WHERE 1 = NULL") == []  # an open session follows at its next statement
            other.execute("SET enable_notices_for_equals_null = on")  # its own SET wins
            assert said(other, "SELECT 1 WHERE 1 = NULL") == [EQUALS_NULL]
            other.execute("RESET enable_notices_for_equals_null")  # back to the system value
            assert said(other, "SELECT 1 WHERE 1 = NULL") == []
            admin.execute("BEGIN")
            assert error(admin, "ALTER SYSTEM RESET enable_notices_for_equals_null") == (
                "25001",
                "ALTER SYSTEM cannot run inside a transaction block",
            )
            admin.execute("ROLLBACK")
            admin.execute("CREATE ROLE sys_plain LOGIN")
        with psycopg.connect(srv.dsn.replace("user=materialize", "user=sys_plain"), autocommit=True) as plain:
            assert error(plain, "ALTER SYSTEM SET enable_notices_for_equals_null = on") == (
                "42501",
                "must be superuser to execute ALTER SYSTEM command",
            )
    finally:
        srv.stop()
    srv = _start(tmp_path / "data")
    try:
        with psycopg.connect(srv.dsn, autocommit=True) as conn:
            assert conn.execute("SHOW enable_notices_for_equals_null").fetchall() == [("off",)]
            assert said(conn, "SELECT 1 WHERE 1 = NULL") == []
            conn.execute("ALTER SYSTEM RESET enable_notices_for_equals_null")
            assert said(conn, "SELECT 1 WHERE 1 = NULL") == [EQUALS_NULL]
    finally:
        srv.stop()
