"""Cluster replicas as Spark applications of their own (`sparkwire serve --cluster-applications`, embedded): through
psycopg, a query on a cluster runs in that replica's own Spark Connect server — a `local[cores]` JVM of its own, in a
session (hence an autogroup) of its own, named after the replica — and answers as the main engine does; the
replica's status follows its JVM (killed: `offline` with the reason, then back by itself, while other clusters keep
answering); its jobs show in mz_spark_jobs / mz_spark_stages with their statement, and in EXPLAIN ANALYZE; a
statement there reports its progress and is cancelled with 57014; its Connect port refuses clients without its
token; a replica whose application cannot start says
why in its status and its queries fail with that reason while other clusters work; DROP CLUSTER stops the JVM.

Heavy on a 2-core machine (four JVMs): set SPARKWIRE_SKIP_APPLICATIONS=1 to skip it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.support.server import SparkwireServer

pytestmark = pytest.mark.skipif(os.environ.get("SPARKWIRE_SKIP_APPLICATIONS") == "1", reason="skipped by request")
CONNECT_SERVER = "org.apache.spark.sql.connect.service.SparkConnectServer"


def _applications() -> dict[str, int]:
    """Running Spark Connect servers of sparkwire on this machine: application name → pid."""
    found: dict[str, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        if CONNECT_SERVER in argv:
            for arg in argv:
                if arg.startswith("spark.app.name=sparkwire "):
                    found[arg.removeprefix("spark.app.name=sparkwire ")] = int(entry.name)
    return found


def _until(check: Callable[[], bool], timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.5)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkwireServer]:
    started = SparkwireServer.start(
        tmp_path_factory.mktemp("applications") / "data", "--cluster-applications", "--spark-memory", "1g", wait=120
    )
    try:
        yield started
    finally:
        started.stop()


def _rows(conn: psycopg.Connection[Any], sql: str, params: tuple[Any, ...] | None = None) -> list[tuple[Any, ...]]:
    return conn.execute(sql, params).fetchall()


def test_a_cluster_runs_in_its_own_application(server: SparkwireServer) -> None:
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        conn.execute("CREATE CLUSTER own_b (SIZE = '25cc')")
        conn.execute("CREATE TABLE own_t (k int, v int)")
        conn.execute("INSERT INTO own_t SELECT g % 10, g FROM generate_series(1, 1000) AS g")
        conn.execute("SET cluster = own_b")
        assert _rows(conn, "SELECT k, count(*), sum(v) FROM own_t WHERE k < 2 GROUP BY k ORDER BY k") == [
            (0, 100, 50500),
            (1, 100, 49600),
        ]
        with pytest.raises(psycopg.errors.DivisionByZero):  # Spark's error, through Connect, as PostgreSQL's
            conn.execute("SELECT sum(v / (k - k)) FROM own_t")
        assert _rows(conn, "SELECT count(*) FROM own_t WHERE k = %s", (1,)) == [(100,)]  # bound on the server
        conn.execute("DELETE FROM own_t WHERE k = 0")  # deleted rows: the Parquet files minus their deletion vectors
        assert _rows(conn, "SELECT count(*) FROM own_t") == [(900,)]
        conn.execute("CREATE MATERIALIZED VIEW own_mv IN CLUSTER own_b AS SELECT k, sum(v) AS s FROM own_t GROUP BY k")
        assert _rows(conn, "SELECT s FROM own_mv WHERE k = 1") == [(49600,)]

        apps = _applications()
        assert "own_b.r1" in apps and "quickstart.r1" in apps
        pid = apps["own_b.r1"]
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
        assert argv[argv.index("--master") + 1] == "local[1]"  # 25cc: one core
        assert os.getsid(pid) == pid != os.getsid(server.process.pid)  # a session, hence an autogroup, of its own
        status = _rows(
            conn,
            "SELECT s.status, s.reason FROM mz_internal.mz_cluster_replica_statuses s "
            "JOIN mz_cluster_replicas r ON r.id = s.replica_id JOIN mz_clusters c ON c.id = r.cluster_id "
            "WHERE c.name = 'own_b'",
        )
        assert status == [("online", None)]
        usage = _rows(
            conn,
            "SELECT u.memory_percent FROM mz_internal.mz_cluster_replica_utilization u "
            "JOIN mz_cluster_replicas r ON r.id = u.replica_id JOIN mz_clusters c ON c.id = r.cluster_id "
            "WHERE c.name = 'own_b'",
        )
        assert usage[0][0] > 0  # its JVM's resident memory over the size's 1 GiB


def test_an_applications_jobs_show_with_their_statement(server: SparkwireServer) -> None:
    """mz_spark_jobs / mz_spark_stages read the application's own status (its UI's REST API, on loopback): the
    statement's job, with its execution id (Spark Connect leaves the statement's tag off jobs: spark_operations),
    the replica's pool and the application's id."""
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        conn.execute("SET cluster = own_b")
        assert _rows(conn, "SELECT k * 3, max(v) FROM own_t WHERE k = 7 GROUP BY k * 3") == [(21, 997)]
        conn.execute("SET cluster = quickstart")
        logged = (
            "SELECT execution_id::text FROM mz_internal.mz_recent_activity_log WHERE sql LIKE 'SELECT k * 3, max(v)%%'"
        )
        _until(lambda: bool(_rows(conn, logged)), timeout=30)  # the history is written in batches, off the statement
        (execution,) = _rows(conn, logged)[0]
        (pool,) = _rows(
            conn,
            "SELECT c.id || '.' || r.id FROM mz_cluster_replicas r JOIN mz_clusters c ON c.id = r.cluster_id "
            "WHERE c.name = 'own_b'",
        )[0]
        job_query = (
            "SELECT status, pool, application_id, num_tasks > 0, started_at IS NOT NULL, job_tag "
            "FROM mz_internal.mz_spark_jobs WHERE execution_id = %s"
        )
        # its status as Spark's listener last recorded it: the job may still read `running` for a poll or two
        _until(lambda: {row[0] for row in _rows(conn, job_query, (execution,))} == {"succeeded"}, timeout=30)
        jobs = _rows(conn, job_query, (execution,))
        assert {job_pool for _, job_pool, *_ in jobs} == {pool}
        assert all(app and ok and started and tag.endswith(execution) for _, _, app, ok, started, tag in jobs)
        stages = _rows(
            conn,
            "SELECT status, pool, application_id FROM mz_internal.mz_spark_stages WHERE execution_id = %s",
            (execution,),
        )
        assert stages and {(status, stage_pool) for status, stage_pool, _ in stages} == {("complete", pool)}
        assert {app for *_, app in stages} == {app for _, _, app, *_ in jobs}

        conn.execute("SET cluster = own_b")  # EXPLAIN ANALYZE reads the application's jobs of its statement too
        lines = [row[0] for row in _rows(conn, "EXPLAIN ANALYZE SELECT k * 5, max(v) FROM own_t GROUP BY k * 5")]
        assert any(re.match(r"Spark Jobs: [1-9]\d*, stages: [1-9]\d*, tasks: [1-9]\d*", line) for line in lines), lines
        assert any(re.match(r"  Job \d+ \(succeeded\)", line) for line in lines), lines


_CONNECT_WITHOUT_TOKEN = """
import sys
from pyspark.sql.connect.session import SparkSession
try:
    SparkSession.builder.remote(sys.argv[1]).create().sql("SELECT 1").collect()
except Exception as exc:
    print("refused:", type(exc).__name__, str(exc)[:300])
else:
    print("answered")
"""


def test_an_application_takes_only_sparkwire(server: SparkwireServer) -> None:
    """Its Spark Connect port is on loopback, but another local client without its token cannot run anything there
    (the token is in the JVM's environment, not on its command line)."""
    argv = Path(f"/proc/{_applications()['own_b.r1']}/cmdline").read_bytes().decode().split("\0")
    port = next(a.split("=", 1)[1] for a in argv if a.startswith("spark.connect.grpc.binding.port="))
    assert not any("token" in a.lower() for a in argv)
    for url in (f"sc://127.0.0.1:{port}", f"sc://localhost:{port}/;token=not-the-token"):
        out = subprocess.run([sys.executable, "-c", _CONNECT_WITHOUT_TOKEN, url], capture_output=True, timeout=120)
        assert out.stdout.decode().startswith("refused:"), (url, out.stdout, out.stderr[-2000:])


def test_a_statement_in_an_application_is_cancelled(server: SparkwireServer) -> None:
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        conn.execute("SET cluster = own_b")
        conn.execute("SET progress_notices = on")
        notices: list[str] = []
        conn.add_notice_handler(lambda notice: notices.append(notice.message_primary or ""))
        timer = threading.Timer(6.0, conn.cancel)
        timer.start()
        started = time.monotonic()
        with pytest.raises(psycopg.errors.QueryCanceled):
            conn.execute("SELECT count(*) FROM own_t a, own_t b, own_t c, own_t d WHERE a.v + b.v + c.v + d.v = -1")
        timer.join()
        assert time.monotonic() - started < 60
        assert any(n.startswith("progress: ") for n in notices), notices  # its jobs' progress, from its application
        assert _rows(conn, "SELECT 1 + count(*) FROM own_t WHERE k = 1") == [(101,)]  # the session goes on


def test_a_killed_application_comes_back_and_others_keep_working(server: SparkwireServer) -> None:
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        os.kill(_applications()["own_b.r1"], 9)

        def offline() -> bool:
            found = _rows(
                conn,
                "SELECT s.status, s.reason FROM mz_internal.mz_cluster_replica_statuses s "
                "JOIN mz_cluster_replicas r ON r.id = s.replica_id JOIN mz_clusters c ON c.id = r.cluster_id "
                "WHERE c.name = 'own_b'",
            )
            return found[0][0] == "offline" and "killed by signal 9" in (found[0][1] or "")

        _until(offline, 30)
        conn.execute("SET cluster = quickstart")  # another cluster answers meanwhile
        assert _rows(conn, "SELECT count(*) FROM own_t WHERE k = 2") == [(100,)]
        conn.execute("SET cluster = own_b")

        def answers() -> bool:
            try:
                return _rows(conn, "SELECT count(*) FROM own_t WHERE k = 3") == [(100,)]
            except psycopg.errors.SystemError:  # 58000 / 55000 while it restarts
                return False
            except psycopg.errors.ObjectNotInPrerequisiteState:
                return False

        _until(answers, 120)


def test_an_application_that_cannot_start_says_why(server: SparkwireServer) -> None:
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        conn.execute("CREATE CLUSTER own_broken (SIZE = '25cc', REPLICATION FACTOR = 0)")
        cluster = _rows(conn, "SELECT id FROM mz_clusters WHERE name = 'own_broken'")[0][0]
        last = max(int(r[0][1:]) for r in _rows(conn, "SELECT id FROM mz_cluster_replicas"))
        # the next replica's application directory is taken by a file: its start fails (mkdir: File exists)
        blocker = server.data_dir / "spark" / "applications" / f"{cluster}.u{last + 1}"
        blocker.parent.mkdir(parents=True, exist_ok=True)
        blocker.write_text("not a directory")
        conn.execute("ALTER CLUSTER own_broken SET (REPLICATION FACTOR = 1)")
        assert _rows(conn, f"SELECT id FROM mz_cluster_replicas WHERE cluster_id = '{cluster}'") == [(f"u{last + 1}",)]

        def says_why() -> bool:
            found = _rows(
                conn,
                "SELECT status, reason FROM mz_internal.mz_cluster_replica_statuses WHERE replica_id = "
                f"'u{last + 1}'",
            )
            return found[0][0] == "offline" and "Spark failed to start" in (found[0][1] or "")

        _until(says_why, 60)
        conn.execute("SET cluster = own_broken")
        with pytest.raises(psycopg.errors.InternalError_) as failed:
            conn.execute("SELECT count(*) FROM own_t")
        assert "Spark failed to start" in str(failed.value)
        conn.execute("SET cluster = own_b")
        assert _rows(conn, "SELECT count(*) FROM own_t WHERE k = 4") == [(100,)]
        conn.execute("DROP CLUSTER own_broken")


def test_a_cluster_dropped_while_its_application_starts(server: SparkwireServer) -> None:
    """Its start gives up (it is not waited for) and no JVM is left behind."""
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        conn.execute("CREATE CLUSTER own_brief (SIZE = '25cc')")
        time.sleep(1.0)  # its JVM is launching: it answers after several seconds
        conn.execute("DROP CLUSTER own_brief")
        _until(lambda: "own_brief.r1" not in _applications(), 30)
        _until(lambda: "it was stopped" in server.log(), 30)  # the start gave up: "… while starting", or before it
        assert "Spark start stopped: it was stopped" in server.log()  # said as such, not as a failure's traceback
        assert _rows(conn, "SELECT count(*) FROM own_t WHERE k = 6") == [(100,)]


def test_drop_cluster_stops_its_application(server: SparkwireServer) -> None:
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        assert "own_b.r1" in _applications()
        conn.execute("DROP CLUSTER own_b CASCADE")
        _until(lambda: "own_b.r1" not in _applications(), 60)
        assert _rows(conn, "SELECT count(*) FROM own_t WHERE k = 5") == [(100,)]  # on quickstart's application


def test_applications_need_a_master_of_our_own(tmp_path: Path) -> None:
    """sparkwire cannot start applications through someone else's Spark Connect server: refused at start."""
    done = subprocess.run(
        [sys.executable, "-m", "sparkwire", "serve", "--data-dir", str(tmp_path / "data"), "--port", "0",
         "--spark-remote", "sc://127.0.0.1:1", "--cluster-applications"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert "--cluster-applications needs --spark-master" in done.stderr + done.stdout
