"""CREATE SOURCE … FROM POSTGRES end to end, on a sparkwire server of its own and a real PostgreSQL 15 with
wal_level=logical: the snapshot and every upstream INSERT / UPDATE / DELETE land in the subsources; a server killed
(-9) and started again resumes from its durable LSN with no gap and no duplicate; views over the source share its
one replication slot and one reader; DROP SOURCE drops the slot upstream; bad input is a clear error."""

from __future__ import annotations

import time
from pathlib import Path

import psycopg
import pytest

from tests.sources.loadgen_support import reader_threads, source_id, wait_status
from tests.support.clients import as_role
from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer

Conn = psycopg.Connection[tuple[object, ...]]

UPSTREAM = """
CREATE TABLE t (id int PRIMARY KEY, v text, amount numeric(12,2));
ALTER TABLE t REPLICA IDENTITY FULL;
CREATE TABLE t2 (k bigint, s varchar(20), at timestamptz);
ALTER TABLE t2 REPLICA IDENTITY FULL;
INSERT INTO t SELECT i, 'v' || i, i * 1.25 FROM generate_series(1, 100) i;
INSERT INTO t2 VALUES (1, 'one', '2024-01-01 00:00:00+00');
CREATE PUBLICATION p FOR TABLE t, t2;
CREATE TABLE plain (a int);
CREATE PUBLICATION bad FOR TABLE plain;
"""


def _up(upstream: PostgresOracle, db: str) -> Conn:
    return psycopg.connect(upstream.dsn.replace("dbname=postgres", f"dbname={db}"), autocommit=True)


def _slots(upstream: PostgresOracle, db: str) -> list[tuple[str, bool]]:
    """The replication slots of upstream database `db` (other tests' slots live in their own databases)."""
    with psycopg.connect(upstream.dsn) as conn:
        query = "SELECT slot_name, active FROM pg_replication_slots WHERE database = %s"
        return [(str(r[0]), bool(r[1])) for r in conn.execute(query, (db,))]


def _caught_up(upstream: PostgresOracle, db: str, slot: str, timeout: float = 60) -> None:
    """Wait until the slot's confirmed flush LSN passed everything upstream wrote so far: the reader acknowledges
    only what ingestion made durable."""
    with _up(upstream, db) as conn:
        target = conn.execute("SELECT pg_current_wal_insert_lsn()").fetchone()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            row = conn.execute(
                "SELECT confirmed_flush_lsn >= %s FROM pg_replication_slots WHERE slot_name = %s",
                (target[0] if target else None, slot),
            ).fetchone()
            if row is not None and row[0]:
                return
            time.sleep(0.05)
    raise AssertionError(f"slot {slot} did not catch up: {_slots(upstream, db)}")


def _rows(conn: Conn, sql: str) -> list[tuple[object, ...]]:
    return sorted(conn.execute(sql).fetchall(), key=repr)


def test_postgres_source_end_to_end(tmp_path: Path, upstream: PostgresOracle, updb: str) -> None:
    with _up(upstream, updb) as up:
        up.execute(UPSTREAM)
    data = tmp_path / "data"
    server = SparkwireServer.start(data, "--spark-start", "on-demand")
    try:
        with psycopg.connect(server.dsn, autocommit=True) as sw:
            sw.execute("CREATE SECRET pgpass AS 'unused-with-trust'")
            sw.execute(
                f"CREATE CONNECTION pgc TO POSTGRES (HOST '127.0.0.1', PORT {upstream.port}, USER 'postgres', "
                f"PASSWORD SECRET pgpass, DATABASE '{updb}')"
            )
            with pytest.raises(psycopg.Error) as info:
                sw.execute("CREATE SOURCE nope FROM POSTGRES CONNECTION pgc (PUBLICATION 'missing') FOR ALL TABLES")
            assert info.value.sqlstate == "42704" and 'publication "missing" does not exist' in str(info.value)
            with pytest.raises(psycopg.Error) as info:
                sw.execute("CREATE SOURCE nope FROM POSTGRES CONNECTION pgc (PUBLICATION 'bad') FOR ALL TABLES")
            assert info.value.sqlstate == "55000" and "REPLICA IDENTITY FULL" in str(info.value)
            sw.execute("CREATE ROLE plain LOGIN")
            with psycopg.connect(as_role(server.dsn, "plain"), autocommit=True) as plain:  # USAGE on the connection
                with pytest.raises(psycopg.Error) as info:
                    plain.execute("CREATE SOURCE nope FROM POSTGRES CONNECTION pgc (PUBLICATION 'p') FOR ALL TABLES")
                assert info.value.sqlstate == "42501" and "pgc" in str(info.value)
            sw.execute("CREATE SOURCE pgs FROM POSTGRES CONNECTION pgc (PUBLICATION 'p') FOR ALL TABLES")
            sid = source_id(sw, "pgs")
            slot = f"materialize_{sid}"
            assert sw.execute("SHOW SUBSOURCES ON pgs").fetchall() == [
                ("pgs_progress", "progress"), ("t", "subsource"), ("t2", "subsource")
            ]  # fmt: skip
            row = sw.execute("SELECT type, connection_id FROM mz_sources WHERE name = 'pgs'").fetchone()
            connection = sw.execute("SELECT id FROM mz_connections WHERE name = 'pgc'").fetchone()
            assert connection is not None and row == ("postgres", connection[0])
            assert sw.execute("SELECT id, replication_slot FROM mz_internal.mz_postgres_sources").fetchall() == [
                (sid, slot)
            ]
            tables = "SELECT schema_name, table_name FROM mz_internal.mz_postgres_source_tables ORDER BY 2"
            assert sw.execute(tables).fetchall() == [("public", "t"), ("public", "t2")]
            with _up(upstream, updb) as up, up.transaction():
                up.execute("INSERT INTO t SELECT i, 'new', 0 FROM generate_series(101, 110) i")
                up.execute("UPDATE t SET v = 'changed' WHERE id <= 5")
                up.execute("DELETE FROM t WHERE id BETWEEN 50 AND 59")
                up.execute("INSERT INTO t2 VALUES (2, 'two', now()), (2, 'two', now())")
            _caught_up(upstream, updb, slot)
            # Any number of views read the one collection: one slot, one replication connection upstream, one
            # reader thread (one distinct OS thread name per ingestion: loadgen_support.reader_threads).
            sw.execute("CREATE VIEW v1 AS SELECT id FROM t WHERE v = 'changed'")
            sw.execute("CREATE VIEW v2 AS SELECT count(*) AS n FROM t2")
            assert _slots(upstream, updb) == [(slot, True)]  # one slot, one walsender reading it
            assert len(reader_threads(server.process.pid, sid)) == 1
            assert wait_status(sw, "pgs", "running")[1] is None
            committed = sw.execute(
                "SELECT offset_committed FROM mz_internal.mz_source_statistics WHERE id = %s", (sid,)
            ).fetchone()
            assert committed is not None and int(str(committed[0])) > 0  # the LSN as a number (uint8)
    finally:
        server.kill()
    with _up(upstream, updb) as up:  # while sparkwire is down
        up.execute("INSERT INTO t SELECT i, 'down', 1 FROM generate_series(200, 205) i")
        up.execute("DELETE FROM t WHERE id = 1")
        up.execute("UPDATE t2 SET s = 'deux' WHERE k = 2")
    server = SparkwireServer.start(data, "--spark-start", "on-demand", port=server.port)
    try:
        _caught_up(upstream, updb, slot)
        with psycopg.connect(server.dsn, autocommit=True) as sw, _up(upstream, updb) as up:
            for query in ("SELECT id, v, amount FROM t", "SELECT k, s, at FROM t2"):
                assert _rows(sw, query) == _rows(up, query), query  # no gap, no duplicate
            assert _rows(sw, "SELECT id FROM v1") == [(i,) for i in range(2, 6)]
            # An upstream schema change fails that subsource, with a clear error; the other keeps flowing.
            up.execute("ALTER TABLE t2 ADD COLUMN extra int")
            up.execute("INSERT INTO t2 VALUES (3, 'three', now(), 3)")
            up.execute("INSERT INTO t VALUES (300, 'after', 0)")
            statuses = "SELECT name, status, error FROM mz_internal.mz_source_statuses WHERE name IN ('t', 't2')"
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                found = dict((r[0], (r[1], r[2])) for r in sw.execute(statuses).fetchall())
                if found.get("t2", ("",))[0] == "failed" and _rows(sw, "SELECT id FROM t WHERE id = 300"):
                    break
                time.sleep(0.1)
            assert found["t2"][0] == "failed" and "upstream table public.t2 changed its columns" in str(found["t2"][1])
            assert found["t"][0] == "running"
            assert _rows(sw, "SELECT k FROM t2 WHERE k = 3") == []  # never silently wrong data
            sw.execute("DROP SOURCE pgs CASCADE")
            deadline = time.monotonic() + 15
            while _slots(upstream, updb) and time.monotonic() < deadline:
                time.sleep(0.1)
            assert _slots(upstream, updb) == []
    finally:
        server.stop()
