"""Timestamps in queries through a real server and psycopg: AS OF, mz_now(), temporal filters, EXPLAIN TIMESTAMP,
transaction_isolation (docs/timestamps.md)."""

from __future__ import annotations

import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator

import psycopg
import pytest

from tests.support.server import SparkwireServer

MZ_TIMESTAMP_OID = 16552
Conn = psycopg.Connection[tuple[object, ...]]


def _name(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


@pytest.fixture
def table(sw: Conn) -> Iterator[str]:
    name = _name("ts")
    sw.execute(f"CREATE TABLE {name} (id int, note text)")
    yield name
    sw.execute(f"DROP TABLE IF EXISTS {name} CASCADE")


def _now_ts(sw: Conn) -> int:
    row = sw.execute("SELECT mz_now()::text").fetchone()
    assert row is not None
    return int(str(row[0]))


def _error(sw: Conn, sql: str) -> psycopg.Error:
    with pytest.raises(psycopg.Error) as info:
        sw.execute(sql)
    assert sw.execute("SELECT 1").fetchone() == (1,)  # the session stays usable
    return info.value


def test_mz_now_is_an_mz_timestamp_near_the_wall_clock(sw: Conn) -> None:
    cur = sw.execute("SELECT mz_now() AS t")
    assert cur.description is not None and cur.description[0].type_code == MZ_TIMESTAMP_OID
    row = cur.fetchone()
    assert row is not None
    value = int(str(row[0]))
    assert abs(value - time.time() * 1000) < 5_000
    later = _now_ts(sw)
    assert later >= value
    binary = sw.cursor(binary=True).execute("SELECT mz_now()").fetchone()  # binary format: the same text
    assert binary is not None and isinstance(binary[0], bytes) and binary[0].decode().isdigit()


def test_mz_now_casts_and_comparisons(sw: Conn) -> None:
    row = sw.execute(
        "SELECT mz_now()::timestamptz <= now() + INTERVAL '5 seconds', mz_now()::bigint > 0, "
        "mz_now() > now() - INTERVAL '1 minute', mz_now() < now() + INTERVAL '1 minute', mz_now() > 1000, "
        "mz_now() BETWEEN now() - INTERVAL '1 minute' AND now() + INTERVAL '1 minute'"
    ).fetchone()
    assert row == (True, True, True, True, True, True)
    cur = sw.execute("SELECT mz_now()::timestamptz")
    assert cur.description is not None and cur.description[0].type_code == 1184


def test_mz_now_in_a_table_query_is_the_snapshot_timestamp(sw: Conn, table: str) -> None:
    sw.execute(f"INSERT INTO {table} VALUES (1, 'a')")
    before = time.time() * 1000
    cur = sw.execute(f"SELECT id, mz_now() FROM {table}")
    assert cur.description is not None and cur.description[1].type_code == MZ_TIMESTAMP_OID
    rows = cur.fetchall()
    assert len(rows) == 1 and before - 1000 <= int(str(rows[0][1])) <= time.time() * 1000
    # prepared (extended protocol): a fresh timestamp every execution, never a cached one
    first = sw.execute(f"SELECT mz_now() FROM {table}", prepare=True).fetchone()
    time.sleep(0.01)
    second = sw.execute(f"SELECT mz_now() FROM {table}", prepare=True).fetchone()
    assert first is not None and second is not None and int(str(second[0])) > int(str(first[0]))


def test_as_of_reads_an_older_snapshot(sw: Conn, table: str) -> None:
    sw.execute(f"INSERT INTO {table} VALUES (1, 'first')")
    noted = _now_ts(sw)
    sw.execute(f"INSERT INTO {table} VALUES (2, 'second')")
    assert sw.execute(f"SELECT count(*) FROM {table}").fetchone() == (2,)
    assert sw.execute(f"SELECT id FROM {table} AS OF {noted}").fetchall() == [(1,)]
    row = sw.execute(f"SELECT mz_now()::text FROM {table} AS OF {noted}").fetchone()
    assert row == (str(noted),)
    # a timestamp literal, and text, name the same instant
    assert sw.execute(f"SELECT id FROM {table} AS OF '{noted}'").fetchall() == [(1,)]
    assert sw.execute(f"SELECT id FROM {table} AS OF {noted}::mz_timestamp").fetchall() == [(1,)]
    # before the table's first row: empty
    assert sw.execute(f"SELECT id FROM {table} AS OF {noted - 60_000}").fetchall() == []


def test_as_of_in_a_join_and_over_views(sw: Conn, table: str) -> None:
    other = _name("ts_other")
    view, mview = _name("v"), _name("mv")
    sw.execute(f"CREATE TABLE {other} (id int, label text)")
    try:
        sw.execute(f"INSERT INTO {table} VALUES (1, 'a')")
        sw.execute(f"INSERT INTO {other} VALUES (1, 'one')")
        sw.execute(f"CREATE VIEW {view} AS SELECT id, note FROM {table}")
        sw.execute(f"CREATE MATERIALIZED VIEW {mview} AS SELECT count(*) AS n FROM {table}")
        noted = _now_ts(sw)
        sw.execute(f"INSERT INTO {table} VALUES (1, 'b')")
        sw.execute(f"INSERT INTO {other} VALUES (1, 'uno')")
        join = f"SELECT t.note, o.label FROM {table} t JOIN {other} o ON t.id = o.id ORDER BY 1, 2"
        assert len(sw.execute(join).fetchall()) == 4
        assert sw.execute(f"{join} AS OF {noted}").fetchall() == [("a", "one")]
        assert sw.execute(f"SELECT note FROM {view} AS OF {noted}").fetchall() == [("a",)]
        assert sw.execute(f"SELECT n FROM {mview}").fetchall() == [(2,)]
        assert sw.execute(f"SELECT n FROM {mview} AS OF {noted}").fetchall() == [(1,)]
        assert sw.execute(f"SELECT n FROM {mview}").fetchall() == [(2,)]
    finally:
        sw.execute(f"DROP MATERIALIZED VIEW IF EXISTS {mview}")
        sw.execute(f"DROP VIEW IF EXISTS {view}")
        sw.execute(f"DROP TABLE IF EXISTS {other}")


def test_as_of_at_least(sw: Conn, table: str) -> None:
    sw.execute(f"INSERT INTO {table} VALUES (1, 'a')")
    noted = _now_ts(sw)
    sw.execute(f"INSERT INTO {table} VALUES (2, 'b')")
    # an old lower bound reads the fresh data
    assert sw.execute(f"SELECT count(*) FROM {table} AS OF AT LEAST {noted}").fetchone() == (2,)
    row = sw.execute(f"SELECT mz_now()::text FROM {table} AS OF AT LEAST {noted}").fetchone()
    assert row is not None and int(str(row[0])) > noted
    # a bound in the near future waits for it
    future = _now_ts(sw) + 500
    row = sw.execute(f"SELECT mz_now()::text FROM {table} AS OF AT LEAST {future}").fetchone()
    assert row is not None and int(str(row[0])) >= future


def test_future_as_of_waits_and_statement_timeout_cancels(sw: Conn, table: str) -> None:
    sw.execute(f"INSERT INTO {table} VALUES (1, 'a')")
    target = _now_ts(sw) + 700
    started = time.monotonic()
    assert sw.execute(f"SELECT count(*) FROM {table} AS OF {target}").fetchone() == (1,)
    assert time.monotonic() - started >= 0.4
    sw.execute("SET statement_timeout = '300ms'")
    try:
        far = _now_ts(sw) + 3_600_000
        started = time.monotonic()
        err = _error(sw, f"SELECT * FROM {table} AS OF {far}")
        assert err.sqlstate == "57014" and "statement timeout" in str(err)
        assert time.monotonic() - started < 5
    finally:
        sw.execute("RESET statement_timeout")


@pytest.mark.parametrize(
    ("as_of", "sqlstate"),
    [
        ("mz_now()", "0A000"),
        ("NULL", "22023"),
        ("'not a time'", "22023"),
        ("-5", "22023"),
        ("1.5", "22023"),
        ("(SELECT 1)", "22023"),
        ("id", "42703"),
        ("true", "22023"),
    ],
)
def test_bad_as_of_expressions(sw: Conn, table: str, as_of: str, sqlstate: str) -> None:
    err = _error(sw, f"SELECT * FROM {table} AS OF {as_of}")
    assert err.sqlstate == sqlstate, str(err)


def test_as_of_without_expression_is_a_syntax_error(sw: Conn, table: str) -> None:
    assert _error(sw, f"SELECT * FROM {table} AS OF AT LEAST").sqlstate == "42601"
    # `of` alone is a label, as in PostgreSQL
    assert sw.execute("SELECT 1 AS of").fetchall() == [(1,)]
    assert sw.execute(f"SELECT of.id FROM {table} AS of").fetchall() == []
    assert sw.execute("SELECT x AS of, x FROM (VALUES (1)) AS v(x)").fetchall() == [(1, 1)]
    assert _error(sw, f"INSERT INTO {table} SELECT 1, 'x' AS OF 5").sqlstate == "42601"


def test_temporal_filter_rows_age_out(sw: Conn, table: str) -> None:
    events = _name("events")
    sw.execute(f"CREATE TABLE {events} (id int, created_at timestamptz)")
    try:
        sw.execute(f"INSERT INTO {events} VALUES (1, now()), (2, now() - INTERVAL '1 hour')")
        query = f"SELECT id FROM {events} WHERE mz_now() <= created_at + INTERVAL '2 seconds'"
        assert sw.execute(query).fetchall() == [(1,)]
        time.sleep(2.5)
        assert sw.execute(query).fetchall() == []
        # the same filter written the other way round
        assert sw.execute(
            f"SELECT count(*) FROM {events} WHERE created_at + INTERVAL '1 day' >= mz_now()"
        ).fetchone() == (2,)
    finally:
        sw.execute(f"DROP TABLE IF EXISTS {events}")


def test_explain_timestamp(sw: Conn, table: str) -> None:
    sw.execute(f"INSERT INTO {table} VALUES (1, 'a')")
    cur = sw.execute(f"EXPLAIN TIMESTAMP FOR SELECT * FROM {table}")
    assert cur.description is not None and [c.name for c in cur.description] == ["Timestamp"]
    row = cur.fetchone()
    assert row is not None
    text = str(row[0])
    lines = text.splitlines()
    labels = [line.split(":")[0].strip() for line in lines if ":" in line]
    assert labels[:8] == [
        "query timestamp",
        "oracle read timestamp",
        "largest not in advance of upper",
        "upper",
        "since",
        "can respond immediately",
        "timeline",
        "session wall time",
    ]
    assert lines[0].startswith("                query timestamp: ")
    assert "can respond immediately: true" in text
    assert "timeline: Some(EpochMilliseconds)" in text
    assert f"source materialize.public.{table} (u" in text and ", storage):" in text
    assert "read frontier:[" in text and "write frontier:[" in text
    noted = _now_ts(sw)
    text = str(sw.execute(f"EXPLAIN TIMESTAMP AS TEXT FOR SELECT * FROM {table} AS OF {noted}").fetchone()[0])  # type: ignore[index]
    assert f"query timestamp: {noted} (" in text and "oracle read timestamp" not in text
    text = str(sw.execute(f"EXPLAIN TIMESTAMP FOR SELECT * FROM {table} AS OF {noted + 3_600_000}").fetchone()[0])  # type: ignore[index]
    assert "can respond immediately: false" in text


def test_transaction_isolation_values(sw: Conn) -> None:
    assert sw.execute("SHOW transaction_isolation").fetchone() == ("strict serializable",)
    sw.execute("SET transaction_isolation = 'serializable'")
    assert sw.execute("SHOW transaction_isolation").fetchone() == ("serializable",)
    sw.execute("SET transaction_isolation = 'strict serializable'")
    assert sw.execute("SHOW transaction_isolation").fetchone() == ("strict serializable",)
    sw.execute("SET transaction_isolation TO 'read committed'")
    assert sw.execute("SHOW transaction_isolation").fetchone() == ("read committed",)
    assert _error(sw, "SET transaction_isolation = 'bogus'").sqlstate == "22023"
    sw.execute("RESET transaction_isolation")
    assert sw.execute("SHOW transaction_isolation").fetchone() == ("strict serializable",)


def test_mz_now_in_a_transaction_block_is_the_block_timestamp(sw: Conn, table: str) -> None:
    with sw.transaction():
        first = _now_ts(sw)
        sw.execute(f"SELECT * FROM {table}").fetchall()
        time.sleep(0.02)
        assert _now_ts(sw) == first


def test_temporal_filter_in_a_view(sw: Conn) -> None:
    events, view = _name("events"), _name("recent")
    sw.execute(f"CREATE TABLE {events} (id int, created_at timestamptz)")
    try:
        sw.execute(f"CREATE VIEW {view} AS SELECT id FROM {events} WHERE mz_now() <= created_at + INTERVAL '1 minute'")
        sw.execute(f"INSERT INTO {events} VALUES (1, now()), (2, now() - INTERVAL '1 hour')")
        assert sw.execute(f"SELECT id FROM {view}").fetchall() == [(1,)]
        in_two_minutes = _now_ts(sw) + 120_000
        assert sw.execute(f"SELECT id FROM {view} AS OF AT LEAST {in_two_minutes - 200_000}").fetchall() == [(1,)]
    finally:
        sw.execute(f"DROP VIEW IF EXISTS {view}")
        sw.execute(f"DROP TABLE IF EXISTS {events}")


@pytest.mark.skipif(shutil.which("psql") is None, reason="psql not installed")
def test_psql_mz_now_and_explain_timestamp(server: SparkwireServer) -> None:
    def psql(sql: str) -> subprocess.CompletedProcess[str]:
        psql_path = shutil.which("psql")
        assert psql_path is not None
        command = [psql_path, "-X", "-h", "127.0.0.1", "-p", str(server.port), "-U", "materialize", "-A", "-t"]
        return subprocess.run(
            [*command, "-d", "materialize", "-c", sql],
            capture_output=True,
            text=True,
            timeout=60,
            env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "PGTZ": "UTC"},
        )

    result = psql("SELECT mz_now(), pg_typeof(1)")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().split("|")[0].isdigit()
    result = psql("EXPLAIN TIMESTAMP FOR SELECT 1")
    assert result.returncode == 0, result.stderr
    assert "query timestamp:" in result.stdout and "can respond immediately: true" in result.stdout
    result = psql("SELECT 1 AS OF mz_now()")
    assert result.returncode == 1 and "unmaterializable function in AS OF" in result.stderr
    assert "Traceback" not in result.stderr


def test_mz_now_in_writes(sw: Conn) -> None:
    name = _name("written")
    sw.execute(f"CREATE TABLE {name} (ms bigint, at timestamptz, plain numeric)")
    try:
        before = int(time.time() * 1000) - 1000
        sw.execute(f"INSERT INTO {name} VALUES (mz_now()::bigint, mz_now()::timestamptz, mz_now())")
        row = sw.execute(f"SELECT ms, extract(epoch FROM at) * 1000, plain FROM {name}").fetchone()
        assert row is not None
        assert before <= int(str(row[0])) <= time.time() * 1000
        assert int(float(str(row[1]))) == int(str(row[0])) == int(str(row[2]))
    finally:
        sw.execute(f"DROP TABLE IF EXISTS {name}")


def test_as_of_in_a_cursor_and_copy(sw: Conn, table: str) -> None:
    sw.execute(f"INSERT INTO {table} VALUES (1, 'a')")
    noted = _now_ts(sw)
    sw.execute(f"INSERT INTO {table} VALUES (2, 'b')")
    with sw.transaction():
        sw.execute(f"DECLARE c CURSOR FOR SELECT id FROM {table} AS OF {noted}")
        assert sw.execute("FETCH ALL c").fetchall() == [(1,)]
    with sw.cursor().copy(f"COPY (SELECT id FROM {table} AS OF {noted}) TO STDOUT") as copy:
        assert b"".join(bytes(chunk) for chunk in copy) == b"1\n"


def test_casts_to_mz_timestamp(sw: Conn, table: str) -> None:
    cur = sw.execute("SELECT 1673618185152::mz_timestamp, '42'::mz_timestamp")
    assert cur.description is not None and [c.type_code for c in cur.description] == [MZ_TIMESTAMP_OID] * 2
    assert cur.fetchone() == ("1673618185152", "42")
    row = sw.execute(
        "SELECT '2023-01-13 13:56:25.152+00'::timestamptz::mz_timestamp, "
        "mz_now() > '2023-01-13 13:56:25.152+00'::timestamptz::mz_timestamp, mz_now() > 5::mz_timestamp"
    ).fetchone()
    assert row == ("1673618185152", True, True)
    sw.execute(f"INSERT INTO {table} VALUES (1, 'a')")
    row = sw.execute(
        f"SELECT id::mz_timestamp, mz_now() >= '2023-01-13 13:56:25+00'::timestamptz::mz_timestamp FROM {table}"
    ).fetchone()
    assert row == ("1", True)


def test_as_of_through_an_index_lookup(sw: Conn, table: str) -> None:
    index = _name("ix")
    sw.execute(f"CREATE INDEX {index} ON {table} (id)")
    sw.execute(f"INSERT INTO {table} VALUES (1, 'old')")
    assert sw.execute(f"SELECT note FROM {table} WHERE id = 1").fetchall() == [("old",)]  # the index is built
    noted = _now_ts(sw)
    sw.execute(f"UPDATE {table} SET note = 'new' WHERE id = 1")
    assert sw.execute(f"SELECT note FROM {table} WHERE id = 1").fetchall() == [("new",)]
    assert sw.execute(f"SELECT note FROM {table} WHERE id = 1 AS OF {noted}").fetchall() == [("old",)]
    assert sw.execute(f"SELECT note FROM {table} WHERE id = 1").fetchall() == [("new",)]
