"""A table's changes between two snapshots: the rows that appeared (+1) and disappeared (−1), with their row ids.

Contract: `changes(before, after, table_id, columns=None, row_ids=False)` — `before.ts <= after.ts`, both snapshots
of the same storage — returns a `pa.Table` of the table's columns (`columns` only, if given), then
`ROW_ID_COLUMN` when `row_ids`, then `DIFF_COLUMN` (int64): +1 for every row visible at `after.ts` but not at
`before.ts`, −1 for every row visible at `before.ts` but not at `after.ts`. Rows come in file order, insertions of a
file before deletions of a later one; nothing is consolidated (a compaction that rewrote a file shows its rows
twice, −1 under the old row ids and +1 under the new ones; `consolidate` cancels them by value). An UPDATE is a −1
of the old row and a +1 of the new one. A row's id names one row of one immutable file, so a −1 carries the id its
+1 had (maintained relations keyed by row id rely on it: compute/dataflow/).

Cost: only the files that changed are read (a file added, removed or with rows newly deleted in the interval);
small files come from the decoded-file cache (files.py). Reading below the compaction frontier (`after.since`)
raises ObjectNotInPrerequisiteState, as a snapshot read does.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from sparkwire.errors import ObjectNotInPrerequisiteState
from sparkwire.storage.files import ROW_ID_COLUMN, data_path, read_data_file
from sparkwire.storage.model import NO_POSITIONS, DataFile, FileRecord, Positions
from sparkwire.storage.snapshot import Snapshot

DIFF_COLUMN = "__diff"


def _file_delta(record: FileRecord, before: int, after: int) -> tuple[Positions | None, Positions | None]:
    """Which of a file's rows changed between the two timestamps: (its deleted positions at `after`, None) when the
    file appeared (its live rows are +1), (None, positions) for rows that disappeared (−1), (None, None) if none."""
    seen, sees = record.visible_at(before), record.visible_at(after)
    if sees and not seen:
        return record.deleted_at(after), None
    if seen and not sees:
        deleted = record.deleted_at(before)
        keep = np.ones(record.rows, dtype=np.bool_)
        keep[deleted] = False
        return None, np.flatnonzero(keep).astype(np.int64)
    if seen and sees:
        old, new = record.deleted_at(before), record.deleted_at(after)
        if len(new) == len(old):
            return None, None
        return None, np.setdiff1d(new, old, assume_unique=True).astype(np.int64)
    return None, None


def _removed_rows(data_file: DataFile, positions: Positions, columns: Sequence[str] | None, row_ids: bool) -> pa.Table:
    """Rows at `positions` of a file (as if every other row were deleted)."""
    keep = np.zeros(data_file.rows, dtype=np.bool_)
    keep[positions] = True
    others = np.flatnonzero(~keep).astype(np.int64)
    return read_data_file(DataFile(data_file.path, data_file.file_no, data_file.rows, others), columns, row_ids)


def changes(
    before: Snapshot, after: Snapshot, table_id: str, columns: Sequence[str] | None = None, row_ids: bool = False
) -> pa.Table:
    if before.ts < after.since:
        raise ObjectNotInPrerequisiteState(
            f"the changes of storage table {table_id!r} since timestamp {before.ts} are no longer available"
        )
    schema = after.schema(table_id)
    if columns is not None:
        schema = pa.schema([schema.field(name) for name in columns])
    if row_ids:
        schema = schema.append(pa.field(ROW_ID_COLUMN, pa.int64(), nullable=False))
    schema = schema.append(pa.field(DIFF_COLUMN, pa.int64(), nullable=False))
    parts: list[pa.Table] = []
    if before.ts < after.ts:
        for file_no in sorted(after.records(table_id)):
            record = after.records(table_id)[file_no]
            inserted_deleted, removed = _file_delta(record, before.ts, after.ts)
            if inserted_deleted is None and removed is None:
                continue
            data_file = DataFile(data_path(after.root, table_id, file_no), file_no, record.rows, NO_POSITIONS)
            try:
                if inserted_deleted is not None:
                    rows, diff = (
                        read_data_file(
                            DataFile(data_file.path, file_no, record.rows, inserted_deleted), columns, row_ids
                        ),
                        1,
                    )
                else:
                    assert removed is not None
                    if not len(removed):
                        continue
                    rows, diff = _removed_rows(data_file, removed, columns, row_ids), -1
            except FileNotFoundError:
                raise ObjectNotInPrerequisiteState(
                    f"the changes of storage table {table_id!r} since timestamp {before.ts} are no longer available"
                ) from None
            if rows.num_rows:
                parts.append(rows.append_column(DIFF_COLUMN, pa.array(np.full(rows.num_rows, diff, dtype=np.int64))))
    if not parts:
        return schema.empty_table()
    return pa.concat_tables(parts).cast(schema)


def consolidate(table: pa.Table, diff_column: str = DIFF_COLUMN) -> pa.Table:
    """Sum the diffs of equal rows (every column but `diff_column`) and drop those that sum to zero; the result
    has one row per distinct row with its net diff. Rows with a NULL compare equal here (a multiset's rows)."""
    keys = [name for name in table.column_names if name != diff_column]
    if not table.num_rows:
        return table
    if not keys:
        total = pc.sum(table.column(diff_column)).as_py() or 0
        return table.slice(0, 0) if total == 0 else pa.table({diff_column: pa.array([total], pa.int64())})
    grouped = table.group_by(keys, use_threads=False).aggregate([(diff_column, "sum")])
    grouped = grouped.rename_columns([*keys, diff_column]).select(table.column_names)
    return grouped.filter(pc.not_equal(grouped.column(diff_column), 0))
