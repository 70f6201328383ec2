"""The activity log's newest rows are found without reading the whole log (issue 14: a history query is bounded by
its LIMIT). The history table is stored in row groups of `ROW_GROUP_ROWS` rows, so DuckDB's top-N reads the groups
whose began_at statistics can hold the newest rows and skips the rest. In process (a real PlannerService on DuckDB
and storage in a temp dir): 10,000 statements are inserted straight into the history table rather than run. The
newest rows held in memory (history/recent.py) are the same rows."""

from __future__ import annotations

import re
from pathlib import Path

from sparkwire.introspection.history.database import ROW_GROUP_ROWS
from tests.planner.test_planner_helpers import Client, new_service

ROWS = 10_000
_EXECUTIONS = "sw_history.main.executions"
_NEWEST = "SELECT execution_id, began_at FROM mz_internal.mz_recent_activity_log ORDER BY began_at DESC LIMIT 100"


def test_the_newest_rows_come_from_the_newest_row_groups(tmp_path: Path) -> None:
    service = new_service(tmp_path)
    try:
        con = service._engine.connect()
        con.command(
            f"INSERT INTO {_EXECUTIONS} (execution_id, began_at, finished_at, finished_status, sql, redacted_sql) "
            "SELECT uuid(), TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_seconds(i), "
            "TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_seconds(i), 'success', 'SELECT ' || i, 'SELECT <REDACTED>' "
            f"FROM range({ROWS}) AS r(i)"
        )
        groups = list(con.query(f"SELECT count(DISTINCT row_group_id) FROM pragma_storage_info('{_EXECUTIONS}')")[1])
        assert groups[0].column(0)[0].as_py() >= ROWS // ROW_GROUP_ROWS  # small groups, not one of 122,880

        client = Client(service)
        service.history.read_back()  # the rows went in past the writer, which would have read them back
        newest = client.one(_NEWEST).rows
        assert client.run(f"BEGIN; {_NEWEST}; COMMIT")[1].rows == newest  # the store's answer (a block's snapshot)
        assert len(newest) == 100
        stamps = [row[1] for row in newest]
        assert stamps == sorted(stamps, reverse=True)
        assert str(stamps[0]).startswith("2026-01-01 02:46:39")  # the last of the 10,000 (9,999 s after midnight)

        plan = list(con.query(f"EXPLAIN ANALYZE SELECT * FROM {_EXECUTIONS} ORDER BY began_at DESC LIMIT 100")[1])
        text = "".join(str(v) for batch in plan for v in batch.column(1).to_pylist())
        scanned = re.search(r"Row Groups Scanned: (\d+) / (\d+)", text)
        assert scanned is not None, text
        assert int(scanned.group(1)) < int(scanned.group(2)), text  # only the newest groups are read
        client.close()
        con.close()
    finally:
        service.close()
