"""Clusters survive a restart (issue 15): a server of its own in a temporary data directory is stopped and started
again on the same directory; the clusters keep their ids, sizes, replication factors and replicas (same replica
ids, hence the same Spark pools), unmanaged replicas, owners and grants, and the materialized view in a cluster
keeps its cluster_id and is refreshed in that cluster's pool after the restart; mz_cluster_replica_history keeps
its rows (creation and drop times, renamed clusters) across the restart."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import psycopg

from tests.support.server import SparkwireServer

HISTORY = (
    "SELECT h.replica_id, h.size, h.cluster_name, h.replica_name, h.created_at, h.dropped_at "
    "FROM mz_internal.mz_cluster_replica_history h WHERE h.cluster_name LIKE 'rs_%' ORDER BY h.replica_id"
)
SNAPSHOT = (
    "SELECT c.name, c.size, c.replication_factor, c.managed, r.id, r.name, r.size "
    "FROM mz_clusters c LEFT JOIN mz_cluster_replicas r ON r.cluster_id = c.id ORDER BY c.name, r.name"
)


def _state(conn: psycopg.Connection[Any]) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    clusters = conn.execute(SNAPSHOT).fetchall()
    objects = conn.execute("SELECT name, cluster_id FROM mz_objects WHERE name LIKE 'rs_%' ORDER BY name").fetchall()
    return clusters, objects


def test_clusters_survive_restart(tmp_path: Path) -> None:
    server = SparkwireServer.start(tmp_path / "data", "--spark-start", "on-demand")
    try:
        with psycopg.connect(server.dsn, autocommit=True) as conn:
            for sql in (
                "CREATE CLUSTER rs_a (SIZE = '200cc', REPLICATION FACTOR = 2)",
                "CREATE CLUSTER rs_u REPLICAS (x (SIZE = '25cc'))",
                "CREATE CLUSTER REPLICA rs_u.y (SIZE = '50cc')",
                "CREATE CLUSTER REPLICA rs_u.z (SIZE = '25cc')",
                "DROP CLUSTER REPLICA rs_u.z",
                "ALTER CLUSTER rs_a RENAME TO rs_b",
                "CREATE ROLE rs_role",
                "GRANT USAGE ON CLUSTER rs_b TO rs_role",
                "CREATE TABLE rs_t (a int)",
                "INSERT INTO rs_t VALUES (1), (2)",
                # recomputed on Spark (`%` has no incremental plan): its refresh is a Spark job in the cluster's pool
                "CREATE MATERIALIZED VIEW rs_mv IN CLUSTER rs_b AS SELECT sum(a) AS s FROM rs_t WHERE a % 1 = 0",
            ):
                conn.execute(sql)
            before = _state(conn)
            acl = conn.execute("SELECT privileges::text FROM mz_clusters WHERE name = 'rs_b'").fetchall()
            history = conn.execute(HISTORY).fetchall()
            shape = sorted((h[2], h[3], h[1], h[4] is not None, h[5] is not None) for h in history)
            assert shape == [
                ("rs_b", "r1", "200cc", True, False),  # made as rs_a: the history follows the rename
                ("rs_b", "r2", "200cc", True, False),
                ("rs_u", "x", "25cc", True, False),
                ("rs_u", "y", "50cc", True, False),
                ("rs_u", "z", "25cc", True, True),
            ]
    finally:
        server.stop()
    server = SparkwireServer.start(tmp_path / "data", port=server.port)
    try:
        pools = (tmp_path / "data" / "spark" / "fairscheduler.xml").read_text()
        with psycopg.connect(server.dsn, autocommit=True) as conn:
            assert _state(conn) == before
            assert conn.execute(HISTORY).fetchall() == history
            assert conn.execute("SELECT privileges::text FROM mz_clusters WHERE name = 'rs_b'").fetchall() == acl
            cluster_id = conn.execute("SELECT id FROM mz_clusters WHERE name = 'rs_b'").fetchall()[0][0]
            replica_ids = conn.execute(f"SELECT id FROM mz_cluster_replicas WHERE cluster_id = '{cluster_id}'")
            replicas = {r[0] for r in replica_ids}
            assert conn.execute("SELECT s FROM rs_mv").fetchall() == [(3,)]
            expected = {f"{cluster_id}.{r}" for r in replicas}
            found: set[str] = set()
            for _ in range(40):
                found = {
                    r[0]
                    for r in conn.execute(
                        "SELECT s.pool FROM mz_internal.mz_spark_stages s JOIN mz_internal.mz_spark_jobs j "
                        "USING (job_id) WHERE j.job_tag LIKE 'sparkwire-internal-%' AND s.status = 'complete'"
                    )
                }
                if found:
                    break
                time.sleep(0.25)
            assert found and found <= expected
        # the pools were declared in fairscheduler.xml for the restarted Spark (weight 8, minShare 4 for 200cc)
        for pool in expected:
            declared = "<schedulingMode>FAIR</schedulingMode><weight>8</weight><minShare>4</minShare>"
            assert f'<pool name="{pool}">{declared}' in pools
    finally:
        server.stop()
