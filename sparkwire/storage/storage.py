"""`Storage`: the tables of one data directory as definite collections.

Contract:
- `Storage.open(data_dir)` loads `<data_dir>/storage/` (manifest: see `manifest`; data files: see `files`),
  deletes orphan files left by interrupted commits, and locks the directory against a second process.
- `create_table(id, schema)` / `drop_table(id)` are immediate and durable. A created table is empty at every
  timestamp before its first write; a dropped table is gone at every timestamp (drop only what no reader needs).
- `begin()` starts a `WriteTxn`; its `commit(timestamp)` makes all its changes, across every table, visible
  together at that timestamp, durably (data files fsynced, then one SQLite transaction), or raises and changes
  nothing. Commit timestamps must increase: a timestamp at or below the latest commit, or at or below a timestamp
  some snapshot has already read, raises InternalError. Pass a callable (e.g. `catalog.write_ts`) to draw the
  timestamp under the storage lock, which orders concurrent committers correctly; it must not call back into
  Storage, and Storage must not be called while holding a lock the callable takes.
- `snapshot(ts=None)` reads every table at `ts` (default: the latest commit). Reading at `ts` seals it: no later
  commit may land at or below `ts`, so every reader at `ts` sees the same contents; a snapshot at `ts` waits for
  a commit in flight at or below `ts`. The seal lives in memory: after a restart commits resume above the
  latest commit, which keeps reads stable as long as timestamps come from a timeline that resumes above every
  timestamp it handed out before (the catalog's does). Reads below the compaction frontier `since` raise
  ObjectNotInPrerequisiteState. Snapshots never block commits and commits never rewrite a file a reader uses.
- `compact(since, timestamp)` merges small files (one commit at `timestamp`, contents unchanged; it fails with
  SerializationFailure only if a concurrent commit deleted rows of a file it merged), then advances the frontier
  to `since` (later commits land at `>= since`) and deletes what no reader at `>= since` can see. The caller
  picks `since` no later than the oldest timestamp it will still read at.

Thread-safety: every method may be called from any thread. Commits and DDL serialize on one lock; the state
readers see is an immutable value swapped under a short condition lock.
"""

from __future__ import annotations

import itertools
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pyarrow as pa

from sparkwire.errors import (
    DuplicateTable,
    InternalError,
    ObjectNotInPrerequisiteState,
    SerializationFailure,
    UndefinedTable,
)
from sparkwire.storage.changes import Commit, TableChange, apply_commit, prune
from sparkwire.storage.compaction import rewrite_table
from sparkwire.storage.files import data_path, fsync_dir, remove_orphans, table_dir
from sparkwire.storage.manifest import Manifest
from sparkwire.storage.model import StorageState, TableRecord
from sparkwire.storage.snapshot import Snapshot
from sparkwire.storage.txn import Timestamp, WriteTxn

DEFAULT_TARGET_ROWS = 1_000_000


@dataclass(frozen=True, slots=True)
class CompactionResult:
    """`ts`: the rewrite's commit timestamp (None if nothing was rewritten); counts of files merged, written and
    deleted from disk."""

    ts: int | None
    merged_files: int
    written_files: int
    deleted_files: int


class Storage:
    def __init__(self, root: Path, manifest: Manifest, state: StorageState) -> None:
        self._root = root
        self._manifest = manifest
        self._state = state
        self._commit_lock = threading.Lock()
        self._cond = threading.Condition()
        self._upper = max(state.latest_ts + 1, state.since)  # the lowest timestamp a commit may still take
        self._in_flight: int | None = None  # timestamp of a commit being made durable
        start = 1 + max((no for table in state.tables.values() for no in table.files), default=0)
        self._file_numbers: Iterator[int] = itertools.count(start)
        self._file_lock = threading.Lock()

    @classmethod
    def open(cls, data_dir: Path) -> Storage:
        root = data_dir / "storage"
        manifest = Manifest.open(root)
        try:
            state = manifest.load()
            remove_orphans(root, {table_id: set(table.files) for table_id, table in state.tables.items()})
        except BaseException:
            manifest.close()
            raise
        return cls(root, manifest, state)

    def close(self) -> None:
        with self._commit_lock:
            self._manifest.close()

    # ---- reading -----------------------------------------------------------------------------------------

    @property
    def data_dir(self) -> Path:
        """The data directory this storage lives in (`<data_dir>/storage/`)."""
        return self._root.parent

    @property
    def latest_ts(self) -> int:
        return self._state.latest_ts

    @property
    def since(self) -> int:
        return self._state.since

    def tables(self) -> frozenset[str]:
        return frozenset(self._state.tables)

    def snapshot(self, ts: int | None = None) -> Snapshot:
        with self._cond:
            if ts is None:
                ts = self._state.latest_ts
            while self._in_flight is not None and self._in_flight <= ts:
                self._cond.wait()
            if ts < self._state.since:
                raise ObjectNotInPrerequisiteState(
                    f"timestamp {ts} is before the storage compaction frontier {self._state.since}"
                )
            self._upper = max(self._upper, ts + 1)
            return Snapshot(self._root, self._state, ts)

    def wait_for_commit(self, after_ts: int, timeout: float) -> bool:
        """Wait up to `timeout` seconds for a commit above `after_ts` (followers of the latest commit: maintained
        views, subscriptions); True when there is one."""
        with self._cond:
            return self._cond.wait_for(lambda: self._state.latest_ts > after_ts, timeout)

    # ---- tables ------------------------------------------------------------------------------------------

    def _swap(self, state: StorageState) -> None:
        with self._cond:
            self._state = state
            self._in_flight = None
            self._cond.notify_all()

    def create_table(self, table_id: str, schema: pa.Schema) -> None:
        directory = table_dir(self._root, table_id)
        with self._commit_lock:
            state = self._state
            if table_id in state.tables:
                raise DuplicateTable(f"storage table {table_id!r} already exists")
            directory.mkdir(exist_ok=True)
            fsync_dir(self._root)
            self._manifest.create_table(table_id, schema)
            table = TableRecord(table_id, schema, {}, state.latest_ts)
            self._swap(replace(state, tables={**state.tables, table_id: table}))

    def drop_table(self, table_id: str) -> None:
        with self._commit_lock:
            state = self._state
            if table_id not in state.tables:
                raise UndefinedTable(f"storage table {table_id!r} does not exist")
            self._manifest.drop_table(table_id)
            self._swap(replace(state, tables={k: v for k, v in state.tables.items() if k != table_id}))
            shutil.rmtree(table_dir(self._root, table_id), ignore_errors=True)

    # ---- writing -----------------------------------------------------------------------------------------

    def _allocate_file_no(self) -> int:
        with self._file_lock:
            return next(self._file_numbers)

    def begin(self) -> WriteTxn:
        return WriteTxn(self._root, self._state, self._allocate_file_no, self._commit, lambda: self._state)

    def _validate(self, state: StorageState, change: TableChange, base_ts: int, dependent: bool) -> None:
        table = state.tables.get(change.table_id)
        if table is None:
            raise UndefinedTable(f"storage table {change.table_id!r} does not exist")
        conflict = SerializationFailure(
            f"could not serialize access to table {change.table_id!r} due to a concurrent write"
        )
        if dependent and table.last_write_ts > base_ts:
            raise conflict
        for file_no in (*change.removed, *change.deletes):  # the files changed must be as the writer saw them
            record = table.files.get(file_no)
            if record is None or record.removed_ts is not None or (record.deletes and record.deletes[-1].ts > base_ts):
                raise conflict
        for file_no, _, _ in change.added:
            if not data_path(self._root, change.table_id, file_no).exists():
                raise SerializationFailure(f"storage table {change.table_id!r} was dropped during the transaction")

    def _commit(
        self, changes: tuple[TableChange, ...], base_ts: int, dependent: frozenset[str], timestamp: Timestamp
    ) -> int:
        changes = tuple(change for change in changes if not change.empty)
        if not changes:
            return base_ts
        with self._commit_lock:
            state = self._state
            for change in changes:
                self._validate(state, change, base_ts, change.table_id in dependent)
                if change.added:
                    fsync_dir(table_dir(self._root, change.table_id))
            with self._cond:
                ts = timestamp() if callable(timestamp) else timestamp
                if ts < self._upper:
                    raise InternalError(f"storage commit timestamp {ts} is not above {self._upper - 1}")
                self._upper = ts + 1
                self._in_flight = ts
            commit = Commit(ts, changes)
            try:
                self._manifest.commit(commit)
            except BaseException:
                self._swap(state)
                raise
            self._swap(apply_commit(state, commit))
            return ts

    # ---- compaction --------------------------------------------------------------------------------------

    def compact(self, since: int, timestamp: Timestamp, target_rows: int = DEFAULT_TARGET_ROWS) -> CompactionResult:
        base = self._state
        written: list[Path] = []
        changes: list[TableChange] = []
        try:
            snapshot = Snapshot(self._root, base, base.latest_ts)
            for table_id, table in base.tables.items():
                change = rewrite_table(
                    self._root,
                    table_id,
                    table.schema,
                    snapshot.files(table_id),
                    target_rows,
                    self._allocate_file_no,
                    written,
                )
                if change is not None:
                    changes.append(change)
            ts = self._commit(tuple(changes), base.latest_ts, frozenset(), timestamp)
        except BaseException:
            for path in written:
                path.unlink(missing_ok=True)
            raise
        with self._commit_lock:
            with self._cond:
                since = max(since, self._state.since)
                self._upper = max(self._upper, since)  # no commit may land where no reader may read
                pruned, forgotten = prune(self._state, since)
            self._manifest.forget(since, forgotten)
            self._swap(pruned)
        for table_id, file_no in forgotten.files:
            data_path(self._root, table_id, file_no).unlink(missing_ok=True)
        return CompactionResult(
            ts if changes else None, sum(len(c.removed) for c in changes), len(written), len(forgotten.files)
        )
