"""The result cache of catalog queries (planner/execute/result_cache.py): answers stay right while they are reused.

Through a real server: a catalog query repeated after DDL, GRANT or a new connection sees the change; functions
whose value changes between runs (now(), random(), current_setting) are run each time; a transaction block reads
its own way. Directly: which SQL is cacheable, the row limit and least-recently-used eviction.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import psycopg
import pyarrow as pa

from sparkwire.engine.base import Column
from sparkwire.planner.execute.result_cache import ResultCache, cacheable, volatile_functions
from tests.planner.test_planner_helpers import Client, materialize, new_service
from tests.support.clients import unique

Conn = psycopg.Connection[tuple[Any, ...]]
COUNT_TABLES = "SELECT count(*) FROM pg_catalog.pg_class WHERE relnamespace = '{s}'::regnamespace"


def test_catalog_query_sees_ddl_at_once(sw: Conn) -> None:
    schema = unique("rc")
    sw.execute(f"CREATE SCHEMA {schema}")
    sql = COUNT_TABLES.format(s=schema)
    assert sw.execute(sql).fetchone() == (0,)
    assert sw.execute(sql).fetchone() == (0,)  # answered from the cache
    sw.execute(f"CREATE TABLE {schema}.t (a int)")
    assert sw.execute(sql).fetchone() == (1,)
    sw.execute(f"CREATE VIEW {schema}.v AS SELECT a FROM {schema}.t")
    assert sw.execute(sql).fetchone() == (2,)
    sw.execute(f"DROP VIEW {schema}.v")
    assert sw.execute(sql).fetchone() == (1,)
    columns = f"SELECT attname FROM pg_attribute WHERE attrelid = '{schema}.t'::regclass AND attnum > 0"
    assert sw.execute(columns).fetchall() == [("a",)]
    sw.execute(f"ALTER TABLE {schema}.t RENAME TO u")
    assert sw.execute(COUNT_TABLES.format(s=schema) + " AND relname = 'u'").fetchone() == (1,)


def test_prepared_catalog_query_sees_ddl(sw: Conn) -> None:
    schema = unique("rcp")
    sw.execute(f"CREATE SCHEMA {schema}")
    sql = "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = %s"
    assert sw.execute(sql, (schema,), prepare=True).fetchone() == (0,)
    sw.execute(f"CREATE TABLE {schema}.t (a int)")
    assert sw.execute(sql, (schema,), prepare=True).fetchone() == (1,)
    sw.execute(f"CREATE TABLE {schema}.u (a int)")
    assert sw.execute(sql, (schema,), prepare=True).fetchone() == (2,)
    assert sw.execute(sql, (schema + "_none",), prepare=True).fetchone() == (0,)  # another value, another answer


def test_privileges_and_sessions_are_current(sw: Conn, dsn: str) -> None:
    role = unique("rc_role")
    sw.execute(f"CREATE ROLE {role}")
    sql = f"SELECT count(*) FROM pg_catalog.pg_roles WHERE rolname = '{role}'"
    assert sw.execute(sql).fetchone() == (1,)
    sw.execute(f"DROP ROLE {role}")
    assert sw.execute(sql).fetchone() == (0,)
    sessions = "SELECT count(*) FROM mz_internal.mz_sessions"
    (before,) = sw.execute(sessions).fetchone() or (0,)
    with psycopg.connect(dsn, autocommit=True):
        assert sw.execute(sessions).fetchone() == (before + 1,)
    for _ in range(50):  # the other session's end is recorded by its server thread
        if sw.execute(sessions).fetchone() == (before,):
            break
        time.sleep(0.1)
    assert sw.execute(sessions).fetchone() == (before,)


def test_functions_whose_value_changes_run_each_time(sw: Conn) -> None:
    first = sw.execute("SELECT now(), random(), clock_timestamp()").fetchone()
    time.sleep(0.01)
    second = sw.execute("SELECT now(), random(), clock_timestamp()").fetchone()
    assert first is not None and second is not None
    assert first[0] != second[0] and first[1] != second[1]
    sw.execute("SET application_name = 'one'")
    assert sw.execute("SELECT current_setting('application_name')").fetchone() == ("one",)
    sw.execute("SET application_name = 'two'")
    assert sw.execute("SELECT current_setting('application_name')").fetchone() == ("two",)
    assert sw.execute("SELECT setting FROM pg_settings WHERE name = 'application_name'").fetchone() == ("two",)


def test_time_zone_is_part_of_the_answer(sw: Conn) -> None:
    sql = "SELECT CAST('2024-01-01 12:00:00+00' AS timestamptz)::text"
    sw.execute("SET TimeZone = 'UTC'")
    assert sw.execute(sql).fetchone() == ("2024-01-01 12:00:00+00",)
    sw.execute("SET TimeZone = 'Europe/Paris'")
    assert sw.execute(sql).fetchone() == ("2024-01-01 13:00:00+01",)


def test_transaction_block_reads(sw: Conn) -> None:
    schema = unique("rct")
    sw.execute(f"CREATE SCHEMA {schema}")
    sql = COUNT_TABLES.format(s=schema)
    with sw.transaction():
        assert sw.execute(sql).fetchone() == (0,)
    sw.execute(f"CREATE TABLE {schema}.t (a int)")
    with sw.transaction():
        assert sw.execute(sql).fetchone() == (1,)


def test_repeats_are_served_from_the_cache_in_both_protocols(tmp_path: Path) -> None:
    """In-process, where the cache's hit count shows: a repeated catalog query is answered from the cache
    through the simple and the extended protocol; inside a block that wrote (its engine snapshot) it is not; writes
    to user tables do not discard it."""
    service = new_service(tmp_path)
    client = Client(service)
    try:
        sql = "SELECT count(*) FROM pg_catalog.pg_type WHERE typname LIKE 'int%'"
        first = client.rows(sql)
        hits = service.results.hits
        assert client.rows(sql) == first and service.results.hits == hits + 1
        session = client.session
        for _ in range(2):
            session.parse("", sql, [])
            session.bind("", "", [], [], [])
            assert materialize(session.execute("", 0)).rows == first
            session.sync()
        assert service.results.hits == hits + 3
        client.run("CREATE TABLE rc_t (a int)")
        client.run("BEGIN")
        client.run("INSERT INTO rc_t VALUES (1)")
        assert client.rows(sql) == first
        client.run("COMMIT")
        assert service.results.hits == hits + 3
        # a block that wrote only a user table (storage, not the store) leaves cached answers standing: an explicit
        # one, and the implicit block of an extended-protocol INSERT
        assert client.rows(sql) == first and service.results.hits == hits + 3  # after the DDL: computed again
        client.run("BEGIN; INSERT INTO rc_t VALUES (2); COMMIT")
        assert client.rows(sql) == first and service.results.hits == hits + 4
        session.parse("ins", "INSERT INTO rc_t VALUES ($1)", [23])
        for value in ("3", "4"):
            session.bind("", "ins", [0], [value.encode()], [])
            materialize(session.execute("", 0))
            session.sync()
            assert client.rows(sql) == first
        assert service.results.hits == hits + 6
        assert client.rows("SELECT count(*) FROM rc_t") == [(4,)]
    finally:
        client.close()
        service.close()


def test_the_first_answer_after_ddl_is_kept(tmp_path: Path) -> None:
    """The store catches up with the catalog when a statement first reads it after DDL; the answer is keyed by the
    store's generation after that, so the next run is a hit (keyed before it, the answer was computed twice)."""
    service = new_service(tmp_path)
    client = Client(service)
    try:
        sql = "SELECT count(*) FROM pg_catalog.pg_class WHERE relname = 'rc_after'"
        for expected in (0, 1):
            if expected:
                client.run("CREATE TABLE rc_after (a int)")
            assert client.rows(sql) == [(expected,)]
            hits = service.results.hits
            assert client.rows(sql) == [(expected,)] and service.results.hits == hits + 1
    finally:
        client.close()
        service.close()


def _cache(max_entries: int = 4, max_rows: int = 10) -> tuple[ResultCache, list[int]]:
    generation = [0]
    return ResultCache(lambda: generation[0], frozenset({"random"}), max_entries, max_rows), generation


def _batch(rows: int) -> pa.RecordBatch:
    return pa.record_batch({"a": pa.array(range(rows), pa.int32())})


def test_keys_follow_generations_and_volatility() -> None:
    cache, generation = _cache()
    key = cache.key("SELECT 1", (), "UTC", 7)
    assert key is not None and key == cache.key("SELECT 1", (), "UTC", 7)
    assert key != cache.key("SELECT 1", (), "UTC", 8) and key != cache.key("SELECT 1", (), "Europe/Paris", 7)
    generation[0] += 1
    assert key != cache.key("SELECT 1", (), "UTC", 7)
    assert cache.key("SELECT random()", (), "UTC", 7) is None
    assert cache.key("SELECT $1", ([1, 2],), "UTC", 7) is None  # an array parameter: not hashable
    assert not cacheable("SELECT CURRENT_TIMESTAMP", volatile_functions([], []))
    assert not cacheable("SELECT sw_current_setting(1, 'x', false)", volatile_functions([], ["sw_current_setting"]))
    assert cacheable("SELECT relname FROM pg_class", volatile_functions(["random"], ["sw_pg_sleep"]))


def test_recording_keeps_small_complete_answers_only() -> None:
    cache, _ = _cache(max_rows=10)
    columns = [Column("a", "INTEGER")]
    assert [b.num_rows for b in cache.recording("small", columns, iter([_batch(4), _batch(6)]))] == [4, 6]
    found = cache.get("small")
    assert found is not None and [b.num_rows for b in found[1]] == [4, 6]
    assert [b.num_rows for b in cache.recording("big", columns, iter([_batch(6), _batch(6)]))] == [6, 6]
    assert cache.get("big") is None
    stream = cache.recording("cut", columns, iter([_batch(1), _batch(1)]))
    next(stream)  # a cancelled query stops reading
    assert cache.get("cut") is None


def test_the_byte_budget_evicts_too() -> None:
    cache = ResultCache(lambda: 0, frozenset(), max_entries=10, max_bytes=3 * _batch(100).nbytes)
    columns = [Column("a", "INTEGER")]
    for key in "abcd":
        cache.put(key, columns, [_batch(100)])
    assert cache.get("a") is None and all(cache.get(k) is not None for k in "bcd")
    cache.put("huge", columns, [_batch(1000)])  # over the whole budget: not kept, nothing evicted for it
    assert cache.get("huge") is None and all(cache.get(k) is not None for k in "bcd")


def test_least_recently_used_entries_go_first() -> None:
    cache, _ = _cache(max_entries=2)
    columns = [Column("a", "INTEGER")]
    cache.put("a", columns, [_batch(1)])
    cache.put("b", columns, [_batch(1)])
    assert cache.get("a") is not None
    cache.put("c", columns, [_batch(1)])
    assert cache.get("b") is None and cache.get("a") is not None and cache.get("c") is not None
