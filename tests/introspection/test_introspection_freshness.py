"""Freshness (issue 14): mz_internal.mz_hydration_statuses, mz_materialization_lag, mz_wallclock_global_lag and
mz_materialization_refreshes for a materialized view and an index, through psycopg against a real server: both are
maintained in the background, so they are hydrated and current with zero lag without a read, and current again
after a write to their input; readable by every role. The relations are written from the side every
second, so the test polls with a deadline."""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Callable, Iterator

import psycopg
import pytest

from tests.support.clients import as_role, poll

Conn = psycopg.Connection[tuple[object, ...]]
Row = tuple[object, ...]
ZERO = datetime.timedelta(0)

FRESHNESS = """
SELECT r.object_id, r.object_type, h.hydrated, r.up_to_date, w.lag, l.local_lag, l.global_lag,
       l.slowest_global_input_id, r.last_refreshed_at, r.refreshes, r.reflected_write_ts, r.input_write_ts
FROM mz_internal.mz_materialization_refreshes r
JOIN mz_internal.mz_hydration_statuses h ON h.object_id = r.object_id
JOIN mz_internal.mz_wallclock_global_lag w ON w.object_id = r.object_id
JOIN mz_internal.mz_materialization_lag l ON l.object_id = r.object_id
WHERE r.object_id IN (%s, %s)
ORDER BY r.object_type DESC
"""


@pytest.fixture
def objects(sw: Conn) -> Iterator[tuple[str, str, str]]:
    """(table id, materialized view id, index id)."""
    suffix = uuid.uuid4().hex[:8]
    table, view, index = f"fr_t_{suffix}", f"fr_mv_{suffix}", f"fr_idx_{suffix}"
    sw.execute(f"CREATE TABLE {table} (a int, b text)")
    sw.execute(f"INSERT INTO {table} VALUES (1, 'one'), (2, 'two')")
    sw.execute(f"CREATE MATERIALIZED VIEW {view} AS SELECT count(*) AS n FROM {table}")
    sw.execute(f"CREATE INDEX {index} ON {table} (a)")
    found = sw.execute("SELECT name, id FROM mz_catalog.mz_objects WHERE name LIKE %s", (f"fr_%_{suffix}",))
    ids = {str(name): str(object_id) for name, object_id in found}
    yield ids[table], ids[view], ids[index]
    sw.execute(f"DROP MATERIALIZED VIEW {view}")
    sw.execute(f"DROP TABLE {table} CASCADE")


def test_freshness_follows_writes_without_reads(sw: Conn, objects: tuple[str, str, str]) -> None:
    """Both objects are maintained in the background (docs/continual.md): hydrated and current with zero lag
    without a read, and current again after a write to their input, still without a read."""
    table_id, view_id, index_id = objects
    found = sw.execute("SELECT id, name FROM mz_catalog.mz_objects WHERE id IN (%s, %s)", (table_id, view_id))
    names = {str(object_id): str(name) for object_id, name in found}
    table, view = names[table_id], names[view_id]

    def freshness(until: Callable[[list[Row]], bool]) -> list[Row]:
        return poll(sw, FRESHNESS, (view_id, index_id), lambda rows: len(rows) == 2 and until(rows))

    warm = freshness(lambda rows: all(r[2] and r[3] for r in rows))
    assert [(r[0], r[1]) for r in warm] == [(view_id, "materialized-view"), (index_id, "index")]
    for object_id, _, hydrated, up_to_date, lag, local, global_, slowest, refreshed, count, reflected, now in warm:
        assert (hydrated, up_to_date, lag, local, global_, slowest) == (True, True, ZERO, ZERO, ZERO, table_id)
        assert isinstance(refreshed, datetime.datetime) and count >= 1, object_id  # type: ignore[operator]
        assert reflected is not None and reflected == now

    sw.execute(f"INSERT INTO {table} VALUES (3, 'three')")
    after = freshness(lambda rows: all(r[3] and r[10] is not None and r[10] > warm[0][10] for r in rows))  # type: ignore[operator]
    for _, _, hydrated, up_to_date, lag, _, _, _, _, count, reflected, now in after:
        assert (hydrated, up_to_date, lag) == (True, True, ZERO)
        assert count > warm[0][9] and reflected == now  # type: ignore[operator]
    assert sw.execute(f"SELECT n FROM {view}").fetchall() == [(3,)]
    assert sw.execute(f"SELECT b FROM {table} WHERE a = 3").fetchall() == [("three",)]  # the index's fast path


def test_every_role_reads_freshness(sw: Conn, role: str) -> None:
    dsn = as_role(sw.info.dsn, role)
    with psycopg.connect(dsn, autocommit=True) as plain:
        for relation in (
            "mz_materialization_lag",
            "mz_hydration_statuses",
            "mz_wallclock_global_lag",
            "mz_materialization_refreshes",
        ):
            assert plain.execute(f"SELECT count(*) >= 0 FROM mz_internal.{relation}").fetchall() == [(True,)]
