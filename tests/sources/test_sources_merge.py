"""Size-tiered merging of a source's small files (sources/merge.py), on storage alone: 300 one-row commits leave
few files, the same rows, and older snapshots unchanged."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from sparkwire.sources.merge import FANOUT, merge_small_files
from sparkwire.storage import Storage


def test_many_small_commits_stay_few_files(tmp_path: Path) -> None:
    storage = Storage.open(tmp_path)
    schema = pa.schema([("v", pa.int64())])
    storage.create_table("u1", schema)
    ts = 0
    early = None
    try:
        for v in range(300):
            txn = storage.begin()
            txn.append("u1", pa.table({"v": [v]}))
            merge_small_files(txn, "u1", schema)
            ts = txn.commit(ts + 1)
            if v == 20:
                early = ts
        snapshot = storage.snapshot()
        assert sorted(snapshot.read_arrow("u1").column("v").to_pylist()) == list(range(300))
        assert len(snapshot.files("u1")) < 2 * FANOUT
        assert early is not None
        assert sorted(storage.snapshot(early).read_arrow("u1").column("v").to_pylist()) == list(range(21))
    finally:
        storage.close()
