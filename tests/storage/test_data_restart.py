"""Restart and kill -9 (issue 3, item 6), through a real server subprocess and psycopg.

Stopping and starting `sparkwire serve` on the same --data-dir brings back every object (same ids), all data and the
definitions; a kill -9 right after acknowledged writes loses none of them, and a transaction that was still open
when the process died leaves nothing behind. The servers name their data directory relatively (`--data-dir data`,
as the README's `./scripts/serve` does), Spark included.
"""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from tests.support.server import SparkwireServer

pytestmark = pytest.mark.timeout(600)

OBJECTS = (
    "SELECT id, name, type FROM mz_catalog.mz_objects WHERE id LIKE 'u%' AND type <> 'cluster' ORDER BY id"
)


def _start(data_dir: Path) -> SparkwireServer:
    """Named relative to the server's working directory, as `./scripts/serve` names `./data`."""
    args = ("--spark-start", "on-demand", "--spark-master", "local[1]")
    return SparkwireServer.start(data_dir, *args, cwd=data_dir.parent)


def test_objects_ids_and_rows_survive_a_clean_restart(tmp_path: Path) -> None:
    srv = _start(tmp_path / "data")
    try:
        with psycopg.connect(srv.dsn, autocommit=True) as conn:
            conn.execute("CREATE SCHEMA app")
            conn.execute("CREATE TABLE app.t (a int NOT NULL, b text, c numeric(8,2))")
            conn.execute("INSERT INTO app.t VALUES (1, 'one', 1.50), (2, NULL, -2.25), (3, 'three', NULL)")
            conn.execute("CREATE VIEW app.v AS SELECT a, b FROM app.t WHERE a > 1")
            conn.execute("CREATE MATERIALIZED VIEW app.m AS SELECT count(*) AS n FROM app.t")
            conn.execute("CREATE INDEX t_a_idx ON app.t (a)")
            before = conn.execute(OBJECTS).fetchall()
    finally:
        srv.stop()
    assert {row[2] for row in before} >= {"table", "view", "materialized-view", "index"}

    srv = _start(tmp_path / "data")
    try:
        with psycopg.connect(srv.dsn, autocommit=True) as conn:
            assert conn.execute(OBJECTS).fetchall() == before
            assert conn.execute("SELECT a, b, c FROM app.t ORDER BY a").fetchall() == [
                (1, "one", pytest.approx(1.5)),
                (2, None, pytest.approx(-2.25)),
                (3, "three", None),
            ]
            assert conn.execute("SELECT a, b FROM app.v ORDER BY a").fetchall() == [(2, None), (3, "three")]
            assert conn.execute("SELECT n FROM app.m").fetchall() == [(3,)]
            conn.execute("INSERT INTO app.t VALUES (4, 'four', 4)")
            assert conn.execute("SELECT n FROM app.m").fetchall() == [(4,)]
            assert conn.execute("SELECT b FROM app.t WHERE a = 4").fetchall() == [("four",)]
    finally:
        srv.stop()


def test_kill_9_loses_no_acknowledged_write_and_exposes_no_open_transaction(tmp_path: Path) -> None:
    srv = _start(tmp_path / "data")
    try:
        with psycopg.connect(srv.dsn, autocommit=True) as conn:
            conn.execute("CREATE TABLE k (i int, s text)")
            for i in range(40):
                conn.execute("INSERT INTO k VALUES (%s, %s)", (i, f"row {i}"))
            conn.execute("DELETE FROM k WHERE i % 10 = 0")
            conn.execute("UPDATE k SET s = 'updated' WHERE i = 1")
        pending = psycopg.connect(srv.dsn)
        pending.execute("INSERT INTO k VALUES (1000, 'never committed')")
        pending.execute("CREATE TABLE created_in_block (x int)")  # DDL takes effect at once, even in a block
    finally:
        srv.kill()

    srv = _start(tmp_path / "data")
    try:
        with psycopg.connect(srv.dsn, autocommit=True) as conn:
            rows = conn.execute("SELECT i, s FROM k ORDER BY i").fetchall()
            assert [r[0] for r in rows] == [i for i in range(40) if i % 10 != 0]
            assert rows[0] == (1, "updated")
            assert conn.execute("SELECT count(*) FROM created_in_block").fetchall() == [(0,)]
    finally:
        srv.stop()
