"""`Snapshot`: every table as of one timestamp — the same contents for every reader at that timestamp.

Contract: a snapshot wraps an immutable `StorageState` and a timestamp `ts`; it never changes and never blocks a
writer. `files(id)` lists the visible data files with their deleted positions (for an engine that reads Parquet
itself: see `spark_reader`); `version(id)` identifies the visible contents cheaply; `write_times(id, after)` the
commit timestamps that changed them (for freshness); `read_arrow(id)` reads them with pyarrow, optionally with the
`ROW_ID_COLUMN` (see `files`) a `WriteTxn.delete_where` accepts. Files stay on disk as long as the table exists and
the compaction frontier (`Storage.compact(since=…)`) is not advanced past `ts`; reading after that raises
ObjectNotInPrerequisiteState (55000).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pyarrow as pa

from sparkwire.errors import ObjectNotInPrerequisiteState, UndefinedTable
from sparkwire.storage.files import data_path, read_data_files
from sparkwire.storage.model import DataFile, FileRecord, StorageState, TableRecord


class Snapshot:
    def __init__(self, root: Path, state: StorageState, ts: int) -> None:
        self._root = root
        self._state = state
        self.ts = ts

    def tables(self) -> frozenset[str]:
        return frozenset(self._state.tables)

    def _table(self, table_id: str) -> TableRecord:
        table = self._state.tables.get(table_id)
        if table is None:
            raise UndefinedTable(f"storage table {table_id!r} does not exist")
        return table

    def schema(self, table_id: str) -> pa.Schema:
        return self._table(table_id).schema

    @property
    def root(self) -> Path:
        return self._root

    @property
    def since(self) -> int:
        """The compaction frontier of the state this snapshot reads: what was removed at or before it is gone."""
        return self._state.since

    def records(self, table_id: str) -> Mapping[int, FileRecord]:
        """Every file of the table still on disk (visible at `ts` or not), by file number: for change feeds
        (storage/deltas.py), which compare two snapshots' visibility of the same files."""
        return self._table(table_id).files

    def files(self, table_id: str) -> list[DataFile]:
        """The data files visible at `ts`, oldest first, with the positions deleted as of `ts`."""
        table = self._table(table_id)
        return [
            DataFile(
                data_path(self._root, table_id, record.file_no), record.file_no, record.rows, record.deleted_at(self.ts)
            )
            for record in sorted(table.files.values(), key=lambda record: record.file_no)
            if record.visible_at(self.ts)
        ]

    def version(self, table_id: str) -> tuple[tuple[int, int], ...]:
        """What identifies the table's contents at `ts`: (file number, rows deleted) of each visible file, oldest
        first — `files` without building a path per file (resident relations compare it at every lookup)."""
        records = sorted(self._table(table_id).files.values(), key=lambda record: record.file_no)
        return tuple((r.file_no, len(r.deleted_at(self.ts))) for r in records if r.visible_at(self.ts))

    def write_times(self, table_id: str, after: int = -1) -> list[int]:
        """The commit timestamps in (`after`, `ts`] that changed the table's visible contents (files added or
        removed, rows deleted), ascending, as far as the files still on disk record them."""
        times: set[int] = set()
        for record in self._table(table_id).files.values():
            times.add(record.added_ts)
            if record.removed_ts is not None:
                times.add(record.removed_ts)
            times.update(version.ts for version in record.deletes)
        return sorted(t for t in times if after < t <= self.ts)

    def row_count(self, table_id: str) -> int:
        return sum(data_file.live_rows for data_file in self.files(table_id))

    def read_arrow(self, table_id: str, columns: Sequence[str] | None = None, row_ids: bool = False) -> pa.Table:
        """The table's rows at `ts` (in file order), `columns` only if given, plus `ROW_ID_COLUMN` if `row_ids`."""
        try:
            return read_data_files(self.schema(table_id), self.files(table_id), columns, row_ids)
        except FileNotFoundError:
            raise ObjectNotInPrerequisiteState(
                f"the data of storage table {table_id!r} at timestamp {self.ts} is no longer available"
            ) from None
