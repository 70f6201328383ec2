"""The statement history is best effort: when it cannot be written, statements still run and answer, and the
failure is counted. In process (a real PlannerService on DuckDB and storage in a temp dir), because the fault is
injected by taking the history's database away underneath its writer."""

from __future__ import annotations

from pathlib import Path

from tests.planner.test_planner_helpers import Client, new_service


def test_a_failing_history_never_fails_statements(tmp_path: Path) -> None:
    service = new_service(tmp_path)
    try:
        client = Client(service)
        assert client.one("SELECT 1 AS a").rows == [(1,)]
        service.flush_history()
        assert service.history.failed_batches == 0
        broken = service._engine.connect()  # the fault: the history database disappears under the writer
        broken.command("DETACH sw_history")
        for n in range(3):
            assert client.one(f"SELECT {n} AS b").rows == [(n,)]
        service.flush_history()
        assert service.history.failed_batches >= 1
        assert client.one("SELECT 'still here' AS c").rows == [("still here",)]
        client.close()
    finally:
        service.close()
