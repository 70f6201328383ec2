"""A commit as data, and the pure functions that advance the in-memory state: `apply_commit` and `prune`.

Contract: `Commit` is what one transaction (or one compaction) changes, across any number of tables, at one
timestamp; the manifest persists it in one SQLite transaction and `apply_commit` produces the state readers see
afterwards — the same function whether the commit was just made or is being replayed. `prune(state, since)`
drops what no reader at a timestamp `>= since` can see: files removed at or before `since` and delete versions
superseded at or before `since`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from sparkwire.storage.model import DeleteVersion, FileRecord, Positions, StorageState, TableRecord


@dataclass(frozen=True, slots=True, eq=False)
class TableChange:
    """`added`: new files (number, rows, positions already deleted); `removed`: file numbers no longer visible;
    `deletes`: the new cumulative deleted positions of files that stay."""

    table_id: str
    added: tuple[tuple[int, int, Positions], ...] = ()
    removed: frozenset[int] = frozenset()
    deletes: Mapping[int, Positions] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.deletes)


@dataclass(frozen=True, slots=True, eq=False)
class Commit:
    ts: int
    changes: tuple[TableChange, ...]


@dataclass(frozen=True, slots=True)
class Forgotten:
    """What `prune` dropped: whole files (table id, file number) and delete versions (table id, file, ts)."""

    files: tuple[tuple[str, int], ...]
    delete_versions: tuple[tuple[str, int, int], ...]


def _new_file(ts: int, file_no: int, rows: int, deleted: Positions) -> FileRecord:
    deletes = (DeleteVersion(ts, deleted),) if len(deleted) else ()
    return FileRecord(file_no, rows, added_ts=ts, deletes=deletes)


def _apply_table(table: TableRecord, change: TableChange, ts: int) -> TableRecord:
    files = dict(table.files)
    for file_no in change.removed:
        files[file_no] = replace(files[file_no], removed_ts=ts)
    for file_no, positions in change.deletes.items():
        record = files[file_no]
        files[file_no] = replace(record, deletes=(*record.deletes, DeleteVersion(ts, positions)))
    for file_no, rows, deleted in change.added:
        files[file_no] = _new_file(ts, file_no, rows, deleted)
    return replace(table, files=files, last_write_ts=ts)


def apply_commit(state: StorageState, commit: Commit) -> StorageState:
    tables = dict(state.tables)
    for change in commit.changes:
        tables[change.table_id] = _apply_table(tables[change.table_id], change, commit.ts)
    return replace(state, tables=tables, latest_ts=max(state.latest_ts, commit.ts))


def _prune_file(record: FileRecord, since: int) -> tuple[FileRecord, list[int]]:
    """Keep delete versions newer than `since` and the newest at or before it."""
    older = [version for version in record.deletes if version.ts <= since]
    if len(older) < 2:
        return record, []
    kept = tuple(version for version in record.deletes if version.ts > since)
    return replace(record, deletes=(older[-1], *kept)), [version.ts for version in older[:-1]]


def prune(state: StorageState, since: int) -> tuple[StorageState, Forgotten]:
    since = max(since, state.since)
    tables: dict[str, TableRecord] = {}
    files_gone: list[tuple[str, int]] = []
    versions_gone: list[tuple[str, int, int]] = []
    for table_id, table in state.tables.items():
        files: dict[int, FileRecord] = {}
        for file_no, record in table.files.items():
            if record.removed_ts is not None and record.removed_ts <= since:
                files_gone.append((table_id, file_no))
                continue
            files[file_no], dropped = _prune_file(record, since)
            versions_gone.extend((table_id, file_no, ts) for ts in dropped)
        tables[table_id] = replace(table, files=files)
    return (
        StorageState(tables, state.latest_ts, since),
        Forgotten(tuple(files_gone), tuple(versions_gone)),
    )
