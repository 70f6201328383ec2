"""A source resumes from its durable offset after a crash (issue 16 part A): a COUNTER on a server of its own is
killed (-9) mid-stream and started again on the same data directory; at the end the counter collection holds
exactly 1 … n (no gap, no duplicate), its progress row says n and the status history kept its rows. Spark is
never started (on-demand, and every check reads the introspection store or, after the server stopped, the storage
directly)."""

from __future__ import annotations

from pathlib import Path

import psycopg

from sparkwire.storage import Storage
from tests.sources.loadgen_support import committed_offset, source_id, wait_offset
from tests.support.server import SparkwireServer


def test_counter_resumes_without_gap_or_duplicate(tmp_path: Path) -> None:
    data = tmp_path / "data"
    server = SparkwireServer.start(data, "--spark-start", "on-demand")
    try:
        with psycopg.connect(server.dsn, autocommit=True) as conn:
            conn.execute("CREATE SOURCE rc FROM LOAD GENERATOR COUNTER (TICK INTERVAL '5ms')")
            first = wait_offset(conn, "rc", 30)
            ids = {name: source_id(conn, name) for name in ("rc", "rc_progress")}
    finally:
        server.kill()
    server = SparkwireServer.start(data, "--spark-start", "on-demand", port=server.port)
    try:
        with psycopg.connect(server.dsn, autocommit=True) as conn:
            resumed = wait_offset(conn, "rc", first + 20)
            assert resumed >= first + 20
            assert conn.execute(
                "SELECT status FROM mz_internal.mz_source_statuses WHERE name = 'rc'"
            ).fetchall() == [("running",)]
            assert committed_offset(conn, "rc") is not None
            history = conn.execute(
                "SELECT status FROM mz_internal.mz_source_status_history WHERE source_id = %s ORDER BY occurred_at",
                (ids["rc"],),
            ).fetchall()
            assert [h[0] for h in history] == ["starting", "running", "starting", "running"]  # survived the kill
    finally:
        server.stop()
    storage = Storage.open(data)
    try:
        snapshot = storage.snapshot()
        values = snapshot.read_arrow(ids["rc"]).column("counter").to_pylist()
        progress = snapshot.read_arrow(ids["rc_progress"]).column("offset").to_pylist()
    finally:
        storage.close()
    assert sorted(values) == list(range(1, len(values) + 1))
    assert progress == [len(values)]
    assert len(values) >= first + 20
