"""DECLARE … CURSOR FOR SUBSCRIBE and FETCH … WITH (timeout) through psycopg (issue 17 item 3): timeouts, the
envelopes, views and a join, the errors and transaction rules, privileges, and what a subscription holds and shares
(mz_subscriptions, mz_subscription_streams)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from tests.subscribe.support import Conn
from tests.support.clients import as_role, unique


@pytest.fixture
def reader(dsn: str) -> Iterator[Conn]:
    """A connection for a SUBSCRIBE cursor (not autocommit: DECLARE needs a block)."""
    with psycopg.connect(dsn) as conn:
        yield conn


def _fetch(conn: Conn, sql: str) -> tuple[list[tuple[Any, ...]], float]:
    started = time.monotonic()
    rows = conn.execute(sql).fetchall()
    return rows, time.monotonic() - started


def _stream_stats(sw: Conn, subscription: str) -> dict[str, Any]:
    cur = sw.execute("SELECT * FROM mz_internal.mz_subscription_streams WHERE subscription_id = %s", (subscription,))
    assert cur.description is not None
    row = cur.fetchone()
    assert row is not None
    return {d.name: v for d, v in zip(cur.description, row, strict=True)}


def _subscription_of(sw: Conn, conn: Conn) -> str:
    row = sw.execute(
        "SELECT s.id FROM mz_internal.mz_subscriptions s JOIN mz_internal.mz_sessions m ON s.session_id = m.id "
        "WHERE m.connection_id = %s",
        (conn.info.backend_pid,),
    ).fetchone()
    assert row is not None
    return str(row[0])


def test_fetch_timeout(sw: Conn, reader: Conn) -> None:
    t = unique("cur")
    sw.execute(f"CREATE TABLE {t} (a int)")
    sw.execute(f"INSERT INTO {t} VALUES (1), (2), (3)")
    reader.execute(f"DECLARE c CURSOR FOR SUBSCRIBE {t}")
    rows, _ = _fetch(reader, "FETCH 2 c WITH (timeout = '1s')")
    assert [r[1:] for r in rows] == [(1, 1), (1, 2)]
    rows, _ = _fetch(reader, "FETCH ALL c WITH (timeout = '1s')")
    assert [r[1:] for r in rows] == [(1, 3)]
    rows, took = _fetch(reader, "FETCH ALL c WITH (timeout = '1s')")
    assert rows == [] and 0.9 <= took < 5
    rows, took = _fetch(reader, "FETCH ALL c WITH (timeout = '0s')")
    assert rows == [] and took < 0.5
    sw.execute(f"INSERT INTO {t} VALUES (4)")
    rows, _ = _fetch(reader, "FETCH ALL c")  # no timeout: waits for a row
    assert [r[1:] for r in rows] == [(1, 4)]
    reader.execute("COMMIT")


def test_envelope_upsert(sw: Conn, reader: Conn) -> None:
    t = unique("cur_upsert")
    sw.execute(f"CREATE TABLE {t} (v text, k int)")
    sw.execute(f"INSERT INTO {t} VALUES ('a', 1), ('b', 2)")
    cur = reader.execute(f"DECLARE c CURSOR FOR SUBSCRIBE {t} ENVELOPE UPSERT (KEY (k))")
    cur = reader.execute("FETCH ALL c")
    assert cur.description is not None
    assert [d.name for d in cur.description] == ["mz_timestamp", "mz_state", "k", "v"]
    assert sorted(r[1:] for r in cur.fetchall()) == [("upsert", 1, "a"), ("upsert", 2, "b")]
    sw.execute(f"UPDATE {t} SET v = 'c' WHERE k = 1")
    assert [r[1:] for r in reader.execute("FETCH ALL c").fetchall()] == [("upsert", 1, "c")]
    sw.execute(f"DELETE FROM {t} WHERE k = 2")
    assert [r[1:] for r in reader.execute("FETCH ALL c").fetchall()] == [("delete", 2, None)]
    sw.execute(f"INSERT INTO {t} VALUES ('d', 3), ('e', 3)")  # two live values for key 3 at one timestamp
    assert [r[1:] for r in reader.execute("FETCH ALL c").fetchall()] == [("key_violation", 3, None)]
    reader.execute("COMMIT")


def test_envelope_debezium_with_progress(sw: Conn, reader: Conn) -> None:
    t = unique("cur_dbz")
    sw.execute(f"CREATE TABLE {t} (k int, v text, w int)")
    sw.execute(f"INSERT INTO {t} VALUES (1, 'a', 10)")
    reader.execute(f"DECLARE c CURSOR FOR SUBSCRIBE {t} ENVELOPE DEBEZIUM (KEY (k)) WITH (PROGRESS)")
    cur = reader.execute("FETCH 2 c")
    assert cur.description is not None
    assert [d.name for d in cur.description] == [
        "mz_timestamp", "mz_progressed", "mz_state", "k", "before_v", "before_w", "after_v", "after_w",
    ]  # fmt: skip
    progress, snapshot = cur.fetchall()
    assert progress[1:] == (True, None, None, None, None, None, None)
    assert snapshot[1:] == (False, "insert", 1, None, None, "a", 10)
    sw.execute(f"UPDATE {t} SET v = 'b'")
    sw.execute(f"DELETE FROM {t}")
    changes: list[tuple[Any, ...]] = []
    deadline = time.monotonic() + 30
    while len(changes) < 2 and time.monotonic() < deadline:
        changes += [r for r in reader.execute("FETCH ALL c WITH (timeout = '1s')").fetchall() if not r[1]]
    assert [r[2:] for r in changes] == [
        ("upsert", 1, "a", 10, "b", 10),
        ("delete", 1, "b", 10, None, None),
    ]
    reader.execute("COMMIT")


def test_view_and_query_with_a_join(sw: Conn, reader: Conn) -> None:
    orders, customers, view = unique("orders"), unique("customers"), unique("per_customer")
    sw.execute(f"CREATE TABLE {orders} (customer int, amount int)")
    sw.execute(f"CREATE TABLE {customers} (id int, name text)")
    sw.execute(f"INSERT INTO {customers} VALUES (1, 'ann'), (2, 'bob')")
    sw.execute(f"INSERT INTO {orders} VALUES (1, 5), (1, 7)")
    sw.execute(f"CREATE VIEW {view} AS SELECT customer, sum(amount) AS total FROM {orders} GROUP BY customer")
    reader.execute(f"DECLARE v CURSOR FOR SUBSCRIBE {view}")
    assert [r[1:] for r in reader.execute("FETCH ALL v").fetchall()] == [(1, 1, 12)]
    sw.execute(f"INSERT INTO {orders} VALUES (1, 1), (2, 3)")
    rows = reader.execute("FETCH ALL v").fetchall()
    assert len({r[0] for r in rows}) == 1  # one timestamp
    assert sorted(r[1:] for r in rows) == [(-1, 1, 12), (1, 1, 13), (1, 2, 3)]
    reader.execute("COMMIT")
    query = f"SELECT c.name, o.amount FROM {orders} o JOIN {customers} c ON o.customer = c.id WHERE o.amount > 2"
    reader.execute(f"DECLARE q CURSOR FOR SUBSCRIBE ({query})")
    assert sorted(r[1:] for r in reader.execute("FETCH ALL q").fetchall()) == [
        (1, "ann", 5), (1, "ann", 7), (1, "bob", 3),
    ]  # fmt: skip
    sw.execute(f"UPDATE {customers} SET name = 'bea' WHERE id = 2")
    rows = reader.execute("FETCH ALL q").fetchall()
    assert sorted(r[1:] for r in rows) == [(-1, "bob", 3), (1, "bea", 3)]
    reader.execute("COMMIT")


def test_errors_leave_the_session_usable(sw: Conn) -> None:
    t = unique("cur_err")
    sw.execute(f"CREATE TABLE {t} (a int)")
    cases: list[tuple[str, type[psycopg.Error]]] = [
        ("SUBSCRIBE no_such_relation", psycopg.errors.UndefinedTable),
        (f"SUBSCRIBE {t} WITH (BOGUS)", psycopg.errors.SyntaxError),
        (f"SUBSCRIBE {t} WITH (SNAPSHOT = maybe)", psycopg.errors.InvalidParameterValue),
        (f"SUBSCRIBE {t} ENVELOPE UPSERT (KEY (nope))", psycopg.errors.UndefinedColumn),
        (f"SUBSCRIBE {t} AS OF 10 UP TO 5", psycopg.errors.DataException),
        (f"SUBSCRIBE {t} UP", psycopg.errors.SyntaxError),
        (f"DECLARE c CURSOR WITH HOLD FOR SUBSCRIBE {t}", psycopg.errors.FeatureNotSupported),
    ]
    for sql, error in cases:
        with pytest.raises(error):
            sw.execute(sql)
        assert sw.execute("SELECT 1").fetchall() == [(1,)]


def test_transaction_rules(sw: Conn, reader: Conn) -> None:
    t = unique("cur_tx")
    sw.execute(f"CREATE TABLE {t} (a int)")
    reader.execute("SELECT 1")  # the block's first statement: a read
    with pytest.raises(psycopg.errors.InvalidTransactionState, match="must be the only read statement"):
        reader.execute(f"DECLARE c CURSOR FOR SUBSCRIBE {t}")
    reader.rollback()
    reader.execute(f"DECLARE c CURSOR FOR SUBSCRIBE {t}")
    with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
        reader.execute(f"SELECT * FROM {t}")
    reader.rollback()
    with pytest.raises(psycopg.errors.NoActiveSqlTransaction):
        sw.execute(f"DECLARE c CURSOR FOR SUBSCRIBE {t}")


def test_a_role_without_select_gets_42501(sw: Conn, dsn: str, role: str) -> None:
    t = unique("cur_priv")
    sw.execute(f"CREATE TABLE {t} (a int)")
    with psycopg.connect(as_role(dsn, role), autocommit=True) as other:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            other.execute(f"SUBSCRIBE {t}")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            other.execute(f"SUBSCRIBE (SELECT count(*) FROM {t})")
        assert other.execute("SELECT 1").fetchall() == [(1,)]
        sw.execute(f"GRANT SELECT ON {t} TO {role}")
        sw.execute(f"INSERT INTO {t} VALUES (7)")
        rows = other.execute(f"SUBSCRIBE {t} UP TO {int(time.time() * 1000) + 1200}").fetchall()
        assert [r[1:] for r in rows] == [(1, 7)]
    sw.execute(f"DROP TABLE {t}")  # its grant to the role goes with it


def test_a_slow_reader_holds_one_batch_and_streams_are_shared(sw: Conn, dsn: str, reader: Conn) -> None:
    t = unique("cur_shared")
    sw.execute(f"CREATE TABLE {t} (a int)")
    sw.execute(f"INSERT INTO {t} VALUES (1), (2), (3)")
    with psycopg.connect(dsn) as second:
        reader.execute(f"DECLARE c CURSOR FOR SUBSCRIBE {t}")
        second.execute(f"DECLARE c CURSOR FOR SUBSCRIBE {t}")
        assert len(reader.execute("FETCH 1 c").fetchall()) == 1  # the snapshot batch, cut after one row
        assert len(second.execute("FETCH ALL c").fetchall()) == 3
        first_id, second_id = _subscription_of(sw, reader), _subscription_of(sw, second)
        slow = _stream_stats(sw, first_id)
        assert slow["stream"] == _stream_stats(sw, second_id)["stream"]  # one stream for both
        assert slow["stream_subscribers"] == 2
        assert slow["held_rows"] == 2  # the rest of the one batch it was given, nothing more
        assert (slow["stream_computations"], slow["stream_hits"]) == (1, 1)  # one snapshot read, shared
        for i in range(20):  # 20 commits the slow reader does not ask for
            sw.execute(f"INSERT INTO {t} VALUES ({10 + i})")
        time.sleep(0.5)
        slow_after = _stream_stats(sw, first_id)
        assert slow_after["frontier"] == slow["frontier"]  # nothing computed ahead of the client
        assert slow_after["held_rows"] == 2 and slow_after["stream_computations"] == 1
        fast = second.execute("FETCH ALL c").fetchall()
        while len(fast) < 20:
            fast += second.execute("FETCH ALL c WITH (timeout = '1s')").fetchall()
        caught_up = reader.execute("FETCH ALL c").fetchall()
        while len(caught_up) < 22:
            caught_up += reader.execute("FETCH ALL c WITH (timeout = '1s')").fetchall()
        assert [r[1:] for r in caught_up[:2]] == [(1, 2), (1, 3)]
        assert [r[1:] for r in fast] == [(1, 10 + i) for i in range(20)] == [r[1:] for r in caught_up[2:]]
        shared = _stream_stats(sw, first_id)
        assert shared["stream_computations"] == 21  # the snapshot and each commit once, for two subscribers
        assert shared["stream_hits"] == 21
        assert shared["held_rows"] == 0 and shared["stream_cached_batches"] <= 21
        second.execute("COMMIT")
        assert _stream_stats(sw, first_id)["stream_subscribers"] == 1
    reader.execute("COMMIT")
    assert sw.execute("SELECT count(*) FROM mz_internal.mz_subscription_streams").fetchone() == (0,)


def test_materialized_view_and_source(sw: Conn, reader: Conn) -> None:
    t, mv, source = unique("mv_base"), unique("mv"), unique("counter")
    sw.execute(f"CREATE TABLE {t} (a int)")
    sw.execute(f"INSERT INTO {t} VALUES (1), (2)")
    sw.execute(
        f"CREATE MATERIALIZED VIEW {mv} AS SELECT a % 2 AS odd, count(*) AS n, sum(a) AS total FROM {t} GROUP BY 1"
    )
    try:
        reader.execute(f"DECLARE m CURSOR FOR SUBSCRIBE {mv}")
        assert sorted(r[1:] for r in reader.execute("FETCH ALL m").fetchall()) == [(1, 0, 1, 2), (1, 1, 1, 1)]
        sw.execute(f"INSERT INTO {t} VALUES (4)")
        rows = reader.execute("FETCH ALL m").fetchall()
        assert sorted(r[1:] for r in rows) == [(-1, 0, 1, 2), (1, 0, 2, 6)]
        reader.execute("COMMIT")
    finally:
        sw.execute(f"DROP MATERIALIZED VIEW {mv}")
    sw.execute(f"CREATE SOURCE {source} FROM LOAD GENERATOR COUNTER (TICK INTERVAL '50ms', UP TO 5)")
    try:
        reader.execute(f"DECLARE s CURSOR FOR SUBSCRIBE {source} WITH (SNAPSHOT = false)")
        seen: list[tuple[Any, ...]] = []
        deadline = time.monotonic() + 30
        while len(seen) < 1 and time.monotonic() < deadline:
            seen += reader.execute("FETCH ALL s WITH (timeout = '1s')").fetchall()
        assert seen and all(r[1] == 1 for r in seen)
        assert [r[0] for r in seen] == sorted(r[0] for r in seen)
        reader.execute("COMMIT")
    finally:
        sw.execute(f"DROP SOURCE {source}")


def test_arrays_and_repeated_column_names(sw: Conn, reader: Conn) -> None:
    t = unique("cur_arrays")
    sw.execute(f"CREATE TABLE {t} (a int, b int[])")
    sw.execute(f"INSERT INTO {t} VALUES (1, ARRAY[1, 2])")
    reader.execute(f"DECLARE c CURSOR FOR SUBSCRIBE {t} ENVELOPE UPSERT (KEY (b))")
    assert [r[1:] for r in reader.execute("FETCH ALL c").fetchall()] == [("upsert", [1, 2], 1)]
    sw.execute(f"UPDATE {t} SET a = 5")
    assert [r[1:] for r in reader.execute("FETCH ALL c").fetchall()] == [("upsert", [1, 2], 5)]
    reader.execute("COMMIT")
    reader.execute(f"DECLARE q CURSOR FOR SUBSCRIBE (SELECT a, a, b FROM {t})")
    assert [r[1:] for r in reader.execute("FETCH ALL q").fetchall()] == [(1, 5, 5, [1, 2])]
    sw.execute(f"DELETE FROM {t}")
    assert [r[1:] for r in reader.execute("FETCH ALL q").fetchall()] == [(-1, 5, 5, [1, 2])]
    reader.execute("COMMIT")
