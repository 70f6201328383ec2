"""Keeping a source's collections in few files: ingestion commits one Parquet file per batch and subsource, so a
long-running source would leave a table of thousands of tiny files for every reader to open. `merge_small_files`
runs inside the batch's own storage transaction (the same commit, the same timestamp: contents unchanged) and
merges files of the same size tier (tier k: fewer than 16^(k+1) live rows) once `FANOUT` of them exist, size-tiered
as an LSM does: a row is rewritten about log16(rows) times over its life, and a table holds at most ~FANOUT files
per tier. Only the ingestion writes a source's tables, so the rewrite never conflicts with another writer; readers
at older timestamps keep reading the old files (storage removes files only when its compaction frontier passes).
"""

from __future__ import annotations

from collections import defaultdict

import pyarrow as pa

from sparkwire.storage import ROW_ID_COLUMN, DataFile, WriteTxn
from sparkwire.storage.files import read_data_files

FANOUT = 16


def _tier(rows: int) -> int:
    tier = 0
    while rows >= FANOUT ** (tier + 1):
        tier += 1
    return tier


def merge_small_files(txn: WriteTxn, table_id: str, schema: pa.Schema) -> int:
    """Merge one tier of `table_id` that has reached FANOUT files (the lowest such tier); returns the files merged."""
    tiers: dict[int, list[DataFile]] = defaultdict(list)
    for data_file in txn.data_files(table_id):
        tiers[_tier(data_file.live_rows)].append(data_file)
    full = sorted(t for t, files in tiers.items() if len(files) >= FANOUT)
    if not full:
        return 0
    group = tiers[full[0]]
    rows = read_data_files(schema, group, None, True)
    txn.delete_where(table_id, rows.column(ROW_ID_COLUMN))
    txn.append(table_id, rows.drop_columns([ROW_ID_COLUMN]))
    return len(group)
