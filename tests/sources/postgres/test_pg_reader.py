"""The PostgreSQL CDC reader against a real PostgreSQL 15 (wal_level=logical): snapshot, one batch per upstream
transaction, resume without gap or duplicate, the slot dropped on close, and the errors it must report."""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import pyarrow as pa
import pytest

from sparkwire.sources.postgres.source import PostgresReader, UpstreamUnavailable, slot_name
from sparkwire.sources.reader import Batch, SourceError
from tests.sources.postgres.conftest import CollectingSink, config_for
from tests.support.postgres import PostgresOracle

SCHEMA = """
CREATE TABLE t (id int PRIMARY KEY, name text, amount numeric(10,2), ts timestamptz, u uuid, j jsonb, b bytea,
                f float8, d date, ok bool);
ALTER TABLE t REPLICA IDENTITY FULL;
CREATE TABLE t2 (a int8, s varchar(10));
ALTER TABLE t2 REPLICA IDENTITY FULL;
INSERT INTO t VALUES (1, 'one', 1.50, '2024-01-02 03:04:05+00', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"k": 1}',
                      '\\x0102', 0.1, '2024-05-06', true),
                     (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO t2 VALUES (10, 'x'), (10, 'x');
CREATE PUBLICATION p FOR ALL TABLES;
"""


def _up(upstream: PostgresOracle, db: str) -> psycopg.Connection[tuple[object, ...]]:
    return psycopg.connect(upstream.dsn.replace("dbname=postgres", f"dbname={db}"), autocommit=True)


def _rows(batch: Batch, name: str, which: str = "inserts") -> list[dict[str, object]]:
    changes = batch.changes.get(name)
    table = getattr(changes, which) if changes else None
    return sorted(table.to_pylist(), key=repr) if table is not None else []


@contextmanager
def _running(reader: PostgresReader, resume: str | None, sink: CollectingSink) -> Iterator[list[BaseException]]:
    stop, errors = threading.Event(), []

    def body() -> None:
        try:
            reader.run(resume, sink, stop)
        except BaseException as exc:  # handed to the test
            errors.append(exc)

    thread = threading.Thread(target=body, daemon=True)
    thread.start()
    try:
        yield errors
    finally:
        stop.set()
        thread.join(10)
        assert not thread.is_alive()


def _slots(upstream: PostgresOracle) -> list[str]:
    with psycopg.connect(upstream.dsn) as conn:
        return [str(r[0]) for r in conn.execute("SELECT slot_name FROM pg_replication_slots").fetchall()]


def test_snapshot_stream_resume_and_close(upstream: PostgresOracle, updb: str) -> None:
    with _up(upstream, updb) as conn:
        conn.execute(SCHEMA)
    slot = slot_name("u" + uuid.uuid4().hex[:6])
    reader = PostgresReader(config_for(upstream, updb), slot)
    specs = {s.name: s for s in reader.subsources()}
    assert sorted(specs) == ["t", "t2"] and specs["t"].upstream == "public.t" and specs["t"].key == ("id",)
    columns = [(c.name, c.type_oid) for c in specs["t"].columns][:4]
    assert columns == [("id", 23), ("name", 25), ("amount", 1700), ("ts", 1184)]
    assert specs["t"].columns[0].nullable is False

    sink = CollectingSink()
    with _running(reader, None, sink) as errors:
        sink.wait_for(lambda b: len(b) >= 1)
        snap = sink.batches[0]
        assert snap.snapshot and snap.snapshot_done and snap.messages == 4
        one = _rows(snap, "t")[0]
        assert one == {
            "id": 1, "name": "one", "amount": decimal.Decimal("1.50"),
            "ts": dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.UTC), "u": "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
            "j": '{"k": 1}', "b": b"\x01\x02", "f": 0.1, "d": dt.date(2024, 5, 6), "ok": True,
        }
        assert _rows(snap, "t2") == [{"a": 10, "s": "x"}] * 2
        assert slot in _slots(upstream)
        with _up(upstream, updb) as conn:
            with conn.transaction():  # one upstream transaction: one batch, both tables
                conn.execute("INSERT INTO t (id, name) VALUES (3, 'three')")
                conn.execute("UPDATE t SET name = 'uno', amount = 2 WHERE id = 1")
                conn.execute("DELETE FROM t2 WHERE a = 10")
            with conn.transaction():  # nets to nothing: no batch
                conn.execute("INSERT INTO t (id) VALUES (99)")
                conn.execute("DELETE FROM t WHERE id = 99")
            conn.execute("INSERT INTO t (id, name) VALUES (4, 'four')")
        batches = sink.wait_for(lambda b: len(b) >= 3)
        assert not errors
    txn = batches[1]
    assert not txn.snapshot and txn.messages == 4
    assert sorted(str(r["name"]) for r in _rows(txn, "t")) == ["three", "uno"]
    assert [r["name"] for r in _rows(txn, "t", "deletes")] == ["one"]
    assert _rows(txn, "t2", "deletes") == [{"a": 10, "s": "x"}] * 2 and _rows(txn, "t2") == []
    assert [r["id"] for r in _rows(batches[2], "t")] == [4]
    offsets = [int(b.offset.split("/")[0], 16) << 32 | int(b.offset.split("/")[1], 16) for b in batches]
    assert offsets == sorted(offsets) and len(set(offsets)) == 3

    # Changes made while no reader runs arrive once after a restart from the last durable offset.
    with _up(upstream, updb) as conn:
        conn.execute("INSERT INTO t (id, name) VALUES (5, 'five')")
        conn.execute("UPDATE t SET name = 'cinq' WHERE id = 5")
    resumed = CollectingSink()
    again = PostgresReader(config_for(upstream, updb), slot, specs=specs.values())
    with _running(again, batches[-1].offset, resumed) as errors:
        got = resumed.wait_for(lambda b: len(b) >= 2)
        threading.Event().wait(0.5)
        assert not errors and len(resumed.batches) == 2
    assert [r["name"] for r in _rows(got[0], "t")] == ["five"] and [r["name"] for r in _rows(got[1], "t")] == ["cinq"]
    assert [r["name"] for r in _rows(got[1], "t", "deletes")] == ["five"]
    again.close()
    assert slot not in _slots(upstream)


def test_upstream_errors(upstream: PostgresOracle, updb: str) -> None:
    with _up(upstream, updb) as conn:
        conn.execute("CREATE TABLE plain (a int)")
    with pytest.raises(SourceError, match='publication "p" does not exist upstream'):
        PostgresReader(config_for(upstream, updb), "s").subsources()
    with _up(upstream, updb) as conn:
        conn.execute("CREATE PUBLICATION p FOR ALL TABLES")
    with pytest.raises(SourceError, match=r"public\.plain do not have REPLICA IDENTITY FULL"):
        PostgresReader(config_for(upstream, updb), "s").subsources()
    with _up(upstream, updb) as conn:
        conn.execute("ALTER TABLE plain REPLICA IDENTITY FULL; CREATE TYPE mood AS ENUM ('ok')")
        conn.execute("ALTER TABLE plain ADD m mood")
    with pytest.raises(SourceError, match=r"unsupported upstream column type\(s\): public.plain.m \(mood\); list"):
        PostgresReader(config_for(upstream, updb), "s").subsources()
    specs = PostgresReader(config_for(upstream, updb, text_columns=("plain.m",)), "s").subsources()
    assert [(c.name, c.type_oid) for c in specs[0].columns] == [("a", 23), ("m", 25)]
    unreachable = dataclasses.replace(config_for(upstream, updb), port=1)
    with pytest.raises(UpstreamUnavailable, match=r"upstream PostgreSQL 127.0.0.1:1/.*Connection refused"):
        PostgresReader(unreachable, "s").subsources()
    with pytest.raises(UpstreamUnavailable, match='database "nope" does not exist'):
        PostgresReader(config_for(upstream, "nope"), "s").subsources()


def test_schema_change_truncate_and_slot_in_use(upstream: PostgresOracle, updb: str) -> None:
    with _up(upstream, updb) as conn:
        conn.execute(SCHEMA)
    slot = slot_name("u" + uuid.uuid4().hex[:6])
    reader = PostgresReader(config_for(upstream, updb), slot)
    specs = reader.subsources()
    sink = CollectingSink()
    with _running(reader, None, sink) as errors:
        sink.wait_for(lambda b: len(b) >= 1)
        with pytest.raises(UpstreamUnavailable, match="in use"):  # a second reader on the same slot
            PostgresReader(config_for(upstream, updb), slot, specs=specs).run(
                sink.batches[0].offset, CollectingSink(), threading.Event()
            )
        with _up(upstream, updb) as conn:
            conn.execute("ALTER TABLE t ADD COLUMN extra int")
            conn.execute("INSERT INTO t (id, extra) VALUES (7, 7)")
            conn.execute("INSERT INTO t2 VALUES (20, 'y')")
        for _ in range(100):
            if errors:
                break
            threading.Event().wait(0.05)
    assert isinstance(errors[0], SourceError) and errors[0].subsource == "t"
    assert "upstream table public.t changed its columns to (id integer, name text" in str(errors[0])
    # Run again from the last durable offset: t is skipped, t2 keeps flowing; then a TRUNCATE of t2 stops it.
    resume = sink.batches[-1].offset
    with _running(reader, resume, sink) as errors:
        batches = sink.wait_for(lambda b: any(_rows(x, "t2") for x in b[1:]))
        assert "t" not in batches[-1].changes
        with _up(upstream, updb) as conn:
            conn.execute("TRUNCATE t2")
        for _ in range(100):
            if errors:
                break
            threading.Event().wait(0.05)
    assert isinstance(errors[0], SourceError) and errors[0].subsource == "t2" and "truncated" in str(errors[0])
    reader.close()
    assert slot not in _slots(upstream)


def test_connection_loss_is_transient_and_resumes(upstream: PostgresOracle, updb: str) -> None:
    with _up(upstream, updb) as conn:
        conn.execute(SCHEMA)
    slot = slot_name("u" + uuid.uuid4().hex[:6])
    reader = PostgresReader(config_for(upstream, updb), slot)
    reader.subsources()
    sink = CollectingSink()
    with _running(reader, None, sink) as errors:
        sink.wait_for(lambda b: len(b) >= 1)
        with psycopg.connect(upstream.dsn, autocommit=True) as pg:  # the upstream ends the replication connection
            kill = "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = %s"
            pg.execute(kill, (slot,))
        with _up(upstream, updb) as conn:
            conn.execute("INSERT INTO t (id, name) VALUES (8, 'while down')")
        for _ in range(100):
            if errors:
                break
            threading.Event().wait(0.05)
    assert isinstance(errors[0], UpstreamUnavailable) and "terminat" in str(errors[0]), errors
    with _running(reader, sink.batches[-1].offset, sink) as errors:  # ingestion's retry: from the durable offset
        batches = sink.wait_for(lambda b: any(_rows(x, "t") for x in b[1:]))
        assert not errors
    assert [r["name"] for r in _rows(batches[-1], "t")] == ["while down"] and len(batches) == 2
    reader.close()


def test_timestamptz_fast_and_slow_paths_agree(upstream: PostgresOracle, updb: str) -> None:
    values = ["2024-01-02 03:04:05.123456+00", "1999-12-31 23:59:59+00", "infinity", "0044-03-15 12:00:00+00 BC"]
    with _up(upstream, updb) as conn:
        conn.execute("CREATE TABLE ts (id int, at timestamptz); ALTER TABLE ts REPLICA IDENTITY FULL")
        conn.execute("CREATE PUBLICATION p FOR ALL TABLES")
        for i, v in enumerate(values[:2]):
            conn.execute("INSERT INTO ts VALUES (%s, %s)", (i, v))
    reader = PostgresReader(config_for(upstream, updb), slot_name("u" + uuid.uuid4().hex[:6]))
    reader.subsources()
    sink = CollectingSink()
    with _running(reader, None, sink) as errors:
        sink.wait_for(lambda b: len(b) >= 1)
        with _up(upstream, updb) as conn:
            for i, v in enumerate(values):  # the same values again, through pgoutput; then the slow path's ones
                conn.execute("INSERT INTO ts VALUES (%s, %s)", (10 + i, v))
        sink.wait_for(lambda b: len(b) >= 4)
        for _ in range(100):
            if errors:
                break
            threading.Event().wait(0.05)
    reader.close()
    # A BC timestamp does not fit sparkwire's timestamptz: that subsource fails, with the way out.
    assert isinstance(errors[0], SourceError) and errors[0].subsource == "ts" and "TEXT COLUMNS" in str(errors[0])
    snapshot = sink.batches[0].changes["ts"].inserts
    streamed = [b.changes["ts"].inserts for b in sink.batches[1:]]
    assert snapshot is not None and all(t is not None for t in streamed)
    micros = [t.column("at").cast(pa.int64()).to_pylist()[0] for t in streamed if t is not None]
    assert sorted(snapshot.column("at").cast(pa.int64()).to_pylist()) == sorted(micros[:2])
    assert micros[:2] == [1704164645123456, 946684799000000]
    assert micros[2] == 2**63 - 1  # infinity: the storage sentinel (PostgreSQL's input rules)
