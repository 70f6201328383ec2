"""Limits that end a statement with a clear error and leave the session usable (issue 12): the statement batch size
(54000, before parsing), max_query_result_size for results held in memory (a Spark result, a portal read ahead:
54000), lock_timeout on a view another session is computing (55P03); and what still fits does work."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from sparkwire.session.plans import MAX_STATEMENT_BATCH_SIZE
from tests.support.server import SparkwireServer

Conn = psycopg.Connection[Any]


@pytest.fixture
def conn(server: SparkwireServer) -> Iterator[Conn]:
    with psycopg.connect(server.dsn, autocommit=True) as c:
        yield c


def _fails(conn: Conn, sql: str, sqlstate: str, prepare: bool = False) -> psycopg.Error:
    with pytest.raises(psycopg.Error) as caught:
        conn.execute(sql, prepare=prepare)
    assert caught.value.sqlstate == sqlstate, caught.value
    assert conn.execute("SELECT 1").fetchone() == (1,)  # the session goes on
    return caught.value


@pytest.mark.parametrize("prepare", [False, True], ids=["simple", "extended"])
def test_statement_batch_size(conn: Conn, prepare: bool) -> None:
    pad = "x" * (MAX_STATEMENT_BATCH_SIZE - 20)
    assert conn.execute(f"SELECT length('{pad}')", prepare=prepare).fetchone() == (len(pad),)
    too_long = f"SELECT '{pad}{'é' * 20}'"  # fewer characters than the limit, more bytes
    error = _fails(conn, too_long, "54000", prepare)
    assert error.diag.message_primary == "statement batch size cannot exceed 976.6 KiB"


def test_a_large_insert_values_is_not_an_engine_round_trip_per_cell(conn: Conn) -> None:
    conn.execute("CREATE TABLE lim_bulk (a int, b text, c numeric(8,2), d boolean)")
    rows = ",".join(f"({i}, 'row {i}', {i}.25, {'true' if i % 2 else 'false'})" for i in range(20_000))
    assert conn.execute(f"INSERT INTO lim_bulk VALUES {rows}").rowcount == 20_000
    got = conn.execute("SELECT count(*), sum(a), sum(c), count(*) FILTER (WHERE d), max(b) FROM lim_bulk").fetchone()
    assert got is not None
    assert got[:4] == (20_000, 199_990_000, pytest.approx(199_995_000.0), 10_000)
    assert got[4] == "row 9999"


def test_max_query_result_size_on_a_spark_result(conn: Conn) -> None:
    conn.execute("CREATE TABLE lim_rows (a int, b text)")
    conn.execute("INSERT INTO lim_rows SELECT g, repeat('y', 100) FROM generate_series(1, 200) g")
    assert conn.execute("SHOW max_query_result_size").fetchone() == ("1GB",)
    conn.execute("SET max_query_result_size = '8kB'")
    assert conn.execute("SHOW max_query_result_size").fetchone() == ("8kB",)
    assert conn.execute("SELECT count(*) FROM lim_rows").fetchone() == (200,)  # a small result fits
    error = _fails(conn, "SELECT * FROM lim_rows", "54000")
    assert error.diag.message_primary == "result exceeds max size of 8.0 KiB"
    _fails(conn, "SET max_query_result_size = 'lots'", "22023")
    conn.execute("RESET max_query_result_size")
    assert len(conn.execute("SELECT * FROM lim_rows").fetchall()) == 200


def test_max_query_result_size_on_a_portal_read_ahead(conn: Conn) -> None:
    """A cursor still open on the engine is read into memory when another statement needs the engine; past the
    limit its next FETCH fails with 54000 instead of holding the rest."""
    conn.execute("SET max_query_result_size = '64kB'")
    with conn.transaction():
        conn.execute("DECLARE big CURSOR FOR SELECT g, repeat('z', 50) FROM generate_series(1, 100000) g")
        assert len(conn.execute("FETCH 10 FROM big").fetchall()) == 10
        assert conn.execute("SELECT 2").fetchone() == (2,)  # the cursor is read ahead here, up to the limit
        with pytest.raises(psycopg.Error) as caught:
            conn.execute("FETCH 10 FROM big")
        assert caught.value.sqlstate == "54000"
    conn.execute("SET max_query_result_size = '1GB'")
    with conn.transaction():
        conn.execute("DECLARE small CURSOR FOR SELECT g FROM generate_series(1, 1000) g")
        conn.execute("FETCH 10 FROM small")
        conn.execute("SELECT 2")
        assert len(conn.execute("FETCH ALL FROM small").fetchall()) == 990


def test_lock_timeout_on_a_view_its_maintainer_is_computing(server: SparkwireServer, conn: Conn) -> None:
    """While a materialized view's maintainer computes it (a 3.4G-row join on Spark: seconds), a read with
    lock_timeout gets 55P03; without it, it waits for the maintainer and reads the same contents as another
    session that waited."""
    conn.execute("CREATE TABLE lim_base (x int)")
    # big enough that the build outlasts the Spark job feed's half-second poll with room to spare (1,500: ~5 s)
    conn.execute("INSERT INTO lim_base SELECT g FROM generate_series(1, 1500) g")
    conn.execute(
        "CREATE MATERIALIZED VIEW lim_slow AS SELECT count(*) AS n FROM lim_base a, lim_base b, lim_base c "
        "WHERE (a.x * 7 + b.x * 3 + c.x) % 11 = 0"
    )
    with psycopg.connect(server.dsn, autocommit=True) as waiter, psycopg.connect(server.dsn, autocommit=True) as other:
        other.execute("SET lock_timeout = '20ms'")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # into the build: the maintainer's Spark job for the view
            running = other.execute(
                "SELECT (SELECT count(*) FROM mz_internal.mz_materialized_view_maintenance m "
                "JOIN mz_catalog.mz_materialized_views v ON v.id = m.object_id "
                "WHERE v.name = 'lim_slow' AND NOT m.hydrated) * (SELECT count(*) FROM mz_internal.mz_spark_jobs "
                "WHERE status = 'running' AND job_tag LIKE 'sparkwire-internal%')"
            ).fetchone()
            if running is not None and running[0]:
                break
            time.sleep(0.02)
        else:
            pytest.fail("the materialized view's build never showed as running")
        result: list[Any] = []
        reader = threading.Thread(target=lambda: result.append(waiter.execute("SELECT n FROM lim_slow").fetchone()))
        reader.start()
        with pytest.raises(psycopg.Error) as caught:
            other.execute("SELECT n FROM lim_slow")
        assert caught.value.sqlstate == "55P03"
        assert caught.value.diag.message_primary == "canceling statement due to lock timeout"
        other.execute("SET lock_timeout = 0")
        waited = other.execute("SELECT n FROM lim_slow").fetchone()  # no bound: waits for the build, then reads
        reader.join(120)
        assert result == [waited]
