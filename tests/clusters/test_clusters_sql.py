"""Clusters through psycopg against a real server (issue 15): CREATE / ALTER / RENAME / DROP CLUSTER and
CLUSTER REPLICA with Materialize's errors (unknown size listing the valid ones, 2BP01 naming the hosted objects,
unknown cluster, managed-cluster replica DDL), SHOW CLUSTERS / CLUSTER REPLICAS, SET cluster to a cluster that does
not exist (the error comes at the statement that needs it), IN CLUSTER and the session's cluster for materialized
views and indexes (mz_objects.cluster_id), the introspection relations' rows, and that a statement's Spark jobs and
a materialized view's refresh run in their cluster replica's FAIR pool (mz_internal.mz_spark_jobs.pool)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from tests.support.server import SparkwireServer

Conn = psycopg.Connection[Any]


@pytest.fixture(scope="module")
def conn(server: SparkwireServer) -> Iterator[Conn]:
    with psycopg.connect(server.dsn, autocommit=True) as c:
        yield c


def rows(conn: Conn, sql: str) -> list[tuple[Any, ...]]:
    return conn.execute(sql).fetchall()


def error(conn: Conn, sql: str) -> tuple[str | None, str | None, str | None]:
    with pytest.raises(psycopg.Error) as info:
        conn.execute(sql)
    diag = info.value.diag
    return diag.sqlstate, diag.message_primary, diag.message_detail


def test_create_show_alter_drop(conn: Conn) -> None:
    conn.execute("CREATE CLUSTER cl_a (SIZE = '200cc')")
    conn.execute("CREATE CLUSTER cl_b (SIZE = 'small', REPLICATION FACTOR = 2)")
    conn.execute("CREATE CLUSTER cl_u REPLICAS (x (SIZE = '25cc'), y (SIZE = '50cc'))")
    state, message, detail = error(conn, "CREATE CLUSTER cl_bad (SIZE = 'huge')")
    assert (state, message) == ("22023", "unknown cluster replica size 'huge'")
    assert detail is not None and "25cc, 50cc, 100cc, 200cc" in detail
    assert error(conn, "CREATE CLUSTER cl_a (SIZE = '25cc')")[:2] == ("42710", "cluster 'cl_a' already exists")
    assert error(conn, "CREATE CLUSTER REPLICA cl_a.r9 (SIZE = '25cc')")[:2] == (
        "0A000",
        "cannot modify managed cluster cl_a",
    )
    conn.execute("CREATE CLUSTER REPLICA cl_u.z (SIZE = '25cc')")
    assert rows(conn, "SHOW CLUSTERS LIKE 'cl_%'") == [
        ("cl_a", "r1 (200cc)", None),
        ("cl_b", "r1 (50cc), r2 (50cc)", None),
        ("cl_u", "x (25cc), y (50cc), z (25cc)", None),
    ]
    replicas = [r[:3] for r in rows(conn, "SHOW CLUSTER REPLICAS") if r[0].startswith("cl_")]
    assert replicas == [
        ("cl_a", "r1", "200cc"),
        ("cl_b", "r1", "50cc"),
        ("cl_b", "r2", "50cc"),
        ("cl_u", "x", "25cc"),
        ("cl_u", "y", "50cc"),
        ("cl_u", "z", "25cc"),
    ]
    conn.execute("DROP CLUSTER REPLICA cl_u.z")
    assert error(conn, "DROP CLUSTER REPLICA cl_u.z")[:2] == ("42704", "unknown cluster replica 'cl_u.z'")
    conn.execute("ALTER CLUSTER cl_b SET (REPLICATION FACTOR = 1)")
    conn.execute("ALTER CLUSTER cl_a SET (SIZE = '50cc')")
    conn.execute("ALTER CLUSTER cl_b RENAME TO cl_b2")
    query = "SELECT name, managed, size, replication_factor FROM mz_clusters WHERE name LIKE 'cl_%' ORDER BY 1"
    assert rows(conn, query) == [
        ("cl_a", True, "50cc", 1),
        ("cl_b2", True, "50cc", 1),
        ("cl_u", False, None, None),
    ]
    assert error(conn, "ALTER CLUSTER cl_nosuch RENAME TO x")[:2] == ("42704", "unknown cluster 'cl_nosuch'")
    conn.execute("DROP CLUSTER cl_u, cl_b2")
    conn.execute("DROP CLUSTER IF EXISTS cl_u")
    assert error(conn, "DROP CLUSTER cl_u")[:2] == ("42704", "unknown cluster 'cl_u'")


def test_introspection_rows(conn: Conn) -> None:
    conn.execute("CREATE CLUSTER cl_i (SIZE = '100cc', REPLICATION FACTOR = 2)")
    (cluster_id,) = rows(conn, "SELECT id FROM mz_clusters WHERE name = 'cl_i'")[0]
    replicas = rows(
        conn, f"SELECT id, name, size FROM mz_cluster_replicas WHERE cluster_id = '{cluster_id}' ORDER BY name"
    )
    assert [r[1:] for r in replicas] == [("r1", "100cc"), ("r2", "100cc")]
    ids = tuple(r[0] for r in replicas)
    sizes = rows(
        conn, "SELECT size, workers, cpu_nano_cores, memory_bytes FROM mz_cluster_replica_sizes WHERE size = '100cc'"
    )
    assert sizes == [("100cc", 2, 2_000_000_000, 4 << 30)]
    statuses = rows(
        conn, f"SELECT replica_id, status FROM mz_internal.mz_cluster_replica_statuses WHERE replica_id IN {ids}"
    )
    assert sorted(r[0] for r in statuses) == sorted(ids)
    util = rows(
        conn,
        "SELECT replica_id, cpu_percent, memory_percent FROM mz_internal.mz_cluster_replica_utilization "
        f"WHERE replica_id IN {ids}",
    )
    assert len(util) == 2 and all(0 <= r[1] <= 100 for r in util)
    conn.execute("ALTER CLUSTER cl_i SET (SIZE = '25cc')")  # new replicas: the old ones are dropped in the history
    history = rows(
        conn,
        "SELECT replica_id, size, replica_name, created_at IS NOT NULL, dropped_at IS NOT NULL "
        f"FROM mz_internal.mz_cluster_replica_history WHERE cluster_id = '{cluster_id}' ORDER BY replica_id",
    )
    old = sorted((h for h in history if h[0] in ids), key=lambda h: h[2])
    assert old == [(ids[0], "100cc", "r1", True, True), (ids[1], "100cc", "r2", True, True)]
    new = sorted((h[1], h[2], h[4]) for h in history if h[0] not in ids)
    assert new == [("25cc", "r1", False), ("25cc", "r2", False)]
    conn.execute("DROP CLUSTER cl_i")


def _pools(conn: Conn, tag_like: str) -> set[str]:
    """The pools of the completed stages of the jobs tagged like `tag_like`, and of those succeeded jobs that skipped
    no stage. (A job's own `pool` column is its first stage's: for a job that reuses an earlier job's shuffle that is
    a skipped stage, which Spark lists in `default`, as it does a stage not submitted yet.)"""
    for _ in range(40):  # the Spark status feed writes every 0.5 s
        found = {
            r[0]
            for r in rows(
                conn,
                "SELECT s.pool FROM mz_internal.mz_spark_stages s JOIN mz_internal.mz_spark_jobs j USING (job_id) "
                f"WHERE j.job_tag LIKE '{tag_like}' AND s.status = 'complete' "
                "UNION SELECT pool FROM mz_internal.mz_spark_jobs "
                f"WHERE job_tag LIKE '{tag_like}' AND status = 'succeeded' AND num_skipped_stages = 0",
            )
        }
        if found:
            return found
        time.sleep(0.25)
    return set()


def _execution_of(conn: Conn, sql_like: str) -> object:
    """The execution id of the newest statement like `sql_like` (the history is written from the side: wait)."""
    deadline = time.monotonic() + 20
    while True:
        found = conn.execute(
            "SELECT execution_id FROM mz_internal.mz_recent_activity_log WHERE sql LIKE %s "
            "ORDER BY began_at DESC LIMIT 1",
            (sql_like,),
        ).fetchall()
        if found or time.monotonic() > deadline:
            return found[0][0]
        time.sleep(0.05)


def test_set_cluster_in_cluster_and_pools(conn: Conn) -> None:
    conn.execute("CREATE CLUSTER cl_p (SIZE = '50cc')")
    conn.execute("CREATE CLUSTER cl_q (SIZE = '25cc')")
    conn.execute("CREATE TABLE cl_t (a int)")
    conn.execute("INSERT INTO cl_t VALUES (1), (2), (3)")
    # recomputed on Spark (`%` has no incremental plan), so its refresh is a Spark job in its cluster's pool
    conn.execute("CREATE MATERIALIZED VIEW cl_mv IN CLUSTER cl_q AS SELECT count(*) AS n FROM cl_t WHERE a % 1 = 0")
    conn.execute("SET cluster = cl_p")
    conn.execute("CREATE INDEX cl_t_idx ON cl_t (a)")  # the session's cluster
    assert rows(conn, "SHOW cluster") == [("cl_p",)]
    clusters = dict(rows(conn, "SELECT name, id FROM mz_clusters WHERE name IN ('cl_p', 'cl_q')"))
    objects = dict(rows(conn, "SELECT name, cluster_id FROM mz_objects WHERE name IN ('cl_mv', 'cl_t_idx', 'cl_t')"))
    assert objects == {"cl_mv": clusters["cl_q"], "cl_t_idx": clusters["cl_p"], "cl_t": None}
    (p_replica,) = rows(conn, f"SELECT id FROM mz_cluster_replicas WHERE cluster_id = '{clusters['cl_p']}'")[0]
    (q_replica,) = rows(conn, f"SELECT id FROM mz_cluster_replicas WHERE cluster_id = '{clusters['cl_q']}'")[0]
    # a statement's Spark job runs in its session's cluster's pool
    cur = conn.execute("SELECT a, count(*) FROM cl_t WHERE a > 1 GROUP BY a ORDER BY a")
    assert cur.fetchall() == [(2, 1), (3, 1)]
    execution_id = _execution_of(conn, "SELECT a, count(*) FROM cl_t%")
    assert _pools(conn, f"sw-%.{execution_id}") == {f"{clusters['cl_p']}.{p_replica}"}
    # a materialized view's refresh runs in its own cluster's pool, whatever the reader's cluster (other tests'
    # refreshes run in theirs: wait until this one's shows up)
    assert rows(conn, "SELECT n FROM cl_mv") == [(3,)]
    wanted = f"{clusters['cl_q']}.{q_replica}"
    deadline = time.monotonic() + 20
    while wanted not in _pools(conn, "sparkwire-internal-%") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert wanted in _pools(conn, "sparkwire-internal-%")
    # SET to a cluster that does not exist is accepted with Materialize's NOTICE; the statement that needs it fails
    notices: list[tuple[str | None, str | None]] = []
    conn.add_notice_handler(lambda d: notices.append((d.message_primary, d.message_hint)))
    conn.execute("SET cluster = cl_nosuch")
    conn.execute("SET cluster = cl_nosuch")  # a second time: the same notice
    assert [m for m, _ in notices] == ['cluster "cl_nosuch" does not exist'] * 2
    assert notices[0][1] is not None and "SHOW CLUSTERS" in notices[0][1]
    assert rows(conn, "SHOW cluster") == [("cl_nosuch",)]
    assert error(conn, "SELECT * FROM cl_t")[:2] == ("42704", "unknown cluster 'cl_nosuch'")
    assert error(conn, "CREATE MATERIALIZED VIEW cl_mv2 AS SELECT 1")[:2] == ("42704", "unknown cluster 'cl_nosuch'")
    assert rows(conn, "SELECT count(*) FROM mz_clusters") != []  # catalog queries need no cluster
    conn.execute("RESET cluster")
    # dropping a cluster that hosts objects needs CASCADE
    state, message, detail = error(conn, "DROP CLUSTER cl_q")
    assert (state, message) == ("2BP01", "cannot drop cluster cl_q because other objects depend on it")
    assert detail == "materialized view cl_mv depends on cluster cl_q"
    conn.execute("DROP CLUSTER cl_q CASCADE")
    assert rows(conn, "SELECT count(*) FROM mz_objects WHERE name = 'cl_mv'") == [(0,)]
    conn.execute("DROP CLUSTER cl_p CASCADE")
    conn.execute("DROP TABLE cl_t")
