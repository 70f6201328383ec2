"""Resource governance (issue 21) against a real server with a small Spark of its own (`--spark-memory 1g`): a
statement that exhausts Spark's memory fails with 53200 while another session keeps answering, a many-way join of
small tables answers, and a killed Spark JVM comes back by itself (the statement in flight fails with 58000, catalog
queries answer throughout, the next Spark query succeeds, materialized views and indexes still answer).

The server is this module's own (never the session-wide one): these tests break its Spark on purpose. The order
matters and is the file's: sizing and joins, then memory, then the kill.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests.support.server import SparkwireServer

HEAVY = (  # collects ~2 GB of strings into one array: the 1 GiB heap cannot hold it
    "SELECT max(cardinality(a)) FROM "
    "(SELECT array_agg(repeat('x', 1000) || g::text) a FROM t10, generate_series(1, 2000000) g) s"
)
LONG = (  # ~10^11 rows through nested loops in little memory: runs until the JVM is killed
    "SELECT count(*) FROM t1 a, t2 b, t3 c, t4 d, generate_series(1, 10000) g, generate_series(1, 1000) h "
    "WHERE a.x + g > b.x + h + c.x + d.x"
)
RECOVERY_SECONDS = 180.0


@pytest.fixture(scope="module")
def own_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkwireServer]:
    srv = SparkwireServer.start(tmp_path_factory.mktemp("governed"), "--spark-memory", "1g")
    try:
        with psycopg.connect(srv.dsn, autocommit=True) as conn:
            for i in range(1, 31):
                conn.execute(f"CREATE TABLE t{i} (x integer, y integer)")
                conn.execute(f"INSERT INTO t{i} SELECT g, g % 10 + 1 FROM generate_series(1, 10) g")
            conn.execute("CREATE MATERIALIZED VIEW mv AS SELECT x, y * 2 AS y2 FROM t1")
            conn.execute("CREATE INDEX t2_x ON t2 (x)")
        yield srv
    finally:
        srv.stop()


def _connect(srv: SparkwireServer) -> psycopg.Connection[tuple[object, ...]]:
    return psycopg.connect(srv.dsn, autocommit=True)


def _spark_query_until_it_answers(srv: SparkwireServer, sql: str) -> tuple[object, ...] | None:
    """Run `sql` until it answers, accepting only the errors of a Spark that is restarting (58000, 55000)."""
    deadline = time.monotonic() + RECOVERY_SECONDS
    while True:
        try:
            with _connect(srv) as conn:
                return conn.execute(sql).fetchone()
        except psycopg.Error as exc:
            assert exc.sqlstate in ("58000", "55000"), (exc.sqlstate, str(exc))
            assert time.monotonic() < deadline, f"Spark did not come back:\n{srv.log()}"
            time.sleep(1)


def _jvm_pids(srv: SparkwireServer) -> list[int]:
    """The server's Spark JVM: its child processes that run java."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (entry / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if ppid == srv.process.pid and b"java" in cmdline:
            found.append(int(entry.name))
    return found


def test_spark_gets_the_memory_it_was_given(own_server: SparkwireServer) -> None:
    with _connect(own_server) as conn:
        assert conn.execute("SELECT count(*) FROM t1").fetchone() == (10,)
    sized = [line for line in own_server.log().splitlines() if "Spark sized" in line]
    assert sized and "driver memory 1 GiB" in sized[0] and "JVM max heap 1 GiB" in sized[0], sized


def test_a_30_way_join_of_small_tables_answers(own_server: SparkwireServer) -> None:
    tables = ", ".join(f"t{i}" for i in range(30, 0, -1))
    chain = " AND ".join(f"t{i}.y = t{i + 1}.x" for i in range(1, 30))
    with _connect(own_server) as conn:
        conn.execute("SET statement_timeout = '120s'")  # a functional bound, not a measurement (bench/joins.py)
        assert conn.execute(f"SELECT count(*), sum(t1.x) FROM {tables} WHERE {chain}").fetchone() == (10, 55)


def test_out_of_memory_fails_one_statement_and_others_keep_answering(own_server: SparkwireServer) -> None:
    heavy: list[BaseException | None] = []

    def run_heavy() -> None:
        try:
            with _connect(own_server) as conn:
                conn.execute(HEAVY).fetchone()
            heavy.append(None)
        except BaseException as exc:
            heavy.append(exc)

    thread = threading.Thread(target=run_heavy)
    thread.start()
    answered = restarts = 0
    with _connect(own_server) as small:
        while thread.is_alive():
            assert small.execute("SELECT count(*) > 0 FROM pg_class").fetchone() == (True,)
            try:
                assert small.execute("SELECT x FROM t3 WHERE y = 2").fetchall() == [(1,)]
                answered += 1
            except psycopg.Error as exc:
                # the heap can run out before the shed statement's tasks end: then the JVM exits, Spark restarts
                # and a small query caught in flight fails with 58000; the session itself goes on
                assert exc.sqlstate == "58000" and exc.diag.message_hint, str(exc)
                restarts += 1
            time.sleep(0.2)
    thread.join()
    assert answered > 0 and restarts <= 1
    error = heavy[0]
    assert isinstance(error, psycopg.Error), error
    assert (error.sqlstate, error.diag.message_primary) == ("53200", "out of memory"), str(error)
    assert error.diag.message_hint and "Traceback" not in str(error) and "java." not in str(error)
    assert _spark_query_until_it_answers(own_server, "SELECT sum(x) FROM t4") == (55,)


def test_a_killed_spark_jvm_comes_back(own_server: SparkwireServer) -> None:
    assert _spark_query_until_it_answers(own_server, "SELECT count(*) FROM t5") == (10,)
    pids = _jvm_pids(own_server)
    assert len(pids) == 1, pids
    in_flight: list[BaseException | None] = []

    def run_long() -> None:
        try:
            with _connect(own_server) as conn:
                conn.execute(LONG).fetchone()
            in_flight.append(None)
        except BaseException as exc:
            in_flight.append(exc)

    thread = threading.Thread(target=run_long)
    thread.start()
    time.sleep(3)  # the long query is running on Spark
    os.kill(pids[0], signal.SIGKILL)
    with _connect(own_server) as conn:  # catalog queries never needed Spark
        assert conn.execute("SELECT count(*) FROM pg_tables WHERE tablename = 't5'").fetchone() == (1,)
    thread.join(RECOVERY_SECONDS)
    error = in_flight[0]
    assert isinstance(error, psycopg.Error), error
    assert error.sqlstate == "58000" and "restarting" in str(error), str(error)
    assert error.diag.message_hint
    assert _spark_query_until_it_answers(own_server, "SELECT sum(x) FROM t6") == (55,)
    assert _jvm_pids(own_server) not in ([], pids)
    with _connect(own_server) as conn:  # what lived in the old JVM is registered again; resident state survived
        assert conn.execute("SELECT sum(y2) FROM mv").fetchone() == (110,)
        assert conn.execute("SELECT y FROM t2 WHERE x = 3").fetchall() == [(4,)]
        assert conn.execute("SELECT count(*) FROM t7, t8 WHERE t7.x = t8.x").fetchone() == (10,)
    log = own_server.log()
    assert "Spark failed (the Spark JVM" in log and "restarting" in log  # killed, or found not answering first


def test_a_statement_that_finds_spark_gone_fails_with_58000(own_server: SparkwireServer) -> None:
    """The JVM dies while nothing runs; a statement at once, before the watchdog's next look (every second), on a
    table Spark has not read yet: its first Spark call, registering the table's view, finds the JVM gone and fails
    over itself — 58000, not an internal error (CI saw XX000 there, from a JVM exiting out of memory)."""
    assert _spark_query_until_it_answers(own_server, "SELECT count(*) FROM t9") == (10,)
    with _connect(own_server) as conn:
        pids = _jvm_pids(own_server)
        assert len(pids) == 1, pids
        os.kill(pids[0], signal.SIGKILL)
        with pytest.raises(psycopg.Error) as caught:
            conn.execute("SELECT sum(x) FROM t10").fetchone()
    assert caught.value.sqlstate in ("58000", "55000"), (caught.value.sqlstate, str(caught.value))
    assert caught.value.diag.message_hint
    assert _spark_query_until_it_answers(own_server, "SELECT sum(x) FROM t10") == (55,)
