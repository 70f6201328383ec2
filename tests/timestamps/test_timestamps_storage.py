"""The read-timestamp choice of a session (planner/execute/write_txn.py) against a real Storage: the oracle's
timestamp, AS OF below the compaction frontier, a future AS OF that is cancelled."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from sparkwire import errors as e
from sparkwire.planner.execute.write_txn import StorageTransaction
from sparkwire.storage import Storage


class _Plane:
    """What StorageTransaction uses of a DataPlane."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._clock = int(time.time() * 1000)

    def snapshot(self) -> Any:
        return self.storage.snapshot()

    def begin_write(self) -> Any:
        return self.storage.begin()

    def commit_write(self, txn: Any) -> int:
        self._clock = max(self._clock + 1, int(time.time() * 1000))
        return int(txn.commit(self._clock))


@pytest.fixture
def storage(tmp_path: Path) -> Any:
    store = Storage.open(tmp_path)
    store.create_table("u1", pa.schema([("a", pa.int32())]))
    try:
        yield store
    finally:
        store.close()


def _commit(plane: _Plane, value: int) -> int:
    txn = plane.begin_write()
    txn.append("u1", pa.table({"a": pa.array([value], pa.int32())}))
    return plane.commit_write(txn)


def test_oracle_timestamp_follows_the_clock_and_commits_land_above_it(storage: Storage) -> None:
    plane = _Plane(storage)
    tx = StorageTransaction(plane)  # type: ignore[arg-type]
    first = _commit(plane, 1)
    snap = tx.timestamped()
    assert snap.ts >= first and abs(snap.ts - time.time() * 1000) < 1000
    second = _commit(plane, 2)
    assert second > snap.ts
    assert snap.read_arrow("u1").column("a").to_pylist() == [1]
    assert tx.as_of(first, False, lambda: False).read_arrow("u1").column("a").to_pylist() == [1]
    assert sorted(tx.as_of(first, True, lambda: False).read_arrow("u1").column("a").to_pylist()) == [1, 2]


def test_as_of_below_since_is_materializes_error(storage: Storage) -> None:
    plane = _Plane(storage)
    tx = StorageTransaction(plane)  # type: ignore[arg-type]
    first = _commit(plane, 1)
    _commit(plane, 2)
    since = storage.latest_ts
    storage.compact(since=since, timestamp=lambda: max(int(time.time() * 1000), since + 1))
    with pytest.raises(e.DataException) as info:
        tx.as_of(first, False, lambda: False)
    assert info.value.code == "22000"
    assert info.value.message == "could not find a valid timestamp for the query"
    assert tx.as_of(first, True, lambda: False).ts >= since  # AT LEAST moves up instead


def test_future_as_of_waits_until_cancelled(storage: Storage) -> None:
    tx = StorageTransaction(_Plane(storage))  # type: ignore[arg-type]
    target = tx.oracle_ts() + 150
    started = time.monotonic()
    assert tx.as_of(target, False, lambda: False).ts == target
    assert time.monotonic() - started >= 0.1
    deadline = time.monotonic() + 0.2
    with pytest.raises(e.QueryCanceled):
        tx.as_of(tx.oracle_ts() + 3_600_000, False, lambda: time.monotonic() > deadline)
