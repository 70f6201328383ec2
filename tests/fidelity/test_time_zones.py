"""The session's TimeZone on Spark (translate/functions/spark_time_zone.py): casts to and from timestamptz, its text,
EXTRACT, date_trunc and to_char of it, and timestamptz literals without an offset, over a user table (Spark computes
them), comparisons of a timestamptz with literals and timestamp or date columns, AT TIME ZONE, a timestamptz plus or
minus days and months, and a view's now(), in zones with
half-hour offsets and daylight-saving changes — on sparkwire and on PostgreSQL 15 through psycopg, and both must
answer alike. Spark's own session zone is UTC: before, every one of these was UTC's answer."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest

from tests.support.clients import poll
from tests.support.postgres import PostgresOracle

Conn = psycopg.Connection[tuple[object, ...]]

ZONES = ("America/St_Johns", "Asia/Kolkata", "Europe/Berlin", "UTC")
ROWS = (
    "(1, '2026-01-15 12:00:00+00', '2026-01-15 12:00:00', '2026-01-15', '2026-01-15 12:00:00')",
    "(2, '2026-07-01 02:15:30.5+00', '2026-07-01 02:15:30.5', '2026-07-01', '2026-07-01 02:15:30.5+02')",
    # Berlin springs forward at 01:00 UTC
    "(3, '2026-03-29 00:59:59+00', '2026-03-29 12:00:00', '2026-03-29', '2026-03-29 02:30')",
    "(4, '2026-03-29 01:00:00+00', '2026-03-08 12:00:00', '2026-03-08', '2026-03-29 03:30:00 Asia/Tokyo')",  # s: a name
    # St John's falls back at 04:30 UTC
    "(5, '2026-11-01 03:45:00+00', '2026-11-01 00:30:00', '2026-11-01', '2026-11-01T01:15:00')",
    "(6, '1999-12-31 23:59:59+00', '1999-12-31 23:59:59', '1999-12-31', '1999-12-31 23:59:59Z')",
    "(7, NULL, NULL, NULL, NULL)",
    # a day later, 02:30 in Berlin is skipped
    "(8, '2026-03-28 01:30:00+00', '2026-10-24 02:30:00', '2026-10-25', '2026-10-24')",
)
EXPRESSIONS = (
    "t::date",
    "t::timestamp",
    "t::time",
    "t::text",
    "ts::timestamptz",
    "d::timestamptz",
    "s::timestamptz",  # text: with a zone of its own that zone, else the session's
    "(ts::timestamptz)::text",
    "extract(hour FROM t)",
    "extract(day FROM t)",
    "date_part('minute', t)",
    "extract(epoch FROM t)",
    "date_trunc('day', t)",
    "date_trunc('hour', t)",
    "date_trunc('month', t)",
    "to_char(t, 'YYYY-MM-DD HH24:MI:SS')",
    "'2026-07-01 10:00'::timestamptz",
    "TIMESTAMPTZ '2026-03-29 02:30'",  # a time Berlin skips: the offset before the change
    "'2026-10-25 02:30:00'::timestamptz",  # a time Berlin repeats: standard time
    "'2026-07-01 10:00+02'::timestamptz",  # an offset of its own: no zone involved
    "t AT TIME ZONE 'Asia/Tokyo'",
    "ts AT TIME ZONE 'Asia/Tokyo'",
    "d < t",
    "t >= ts",
    "t + interval '1 day'",  # days and months: wall-clock arithmetic in the zone (23 or 25 hours across a change)
    "t - interval '1 month 2 days 03:00'",
    "interval '1 week' + t",
    "(t + interval '1 mon')::text",
    "t + interval '36 hours'",  # a duration: the same in every zone
    "'2026-03-28 12:00'::timestamptz + interval '1 day'",
    "ts + interval '1 mon 1 day'",  # months beside days or time: one kind at a time on Spark, in any zone
    "ts - interval '2 mons 3 days 04:00'",
    "t + k * interval '1 day'",  # an integer times an interval literal: as the literal, k times
    "t - 2 * interval '1 mon 2 days 01:00'",
    "interval '1 week' * k + t",
    "ts + k * interval '1 mon 1 day'",
    "COALESCE(t, ts)",  # a timestamp, a date or a literal beside a timestamptz: read in the zone
    "CASE WHEN k > 3 THEN d ELSE t END",
    "GREATEST(t, ts, '2026-01-01')",
    "LEAST(d, t)",
)


@pytest.fixture(scope="module")
def tables(sw_module: Conn, pg_module: Conn) -> Iterator[str]:
    name = f"tz_{uuid.uuid4().hex[:8]}"
    for conn in (sw_module, pg_module):
        conn.execute(f"CREATE TABLE {name} (k int, t timestamptz, ts timestamp, d date, s text)")
        conn.execute(f"INSERT INTO {name} VALUES {', '.join(ROWS)}")
    yield name
    for conn in (sw_module, pg_module):
        conn.execute("SET TimeZone = 'UTC'")
        conn.execute(f"DROP TABLE {name}")


@pytest.fixture(scope="module")
def sw_module(dsn: str) -> Iterator[Conn]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        yield conn


@pytest.fixture(scope="module")
def pg_module(oracle: PostgresOracle) -> Iterator[Conn]:
    with psycopg.connect(oracle.dsn, autocommit=True) as conn:
        yield conn


@pytest.mark.parametrize("zone", ZONES)
def test_zone_dependent_operations_answer_as_postgresql(
    zone: str, tables: str, sw_module: Conn, pg_module: Conn
) -> None:
    answers = []
    for conn in (sw_module, pg_module):
        conn.execute(f"SET TimeZone = '{zone}'")
        select = ", ".join(f"{e} AS c{i}" for i, e in enumerate(EXPRESSIONS))
        answers.append(conn.execute(f"SELECT k, {select} FROM {tables} ORDER BY k").fetchall())
    ours, theirs = answers
    assert len(ours) == len(theirs) == len(ROWS)
    for mine, expected in zip(ours, theirs, strict=True):
        for i, (a, b) in enumerate(zip(mine[1:], expected[1:], strict=True)):
            assert a == b, f"{zone}, row {mine[0]}: {EXPRESSIONS[i]} is {a!r}, PostgreSQL says {b!r}"


FILTERS = (
    "t > '2026-03-29 02:30'",
    "t <= '2026-01-15 17:30:00'",
    "'2026-07-01' < t",
    "t BETWEEN '2026-01-01' AND '2026-07-01 08:00'",
    "t IN ('2026-01-15 17:30', '2026-01-15 13:00', '2026-01-15 08:30', '2026-01-15 12:00')",
    "t < ts",
    "t BETWEEN d AND ts",
)


@pytest.mark.parametrize("zone", ZONES)
def test_what_is_compared_with_a_timestamptz_is_read_in_the_zone(
    zone: str, tables: str, sw_module: Conn, pg_module: Conn
) -> None:
    for condition in FILTERS:
        answers = []
        for conn in (sw_module, pg_module):
            conn.execute(f"SET TimeZone = '{zone}'")
            answers.append(conn.execute(f"SELECT k FROM {tables} WHERE {condition} ORDER BY k").fetchall())
        assert answers[0] == answers[1], f"{zone}: WHERE {condition}"


@pytest.mark.parametrize("zone", ZONES)
def test_now_in_a_view_is_a_timestamptz(zone: str, tables: str, sw_module: Conn, pg_module: Conn) -> None:
    """A view's now() reaches Spark as its CURRENT_TIMESTAMP (the statement's own now() is the transaction's start,
    a literal before it gets there): a timestamptz, so its wall-clock time is the zone's and `- interval '1 day'` is a
    calendar day there. The offset of the zone now (wall-clock time minus UTC's) is the same on both sides."""
    view = f"{tables}_now"
    answers = []
    for conn in (sw_module, pg_module):
        conn.execute(f"SET TimeZone = '{zone}'")
        conn.execute(
            f"CREATE VIEW {view} AS SELECT k, now()::timestamp - (now() AT TIME ZONE 'UTC') AS off, "
            f"(now() - interval '1 day')::timestamp - ((now() - interval '1 day') AT TIME ZONE 'UTC') AS before, "
            f"t < now() - interval '1 day' AS past FROM {tables}"
        )
        try:
            answers.append(conn.execute(f"SELECT k, off, before, past FROM {view} ORDER BY k").fetchall())
        finally:
            conn.execute(f"DROP VIEW {view}")
    assert answers[0] == answers[1]


def test_these_queries_run_on_spark(tables: str, sw_module: Conn) -> None:
    marker = f"tz_{uuid.uuid4().hex[:8]}"
    sw_module.execute("SET TimeZone = 'Asia/Kolkata'")
    sw_module.execute(f"SELECT t::text AS {marker} FROM {tables}").fetchall()
    rows = poll(
        sw_module,
        "SELECT execution_strategy FROM mz_internal.mz_recent_activity_log WHERE sql LIKE %s "
        "AND finished_at IS NOT NULL",
        (f"SELECT t::text AS {marker}%",),
    )
    assert rows == [("standard",)]
