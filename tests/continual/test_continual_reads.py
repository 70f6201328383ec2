"""Reads of maintained views (issue 17 item 2), through psycopg: strict serializable by default (a read after a
write sees it, waiting for the maintainer rather than computing), serializable reads the freshest timestamp every
view it reads is current at (it may be stale, never waits), and one statement reads a view and its input table at
one timestamp while a writer runs."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator

import psycopg
import pytest

from tests.support.clients import poll

Conn = psycopg.Connection[tuple[object, ...]]

pytestmark = pytest.mark.timeout(600)


@pytest.fixture
def table(sw: Conn) -> Iterator[str]:
    name = f"rt_{uuid.uuid4().hex[:8]}"
    sw.execute(f"CREATE TABLE {name} (k int, v int)")
    yield name
    sw.execute(f"DROP TABLE IF EXISTS {name} CASCADE")


def _count(conn: Conn, sql: str) -> int:
    value = conn.execute(sql).fetchall()[0][0]
    assert isinstance(value, int)
    return value


def test_strict_sees_every_write_and_serializable_may_lag(sw: Conn, table: str) -> None:
    # recomputed (a subquery): each change costs a Spark job, so a serializable read right after a write is stale
    view = f"slow_{table}"
    sw.execute(f"CREATE MATERIALIZED VIEW {view} AS SELECT count(*) AS n FROM {table} WHERE v >= (SELECT 0)")
    assert _count(sw, f"SELECT n FROM {view}") == 0
    stale = 0
    for i in range(1, 6):
        sw.execute(f"INSERT INTO {table} VALUES (1, {i})")
        assert _count(sw, f"SELECT n FROM {view}") == i  # strict serializable: the write is seen
    sw.execute("SET transaction_isolation = 'serializable'")
    try:
        for i in range(6, 11):
            sw.execute(f"INSERT INTO {table} VALUES (1, {i})")
            seen = _count(sw, f"SELECT n FROM {view}")
            assert seen in (i - 1, i)
            stale += seen == i - 1
    finally:
        sw.execute("SET transaction_isolation = 'strict serializable'")
    assert stale > 0  # it did not wait for the recompute
    assert _count(sw, f"SELECT n FROM {view}") == 10


def test_one_statement_reads_a_view_and_its_table_at_one_timestamp(sw: Conn, table: str) -> None:
    view = f"cnt_{table}"
    sw.execute(f"CREATE MATERIALIZED VIEW {view} AS SELECT count(*) AS n, sum(v) AS s FROM {table}")
    stop = threading.Event()

    def writer() -> None:
        with psycopg.connect(sw.info.dsn, autocommit=True) as w:
            i = 0
            while not stop.is_set():
                w.execute(f"INSERT INTO {table} VALUES (%s, 1)", (i,))
                i += 1

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        for _ in range(15):
            row = sw.execute(f"SELECT (SELECT n FROM {view}), (SELECT count(*) FROM {table})").fetchall()[0]
            assert row[0] == row[1], row
    finally:
        stop.set()
        thread.join()


def test_a_whole_view_is_read_from_its_maintained_contents(sw: Conn, table: str) -> None:
    """`SELECT cols FROM mv [LIMIT n]` is answered from the maintained contents, without a Spark job."""
    view = f"whole_{table}"
    sw.execute(f"CREATE MATERIALIZED VIEW {view} AS SELECT k, sum(v) AS s, count(*) AS n FROM {table} GROUP BY k")
    sw.execute(f"INSERT INTO {table} VALUES (1, 10), (1, 5), (2, 7)")
    assert sorted(sw.execute(f"SELECT * FROM {view}").fetchall(), key=repr) == [(1, 15, 2), (2, 7, 1)]
    assert len(sw.execute(f"SELECT s AS total FROM {view} LIMIT 1").fetchall()) == 1
    plan = [str(r[0]) for r in sw.execute(f"EXPLAIN SELECT n, k FROM {view} LIMIT 5")]
    assert plan[0].startswith("Maintained contents:"), plan
    strategy = poll(  # the activity log is written from the side: a row is there when it began, its strategy once done
        sw,
        "SELECT execution_strategy FROM mz_internal.mz_recent_activity_log"
        " WHERE sql LIKE %s AND finished_at IS NOT NULL",
        (f"SELECT s AS total FROM {view}%",),
        bool,
    )
    assert strategy == [("fast-path",)]
