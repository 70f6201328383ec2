"""Isolation between clusters on the embedded Spark (issue 15; compute/preemption.py, engine/task_threads.py),
through psycopg against a real server: while one cluster's statements hold every task slot with tasks that would
run for hours, another cluster's query gets a slot by preemption (one of the first cluster's tasks is killed and
re-queued: its statements go on, and end only when cancelled), and Spark's task threads run below its driver
threads (Linux nice), so the small query's planning is not queued behind the long tasks for the CPU."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.support.server import SparkwireServer, _descendants

Conn = psycopg.Connection[Any]
# a three-way cross join of 3,000 rows: 27 billion rows to count, one task that runs for hours (small inputs are
# one partition: compute/… the small-input session)
ENDLESS = "SELECT count(*) FROM pre_t x, pre_t y, pre_t z WHERE x.a + y.a + z.a = -1"


def _wait(conn: Conn, sql: str, until: Any, timeout: float = 90.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = conn.execute(sql).fetchall()
        if until(value) or time.monotonic() > deadline:
            return value
        time.sleep(0.2)


def _task_thread_nice(server: SparkwireServer) -> set[int]:
    out: set[int] = set()
    for pid in _descendants(server.process.pid):
        for task in Path(f"/proc/{pid}/task").glob("*"):
            try:
                if (task / "comm").read_text().startswith("Executor task "):
                    out.add(os.getpriority(os.PRIO_PROCESS, int(task.name)))
            except OSError:
                continue
    return out


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="Linux threads")
def test_a_starved_cluster_preempts_and_task_threads_run_below_the_driver(server: SparkwireServer) -> None:
    slots = os.cpu_count() or 2
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        conn.execute("CREATE CLUSTER pre_a (SIZE = '25cc')")
        conn.execute("CREATE CLUSTER pre_b (SIZE = '25cc')")
        conn.execute("CREATE TABLE pre_t (a int)")
        conn.execute("INSERT INTO pre_t SELECT g FROM generate_series(1, 3000) AS g")
        (pool_a,) = conn.execute(
            "SELECT c.id || '.' || r.id FROM mz_clusters c JOIN mz_cluster_replicas r ON r.cluster_id = c.id "
            "WHERE c.name = 'pre_a'"
        ).fetchone() or ("",)
        outcomes: list[str] = []
        holders = [psycopg.connect(server.dsn, autocommit=True) for _ in range(slots)]

        def hold(c: Conn) -> None:
            c.execute("SET cluster = pre_a")
            try:
                c.execute(ENDLESS)
                outcomes.append("finished")
            except psycopg.Error as exc:
                outcomes.append(exc.diag.sqlstate or "")

        threads = [threading.Thread(target=hold, args=(c,), daemon=True) for c in holders]
        try:
            for t in threads:
                t.start()
            busy = _wait(
                conn,
                f"SELECT coalesce(sum(num_active_tasks), 0) FROM mz_internal.mz_spark_stages "
                f"WHERE pool = '{pool_a}' AND status = 'active'",
                lambda v: v[0][0] >= slots,
            )
            assert busy[0][0] >= slots, "cluster pre_a never held every task slot"
            assert _task_thread_nice(server) == {19}  # every task thread below the JVM's own 10
            conn.execute("SET cluster = pre_b")
            conn.execute("SET statement_timeout = '60s'")  # without preemption: 57014 here, hours later
            assert conn.execute("SELECT count(*), max(a) FROM pre_t WHERE a > 0").fetchall() == [(3000, 3000)]
            assert outcomes == []  # pre_a's statements still run: their killed task was re-queued
            killed = _wait(  # the status side route's next look (mz_spark_stages is fed, not asked)
                conn,
                f"SELECT coalesce(sum(num_killed_tasks), 0) FROM mz_internal.mz_spark_stages WHERE pool = '{pool_a}'",
                lambda v: v[0][0] >= 1,
                timeout=30,
            )
            assert killed[0][0] >= 1
        finally:
            for c in holders:
                c.cancel()
            for t in threads:
                t.join(60)
            for c in holders:
                c.close()
        assert outcomes == ["57014"] * slots  # canceled, not failed by the preemption
        conn.execute("RESET cluster")
        conn.execute("DROP TABLE pre_t")
        conn.execute("DROP CLUSTER pre_a")
        conn.execute("DROP CLUSTER pre_b")


def _nices(pid: int) -> dict[str, set[int]]:
    """The nice values of a process's threads, by thread name (digits dropped)."""
    out: dict[str, set[int]] = {}
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            name = "".join(ch for ch in (task / "comm").read_text().strip() if not ch.isdigit())
            out.setdefault(name, set()).add(os.getpriority(os.PRIO_PROCESS, int(task.name)))
        except OSError:
            continue
    return out


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="Linux threads")
def test_the_jvm_runs_below_the_server_and_no_server_thread_with_it(server: SparkwireServer) -> None:
    """The JVM starts at nice 10 and every thread it makes inherits it; the server's own threads (among them those
    started while Spark started: PySpark's, py4j's, the watchdog's) stay at the server's priority — one of them at
    the JVM's, holding the GIL when the CPU is saturated, kept the wire waiting."""
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE nice_t (a int)")
        conn.execute("INSERT INTO nice_t VALUES (1)")
        assert conn.execute("SELECT sum(a) FROM nice_t").fetchall() == [(1,)]
        conn.execute("DROP TABLE nice_t")
    own = os.getpriority(os.PRIO_PROCESS, server.process.pid)
    assert set().union(*_nices(server.process.pid).values()) == {own}
    jvms = [pid for pid in _descendants(server.process.pid) if b"java" in Path(f"/proc/{pid}/cmdline").read_bytes()]
    assert jvms
    for pid in jvms:
        nices = _nices(pid)
        driver = set().union(*(v for k, v in nices.items() if not k.startswith("Executor task ")))
        assert driver <= {own + 10, 19}, nices  # 19: task threads, and the threads they started
        assert own + 10 in driver


def test_a_waiting_connection_thread_gets_the_gil_within_two_milliseconds(server: SparkwireServer) -> None:
    """The serving process asks Python to hand the GIL over every 2 ms (cli.prefer_short_gil_turns), not every
    5 ms: under load an introspection query's thread slept on the GIL while another session planned an INSERT."""
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        assert conn.execute("SELECT 1").fetchall() == [(1,)]
    assert "GIL switch interval 2.0 ms" in server.log_path.read_text(errors="replace")
