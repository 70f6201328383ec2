"""Storage of tables as definite collections, on a real data directory: append/read, delete/update/replace,
multi-table atomicity, reads at older timestamps, sealing of read timestamps, optimistic conflicts, restart,
orphan cleanup and compaction."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from sparkwire.errors import (
    DatatypeMismatch,
    DuplicateTable,
    InternalError,
    InvalidTransactionState,
    ObjectNotInPrerequisiteState,
    SerializationFailure,
    UndefinedTable,
)
from sparkwire.storage import ROW_ID_COLUMN, Storage
from sparkwire.storage.compaction import rewrite_table

SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string()), ("at", pa.timestamp("us", tz="UTC"))])


def rows(ids: list[int]) -> pa.Table:
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "name": pa.array([f"n{i}" for i in ids]),
            "at": pa.array([i * 1_000_000 for i in ids], pa.timestamp("us", tz="UTC")),
        }
    )


def ids(table: pa.Table) -> list[int]:
    return sorted(table.column("id").to_pylist())


@pytest.fixture
def storage(tmp_path: Path) -> Iterator[Storage]:
    opened = Storage.open(tmp_path)
    opened.create_table("u1", SCHEMA)
    opened.create_table("u2", pa.schema([("k", pa.int32()), ("v", pa.float64())]))
    yield opened
    opened.close()


def append(storage: Storage, ts: int, table_id: str, data: pa.Table) -> None:
    txn = storage.begin()
    txn.append(table_id, data)
    assert txn.commit(ts) == ts


def parquet_files(data_dir: Path) -> set[str]:
    return {path.name for path in (data_dir / "storage").rglob("*.parquet")}


def test_append_and_read_keeps_types_and_values(storage: Storage) -> None:
    append(storage, 5, "u1", rows([1, 2]))
    append(storage, 6, "u1", rows([3]).select(["at", "name", "id"]))  # columns by name
    table = storage.snapshot().read_arrow("u1")
    assert table.schema == SCHEMA
    assert table.sort_by("id") == rows([1, 2, 3])
    assert storage.latest_ts == 6
    assert storage.snapshot(6).row_count("u1") == 3
    assert [f.rows for f in storage.snapshot().files("u1")] == [2, 1]
    assert storage.snapshot().read_arrow("u1", columns=["name"]).column_names == ["name"]


def test_appended_values_are_cast_to_the_table_types(storage: Storage) -> None:
    append(storage, 5, "u2", pa.table({"v": [1.5], "k": pa.array([7], pa.int64())}))
    assert storage.snapshot().read_arrow("u2").to_pylist() == [{"k": 7, "v": 1.5}]
    txn = storage.begin()
    with pytest.raises(DatatypeMismatch):
        txn.append("u2", pa.table({"k": [1]}))
    with pytest.raises(DatatypeMismatch):
        txn.append("u2", pa.table({"k": ["x"], "v": [1.0]}))
    with pytest.raises(UndefinedTable):
        txn.append("u9", rows([1]))
    txn.abort()


def test_delete_by_predicate_and_by_row_ids(storage: Storage) -> None:
    append(storage, 1, "u1", rows([1, 2, 3, 4]))
    append(storage, 2, "u1", rows([5, 6]))
    txn = storage.begin()
    assert txn.delete_where("u1", lambda t: pc.greater(t["id"], 4)) == 2  # empties the second file
    assert txn.delete_where("u1", lambda t: pc.equal(t["id"], 99)) == 0
    assert txn.commit(3) == 3
    assert ids(storage.snapshot().read_arrow("u1")) == [1, 2, 3, 4]
    assert len(storage.snapshot().files("u1")) == 1

    with_ids = storage.snapshot().read_arrow("u1", row_ids=True)
    chosen = with_ids.filter(pc.is_in(with_ids["id"], pa.array([2, 3])))[ROW_ID_COLUMN]
    txn = storage.begin()
    assert txn.delete_where("u1", chosen) == 2
    assert txn.delete_where("u1", chosen.to_pylist()) == 0  # already deleted in this transaction
    txn.commit(4)
    snapshot = storage.snapshot()
    assert ids(snapshot.read_arrow("u1")) == [1, 4]
    [data_file] = snapshot.files("u1")
    assert data_file.deleted.tolist() == [1, 2] and data_file.live_rows == 2


def test_null_predicate_results_keep_rows(storage: Storage) -> None:
    append(storage, 1, "u2", pa.table({"k": pa.array([1, 2, None], pa.int32()), "v": [1.0, 2.0, 3.0]}))
    txn = storage.begin()
    assert txn.delete_where("u2", lambda t: pc.equal(t["k"], 1)) == 1
    txn.commit(2)
    assert sorted(storage.snapshot().read_arrow("u2")["v"].to_pylist()) == [2.0, 3.0]


def test_update_is_delete_plus_append_in_one_commit(storage: Storage) -> None:
    append(storage, 1, "u1", rows([1, 2, 3]))
    txn = storage.begin()
    current = txn.read_arrow("u1", row_ids=True)
    hit = current.filter(pc.equal(current["id"], 2))
    txn.delete_where("u1", hit[ROW_ID_COLUMN])
    txn.append("u1", rows([20]))
    assert ids(txn.read_arrow("u1")) == [1, 3, 20]  # the transaction reads its own writes
    assert ids(storage.snapshot().read_arrow("u1")) == [1, 2, 3]  # nobody else does before commit
    txn.commit(2)
    assert ids(storage.snapshot(2).read_arrow("u1")) == [1, 3, 20]
    assert ids(storage.snapshot(1).read_arrow("u1")) == [1, 2, 3]


def test_replace_swaps_the_whole_contents(storage: Storage) -> None:
    append(storage, 1, "u1", rows([1, 2]))
    txn = storage.begin()
    txn.append("u1", rows([3]))
    assert txn.replace("u1", rows([7, 8, 9])) == 3
    txn.commit(2)
    assert ids(storage.snapshot().read_arrow("u1")) == [7, 8, 9]
    assert ids(storage.snapshot(1).read_arrow("u1")) == [1, 2]
    txn = storage.begin()
    txn.replace("u1", rows([]))
    txn.commit(3)
    assert storage.snapshot().read_arrow("u1").num_rows == 0


def test_multi_table_commit_is_all_or_nothing(storage: Storage) -> None:
    txn = storage.begin()
    txn.append("u1", rows([1]))
    txn.append("u2", pa.table({"k": pa.array([1], pa.int32()), "v": [1.0]}))
    txn.commit(10)
    before = storage.snapshot(9)
    after = storage.snapshot(10)
    assert (before.row_count("u1"), before.row_count("u2")) == (0, 0)
    assert (after.row_count("u1"), after.row_count("u2")) == (1, 1)

    # a commit that fails validation on one table writes nothing to the other
    doomed = storage.begin()
    doomed.append("u2", pa.table({"k": pa.array([2], pa.int32()), "v": [2.0]}))
    doomed.delete_where("u1", lambda t: pc.equal(t["id"], 1))
    append(storage, 11, "u1", rows([5]))
    with pytest.raises(SerializationFailure):
        doomed.commit(12)
    snapshot = storage.snapshot()
    assert snapshot.ts == 11
    assert ids(snapshot.read_arrow("u1")) == [1, 5]
    assert snapshot.row_count("u2") == 1


def test_appends_never_conflict_but_deletes_do(storage: Storage) -> None:
    append(storage, 1, "u1", rows([1, 2]))
    first, second = storage.begin(), storage.begin()
    first.append("u1", rows([3]))
    second.append("u1", rows([4]))
    first.commit(2)
    second.commit(3)
    assert ids(storage.snapshot().read_arrow("u1")) == [1, 2, 3, 4]

    deleter, writer = storage.begin(), storage.begin()
    deleter.delete_where("u1", lambda t: pc.less(t["id"], 3))
    writer.append("u1", rows([1]))
    writer.commit(4)
    with pytest.raises(SerializationFailure):
        deleter.commit(5)
    assert ids(storage.snapshot().read_arrow("u1")) == [1, 1, 2, 3, 4]


def test_commit_timestamps_must_increase_past_every_read(storage: Storage) -> None:
    append(storage, 10, "u1", rows([1]))
    txn = storage.begin()
    txn.append("u1", rows([2]))
    with pytest.raises(InternalError):
        txn.commit(10)
    assert ids(storage.snapshot().read_arrow("u1")) == [1]

    # reading at 20 seals it: the same read later must not change, so no commit may land at or below 20
    sealed = storage.snapshot(20)
    assert ids(sealed.read_arrow("u1")) == [1]
    txn = storage.begin()
    txn.append("u1", rows([2]))
    with pytest.raises(InternalError):
        txn.commit(15)
    txn = storage.begin()
    txn.append("u1", rows([3]))
    txn.commit(21)
    assert ids(storage.snapshot(20).read_arrow("u1")) == [1]
    assert ids(storage.snapshot(21).read_arrow("u1")) == [1, 3]


def test_timestamp_callable_is_drawn_at_commit(storage: Storage) -> None:
    clock = iter([100, 101])
    txn = storage.begin()
    txn.append("u1", rows([1]))
    assert txn.commit(lambda: next(clock)) == 100
    empty = storage.begin()
    assert empty.commit(lambda: next(clock)) == 100  # nothing to commit: no timestamp drawn
    assert next(clock) == 101


def test_finished_transactions_refuse_more_work(storage: Storage, tmp_path: Path) -> None:
    txn = storage.begin()
    txn.append("u1", rows([1]))
    assert parquet_files(tmp_path)
    txn.abort()
    assert not parquet_files(tmp_path)  # an aborted append leaves no file
    with pytest.raises(InvalidTransactionState):
        txn.append("u1", rows([1]))
    with pytest.raises(InvalidTransactionState):
        txn.commit(1)


def test_snapshot_waits_for_a_commit_in_flight_at_its_timestamp(storage: Storage) -> None:
    drawn = threading.Event()
    release = threading.Event()

    def slow_timestamp() -> int:
        drawn.set()
        release.wait(timeout=30)
        return 7

    txn = storage.begin()
    txn.append("u1", rows([1]))
    committer = threading.Thread(target=txn.commit, args=(slow_timestamp,))
    committer.start()
    assert drawn.wait(timeout=30)
    seen: list[int] = []
    reader = threading.Thread(target=lambda: seen.append(storage.snapshot(7).row_count("u1")))
    reader.start()
    release.set()
    committer.join(timeout=30)
    reader.join(timeout=30)
    assert seen == [1]


def test_ddl(storage: Storage, tmp_path: Path) -> None:
    with pytest.raises(DuplicateTable):
        storage.create_table("u1", SCHEMA)
    append(storage, 1, "u1", rows([1]))
    storage.drop_table("u1")
    assert storage.tables() == {"u2"}
    assert not (tmp_path / "storage" / "u1").exists()
    with pytest.raises(UndefinedTable):
        storage.drop_table("u1")
    with pytest.raises(UndefinedTable):
        storage.snapshot().read_arrow("u1")
    storage.create_table("u1", SCHEMA)
    assert storage.snapshot().read_arrow("u1").num_rows == 0


def test_dropping_a_table_fails_open_transactions_on_it(storage: Storage) -> None:
    txn = storage.begin()
    txn.append("u1", rows([1]))
    storage.drop_table("u1")
    with pytest.raises((UndefinedTable, SerializationFailure)):
        txn.commit(1)


def test_reopen_keeps_everything_and_cleans_orphans(tmp_path: Path) -> None:
    storage = Storage.open(tmp_path)
    storage.create_table("u1", SCHEMA)
    append(storage, 1, "u1", rows([1, 2, 3]))
    txn = storage.begin()
    txn.delete_where("u1", lambda t: pc.equal(t["id"], 2))
    txn.commit(2)
    committed = parquet_files(tmp_path)
    with pytest.raises(ObjectNotInPrerequisiteState):
        Storage.open(tmp_path)  # one process (and one opener) at a time
    storage.close()
    (tmp_path / "storage" / "u1" / "000000000777.parquet").write_bytes(b"partial")
    (tmp_path / "storage" / "u5").mkdir()

    reopened = Storage.open(tmp_path)
    assert parquet_files(tmp_path) == committed
    assert not (tmp_path / "storage" / "u5").exists()
    assert reopened.latest_ts == 2
    assert ids(reopened.snapshot().read_arrow("u1")) == [1, 3]
    assert ids(reopened.snapshot(1).read_arrow("u1")) == [1, 2, 3]
    assert reopened.snapshot().schema("u1") == SCHEMA
    append(reopened, 3, "u1", rows([4]))  # new file numbers do not collide with old ones
    assert ids(reopened.snapshot().read_arrow("u1")) == [1, 3, 4]
    reopened.close()


def test_compaction_preserves_contents_and_history_from_since(tmp_path: Path) -> None:
    storage = Storage.open(tmp_path)
    storage.create_table("u1", SCHEMA)
    for ts in range(1, 11):
        append(storage, ts, "u1", rows([ts * 10, ts * 10 + 1]))
    txn = storage.begin()
    txn.delete_where("u1", lambda t: pc.equal(pc.bit_wise_and(t["id"], 1), 1))
    txn.commit(11)
    history = {ts: storage.snapshot(ts).read_arrow("u1").sort_by("id") for ts in range(1, 12)}

    result = storage.compact(since=5, timestamp=12, target_rows=4)
    assert (result.ts, result.merged_files, result.written_files, result.deleted_files) == (12, 10, 3, 0)
    assert storage.snapshot(12).read_arrow("u1").sort_by("id") == history[11]
    assert [f.rows for f in storage.snapshot(12).files("u1")] == [4, 4, 2]
    for ts in range(5, 12):
        assert storage.snapshot(ts).read_arrow("u1").sort_by("id") == history[ts]
    with pytest.raises(ObjectNotInPrerequisiteState):
        storage.snapshot(4)

    old = storage.snapshot(12)
    result = storage.compact(since=12, timestamp=13, target_rows=4)
    assert (result.ts, result.deleted_files) == (None, 10)
    assert len(parquet_files(tmp_path)) == 3
    assert old.read_arrow("u1") == storage.snapshot().read_arrow("u1")
    storage.close()

    reopened = Storage.open(tmp_path)
    assert reopened.since == 12
    assert reopened.snapshot().read_arrow("u1").sort_by("id") == history[11]
    with pytest.raises(ObjectNotInPrerequisiteState):
        reopened.snapshot(11)
    reopened.close()


def test_reading_files_compacted_away_is_an_error_not_a_crash(storage: Storage) -> None:
    append(storage, 1, "u1", rows([1]))
    append(storage, 2, "u1", rows([2]))
    stale = storage.snapshot(2)
    storage.compact(since=0, timestamp=3)
    storage.compact(since=3, timestamp=4)
    with pytest.raises(ObjectNotInPrerequisiteState):
        stale.read_arrow("u1")


@pytest.mark.parametrize("concurrent", ["append", "delete"])
def test_compaction_races_a_concurrent_commit(
    storage: Storage, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, concurrent: str
) -> None:
    """A commit lands between compaction's merge and its commit: an append is kept alongside the merged file,
    a delete of a merged row makes compaction fail without losing the delete or leaving files behind."""
    for ts in range(1, 4):
        append(storage, ts, "u1", rows([ts]))

    def rewrite_then_commit(*args: Any, **kwargs: Any) -> Any:
        change = rewrite_table(*args, **kwargs)
        if args[1] != "u1":
            return change
        txn = storage.begin()
        if concurrent == "append":
            txn.append("u1", rows([4]))
        else:
            txn.delete_where("u1", lambda t: pc.equal(t["id"], 2))
        txn.commit(4)
        return change

    monkeypatch.setattr("sparkwire.storage.storage.rewrite_table", rewrite_then_commit)
    if concurrent == "append":
        result = storage.compact(since=0, timestamp=5)
        assert (result.ts, result.merged_files) == (5, 3)
        assert ids(storage.snapshot().read_arrow("u1")) == [1, 2, 3, 4]
        assert sorted(f.rows for f in storage.snapshot().files("u1")) == [1, 3]
    else:
        before = parquet_files(tmp_path)
        with pytest.raises(SerializationFailure):
            storage.compact(since=0, timestamp=5)
        assert parquet_files(tmp_path) == before
        assert ids(storage.snapshot().read_arrow("u1")) == [1, 3]


def test_compaction_frontier_above_the_latest_commit_seals_it(storage: Storage) -> None:
    append(storage, 1, "u1", rows([1]))
    storage.compact(since=50, timestamp=2)
    assert storage.since == 50
    txn = storage.begin()
    txn.append("u1", rows([2]))
    with pytest.raises(InternalError):
        txn.commit(49)
    assert ids(storage.snapshot(50).read_arrow("u1")) == [1]


def test_a_transaction_whose_files_were_compacted_away_fails_to_serialize(storage: Storage) -> None:
    append(storage, 1, "u1", rows([1]))
    append(storage, 2, "u1", rows([2]))
    txn = storage.begin()
    storage.compact(since=0, timestamp=3)
    storage.compact(since=3, timestamp=4)
    with pytest.raises(SerializationFailure):
        txn.delete_where("u1", lambda t: pc.equal(t["id"], 1))
    txn.abort()
    txn = storage.begin()
    assert txn.delete_where("u1", lambda t: pc.equal(t["id"], 1)) == 1
    txn.commit(5)
    assert ids(storage.snapshot().read_arrow("u1")) == [2]
