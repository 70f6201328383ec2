"""Appending is independent of how many files a table has: a transaction that only appends never lists the table's
files (INSERT p50 went from 6 to 12 ms over 6,000 single-row INSERTs while each one listed them, issue 14's bench
writer), and one that appends and then reads, deletes or replaces sees its own files with the base's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from sparkwire.storage import Storage
from sparkwire.storage.model import FileRecord

SCHEMA = pa.schema([("id", pa.int64())])


def _rows(*ids: int) -> pa.Table:
    return pa.table({"id": pa.array(ids, pa.int64())})


@pytest.fixture
def storage(tmp_path: Path) -> Iterator[Storage]:
    opened = Storage.open(tmp_path)
    opened.create_table("t", SCHEMA)
    for i in range(20):  # twenty files
        txn = opened.begin()
        txn.append("t", _rows(i))
        txn.commit(i + 1)
    yield opened
    opened.close()


def _ids(storage: Storage) -> list[int]:
    return sorted(storage.snapshot().read_arrow("t").column("id").to_pylist())


def test_an_append_only_transaction_never_lists_the_tables_files(
    storage: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    def listed(*_: Any) -> bool:
        raise AssertionError("the table's files were listed")

    monkeypatch.setattr(FileRecord, "visible_at", listed)
    txn = storage.begin()
    assert txn.append("t", _rows(100, 101)) == 2
    assert txn.append("t", _rows(102)) == 1
    assert txn.written_tables() == frozenset({"t"})
    ts = txn.commit(30)
    monkeypatch.undo()
    assert ts == 30
    assert _ids(storage) == [*range(20), 100, 101, 102]


def test_appended_files_join_the_base_when_the_transaction_reads_deletes_or_replaces(storage: Storage) -> None:
    txn = storage.begin()
    txn.append("t", _rows(100))
    assert sorted(txn.read_arrow("t").column("id").to_pylist()) == [*range(20), 100]
    assert txn.delete_where("t", lambda rows: pc.greater_equal(rows["id"], 10)) == 11  # ten base rows and its own
    txn.append("t", _rows(200))
    txn.commit(30)
    assert _ids(storage) == [*range(10), 200]

    txn = storage.begin()
    txn.append("t", _rows(300))
    txn.replace("t", _rows(7, 8))  # its own earlier append goes too
    txn.commit(31)
    assert _ids(storage) == [7, 8]


def test_an_append_only_transaction_that_wrote_nothing_changes_nothing(storage: Storage) -> None:
    txn = storage.begin()
    assert txn.append("t", _rows().slice(0, 0)) == 0
    assert txn.written_tables() == frozenset()
    assert txn.commit(30) == 20  # the base timestamp: nothing to commit
    assert _ids(storage) == list(range(20))
