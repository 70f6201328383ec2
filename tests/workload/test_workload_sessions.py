"""pg_stat_activity and mz_active_peeks while statements run, what a role sees of other roles' sessions, and
pg_cancel_backend / pg_terminate_backend with PostgreSQL's privilege rules, through psycopg (and PostgreSQL 15)."""

from __future__ import annotations

import threading
import uuid

import psycopg
import pytest

from tests.support.clients import as_role
from tests.workload.conftest import poll

Conn = psycopg.Connection[tuple[object, ...]]


def _sleeper(dsn: str, seconds: float, outcome: list[BaseException | None]) -> tuple[threading.Thread, int]:
    """A session sleeping on the introspection engine in a thread; its pid; what it ends with in `outcome`."""
    conn = psycopg.connect(dsn, autocommit=True)
    pid = conn.info.backend_pid

    def run() -> None:
        try:
            conn.execute(f"SELECT pg_sleep({seconds})").fetchall()
            outcome.append(None)
        except BaseException as exc:  # the test inspects it
            outcome.append(exc)
        finally:
            conn.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, pid


def test_own_row_is_active_with_its_query(sw: Conn) -> None:
    pid = sw.info.backend_pid
    row = sw.execute(
        "SELECT state, query, query_start IS NOT NULL, backend_type FROM pg_stat_activity WHERE pid = %s", (pid,)
    ).fetchone()
    assert row == (
        "active",
        "SELECT state, query, query_start IS NOT NULL, backend_type FROM pg_stat_activity WHERE pid = $1",
        True,
        "client backend",
    )


def test_another_sessions_states(sw: Conn) -> None:
    outcome: list[BaseException | None] = []
    thread, pid = _sleeper(sw.info.dsn, 1.5, outcome)
    rows = poll(
        sw,
        "SELECT state, query FROM pg_stat_activity WHERE pid = %s",
        (pid,),
        until=lambda r: bool(r) and r[0][0] == "active",
    )
    assert rows == [("active", "SELECT pg_sleep(1.5)")]
    peeks = sw.execute(
        "SELECT type FROM mz_internal.mz_active_peeks p JOIN mz_internal.mz_recent_activity_log l "
        "ON p.id = l.execution_id WHERE l.sql = 'SELECT pg_sleep(1.5)' AND l.finished_at IS NULL"
    ).fetchall()
    assert peeks in ([], [(None,)], [("introspection",)])  # in flight: shown once the writer's tick saw it
    thread.join()
    assert outcome == [None]
    gone = poll(sw, "SELECT count(*) FROM pg_stat_activity WHERE pid = %s", (pid,), until=lambda r: r[0][0] == 0)
    assert gone == [(0,)]


def test_idle_in_transaction(sw: Conn) -> None:
    with psycopg.connect(sw.info.dsn) as other:  # not autocommit: psycopg opens a block
        other.execute("SELECT 1").fetchall()
        rows = poll(
            sw,
            "SELECT state, xact_start IS NOT NULL FROM pg_stat_activity WHERE pid = %s",
            (other.info.backend_pid,),
            until=lambda r: bool(r) and r[0][0] != "active",
        )
        assert rows == [("idle in transaction", True)]
        other.rollback()
        rows = poll(
            sw,
            "SELECT state, query FROM pg_stat_activity WHERE pid = %s",
            (other.info.backend_pid,),
            until=lambda r: bool(r) and r[0][0] == "idle",
        )
        assert rows == [("idle", "ROLLBACK")]


def test_cancel_backend(sw: Conn) -> None:
    outcome: list[BaseException | None] = []
    thread, pid = _sleeper(sw.info.dsn, 30, outcome)
    poll(sw, "SELECT state FROM pg_stat_activity WHERE pid = %s", (pid,), until=lambda r: r == [("active",)])
    assert sw.execute("SELECT pg_cancel_backend(%s)", (pid,)).fetchone() == (True,)
    thread.join(timeout=20)
    assert len(outcome) == 1 and isinstance(outcome[0], psycopg.errors.QueryCanceled)
    status = poll(
        sw,
        "SELECT finished_status FROM mz_internal.mz_recent_activity_log WHERE session_id = "
        "(SELECT session_id FROM mz_internal.mz_recent_activity_log WHERE sql = 'SELECT pg_sleep(30)' "
        "ORDER BY began_at DESC LIMIT 1) AND sql = 'SELECT pg_sleep(30)'",
        until=lambda r: bool(r) and r[0][0] is not None,
    )
    assert status == [("canceled",)]


def test_unknown_pid_warns_and_answers_false(sw: Conn) -> None:
    notices: list[str] = []
    sw.add_notice_handler(lambda d: notices.append(str(d.message_primary)))
    assert sw.execute("SELECT pg_cancel_backend(12345)").fetchone() == (False,)
    assert notices == ["PID 12345 is not a PostgreSQL backend process"]


def test_terminate_backend(sw: Conn) -> None:
    other = psycopg.connect(sw.info.dsn, autocommit=True)
    try:
        pid = other.info.backend_pid
        assert sw.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone() == (True,)
        with pytest.raises(psycopg.OperationalError, match="terminating connection due to administrator command"):
            other.execute("SELECT 1")
    finally:
        other.close()
    gone = poll(sw, "SELECT count(*) FROM pg_stat_activity WHERE pid = %s", (pid,), until=lambda r: r[0][0] == 0)
    assert gone == [(0,)]



def test_signal_privileges(sw: Conn, role: str) -> None:
    dsn = as_role(sw.info.dsn, role)
    with psycopg.connect(dsn, autocommit=True) as mine, psycopg.connect(dsn, autocommit=True) as twin:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="must be a superuser to cancel superuser"):
            mine.execute("SELECT pg_cancel_backend(%s)", (sw.info.backend_pid,))
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="superuser to terminate superuser process"):
            mine.execute("SELECT pg_terminate_backend(%s)", (sw.info.backend_pid,))
        assert mine.execute("SELECT pg_cancel_backend(%s)", (twin.info.backend_pid,)).fetchone() == (True,)
        assert twin.execute("SELECT 1").fetchone() == (1,)  # a cancel with nothing running does nothing


def test_spark_health_is_readable_by_everyone(sw: Conn, role: str) -> None:
    sw.execute("SELECT 1 FROM mz_catalog.mz_tables LIMIT 1").fetchall()
    dsn = as_role(sw.info.dsn, role)
    with psycopg.connect(dsn, autocommit=True) as anyone:
        rows = anyone.execute(
            "SELECT state, restarts >= 0, failed_statements >= 0, memory_cancels >= 0 FROM mz_internal.mz_spark_health"
        ).fetchall()
    assert len(rows) == 1 and rows[0][0] in ("starting", "ready", "restarting") and rows[0][1:] == (True, True, True)


def test_a_statement_is_in_the_log_once_in_flight_and_once_finished(sw: Conn) -> None:
    """The statements in flight share the activity log's table with the finished ones (finished_at NULL): while it
    runs a statement has one row, shown by mz_active_peeks; once it has finished it has one row, finished, and the
    in-flight one is gone."""
    outcome: list[BaseException | None] = []
    thread, _ = _sleeper(sw.info.dsn, 2.0, outcome)
    rows_of = (
        "SELECT finished_at IS NULL, finished_status, p.id IS NOT NULL FROM mz_internal.mz_recent_activity_log l "
        "LEFT JOIN mz_internal.mz_active_peeks p ON p.id = l.execution_id WHERE l.sql = 'SELECT pg_sleep(2.0)'"
    )
    running = poll(sw, rows_of, until=bool)
    assert running == [(True, None, True)]
    thread.join()
    assert outcome == [None]
    finished = poll(sw, rows_of, until=lambda r: r == [(False, "success", False)])
    assert finished == [(False, "success", False)]


_SEEN = (
    "SELECT usename, application_name, datname IS NULL, usesysid IS NULL, backend_start IS NULL, "
    "query_start IS NULL, state_change IS NULL, xact_start, wait_event, state, query, backend_type "
    "FROM pg_stat_activity WHERE usename = '{}'"
)


def test_other_roles_sessions_are_masked_as_postgresql_masks_them(sw: Conn, pg: Conn) -> None:
    """A role sees its own sessions and those of roles it is a member of in full; of the others only who and where
    (query `<insufficient privilege>`, the rest NULL); a reader of all statistics (PostgreSQL's pg_read_all_stats,
    sparkwire's mz_monitor) sees everything. The same statements against PostgreSQL 15 and sparkwire."""
    name = "m" + uuid.uuid4().hex[:10]
    viewer, other = f"{name}_viewer", f"{name}_other"
    answers = []
    for conn, reader in ((pg, "pg_read_all_stats"), (sw, "mz_monitor")):
        conn.execute(f"CREATE ROLE {viewer} LOGIN")
        conn.execute(f"CREATE ROLE {other} LOGIN")
        try:
            with (
                psycopg.connect(conn.info.dsn, user=other, autocommit=True, application_name="theirs") as theirs,
                psycopg.connect(conn.info.dsn, user=viewer, autocommit=True) as mine,
            ):
                theirs.execute("SELECT 1").fetchall()
                seen = [mine.execute(_SEEN.format(other)).fetchall()]
                own = mine.execute(f"SELECT state, query FROM pg_stat_activity WHERE pid = {mine.info.backend_pid}")
                seen.append([(state, str(query).split(" WHERE")[0]) for state, query in own.fetchall()])
                conn.execute(f"GRANT {reader} TO {viewer}")
                seen.append(mine.execute(_SEEN.format(other)).fetchall())
                conn.execute(f"REVOKE {reader} FROM {viewer}")
                conn.execute(f"GRANT {other} TO {viewer}")
                seen.append(mine.execute(_SEEN.format(other)).fetchall())
                conn.execute(f"REVOKE {other} FROM {viewer}")
            answers.append(seen)
        finally:
            conn.execute(f"DROP ROLE {viewer}")
            conn.execute(f"DROP ROLE {other}")
    masked = [(other, "theirs", False, False, True, True, True, None, None, None, "<insufficient privilege>", None)]
    shown = [
        (other, "theirs", False, False, False, False, False, None, "ClientRead", "idle", "SELECT 1", "client backend")
    ]
    assert answers[1] == answers[0]
    assert answers[1][0] == masked and answers[1][2] == answers[1][3] == shown
    assert answers[1][1] == [("active", "SELECT state, query FROM pg_stat_activity")]  # its own session


def test_the_mask_holds_on_every_read_path(sw: Conn, role: str) -> None:
    sw.execute("SELECT 'secret' AS s").fetchall()
    pid = sw.info.backend_pid
    hidden = "<insufficient privilege>"
    name = "v_" + uuid.uuid4().hex[:8]
    sw.execute(f"CREATE VIEW {name}_admin AS SELECT pid, query FROM pg_catalog.pg_stat_activity")
    sw.execute(f"GRANT SELECT ON {name}_admin TO {role}")
    sw.execute(f"GRANT CREATE ON SCHEMA public TO {role}")
    try:
        with psycopg.connect(as_role(sw.info.dsn, role), autocommit=True) as mine:
            for sql in (
                f"SELECT query FROM pg_stat_activity WHERE pid = {pid}",
                f"SELECT a.query FROM pg_catalog.pg_stat_activity a JOIN mz_internal.mz_sessions s "
                f"ON s.connection_id = a.pid WHERE a.pid = {pid}",
                f"WITH a AS (SELECT * FROM pg_stat_activity) SELECT query FROM a WHERE pid = {pid}",
                f"SELECT (SELECT query FROM pg_stat_activity WHERE pid = {pid})",
                f"SELECT query FROM (SELECT * FROM pg_stat_activity) AS t WHERE pid = {pid}",
            ):
                assert mine.execute(sql).fetchall() == [(hidden,)], sql
            with mine.cursor().copy(f"COPY (SELECT query FROM pg_stat_activity WHERE pid = {pid}) TO STDOUT") as copy:
                assert b"".join(bytes(chunk) for chunk in copy) == hidden.encode() + b"\n"
            # writes that read it: what the role may read, not more
            mine.execute(f"CREATE TABLE {name}_ctas AS SELECT query FROM pg_stat_activity WHERE pid = {pid}")
            mine.execute(f"CREATE TABLE {name}_t (q text)")
            mine.execute(f"INSERT INTO {name}_t SELECT query FROM pg_stat_activity WHERE pid = {pid}")
            mine.execute(f"INSERT INTO {name}_t VALUES ('x')")
            where = f"WHERE pid = {pid}"
            mine.execute(f"UPDATE {name}_t SET q = (SELECT query FROM pg_stat_activity {where}) WHERE q = 'x'")
            for table, column in ((f"{name}_ctas", "query"), (f"{name}_t", "q")):
                assert {row[0] for row in mine.execute(f"SELECT {column} FROM {table}").fetchall()} == {hidden}
                mine.execute(f"DROP TABLE {table}")
            mine.execute(f"CREATE VIEW {name}_mine AS SELECT pid, query FROM pg_catalog.pg_stat_activity")
            for view in (f"{name}_mine", f"{name}_admin"):  # the mask rewrites statements, not views' bodies
                with pytest.raises(psycopg.errors.InsufficientPrivilege, match=r"pg_catalog\.pg_stat_activity"):
                    mine.execute(f"SELECT query FROM {view} WHERE pid = {pid}")
            mine.execute(f"DROP VIEW {name}_mine")
    finally:
        sw.execute(f"DROP VIEW {name}_admin")
        sw.execute(f"REVOKE CREATE ON SCHEMA public FROM {role}")
