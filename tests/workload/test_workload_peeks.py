"""Live relations answered from memory (introspection/peeks.py) exactly as the store answers them: the activity
log's newest rows (introspection/history/recent.py), pg_stat_activity and mz_sessions, mz_spark_jobs and
mz_spark_stages — same rows, names, types and text, in text and binary format (and for the log in another
TimeZone); as `fast-path` in the log; with statements still in flight; and the shapes they do not hold (a row
filter, more rows than kept, other clauses, an unqualified name) still answer from the store. The store's answer is
read in a transaction block (which never takes a peek) from a session whose own statements are not logged, between
two reads that agree."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable

import psycopg
import pytest

from sparkwire.introspection.history.recent import CAPACITY
from tests.support.clients import as_role
from tests.workload.conftest import poll

_LOG = "mz_internal.mz_recent_activity_log"
Row = tuple[object, ...]
Read = tuple[list[tuple[str, int]], list[Row]]  # (names and type oids, rows)
SHAPES = (
    f"SELECT * FROM {_LOG} ORDER BY began_at DESC LIMIT 100",
    f"SELECT execution_id AS id, sql, l.began_at, finished_status FROM {_LOG} l "
    "ORDER BY l.began_at DESC NULLS LAST LIMIT 5 OFFSET 3",
    f"SELECT l.* FROM {_LOG}_redacted AS l ORDER BY began_at DESC LIMIT 7",
    f"SELECT redacted_sql, redacted_sql AS again FROM {_LOG}_redacted ORDER BY began_at DESC LIMIT 0",
    f"SELECT \"sql\", Began_At FROM MZ_INTERNAL.{_LOG.split('.')[1].upper()} ORDER BY BEGAN_AT DESC LIMIT 3",
    f"SELECT sql FROM {_LOG} ORDER BY 1 DESC LIMIT 3",  # another order
    f"SELECT execution_id FROM {_LOG} WHERE finished_status = 'success' ORDER BY began_at DESC LIMIT 4",
)
# the store's path both times: DuckDB's top-N may break a tie in began_at either way (statements of one message
# share it), so only the columns and the count are compared
STORE_SHAPES = (
    f"SELECT execution_id FROM {_LOG} ORDER BY began_at DESC LIMIT {CAPACITY + 50}",  # more than it holds
    f"SELECT execution_id FROM {_LOG} ORDER BY began_at DESC LIMIT 10 OFFSET {CAPACITY}",
    f"SELECT execution_id, sql FROM {_LOG} ORDER BY began_at LIMIT 4",  # oldest first
)


def _fill(dsn: str, marker: str, statements: int) -> None:
    with psycopg.connect(dsn, autocommit=True) as other:
        for i in range(statements):
            other.execute(f"SELECT {i} AS {marker}, now(), 'x'::bytea, ARRAY[1.5, 2]").fetchall()


def _answers(
    conn: psycopg.Connection[tuple[object, ...]], sql: str, binary: bool, keep: Callable[[Row], bool] = bool
) -> tuple[Read, Read, Read]:
    """(store's answer, fast path's answer, store's again): the store's inside a transaction block; the rows that
    `keep` keeps, sorted (rows that tie in the ORDER BY may come in either order)."""

    def read(block: bool) -> Read:
        with conn.transaction() if block else _no_block():
            cur = conn.cursor(binary=binary)
            rows = sorted((row for row in cur.execute(sql).fetchall() if keep(row)), key=repr)
            return [(d.name, d.type_code) for d in cur.description or ()], rows

    return read(True), read(False), read(True)


class _no_block:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_newest_rows_answer_as_the_store_does(sw: psycopg.Connection[tuple[object, ...]], binary: bool) -> None:
    marker = "m" + uuid.uuid4().hex[:12]
    _fill(sw.info.dsn, marker, 30)
    with psycopg.connect(sw.info.dsn, autocommit=True) as quiet:
        quiet.execute("SET statement_logging_sample_rate = 0")  # reading does not change what is read
        poll(quiet, f"SELECT count(*) FROM {_LOG} WHERE sql LIKE %s", (f"%{marker}%",), until=lambda r: r[0][0] == 30)
        for zone in ("UTC", "Asia/Kolkata"):
            quiet.execute(f"SET TimeZone = '{zone}'")
            for sql in SHAPES:
                _same(quiet, sql, binary, bool)
            for sql in STORE_SHAPES:
                before, fast, _ = _answers(quiet, sql, binary)
                assert fast[0] == before[0] and len(fast[1]) == len(before[1]), sql


def test_the_newest_rows_are_a_fast_path_peek(sw: psycopg.Connection[tuple[object, ...]]) -> None:
    marker = "m" + uuid.uuid4().hex[:12]
    with psycopg.connect(sw.info.dsn, autocommit=True) as other:
        other.execute(f"SELECT sql AS {marker}_top FROM {_LOG} ORDER BY began_at DESC LIMIT 3").fetchall()
        other.execute(f"SELECT sql AS {marker}_all FROM {_LOG} ORDER BY began_at DESC").fetchall()
        other.execute(f"SELECT sql AS {marker}_filtered FROM {_LOG} WHERE true ORDER BY began_at DESC LIMIT 3")
        other.execute(f"SELECT query AS {marker}_psa FROM pg_catalog.pg_stat_activity").fetchall()
        other.execute(f"SELECT query AS {marker}_unqualified FROM pg_stat_activity").fetchall()
        other.execute("BEGIN")
        other.execute(f"SELECT sql AS {marker}_block FROM {_LOG} ORDER BY began_at DESC LIMIT 3").fetchall()
        other.execute("COMMIT")
    rows = poll(
        sw,
        f"SELECT split_part(sql, ' ', 4), execution_strategy FROM {_LOG} WHERE sql LIKE %s AND finished_at IS NOT NULL "
        "ORDER BY began_at",
        (f"SELECT % AS {marker}%",),
        until=lambda r: len(r) == 6,
    )
    assert len(rows) == 6 and rows[0] == (f"{marker}_top", "fast-path"), rows
    # without LIMIT: from memory only while the whole log fits there
    assert rows[1][0] == f"{marker}_all" and rows[1][1] in ("fast-path", "introspection")
    assert rows[2:] == [
        (f"{marker}_filtered", "introspection"),
        (f"{marker}_psa", "fast-path"),
        (f"{marker}_unqualified", "introspection"),  # it could name a relation of the user's
        (f"{marker}_block", "introspection"),  # a transaction block reads its own snapshot
    ], rows


def test_a_statement_in_flight_is_among_the_newest(sw: psycopg.Connection[tuple[object, ...]]) -> None:
    marker = "m" + uuid.uuid4().hex[:12]
    done = threading.Event()

    def sleep() -> None:
        with psycopg.connect(sw.info.dsn, autocommit=True) as other:
            other.execute(f"SELECT pg_sleep(3) AS {marker}").fetchall()
        done.set()

    thread = threading.Thread(target=sleep)
    thread.start()
    try:
        with psycopg.connect(sw.info.dsn, autocommit=True) as quiet:
            quiet.execute("SET statement_logging_sample_rate = 0")  # the polls do not push it out of the newest
            newest = f"SELECT sql, finished_status, finished_at FROM {_LOG} ORDER BY began_at DESC LIMIT 20"
            rows = poll(quiet, newest, until=lambda r: any(marker in str(row[0]) for row in r))
            (running,) = [row for row in rows if marker in str(row[0])]
            assert running[1:] == (None, None) and not done.is_set()
            rows = poll(quiet, newest, until=lambda r: any(marker in str(row[0]) and row[1] for row in r))
            assert [row[1] for row in rows if marker in str(row[0])] == ["success"]
    finally:
        thread.join()


def test_a_role_that_reads_its_own_statements_gets_only_those(
    sw: psycopg.Connection[tuple[object, ...]], role: str
) -> None:
    with psycopg.connect(as_role(sw.info.dsn, role), autocommit=True) as conn:
        conn.execute("SELECT 1").fetchall()
        rows = poll(
            conn,
            f"SELECT authenticated_user, execution_strategy FROM {_LOG} ORDER BY began_at DESC LIMIT 50",
            until=lambda r: len(r) >= 2,
        )
    assert {user for user, _ in rows} == {role}
    assert "fast-path" not in {strategy for _, strategy in rows}  # a row filter: the store answers


def _same(conn: psycopg.Connection[tuple[object, ...]], sql: str, binary: bool, keep: Callable[[Row], bool]) -> None:
    for _ in range(20):  # compare only across a quiet moment (a feed's poll, another test's session)
        before, fast, after = _answers(conn, sql, binary, keep)
        if before == after:
            break
    assert before == after, sql
    assert fast == before, sql


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_sessions_answer_as_the_store_does(sw: psycopg.Connection[tuple[object, ...]], binary: bool) -> None:
    with (
        psycopg.connect(sw.info.dsn, autocommit=True, application_name="idle one") as one,
        psycopg.connect(sw.info.dsn, autocommit=True, application_name="idle two") as two,
        psycopg.connect(sw.info.dsn, autocommit=True) as quiet,
    ):
        one.execute("SELECT 1").fetchall()
        two.execute("BEGIN")
        two.execute("SELECT 2").fetchall()  # idle in transaction
        quiet.execute("SET statement_logging_sample_rate = 0")
        me = quiet.info.backend_pid
        def not_mine(i: int) -> Callable[[Row], bool]:
            return lambda row: row[i] != me  # its own row changes as it reads

        for sql, pid_column in (
            ("SELECT * FROM pg_catalog.pg_stat_activity", 2),
            ("SELECT pid AS p, a.state, query, a.application_name FROM pg_catalog.pg_stat_activity a", 0),
            ("SELECT * FROM mz_internal.mz_sessions", 1),
            ("SELECT * FROM pg_stat_activity", 2),  # unqualified: the store's path
        ):
            _same(quiet, sql, binary, not_mine(pid_column))
        names = {r[0] for r in quiet.execute("SELECT application_name FROM pg_catalog.pg_stat_activity").fetchall()}
        assert {"idle one", "idle two"} <= names
        two.execute("COMMIT")


def test_spark_jobs_answer_as_the_store_does(sw: psycopg.Connection[tuple[object, ...]]) -> None:
    marker = "m" + uuid.uuid4().hex[:12]
    sw.execute(f"CREATE TABLE {marker} (a int)")
    sw.execute(f"INSERT INTO {marker} SELECT generate_series(1, 50)")
    sw.execute(f"SELECT count(*) FROM {marker} x, {marker} y WHERE x.a < y.a").fetchall()
    with psycopg.connect(sw.info.dsn, autocommit=True) as quiet:
        quiet.execute("SET statement_logging_sample_rate = 0")
        done = "SELECT count(*) FROM mz_internal.mz_spark_jobs WHERE status = 'succeeded'"
        poll(quiet, done, until=lambda r: bool(r[0][0]))
        for sql in (
            "SELECT * FROM mz_internal.mz_spark_jobs",
            "SELECT * FROM mz_internal.mz_spark_stages",
            "SELECT job_id AS j, s.status, s.num_tasks FROM mz_internal.mz_spark_jobs s",
        ):
            for binary in (False, True):
                _same(quiet, sql, binary, bool)
    sw.execute(f"DROP TABLE {marker}")
