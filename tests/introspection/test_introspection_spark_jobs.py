"""Live Spark work (issue 14): mz_internal.mz_spark_jobs / mz_spark_stages show a running statement's jobs and their
end, fed from Spark's status store by a side thread; `SET progress_notices = on` sends progress NOTICEs while the
statement runs; only superusers and mz_monitor read the relations. Everything through psycopg against a real server;
waits poll with a deadline instead of sleeping."""

from __future__ import annotations

import re
import threading
import time
import uuid
from collections.abc import Iterator

import psycopg
import pytest

from sparkwire.engine.duckdb import DuckDBEngine
from sparkwire.engine.spark_status import Job, SparkStatusReader
from sparkwire.introspection import store
from sparkwire.introspection.tables import table_sql
from sparkwire.introspection.workload.relations import SPARK_JOBS, SPARK_STAGES, relation
from sparkwire.introspection.workload.spark_jobs import SparkJobsFeed, tag_of
from tests.support.clients import as_role, poll
from tests.support.spark import shared_spark

Conn = psycopg.Connection[tuple[object, ...]]
Row = tuple[object, ...]
PROGRESS = re.compile(r"progress: \d{1,3}% \(stage \d+ of \d+, \d+/\d+ tasks\)\Z")



@pytest.fixture
def table(sw: Conn) -> Iterator[str]:
    name = "sj_" + uuid.uuid4().hex[:8]
    sw.execute(f"CREATE TABLE {name} (a int)")
    sw.execute(f"INSERT INTO {name} SELECT x FROM generate_series(1, 600) AS g(x)")
    yield name
    sw.execute(f"DROP TABLE {name}")


def test_a_running_statement_shows_its_jobs_stages_and_progress(sw: Conn, table: str) -> None:
    # a few seconds of Spark work: a triple cross join (600^3 pairs) aggregated through a shuffle
    notices: list[tuple[float, str]] = []
    finished: list[float] = []
    running: set[Row] = set()
    for _ in range(3):  # a machine fast enough to finish in under the notices' 2 s gets a bigger table
        marker = "k_" + uuid.uuid4().hex[:8]
        query = (
            f"SELECT x.a % 10 AS {marker}, count(*) FROM {table} x, {table} y, {table} z "
            "WHERE (x.a * y.a + z.a) % 13 = 5 GROUP BY 1 ORDER BY 1"
        )
        notices.clear()
        finished.clear()
        running.clear()
        with psycopg.connect(sw.info.dsn, autocommit=True) as runner:
            runner.execute("SET progress_notices = on")
            runner.add_notice_handler(lambda d: notices.append((time.monotonic(), d.message_primary or "")))

            def run(runner: Conn = runner, query: str = query) -> None:
                assert len(runner.execute(query).fetchall()) == 10
                finished.append(time.monotonic())

            thread = threading.Thread(target=run)
            thread.start()
            while thread.is_alive():
                rows = sw.execute(
                    "SELECT job_id, job_tag, execution_id FROM mz_internal.mz_spark_jobs WHERE status = 'running'"
                ).fetchall()
                running.update(rows)
                time.sleep(0.05)
            thread.join()
        if any(m.startswith("progress:") for _, m in notices) or not finished:
            break
        sw.execute(f"INSERT INTO {table} SELECT a + 600 FROM {table}")  # twice the rows, eight times the work
    assert finished, "the query failed"

    # the statement's execution id, as the statement history (mz_recent_activity_log) knows it
    logged = poll(
        sw,
        "SELECT execution_id::text FROM mz_internal.mz_recent_activity_log WHERE sql LIKE %s",
        (f"%AS {marker}%",),
        bool,
    )
    assert len(logged) == 1, logged
    execution_id = logged[0][0]
    assert any(r[2] == execution_id for r in running), ("no running job of the statement was seen", running)

    jobs = poll(
        sw,
        "SELECT job_id, job_tag, execution_id, status, num_tasks, num_completed_tasks, num_skipped_tasks, pool, "
        "started_at, finished_at FROM mz_internal.mz_spark_jobs WHERE execution_id = %s ORDER BY job_id",
        (execution_id,),
        lambda rows: bool(rows) and all(r[3] == "succeeded" for r in rows),
    )
    assert jobs and all(r[3] == "succeeded" for r in jobs), jobs
    for _, tag, _, _, tasks, completed, skipped, pool, started, ended in jobs:
        assert isinstance(tag, str) and re.fullmatch(rf"sw-\d+\.{execution_id}", tag), tag
        assert completed == tasks - skipped  # type: ignore[operator]
        assert isinstance(pool, str) and started is not None and ended is not None
        assert started <= ended  # type: ignore[operator]
    assert len({r[1] for r in jobs}) == 1, "one statement, one tag"

    job_ids = [r[0] for r in jobs]
    stages = sw.execute(
        "SELECT job_id, status, num_tasks, num_completed_tasks, shuffle_write_bytes, execution_id "
        "FROM mz_internal.mz_spark_stages WHERE execution_id = %s",
        (execution_id,),
    ).fetchall()
    assert stages and {r[1] for r in stages} <= {"complete", "skipped"} and {r[0] for r in stages} <= set(job_ids)
    assert any(r[1] == "complete" and r[3] == r[2] for r in stages)
    assert any(isinstance(r[4], int) and r[4] > 0 for r in stages), "the GROUP BY shuffles"

    progress = [(at, m) for at, m in notices if m.startswith("progress:")]
    assert progress, notices
    assert all(PROGRESS.match(m) for _, m in progress), progress
    assert progress[0][0] <= finished[0], "the first progress notice arrives while the statement runs"


def test_reading_a_maintained_view_is_not_the_statements_computation(sw: Conn, table: str) -> None:
    """A materialized view is recomputed by its maintainer after a write (tests/continual/), not by the statement
    that reads it: the read's only Spark job is its own query (`sw-…`); no internal computation carries its
    execution id, as one did when a stale view was recomputed on read."""
    view = f"{table}_mv"
    sw.execute(f"CREATE MATERIALIZED VIEW {view} AS SELECT a % 7 AS g, count(*) AS n FROM {table} GROUP BY 1")
    try:
        sw.execute(f"INSERT INTO {table} VALUES (1000)")
        marker = "g_" + uuid.uuid4().hex[:8]
        assert len(sw.execute(f"SELECT g AS {marker}, n FROM {view} ORDER BY n").fetchall()) == 7
        logged = poll(
            sw,
            "SELECT execution_id::text FROM mz_internal.mz_recent_activity_log WHERE sql LIKE %s",
            (f"%AS {marker}%",),
            bool,
        )
        assert len(logged) == 1, logged
        jobs = poll(
            sw,
            "SELECT job_tag, status FROM mz_internal.mz_spark_jobs WHERE execution_id = %s",
            (logged[0][0],),
            lambda rows: bool(rows) and all(r[1] == "succeeded" for r in rows),
        )
        kinds = {str(tag).split("-")[0] for tag, _ in jobs}
        assert kinds == {"sw"}, jobs  # the query over the view, nothing computed on its behalf
    finally:
        sw.execute(f"DROP MATERIALIZED VIEW {view}")


def test_progress_notices_is_a_session_variable(sw: Conn) -> None:
    assert sw.execute("SHOW progress_notices").fetchall() == [("off",)]
    sw.execute("SET progress_notices = true")
    assert sw.execute("SHOW progress_notices").fetchall() == [("on",)]
    with pytest.raises(psycopg.errors.InvalidParameterValue):
        sw.execute("SET progress_notices = 'sometimes'")
    sw.execute("RESET progress_notices")
    assert sw.execute("SELECT current_setting('progress_notices')").fetchall() == [("off",)]



def test_only_superusers_and_mz_monitor_read_spark_work(sw: Conn, role: str) -> None:
    dsn = as_role(sw.info.dsn, role)
    with psycopg.connect(dsn, autocommit=True) as plain:
        for relation in ("mz_spark_jobs", "mz_spark_stages"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege) as denied:
                plain.execute(f"SELECT * FROM mz_internal.{relation}")
            assert denied.value.sqlstate == "42501"
    sw.execute(f"GRANT mz_monitor TO {role}")
    with psycopg.connect(dsn, autocommit=True) as monitor:
        for relation in ("mz_spark_jobs", "mz_spark_stages"):
            assert monitor.execute(f"SELECT count(*) >= 0 FROM mz_internal.{relation}").fetchall() == [(True,)]


def _job(*tags: str) -> Job:
    return Job(0, "running", tags, None, (), 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, None, None)


def test_a_jobs_statement_comes_from_its_sparkwire_tag() -> None:
    spark_session = "spark-session-1b2c-execution-root-id-0"
    assert tag_of(_job(spark_session, "sw-12.5f0c")) == ("sw-12.5f0c", "5f0c")
    assert tag_of(_job("sw-3")) == ("sw-3", None)
    assert tag_of(_job("sparkwire-internal-4", spark_session)) == ("sparkwire-internal-4", None)
    assert tag_of(_job("sparkwire-internal-5.5f0c")) == ("sparkwire-internal-5.5f0c", "5f0c")
    assert tag_of(_job(spark_session)) == (None, None)


def test_the_feed_keeps_the_newest_jobs_and_their_stages() -> None:
    """In process, on the tests' shared Spark: one poll after five tagged statements, keeping three jobs."""
    spark = shared_spark()
    marker = uuid.uuid4().hex[:8]
    tags = [f"sw-{i}.{marker}{i}" for i in range(5)]
    for i, tag in enumerate(tags):
        spark.execute_arrow(f"SELECT count(*) FROM range(0, {1000 + i})", job_tag=tag)
    duck = DuckDBEngine(None)
    listener = store.install(duck, ())
    feed = SparkJobsFeed(duck, SparkStatusReader(spark).read, keep_jobs=3)
    con = duck.connect()
    try:
        assert feed.poll() is False  # nothing runs
        _, batches = con.query(f"SELECT job_id, job_tag, execution_id, status FROM {table_sql(relation(SPARK_JOBS))}")
        jobs = sorted(tuple(row.values()) for batch in batches for row in batch.to_pylist())
        assert len(jobs) == 3 and {job[3] for job in jobs} == {"succeeded"}
        assert jobs[-1][1:3] == (tags[-1], f"{marker}4")
        _, batches = con.query(f"SELECT DISTINCT job_id FROM {table_sql(relation(SPARK_STAGES))}")
        assert {row["job_id"] for batch in batches for row in batch.to_pylist()} <= {job[0] for job in jobs}
        done = feed.progress(tags[-1])
        assert done is not None and not done.running and done.tasks_done == done.tasks_total > 0
        assert (
            done.message() == f"progress: 100% (stage {done.stages_total} of {done.stages_total}, "
            f"{done.tasks_total}/{done.tasks_total} tasks)"
        )
        assert feed.progress("sw-0.none") is None
    finally:
        con.close()
        feed.close()
        listener.close()
        duck.close()
