"""Sources as definite collections (issue 16 part A): subsources read like tables by views, materialized views,
indexes and joins, consistently across subsources; read-only; one reader thread per source however many views
read it (seed 002); statuses and statistics; DROP SOURCE."""

from __future__ import annotations

import psycopg
import pytest

from tests.sources.loadgen_support import Conn, reader_threads, source_id, status, wait_offset, wait_status
from tests.support.clients import as_role
from tests.support.server import SparkwireServer


def test_views_indexes_and_one_reader(sw: Conn, server: SparkwireServer) -> None:
    sw.execute("CREATE SOURCE dc_auction FROM LOAD GENERATOR AUCTION (TICK INTERVAL '20ms') FOR ALL TABLES")
    try:
        sid = source_id(sw, "dc_auction")
        wait_offset(sw, "dc_auction", 5)
        readers = reader_threads(server.process.pid, sid)
        assert len(readers) == 1
        sw.execute("CREATE VIEW dc_v AS SELECT auction_id, count(*) AS n FROM bids GROUP BY auction_id")
        sw.execute("CREATE MATERIALIZED VIEW dc_mv AS SELECT count(*) AS n FROM bids")
        sw.execute(
            "CREATE MATERIALIZED VIEW dc_mv2 AS SELECT u.name, b.amount FROM bids b JOIN users u ON b.buyer = u.id"
        )
        sw.execute("CREATE INDEX dc_users_idx ON users (id)")
        sw.execute("CREATE DEFAULT INDEX ON dc_mv2")
        assert reader_threads(server.process.pid, sid) == readers
        assert sw.execute("SELECT name FROM users WHERE id = 1").fetchall() == [("Ada Lovelace",)]
        assert sw.execute("SELECT count(*) > 0 FROM dc_v").fetchall() == [(True,)]
        # one snapshot: the MV and the subsource agree within a statement's timestamp
        with sw.transaction():
            mv = sw.execute("SELECT n FROM dc_mv").fetchall()[0][0]
            direct = sw.execute("SELECT count(*) FROM bids").fetchall()[0][0]
        assert mv == direct
        for name in ("dc_v", "dc_mv", "dc_mv2"):
            kind = "VIEW" if name == "dc_v" else "MATERIALIZED VIEW"
            sw.execute(f"DROP {kind} {name}")
        assert reader_threads(server.process.pid, sid) == readers
    finally:
        sw.execute("DROP SOURCE IF EXISTS dc_auction CASCADE")
    assert reader_threads(server.process.pid, sid) == set()


def test_read_only_and_drops(sw: Conn) -> None:
    sw.execute("CREATE SOURCE dc_c FROM LOAD GENERATOR COUNTER (TICK INTERVAL '10ms', UP TO 3)")
    try:
        wait_offset(sw, "dc_c", 3)
        for sql in (
            "INSERT INTO dc_c VALUES (100)",
            "UPDATE dc_c SET counter = 0",
            "DELETE FROM dc_c",
            "INSERT INTO dc_c_progress VALUES (1)",
        ):
            with pytest.raises(psycopg.errors.WrongObjectType):
                sw.execute(sql)
        with pytest.raises(psycopg.errors.FeatureNotSupported):
            sw.execute("DROP SOURCE dc_c_progress")
        with pytest.raises(psycopg.errors.WrongObjectType):
            sw.execute("DROP TABLE dc_c")
        sw.execute("CREATE VIEW dc_cv AS SELECT counter * 2 AS d FROM dc_c")
        with pytest.raises(psycopg.errors.DependentObjectsStillExist):
            sw.execute("DROP SOURCE dc_c")
        assert sw.execute("SELECT sum(d) FROM dc_cv").fetchall() == [(12,)]
    finally:
        sw.execute("DROP SOURCE dc_c CASCADE")
    assert sw.execute("SELECT count(*) FROM mz_objects WHERE name LIKE 'dc_c%'").fetchall() == [(0,)]
    assert sw.execute("SELECT status FROM mz_internal.mz_source_statuses WHERE name LIKE 'dc_c%'").fetchall() == []


def test_status_paused_without_replicas(sw: Conn) -> None:
    sw.execute("CREATE CLUSTER dc_z (SIZE = '25cc', REPLICATION FACTOR = 0)")
    try:
        sw.execute("CREATE SOURCE dc_s IN CLUSTER dc_z FROM LOAD GENERATOR COUNTER (TICK INTERVAL '10ms')")
        assert wait_status(sw, "dc_s", "paused") == ("paused", None)
        assert status(sw, "dc_s_progress")[0] == "paused"
        details = sw.execute("SELECT details FROM mz_internal.mz_source_statuses WHERE name = 'dc_s'").fetchall()
        assert "no replicas" in details[0][0]
        sw.execute("ALTER CLUSTER dc_z SET (REPLICATION FACTOR = 1)")
        wait_status(sw, "dc_s", "running", timeout=20)
        wait_offset(sw, "dc_s", 3)
        history = sw.execute(
            "SELECT DISTINCT status FROM mz_internal.mz_source_status_history WHERE source_id = %s",
            (source_id(sw, "dc_s"),),
        ).fetchall()
        assert {h[0] for h in history} >= {"starting", "paused", "running"}
        stats = sw.execute(
            "SELECT updates_committed >= 3, offset_committed >= 3, snapshot_committed "
            "FROM mz_internal.mz_source_statistics WHERE id = %s",
            (source_id(sw, "dc_s"),),
        ).fetchall()
        assert stats == [(True, True, True)]
    finally:
        sw.execute("DROP CLUSTER dc_z CASCADE")


def test_privileges(sw: Conn, role: str) -> None:
    sw.execute("CREATE SOURCE dc_priv FROM LOAD GENERATOR COUNTER (UP TO 2)")
    try:
        wait_offset(sw, "dc_priv", 2)
        with psycopg.connect(as_role(sw.info.dsn, role), autocommit=True) as other:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                other.execute("SELECT count(*) FROM dc_priv")
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                other.execute("CREATE SOURCE dc_mine FROM LOAD GENERATOR COUNTER")
            sw.execute(f"GRANT SELECT ON dc_priv TO {role}")
            assert other.execute("SELECT count(*) FROM dc_priv").fetchall() == [(2,)]
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                other.execute("DROP SOURCE dc_priv")
    finally:
        sw.execute("DROP SOURCE dc_priv")
