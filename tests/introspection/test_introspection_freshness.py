"""Freshness (issue 14): mz_internal.mz_hydration_statuses, mz_materialization_lag, mz_wallclock_global_lag and
mz_materialization_refreshes for a materialized view and an index, through psycopg against a real server: not
hydrated before the first read, current with zero lag after it, lagging (and the lag growing) after a write to the
input, current again after the next read; readable by every role. The relations are written from the side every
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


def test_freshness_follows_reads_and_writes(sw: Conn, objects: tuple[str, str, str]) -> None:
    table_id, view_id, index_id = objects
    found = sw.execute("SELECT id, name FROM mz_catalog.mz_objects WHERE id IN (%s, %s)", (table_id, view_id))
    names = {str(object_id): str(name) for object_id, name in found}
    table, view = names[table_id], names[view_id]

    def freshness(until: Callable[[list[Row]], bool]) -> list[Row]:
        return poll(sw, FRESHNESS, (view_id, index_id), lambda rows: len(rows) == 2 and until(rows))

    cold = freshness(lambda rows: True)
    assert [(r[0], r[1], r[2], r[4], r[9]) for r in cold] == [
        (view_id, "materialized-view", False, None, 0),
        (index_id, "index", False, None, 0),
    ]

    assert sw.execute(f"SELECT n FROM {view}").fetchall() == [(2,)]
    assert sw.execute(f"SELECT b FROM {table} WHERE a = 1").fetchall() == [("one",)]  # the index's fast path
    warm = freshness(lambda rows: all(r[2] and r[3] for r in rows))
    for object_id, _, hydrated, up_to_date, lag, local, global_, slowest, refreshed, count, reflected, now in warm:
        assert (hydrated, up_to_date, lag, local, global_, slowest) == (True, True, ZERO, ZERO, ZERO, table_id)
        assert isinstance(refreshed, datetime.datetime) and count == 1, object_id
        assert reflected is not None and reflected == now

    sw.execute(f"INSERT INTO {table} VALUES (3, 'three')")
    stale = freshness(lambda rows: all(r[3] is False and r[4] is not None and r[4] > ZERO for r in rows))  # type: ignore[operator]
    for _, _, hydrated, up_to_date, lag, _, global_, slowest, _, count, reflected, now in stale:
        assert (hydrated, up_to_date, slowest, count) == (True, False, table_id, 1)
        assert global_ == lag and now > reflected  # type: ignore[operator]
    first_lag = stale[0][4]
    later = freshness(lambda rows: rows[0][4] is not None and rows[0][4] > first_lag)  # type: ignore[operator]
    assert later[0][4] > first_lag, "the lag grows while nothing reads the view"  # type: ignore[operator]

    assert sw.execute(f"SELECT n FROM {view}").fetchall() == [(3,)]
    fresh = freshness(lambda rows: rows[0][3] is True)
    assert (fresh[0][3], fresh[0][4], fresh[0][9]) == (True, ZERO, 2)
    assert fresh[0][10] == fresh[0][11] == stale[0][11]



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
