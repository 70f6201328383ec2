"""The statement history (mz_recent_activity_log and friends) as psycopg and psql users see it."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import psycopg
import pytest

from tests.support.clients import as_role
from tests.support.server import SparkwireServer
from tests.workload.conftest import poll

_LOG = (
    "SELECT finished_status, error_message, rows_returned, execution_strategy, statement_type, authenticated_user, "
    "params, prepared_statement_name, redacted_sql, octet_length(sql_hash), finished_at >= began_at, sample_rate "
    "FROM mz_internal.mz_recent_activity_log WHERE sql LIKE %s"
)


def _marker() -> str:
    return "m" + uuid.uuid4().hex[:12]


def _logged(sw: psycopg.Connection[tuple[object, ...]], marker: str) -> list[tuple[object, ...]]:
    return poll(sw, _LOG, (f"%{marker}%",), until=lambda rows: any(r[0] is not None for r in rows))


def test_a_query_is_logged_with_its_outcome(sw: psycopg.Connection[tuple[object, ...]]) -> None:
    marker = _marker()
    with psycopg.connect(sw.info.dsn, autocommit=True) as other:
        other.execute(f"SELECT 'secret', 42 AS {marker}").fetchall()
    (row,) = _logged(sw, marker)
    status, error, rows, strategy, kind, user, params, name, redacted, hash_len, ordered, rate = row
    assert (status, error, rows, strategy, kind, user) == ("success", None, 1, "constant", "select", "materialize")
    assert params == [] and name == "" and hash_len == 32 and ordered is True and rate == 1.0
    assert redacted == f"SELECT █, █ AS {marker}"


def test_errors_are_logged_with_their_message(sw: psycopg.Connection[tuple[object, ...]]) -> None:
    marker = _marker()
    with psycopg.connect(sw.info.dsn, autocommit=True) as other:
        with pytest.raises(psycopg.errors.DivisionByZero):
            other.execute(f"SELECT 1 / 0 AS {marker}")
        with pytest.raises(psycopg.errors.SyntaxError):
            other.execute(f"SELEC {marker}")
        assert other.execute("SELECT 1").fetchone() == (1,)  # the session stays usable
    rows = poll(
        sw,
        "SELECT finished_status, error_message FROM mz_internal.mz_recent_activity_log WHERE sql LIKE %s "
        "AND finished_at IS NOT NULL ORDER BY began_at",  # a row shows when it began; its outcome once done
        (f"%{marker}%",),
        until=lambda r: len(r) == 2,
    )
    assert rows == [("error", "division by zero"), ("error", 'syntax error at or near "SELEC"')]


def test_extended_protocol_params_and_prepared_names(sw: psycopg.Connection[tuple[object, ...]]) -> None:
    marker = _marker()
    with psycopg.connect(sw.info.dsn, autocommit=True) as other:
        other.execute(f"SELECT %s::int + 1 AS {marker}", (41,)).fetchall()
        cur = other.cursor()
        for value in (1, 2):  # psycopg prepares a statement the third time; prepare=True does it now
            cur.execute(f"SELECT %s::text AS {marker}_p", (f"v{value}",), prepare=True).fetchall()
    rows = poll(
        sw,
        "SELECT params, prepared_statement_name <> '', rows_returned, statement_type "
        "FROM mz_internal.mz_recent_activity_log WHERE sql LIKE %s AND finished_at IS NOT NULL ORDER BY began_at",
        (f"%{marker}%",),
        until=lambda r: len(r) == 3,
    )
    assert rows == [(["41"], False, 1, "select"), (["v1"], True, 1, "select"), (["v2"], True, 1, "select")]


def test_lifecycle_and_sql_text(sw: psycopg.Connection[tuple[object, ...]]) -> None:
    marker = _marker()
    sw.execute(f"SELECT 7 AS {marker}").fetchall()
    (execution_id,) = poll(
        sw,
        "SELECT execution_id FROM mz_internal.mz_recent_activity_log WHERE sql LIKE %s AND finished_at IS NOT NULL",
        (f"%{marker}%",),
    )[0]
    events = [r[0] for r in sw.execute(
        "SELECT event_type FROM mz_internal.mz_statement_lifecycle_history WHERE statement_id = %s "
        "ORDER BY occurred_at", (execution_id,)
    )]  # fmt: skip
    assert events == ["execution-began", "compute-dependencies-finished", "execution-finished"]
    texts = sw.execute(
        "SELECT t.sql, t.redacted_sql FROM mz_internal.mz_sql_text t JOIN mz_internal.mz_recent_activity_log l "
        "USING (sql_hash) WHERE l.execution_id = %s",
        (execution_id,),
    ).fetchall()
    assert texts == [(f"SELECT 7 AS {marker}", f"SELECT █ AS {marker}")]
    sessions = sw.execute(
        "SELECT count(*) FROM mz_internal.mz_session_history h JOIN mz_internal.mz_recent_activity_log l "
        "USING (session_id) WHERE l.execution_id = %s AND h.authenticated_user = 'materialize'",
        (execution_id,),
    ).fetchone()
    assert sessions == (1,)


def test_sampling_follows_the_session_and_system_rates(sw: psycopg.Connection[tuple[object, ...]]) -> None:
    marker = _marker()
    with pytest.raises(psycopg.errors.CantChangeRuntimeParam):
        sw.execute("SET statement_logging_max_sample_rate = 0.5")
    with psycopg.connect(sw.info.dsn, autocommit=True) as other:
        other.execute("SET statement_logging_sample_rate = 0")
        other.execute(f"SELECT 1 AS {marker}_hidden").fetchall()
        other.execute("SET statement_logging_sample_rate = 1")
        other.execute(f"SELECT 1 AS {marker}_shown").fetchall()
    rows = poll(
        sw,
        "SELECT sql FROM mz_internal.mz_recent_activity_log WHERE sql LIKE %s",
        (f"%{marker}%",),
        until=lambda r: len(r) >= 1,
    )
    assert rows == [(f"SELECT 1 AS {marker}_shown",)]


def test_a_session_is_in_the_history_once_a_statement_of_it_is(sw: psycopg.Connection[tuple[object, ...]]) -> None:
    """As Materialize: mz_session_history holds a session from its first logged statement, so connections that log
    nothing (statement_logging_sample_rate 0 from the start, or throttled) do not grow it."""
    own = "SELECT id FROM mz_internal.mz_sessions WHERE connection_id = pg_backend_pid()"
    with psycopg.connect(sw.info.dsn, autocommit=True, options="-c statement_logging_sample_rate=0") as quiet:
        quiet_row = quiet.execute(own).fetchone()
    with psycopg.connect(sw.info.dsn, autocommit=True) as logged:
        logged_row = logged.execute(own).fetchone()
    assert quiet_row is not None and logged_row is not None
    count = "SELECT count(*) FROM mz_internal.mz_session_history WHERE session_id = %s"
    poll(sw, count, (logged_row[0],), until=lambda r: r[0][0] == 1)  # written in the batch after it closed
    assert sw.execute(count, (quiet_row[0],)).fetchone() == (0,)  # it would have been in that batch or an earlier one


def test_a_huge_statement_is_logged_truncated(sw: psycopg.Connection[tuple[object, ...]]) -> None:
    marker = _marker()
    huge = f"SELECT '{'x' * 1_100_000}' AS {marker}"
    with psycopg.connect(sw.info.dsn, autocommit=True) as other, pytest.raises(psycopg.errors.ProgramLimitExceeded):
        other.execute(huge)
    rows = poll(
        sw,
        "SELECT finished_status, length(sql), sql LIKE %s "
        "FROM mz_internal.mz_recent_activity_log WHERE sql LIKE %s AND began_at > now() - INTERVAL '1 minute'",
        (f"%… [truncated: {len(huge)} bytes]", "SELECT 'xxxxxxxx%"),
    )
    status, length, marked = rows[-1]
    assert status == "error" and isinstance(length, int) and length < 70_000 and marked is True



def test_every_role_reads_its_own_statements(sw: psycopg.Connection[tuple[object, ...]], role: str) -> None:
    marker = _marker()
    sw.execute(f"SELECT 1 AS {marker}_admin").fetchall()
    dsn = as_role(sw.info.dsn, role)
    with psycopg.connect(dsn, autocommit=True) as mine:
        mine.execute(f"SELECT 1 AS {marker}_mine").fetchall()
        seen = poll(
            mine,
            "SELECT sql, authenticated_user FROM mz_internal.mz_recent_activity_log WHERE sql LIKE %s",
            (f"%{marker}%",),
        )
        assert seen == [(f"SELECT 1 AS {marker}_mine", role)]
        redacted = mine.execute(
            "SELECT redacted_sql FROM mz_internal.mz_recent_activity_log_redacted WHERE redacted_sql LIKE %s",
            (f"%{marker}%",),
        ).fetchall()
        assert redacted == [(f"SELECT █ AS {marker}_mine",)]
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            mine.execute("SELECT * FROM mz_internal.mz_sql_text")
        with pytest.raises(psycopg.errors.InvalidCatalogName):  # the history's own database is no name of SQL's
            mine.execute("SELECT * FROM sw_history.main.executions")
        # writes that read it copy only what the role may read (RBAC's row filter is in the statement they run)
        sw.execute(f"GRANT CREATE ON SCHEMA public TO {role}")
        copy = _marker()  # a name of its own: these statements are logged too, and must not match `marker`
        mine.execute(f"CREATE TABLE {copy} AS SELECT sql FROM mz_internal.mz_recent_activity_log")
        mine.execute(f"INSERT INTO {copy} SELECT sql FROM mz_internal.mz_recent_activity_log")
        copied = mine.execute(f"SELECT sql FROM {copy} WHERE sql LIKE %s", (f"%{marker}%",)).fetchall()
        assert {row[0] for row in copied} == {f"SELECT 1 AS {marker}_mine"}
        mine.execute(f"DROP TABLE {copy}")
        sw.execute(f"REVOKE CREATE ON SCHEMA public FROM {role}")
    sw.execute(f"GRANT mz_monitor TO {role}")
    with psycopg.connect(dsn, autocommit=True) as monitor:
        both = monitor.execute(
            "SELECT count(*) FROM mz_internal.mz_recent_activity_log WHERE sql LIKE %s", (f"%{marker}%",)
        ).fetchone()
        assert both == (2,)


def test_history_survives_a_restart(tmp_path: Path) -> None:
    marker = _marker()
    server = SparkwireServer.start(tmp_path / "data", "--spark-start", "on-demand")
    try:
        with psycopg.connect(server.dsn, autocommit=True) as conn:
            conn.execute(f"SELECT 5 AS {marker}").fetchall()
            poll(conn, _LOG, (f"%{marker}%",), until=lambda rows: any(r[0] is not None for r in rows))
    finally:
        server.stop()
    server = SparkwireServer.start(tmp_path / "data", "--spark-start", "on-demand")
    try:
        with psycopg.connect(server.dsn, autocommit=True) as conn:
            rows = conn.execute(
                "SELECT finished_status, rows_returned FROM mz_internal.mz_recent_activity_log WHERE sql LIKE %s",
                (f"%{marker}%",),
            ).fetchall()
            sessions = poll(  # the first run's session and this one (written within a tick)
                conn, "SELECT count(*) FROM mz_internal.mz_session_history", until=lambda r: r[0][0] == 2
            )[0]
    finally:
        server.stop()
    assert rows == [("success", 1)]
    assert sessions == (2,)


def test_the_history_keeps_to_its_data_rate(tmp_path: Path) -> None:
    """Materialize's throttle (history/throttle.py): past the burst credit, statements are not logged, and the next
    one logged counts them in `throttled_count`. A server of its own: the bucket is server-wide and drained here."""
    marker = _marker()
    server = SparkwireServer.start(tmp_path / "data", "--spark-start", "on-demand")
    try:
        with psycopg.connect(server.dsn, autocommit=True) as admin, psycopg.connect(server.dsn) as other:
            other.autocommit = True
            assert admin.execute("SHOW statement_logging_target_data_rate").fetchone() == ("2071",)
            assert admin.execute("SHOW statement_logging_max_data_credit").fetchone() == ("52428800",)
            with pytest.raises(psycopg.errors.CantChangeRuntimeParam):
                other.execute("SET statement_logging_target_data_rate = 10")
            with pytest.raises(psycopg.errors.InvalidParameterValue):
                admin.execute("ALTER SYSTEM SET statement_logging_max_data_credit = -1")
            admin.execute("ALTER SYSTEM SET statement_logging_target_data_rate = 0")  # no refill
            admin.execute("ALTER SYSTEM SET statement_logging_max_data_credit = 4000")  # a dozen short statements
            for i in range(40):
                other.execute(f"SELECT {i} AS {marker}").fetchall()
            admin.execute("ALTER SYSTEM SET statement_logging_target_data_rate = 20000")  # throttled too: rate 0 yet
            time.sleep(0.3)  # the bucket refills (6,000 bytes, up to the credit)
            other.execute(f"SELECT 1 AS {marker}_after").fetchall()  # logged, with the count
            admin.execute("ALTER SYSTEM SET statement_logging_target_data_rate = ''")  # unlimited
            assert admin.execute("SHOW statement_logging_target_data_rate").fetchone() == ("",)
            (after,) = poll(
                admin,
                "SELECT throttled_count::int FROM mz_internal.mz_recent_activity_log WHERE sql LIKE %s "
                "AND finished_at IS NOT NULL",
                (f"%{marker}_after",),
            )
            logged = admin.execute(
                "SELECT count(*)::int, sum(throttled_count)::int FROM mz_internal.mz_recent_activity_log "
                "WHERE sql LIKE %s",
                (f"SELECT % AS {marker}",),
            ).fetchone()
    finally:
        server.stop()
    assert logged is not None and 0 < logged[0] < 40 and logged[1] == 0  # the first ones, until the credit ran out
    assert after == (40 - logged[0] + 1,)  # every SELECT not logged, and the ALTER SYSTEM before it


def test_spark_jobs_name_their_statement(sw: psycopg.Connection[tuple[object, ...]]) -> None:
    marker = _marker()
    sw.execute(f"CREATE TABLE {marker} (a int)")
    try:
        sw.execute(f"INSERT INTO {marker} VALUES (1), (2), (3)")
        assert sw.execute(f"SELECT sum(a) AS {marker}_sum FROM {marker}").fetchall() == [(6,)]
        rows = poll(
            sw,
            "SELECT l.execution_strategy, l.rows_returned, count(j.job_id) FROM mz_internal.mz_recent_activity_log l "
            "JOIN mz_internal.mz_spark_jobs j ON j.execution_id = l.execution_id::text "
            "WHERE l.sql LIKE %s AND l.finished_at IS NOT NULL GROUP BY 1, 2",
            (f"%{marker}_sum%",),
        )
        (strategy, returned, jobs), = rows
        assert (strategy, returned) == ("standard", 1) and isinstance(jobs, int) and jobs >= 1
    finally:
        sw.execute(f"DROP TABLE {marker}")


def test_psql_reads_the_history(server: SparkwireServer, sw: psycopg.Connection[tuple[object, ...]]) -> None:
    from tests.client.test_client_psql import psql

    marker = _marker()
    ran = psql(server.port, "-A", "-t", "-c", f"SELECT 'x' AS {marker}")
    assert ran.returncode == 0, ran.stderr
    poll(sw, _LOG, (f"%{marker}%",), until=lambda rows: any(r[0] is not None for r in rows))
    shown = psql(
        server.port,
        "-A",
        "-t",
        "-c",
        "SELECT finished_status, statement_type, application_name, redacted_sql, search_path "
        f"FROM mz_internal.mz_recent_activity_log WHERE sql LIKE '%{marker}%'",
    )
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == f"success|select|psql|SELECT █ AS {marker}|{{public}}\n"


def test_statement_types_follow_the_command(sw: psycopg.Connection[tuple[object, ...]]) -> None:
    marker = _marker()
    sw.execute(f"CREATE TABLE {marker} (a int)")
    sw.execute(f"INSERT INTO {marker} VALUES (1), (2)")
    sw.execute(f"DROP TABLE {marker}")
    rows = poll(
        sw,
        "SELECT statement_type FROM mz_internal.mz_recent_activity_log WHERE sql LIKE %s AND finished_at IS NOT NULL"
        " ORDER BY began_at",  # a statement is logged as it begins, and typed by its command tag as it finishes
        (f"%{marker}%",),
        until=lambda r: len(r) == 3,
    )
    assert rows == [("create_table",), ("insert",), ("drop_table",)]
