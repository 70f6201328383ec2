"""A short sample of bench/load.py (the 64-client, 5-minute mixed load of issue 12) on the session's server: a few
clients reading, writing, changing the schema and asking the catalog at once get no unexpected error, and the
server answers afterwards. The full run and its figures: `python -m bench.load`."""

from __future__ import annotations

from bench.load import run_load
from tests.support.server import SparkwireServer


def test_mixed_load_sample(server: SparkwireServer) -> None:
    report = run_load(server.dsn, server.process.pid, clients=6, seconds=8, tables=3, rows=300, seed=7)
    report.print()
    assert report.unexpected == []
    assert report.server_alive
    assert sum(report.ops.values()) >= 12
    assert {"insert", "catalog"} <= set(report.ops)
