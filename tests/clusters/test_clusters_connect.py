"""The same SQL through Spark Connect (issue 15, "scale-out in CI"): a Spark Connect server started from the pyspark
wheel (`sbin/start-connect-server.sh`, in the foreground, its gRPC port on 127.0.0.1) and a sparkwire server with
`--spark-remote sc://127.0.0.1:<port>`; through psycopg: a table, writes, a query on a cluster, a materialized view
in a cluster and its index. There is no SparkContext in sparkwire's process with Connect, so jobs are not put in
the clusters' pools (docs/clusters.md) — the clusters' SQL, errors and catalog work the same.

Heavy on a 2-core machine (two JVMs): set SPARKWIRE_SKIP_CONNECT=1 to skip it.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pyspark
import pytest

from tests.support.postgres import free_port
from tests.support.server import SparkwireServer

SPARK_HOME = Path(pyspark.__file__).parent
pytestmark = pytest.mark.skipif(os.environ.get("SPARKWIRE_SKIP_CONNECT") == "1", reason="skipped by request")


@pytest.fixture(scope="module")
def connect_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    logs = tmp_path_factory.mktemp("connect")
    port = free_port()
    env = {
        **os.environ,
        "SPARK_HOME": str(SPARK_HOME),
        "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_NO_DAEMONIZE": "1",
        "SPARK_LOG_DIR": str(logs),
        "SPARK_PID_DIR": str(logs),
    }
    log = logs / "connect.log"
    with log.open("ab") as out:
        process = subprocess.Popen(
            [
                str(SPARK_HOME / "sbin" / "start-connect-server.sh"),
                "--master", "local[2]",
                "--driver-memory", "1g",
                "--conf", f"spark.connect.grpc.binding.port={port}",
                "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
                "--conf", "spark.ui.enabled=false",
                "--conf", f"spark.local.dir={logs / 'local'}",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while "Spark Connect server started" not in log.read_text(errors="replace"):
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(log.read_text(errors="replace")[-3000:])
            time.sleep(0.5)
        yield f"sc://127.0.0.1:{port}"
    finally:
        os.killpg(process.pid, 15)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)


def test_sql_through_spark_connect(connect_url: str, tmp_path: Path) -> None:
    server = SparkwireServer.start(tmp_path / "data", "--spark-remote", connect_url, wait=120)
    try:
        with psycopg.connect(server.dsn, autocommit=True) as conn:

            def rows(sql: str) -> list[tuple[Any, ...]]:
                return conn.execute(sql).fetchall()

            conn.execute("CREATE TABLE sc_t (k int, v text)")
            conn.execute("INSERT INTO sc_t SELECT g % 5, 'v' || g FROM generate_series(1, 1000) AS g")
            conn.execute("CREATE CLUSTER sc_c (SIZE = '25cc')")
            conn.execute("SET cluster = sc_c")
            assert rows("SELECT k, count(*) FROM sc_t GROUP BY k ORDER BY k") == [(k, 200) for k in range(5)]
            conn.execute("CREATE MATERIALIZED VIEW sc_mv AS SELECT k, count(*) AS n FROM sc_t GROUP BY k")
            conn.execute("CREATE INDEX sc_mv_k ON sc_mv (k)")
            assert rows("SELECT n FROM sc_mv WHERE k = 3") == [(200,)]
            conn.execute("DELETE FROM sc_t WHERE k = 3")
            assert rows("SELECT count(*) FROM sc_mv") == [(4,)]
            in_cluster = "SELECT id FROM mz_clusters WHERE name = 'sc_c'"
            assert rows(f"SELECT name FROM mz_objects WHERE cluster_id = ({in_cluster}) ORDER BY name") == [
                ("sc_mv",),
                ("sc_mv_k",),
            ]
            conn.execute("SET cluster = sc_nosuch")
            with pytest.raises(psycopg.errors.UndefinedObject):
                conn.execute("SELECT count(*) FROM sc_t")
    finally:
        server.stop()
