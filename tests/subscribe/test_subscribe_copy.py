"""COPY (SUBSCRIBE …) TO STDOUT and plain SUBSCRIBE through psycopg and psql against the session's server (issue 17
item 3): the snapshot, later INSERT / UPDATE / DELETE at their commit timestamps, consolidation within a
timestamp, PROGRESS, AS OF / UP TO, cancel (57014, the session stays usable) and a dropped relation."""

from __future__ import annotations

import os
import pty
import shutil
import signal
import subprocess
import time

import psycopg
import pytest

from tests.subscribe.support import Conn, CopyReader, now_ms
from tests.support.clients import unique
from tests.support.server import SparkwireServer

PSQL = shutil.which("psql")
PSQL_ENV = {"PATH": "/usr/bin:/bin", "PGCONNECT_TIMEOUT": "10", "LC_ALL": "C.UTF-8", "PGTZ": "UTC"}


def _psql_args(port: int, sql: str) -> list[str]:
    assert PSQL is not None
    return [PSQL, "-X", "-q", "-h", "127.0.0.1", "-p", str(port), "-U", "materialize", "-d", "materialize",
            "-c", "SET welcome_message = off", "-c", sql]  # fmt: skip


def test_snapshot_then_changes_at_their_timestamps(sw: Conn, dsn: str) -> None:
    t = unique("sub")
    sw.execute(f"CREATE TABLE {t} (a int, b text)")
    sw.execute(f"INSERT INTO {t} VALUES (1, 'x'), (2, 'y')")
    reader = CopyReader(dsn, f"COPY (SUBSCRIBE {t}) TO STDOUT")
    try:
        snapshot = reader.wait_rows(2)
        as_of = snapshot[0][0]
        assert sorted(r[1:] for r in snapshot) == [("1", "1", "x"), ("1", "2", "y")]
        assert {r[0] for r in snapshot} == {as_of}
        before = now_ms()
        sw.execute(f"INSERT INTO {t} VALUES (3, 'z')")
        after = now_ms()
        inserted = reader.wait_rows(3)[2]
        assert inserted[1:] == ("1", "3", "z")
        assert int(as_of) < int(inserted[0]) and before - 5 <= int(inserted[0]) <= after + 2000
        sw.execute(f"UPDATE {t} SET b = 'w' WHERE a = 1")
        update = reader.wait_rows(5)[3:]
        assert sorted(r[1:] for r in update) == [("-1", "1", "x"), ("1", "1", "w")]
        assert update[0][0] == update[1][0] and int(update[0][0]) > int(inserted[0])
        with sw.transaction():  # inserted and deleted at one timestamp: nothing to emit
            sw.execute(f"INSERT INTO {t} VALUES (9, 'gone')")
            sw.execute(f"DELETE FROM {t} WHERE a = 9")
        sw.execute(f"DELETE FROM {t} WHERE a = 2")
        deleted = reader.wait_rows(6)[5]
        assert deleted[1:] == ("-1", "2", "y") and int(deleted[0]) > int(update[0][0])
        time.sleep(0.3)
        assert len(reader.rows) == 6
    finally:
        reader.close()


def test_progress_rows(sw: Conn, dsn: str) -> None:
    t = unique("sub_progress")
    sw.execute(f"CREATE TABLE {t} (a int)")
    sw.execute(f"INSERT INTO {t} VALUES (1)")
    reader = CopyReader(dsn, f"COPY (SUBSCRIBE {t} WITH (PROGRESS)) TO STDOUT")
    try:
        first, data = reader.wait_rows(2)
        assert first[1:] == ("t", None, None)  # the AS OF timestamp, as a progress row
        assert data == (first[0], "f", "1", "1")
        later = reader.wait_rows(4, timeout=10)[2:]  # time advances without commits: progress every second
        assert all(r[1] == "t" and r[2] is None for r in later)
        assert int(first[0]) < int(later[0][0]) < int(later[1][0])
        sw.execute(f"INSERT INTO {t} VALUES (2)")
        deadline = time.monotonic() + 10
        while not any(r[1] == "f" and r[3] == "2" for r in reader.rows) and time.monotonic() < deadline:
            time.sleep(0.05)
        change = next(r for r in reader.rows if r[1] == "f" and r[3] == "2")
        progressed = [int(r[0]) for r in reader.rows[: reader.rows.index(change)] if r[1] == "t"]
        assert int(change[0]) >= max(progressed)  # never a change below a timestamp said complete
    finally:
        reader.close()


def test_cancel_is_57014_and_the_session_stays_usable(sw: Conn, dsn: str) -> None:
    t = unique("sub_cancel")
    sw.execute(f"CREATE TABLE {t} (a int)")
    reader = CopyReader(dsn, f"COPY (SUBSCRIBE {t}) TO STDOUT")
    try:
        time.sleep(0.5)
        assert sw.execute(
            "SELECT count(*) FROM mz_internal.mz_subscriptions WHERE session_id = "
            "(SELECT id FROM mz_internal.mz_sessions WHERE connection_id = %s)",
            (reader.conn.info.backend_pid,),
        ).fetchone() == (1,)
        reader.cancel()
        error = reader.join()
        assert isinstance(error, psycopg.errors.QueryCanceled) and error.sqlstate == "57014"
        assert reader.conn.execute("SELECT 1").fetchall() == [(1,)]
        assert sw.execute("SELECT count(*) FROM mz_internal.mz_subscriptions").fetchone() == (0,)
    finally:
        reader.close()


def test_pg_cancel_backend_ends_it(sw: Conn, dsn: str) -> None:
    t = unique("sub_signal")
    sw.execute(f"CREATE TABLE {t} (a int)")
    reader = CopyReader(dsn, f"COPY (SUBSCRIBE {t}) TO STDOUT")
    try:
        time.sleep(0.5)
        assert sw.execute("SELECT pg_cancel_backend(%s)", (reader.conn.info.backend_pid,)).fetchone() == (True,)
        error = reader.join()
        assert isinstance(error, psycopg.errors.QueryCanceled)
        assert reader.conn.execute("SELECT 2").fetchall() == [(2,)]
    finally:
        reader.close()


def test_dropping_the_relation_ends_it_with_an_error(sw: Conn, dsn: str) -> None:
    t = unique("sub_drop")
    sw.execute(f"CREATE TABLE {t} (a int)")
    sw.execute(f"INSERT INTO {t} VALUES (1)")
    reader = CopyReader(dsn, f"COPY (SUBSCRIBE {t}) TO STDOUT")
    try:
        reader.wait_rows(1)
        sw.execute(f"DROP TABLE {t}")
        error = reader.join()
        assert isinstance(error, psycopg.errors.UndefinedObject), error
        assert f'underlying relation "{t}" was dropped' in str(error)
        assert reader.conn.execute("SELECT 3").fetchall() == [(3,)]
    finally:
        reader.close()


def test_as_of_and_up_to_replay_history(sw: Conn, dsn: str) -> None:
    t = unique("sub_history")
    sw.execute(f"CREATE TABLE {t} (a int)")
    reader = CopyReader(dsn, f"COPY (SUBSCRIBE {t} WITH (SNAPSHOT = false)) TO STDOUT")
    try:
        time.sleep(0.3)
        sw.execute(f"INSERT INTO {t} VALUES (1)")
        sw.execute(f"INSERT INTO {t} VALUES (2)")
        (t1, _, _), (t2, _, _) = reader.wait_rows(2)
    finally:
        reader.close()
    rows = sw.execute(f"SUBSCRIBE {t} AS OF {t1} UP TO {int(t2) + 1}").fetchall()
    assert [(int(ts), diff, a) for ts, diff, a in rows] == [(int(t1), 1, 1), (int(t2), 1, 2)]
    assert sw.execute(f"SUBSCRIBE {t} AS OF {t1} UP TO {t2}").fetchall() == [(int(t1), 1, 1)]
    assert sw.execute(f"SUBSCRIBE {t} AS OF {t2} UP TO {t2}").fetchall() == []  # AS OF = UP TO: nothing
    rows = sw.execute(f"SUBSCRIBE {t} AS OF now() UP TO now() + INTERVAL '1 second'").fetchall()  # expressions
    assert sorted(a for _, _, a in rows) == [1, 2] and len({ts for ts, _, _ in rows}) == 1
    with pytest.raises(psycopg.errors.DataException, match=r"lower .* is beyond its upper"):
        sw.execute(f"SUBSCRIBE {t} AS OF {t2} UP TO {t1}")


@pytest.mark.skipif(PSQL is None, reason="psql not installed")
def test_psql_copy_streams_rows_and_ctrl_c_cancels(sw: Conn, server: SparkwireServer) -> None:
    t = unique("sub_psql")
    sw.execute(f"CREATE TABLE {t} (a int)")
    sw.execute(f"INSERT INTO {t} VALUES (1)")
    master, slave = pty.openpty()  # psql flushes COPY rows to a terminal as they come
    proc = subprocess.Popen(
        _psql_args(server.port, f"COPY (SUBSCRIBE {t}) TO STDOUT"),
        stdout=slave, stderr=subprocess.PIPE, text=True, env=PSQL_ENV,
    )  # fmt: skip
    os.close(slave)
    try:
        seen = ""
        deadline = time.monotonic() + 30
        inserted = False
        while seen.count("\n") < 2 and time.monotonic() < deadline:
            seen += os.read(master, 4096).decode()
            if not inserted and seen.count("\n") >= 1:
                sw.execute(f"INSERT INTO {t} VALUES (2)")
                inserted = True
        lines = [line.split("\t") for line in seen.splitlines()]
        assert [line[1:] for line in lines] == [["1", "1"], ["1", "2"]]
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
        assert "canceling statement due to user request" in err
    finally:
        proc.kill()
        os.close(master)


@pytest.mark.skipif(PSQL is None, reason="psql not installed")
def test_psql_plain_subscribe_up_to_ends(sw: Conn, server: SparkwireServer) -> None:
    t = unique("sub_plain")
    sw.execute(f"CREATE TABLE {t} (a int, b text)")
    sw.execute(f"INSERT INTO {t} VALUES (1, 'one')")
    result = subprocess.run(
        _psql_args(server.port, f"SUBSCRIBE {t} UP TO {now_ms() + 1500}"),
        capture_output=True, text=True, env=PSQL_ENV, timeout=30,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert [c.strip() for c in lines[0].split("|")] == ["mz_timestamp", "mz_diff", "a", "b"]
    assert [c.strip() for c in lines[2].split("|")][1:] == ["1", "1", "one"]
    assert lines[-1] == "(1 row)"


@pytest.mark.skipif(PSQL is None, reason="psql not installed")
def test_a_client_that_goes_away_ends_its_subscription(sw: Conn, server: SparkwireServer) -> None:
    t = unique("sub_gone")
    sw.execute(f"CREATE TABLE {t} (a int)")
    proc = subprocess.Popen(
        _psql_args(server.port, f"COPY (SUBSCRIBE {t}) TO STDOUT"),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=PSQL_ENV,
    )  # fmt: skip
    row = sw.execute("SELECT id FROM mz_tables WHERE name = %s", (t,)).fetchone()
    assert row is not None

    def subscriptions() -> int:
        ids = sw.execute("SELECT referenced_object_ids FROM mz_internal.mz_subscriptions").fetchall()
        return sum(row[0] in refs for (refs,) in ids)

    deadline = time.monotonic() + 20
    while subscriptions() == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert subscriptions() == 1
    proc.kill()  # no Terminate, no cancel: the socket just closes
    proc.wait()
    deadline = time.monotonic() + 10  # the next heartbeat (every second) finds the closed socket
    while subscriptions() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert subscriptions() == 0


def test_a_large_snapshot_streams_in_pieces(sw: Conn, dsn: str) -> None:
    t = unique("sub_large")
    sw.execute(f"CREATE TABLE {t} (a int)")
    sw.execute(f"INSERT INTO {t} SELECT generate_series(1, 150000)")
    reader = CopyReader(dsn, f"COPY (SUBSCRIBE {t}) TO STDOUT")
    try:
        rows = reader.wait_rows(150000)
        assert sorted(int(r[2]) for r in rows) == list(range(1, 150001))
        assert {r[1] for r in rows} == {"1"} and len({r[0] for r in rows}) == 1
    finally:
        reader.close()
