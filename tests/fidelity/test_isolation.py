"""What a transaction block sees (issue 13, item 3): `SHOW transaction_isolation` says `strict serializable`, as
Materialize does, and a read-only block reads every statement at one snapshot, the latest commit at its first
read — so a writer on another connection that commits between two reads of the block changes neither, whether
the reads run on Spark, through an index's fast path or read two tables the writer changed together. Outside a
block every statement reads the latest commit."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest

Conn = psycopg.Connection[tuple[object, ...]]
ROWS = 12_000  # a Parquet scan on Spark (tables of at most 10,000 rows are read into memory as rows)


@pytest.fixture
def tables(dsn: str) -> Iterator[tuple[str, str]]:
    tag = uuid.uuid4().hex[:8]
    first, second = f"iso_a_{tag}", f"iso_b_{tag}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"CREATE TABLE {first} (k int, v int)")
        conn.execute(f"CREATE TABLE {second} (k int, v int)")
        conn.execute(f"INSERT INTO {first} SELECT g, g FROM generate_series(1, {ROWS}) AS g")
        conn.execute(f"INSERT INTO {second} VALUES (1, 0)")
        conn.execute(f"CREATE INDEX {second}_k ON {second} (k)")
        yield first, second
        conn.execute(f"DROP TABLE {first}")
        conn.execute(f"DROP TABLE {second}")


@pytest.fixture
def writer(dsn: str) -> Iterator[Conn]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        yield conn


def _one(conn: Conn, sql: str) -> object:
    rows = conn.execute(sql).fetchall()
    assert len(rows) == 1 and len(rows[0]) == 1
    return rows[0][0]


def _write_both(writer: Conn, first: str, second: str, n: int) -> None:
    """One transaction that adds a row to `first` and moves `second`'s value: both change, or neither."""
    with writer.transaction():
        writer.execute(f"INSERT INTO {first} VALUES ({ROWS + n}, {ROWS + n})")
        writer.execute(f"UPDATE {second} SET v = v + 1 WHERE k = 1")


def test_show_transaction_isolation_is_materializes(sw: Conn) -> None:
    assert _one(sw, "SHOW transaction_isolation") == "strict serializable"
    with sw.transaction():
        assert _one(sw, "SHOW transaction_isolation") == "strict serializable"


def test_a_read_only_block_reads_at_one_snapshot(sw: Conn, writer: Conn, tables: tuple[str, str]) -> None:
    first, second = tables
    with sw.transaction():
        assert _one(sw, f"SELECT count(*) FROM {first}") == ROWS  # Spark; the block's snapshot is taken here
        _write_both(writer, first, second, 1)
        assert _one(writer, f"SELECT count(*) FROM {first}") == ROWS + 1  # committed, visible outside
        assert _one(sw, f"SELECT count(*) FROM {first}") == ROWS
        assert _one(sw, f"SELECT max(k) FROM {first}") == ROWS
        assert _one(sw, f"SELECT v FROM {second} WHERE k = 1") == 0  # the index's fast path, same snapshot
        assert _one(sw, f"SELECT sum(v) FROM {second}") == 0  # and the other table the writer changed with it
        _write_both(writer, first, second, 2)
        assert _one(sw, f"SELECT count(*) FROM {first}") == ROWS
    assert _one(sw, f"SELECT count(*) FROM {first}") == ROWS + 2  # the block ended: the latest commit again
    assert _one(sw, f"SELECT v FROM {second} WHERE k = 1") == 2


def test_the_snapshot_is_taken_at_the_first_read(sw: Conn, writer: Conn, tables: tuple[str, str]) -> None:
    first, second = tables
    sw.execute("BEGIN")
    try:
        _write_both(writer, first, second, 1)  # before the block read anything: it sees this commit
        assert _one(sw, f"SELECT v FROM {second} WHERE k = 1") == 1
        _write_both(writer, first, second, 2)
        assert _one(sw, f"SELECT count(*) FROM {first}") == ROWS + 1
        sw.execute("SAVEPOINT s")
        sw.execute(f"SELECT count(*) FROM {first}")
        sw.execute("ROLLBACK TO SAVEPOINT s")  # keeps the block's snapshot
        assert _one(sw, f"SELECT v FROM {second} WHERE k = 1") == 1
    finally:
        sw.execute("COMMIT")


def test_outside_a_block_each_statement_reads_the_latest(sw: Conn, writer: Conn, tables: tuple[str, str]) -> None:
    first, second = tables
    assert _one(sw, f"SELECT count(*) FROM {first}") == ROWS
    _write_both(writer, first, second, 1)
    assert _one(sw, f"SELECT count(*) FROM {first}") == ROWS + 1
    assert _one(sw, f"SELECT v FROM {second} WHERE k = 1") == 1


def test_a_block_reads_its_own_writes(sw: Conn, writer: Conn, tables: tuple[str, str]) -> None:
    first, second = tables
    with sw.transaction():
        assert _one(sw, f"SELECT v FROM {second} WHERE k = 1") == 0
        _write_both(writer, first, second, 1)
        sw.execute(f"INSERT INTO {second} VALUES (2, 5)")
        assert _one(sw, f"SELECT count(*) FROM {second}") == 2
        assert _one(sw, f"SELECT count(*) FROM {first}") == ROWS  # the table it did not write: the snapshot
    assert _one(sw, f"SELECT count(*) FROM {second}") == 2
    assert _one(sw, f"SELECT count(*) FROM {first}") == ROWS + 1
