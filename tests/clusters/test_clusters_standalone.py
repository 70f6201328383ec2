"""The same SQL on a real Spark standalone cluster (issue 15, "scale-out in CI"): a master and one worker started from
the pyspark wheel on loopback (`spark-class org.apache.spark.deploy.master.Master --host 127.0.0.1`, then the
Worker offering 4 cores and 8 GiB, what the applications below ask for; the JVMs take only what they use), and a
sparkwire server with `--spark-master spark://127.0.0.1:<port>`; through psycopg: a table, writes, a query, a
cluster, a materialized view in it, an index lookup, and the stages of the statement and of the refresh running in
the clusters' FAIR pools of sparkwire's application on the cluster. With `--cluster-applications`, a cluster is an
application of its own on the master, with the cores and memory of its size.

Heavy on a 2-core machine (three JVMs, four with applications): set SPARKWIRE_SKIP_STANDALONE=1 to skip it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pyspark
import pytest

from tests.support.postgres import free_port
from tests.support.server import SparkwireServer

SPARK_HOME = Path(pyspark.__file__).parent
pytestmark = pytest.mark.skipif(os.environ.get("SPARKWIRE_SKIP_STANDALONE") == "1", reason="skipped by request")


def _spark_class(log: Path, *args: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "SPARK_HOME": str(SPARK_HOME), "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_NO_DAEMONIZE": "1"}
    with log.open("ab") as out:
        return subprocess.Popen(
            [str(SPARK_HOME / "bin" / "spark-class"), *args], stdout=out, stderr=subprocess.STDOUT, env=env
        )


def _wait_for(log: Path, text: str, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.exists() and text in log.read_text(errors="replace"):
            return
        time.sleep(0.5)
    raise AssertionError(f"{text!r} not in {log}:\n{log.read_text(errors='replace')[-3000:]}")


@pytest.fixture(scope="module")
def standalone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The master's URL and the worker's log."""
    logs = tmp_path_factory.mktemp("standalone")
    port = free_port()
    master = _spark_class(
        logs / "master.log", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
        "--webui-port", str(free_port()),
    )  # fmt: skip
    worker = None
    try:
        _wait_for(logs / "master.log", "I have been elected leader")
        url = f"spark://127.0.0.1:{port}"
        worker = _spark_class(
            logs / "worker.log", "org.apache.spark.deploy.worker.Worker", url, "--host", "127.0.0.1",
            "--cores", "4", "--memory", "8g", "--webui-port", str(free_port()), "--work-dir", str(logs / "work"),
        )  # fmt: skip
        _wait_for(logs / "worker.log", "Successfully registered with master")
        yield url, logs / "worker.log"
    finally:
        for process in (worker, master):
            if process is not None:
                process.terminate()
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()


def test_sql_on_a_standalone_cluster(standalone: tuple[str, Path], tmp_path: Path) -> None:
    master_url, worker_log = standalone
    server = SparkwireServer.start(
        tmp_path / "data", "--spark-master", master_url, "--spark-memory", "1g", "--spark-executor-memory", "512m",
        wait=120,
    )  # fmt: skip
    try:
        with psycopg.connect(server.dsn, autocommit=True) as conn:

            def rows(sql: str) -> list[tuple[Any, ...]]:
                return conn.execute(sql).fetchall()

            conn.execute("CREATE TABLE sa_t (k int, v text)")
            conn.execute("INSERT INTO sa_t SELECT g % 5, 'v' || g FROM generate_series(1, 1000) AS g")
            conn.execute("CREATE CLUSTER sa_c (SIZE = '25cc')")
            conn.execute("SET cluster = sa_c")
            assert rows("SELECT k, count(*) FROM sa_t GROUP BY k ORDER BY k") == [(k, 200) for k in range(5)]
            conn.execute("CREATE MATERIALIZED VIEW sa_mv AS SELECT k, count(*) AS n FROM sa_t GROUP BY k")
            conn.execute("CREATE INDEX sa_mv_k ON sa_mv (k)")
            assert rows("SELECT n FROM sa_mv WHERE k = 3") == [(200,)]
            conn.execute("DELETE FROM sa_t WHERE k = 3")
            assert rows("SELECT count(*) FROM sa_mv") == [(4,)]
            cluster_id = rows("SELECT id FROM mz_clusters WHERE name = 'sa_c'")[0][0]
            replica_id = rows(f"SELECT id FROM mz_cluster_replicas WHERE cluster_id = '{cluster_id}'")[0][0]
            pools: set[str] = set()
            for _ in range(40):
                pools = {
                    r[0] for r in rows("SELECT pool FROM mz_internal.mz_spark_stages WHERE status = 'complete'")
                }
                if f"{cluster_id}.{replica_id}" in pools:
                    break
                time.sleep(0.25)
            assert f"{cluster_id}.{replica_id}" in pools
        assert "Asked to launch executor" in worker_log.read_text(errors="replace")  # the work ran on the worker
    finally:
        server.stop()


def _master_ui(worker_log: Path) -> str:
    """The master's web UI (its JSON status lists the applications): the master's log names it."""
    text = (worker_log.parent / "master.log").read_text(errors="replace")
    port = re.findall(r"Successfully started service 'MasterUI' on port (\d+)", text)[-1]
    return f"http://127.0.0.1:{port}/json/"


def test_each_cluster_its_own_application_on_a_standalone_cluster(standalone: tuple[str, Path], tmp_path: Path) -> None:
    """`--cluster-applications` on a Spark cluster: each replica is an application of the master with
    spark.cores.max from its size (25cc: 1 core), and a query on the cluster runs there."""
    master_url, worker_log = standalone
    server = SparkwireServer.start(
        tmp_path / "data", "--spark-master", master_url, "--spark-memory", "1g", "--cluster-applications", wait=120
    )
    try:
        with psycopg.connect(server.dsn, autocommit=True) as conn:
            conn.execute("CREATE TABLE ap_t (k int)")
            conn.execute("INSERT INTO ap_t SELECT g % 4 FROM generate_series(1, 400) AS g")
            conn.execute("CREATE CLUSTER ap_c (SIZE = '25cc')")
            conn.execute("SET cluster = ap_c")
            assert conn.execute("SELECT k, count(*) FROM ap_t GROUP BY k ORDER BY k").fetchall() == [
                (k, 100) for k in range(4)
            ]
            with urllib.request.urlopen(_master_ui(worker_log), timeout=10) as response:
                status = json.load(response)
            apps = {a["name"]: a for a in status["activeapps"]}
            assert apps["sparkwire ap_c.r1"]["cores"] == 1  # spark.cores.max from 25cc
            assert apps["sparkwire ap_c.r1"]["memoryperslave"] == 1024  # spark.executor.memory: the size's 1 GiB
            assert apps["sparkwire"]["cores"] == 1  # the main application keeps one core
    finally:
        server.stop()
