"""A table's changes between two snapshots (storage/deltas.py) on a real data directory: inserts, deletes,
updates, a file added and partly deleted inside the interval, compaction's rewrite cancelling under `consolidate`,
and every interval's changes adding up to the difference of the two snapshots' contents."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from sparkwire.storage import ROW_ID_COLUMN, Storage
from sparkwire.storage.deltas import DIFF_COLUMN, changes, consolidate

SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string())])


@pytest.fixture
def storage(tmp_path: Path) -> Iterator[Storage]:
    store = Storage.open(tmp_path)
    store.create_table("t", SCHEMA)
    yield store
    store.close()


def _clock() -> Iterator[int]:
    return itertools.count(100)


def _rows(ids: list[int]) -> pa.Table:
    return pa.table({"id": pa.array(ids, pa.int64()), "name": pa.array([f"n{i}" for i in ids])})


def _net(table: pa.Table) -> dict[tuple[object, ...], int]:
    out: dict[tuple[object, ...], int] = {}
    for row in consolidate(table.drop_columns([c for c in (ROW_ID_COLUMN,) if c in table.column_names])).to_pylist():
        diff = row.pop(DIFF_COLUMN)
        out[tuple(row.values())] = diff
    return out


def _commit(storage: Storage, ts: Iterator[int], insert: Sequence[int] = (), delete: Sequence[int] = ()) -> int:
    txn = storage.begin()
    if delete:
        txn.delete_where("t", lambda t: pc.is_in(t["id"], pa.array(list(delete), pa.int64())))
    if insert:
        txn.append("t", _rows(list(insert)))
    return txn.commit(lambda: next(ts))


def test_inserts_deletes_and_updates_with_row_ids(storage: Storage) -> None:
    ts = _clock()
    t1 = _commit(storage, ts, insert=[1, 2, 3])
    s1 = storage.snapshot(t1)
    t2 = _commit(storage, ts, insert=[4], delete=[2])
    s2 = storage.snapshot(t2)
    delta = changes(s1, s2, "t", row_ids=True)
    assert delta.column_names == ["id", "name", ROW_ID_COLUMN, DIFF_COLUMN]
    assert sorted(zip(delta["id"].to_pylist(), delta[DIFF_COLUMN].to_pylist(), strict=True)) == [(2, -1), (4, 1)]
    removed_id = delta.filter(pc.equal(delta[DIFF_COLUMN], -1))[ROW_ID_COLUMN][0].as_py()
    first = changes(storage.snapshot(t1 - 1), s1, "t", row_ids=True)
    assert removed_id in first[ROW_ID_COLUMN].to_pylist()  # a −1 carries the id its +1 had
    assert changes(s2, s2, "t").num_rows == 0
    assert changes(s1, s2, "t", columns=["name"]).column_names == ["name", DIFF_COLUMN]


def test_a_file_added_and_partly_deleted_inside_the_interval(storage: Storage) -> None:
    ts = _clock()
    t0 = _commit(storage, ts, insert=[1])
    _commit(storage, ts, insert=[5, 6, 7])
    t2 = _commit(storage, ts, delete=[6, 1])
    assert _net(changes(storage.snapshot(t0), storage.snapshot(t2), "t")) == {(5, "n5"): 1, (7, "n7"): 1, (1, "n1"): -1}


def test_every_interval_adds_up_and_compaction_cancels(storage: Storage) -> None:
    ts = _clock()
    stamps = [_commit(storage, ts, insert=[1, 2, 3, 4])]
    stamps.append(_commit(storage, ts, insert=[5], delete=[1]))
    stamps.append(_commit(storage, ts, delete=[5, 3]))
    stamps.append(_commit(storage, ts, insert=[3, 9]))
    result = storage.compact(since=0, timestamp=lambda: next(ts))
    assert result.ts is not None
    stamps.append(result.ts)
    snaps = [storage.snapshot(t) for t in stamps]
    for i, j in itertools.combinations(range(len(snaps)), 2):
        before = {tuple(r.values()): 1 for r in snaps[i].read_arrow("t").to_pylist()}
        after = {tuple(r.values()): 1 for r in snaps[j].read_arrow("t").to_pylist()}
        expected = {k: 1 for k in after.keys() - before.keys()} | {k: -1 for k in before.keys() - after.keys()}
        assert _net(changes(snaps[i], snaps[j], "t")) == expected
    assert changes(snaps[-2], snaps[-1], "t").num_rows > 0  # the rewrite shows as −1/+1 pairs …
    assert _net(changes(snaps[-2], snaps[-1], "t")) == {}  # … that consolidate cancels


def test_consolidate_groups_nulls_and_drops_zero_sums() -> None:
    table = pa.table({"a": pa.array([1, None, 1, None, 2], pa.int64()), DIFF_COLUMN: [1, 1, -1, 1, -1]})
    assert consolidate(table).sort_by("a").to_pylist() == [{"a": 2, DIFF_COLUMN: -1}, {"a": None, DIFF_COLUMN: 2}]
