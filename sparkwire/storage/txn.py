"""`WriteTxn`: buffered writes to any number of tables, committed together at one timestamp or not at all.

Contract: a transaction starts from the latest committed state (`base_ts`) and keeps a private view of every
table it touches; `append`, `delete_where` and `replace` change that view (appended rows go to new Parquet files
at once, written and fsynced with plain pyarrow — no engine involved), and `read_arrow` reads it (the
transaction's own writes included). `commit(timestamp)` hands the differences to the storage, which commits them
atomically (see `Storage`); `abort()` discards them. Either way the transaction is finished: further calls raise
InvalidTransactionState (25000).

Concurrency is optimistic: appends are blind writes and never conflict; a transaction that deleted or replaced
rows of a table fails its commit with SerializationFailure (40001) if another commit wrote that table after
`base_ts` — the caller retries the statement. Row selection for `delete_where` is either a function from an
Arrow table (one data file's visible rows) to a boolean mask (null counts as false, like SQL's WHERE; the
function must be row-wise) or row ids from `read_arrow(..., row_ids=True)` of this transaction or of a snapshot
at `base_ts`. A transaction is used by one thread at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeAlias

import numpy as np
import pyarrow as pa

from sparkwire.errors import (
    DatatypeMismatch,
    InvalidParameterValue,
    InvalidTransactionState,
    SerializationFailure,
    UndefinedTable,
)
from sparkwire.storage.changes import TableChange
from sparkwire.storage.files import ROW_ID_COLUMN, data_path, read_data_files, write_data_file
from sparkwire.storage.model import (
    NO_POSITIONS,
    DataFile,
    Positions,
    StorageState,
    TableRecord,
    frozen_positions,
    split_row_ids,
)

MaskFn: TypeAlias = Callable[[pa.Table], Any]
"""Row-wise predicate: an Arrow table in, a boolean array (or anything `pa.array` accepts) of the same length out."""

RowSelector: TypeAlias = MaskFn | Iterable[int] | pa.Array | pa.ChunkedArray
Timestamp: TypeAlias = int | Callable[[], int]


class Committer(Protocol):
    def __call__(
        self, changes: tuple[TableChange, ...], base_ts: int, dependent: frozenset[str], timestamp: Timestamp
    ) -> int: ...


@dataclass(slots=True)
class _ViewFile:
    rows: int
    deleted: Positions
    pending: bool  # written by this transaction


@dataclass(slots=True)
class _TableView:
    """A table as the transaction sees it. The base's files are listed on first use (`files`): a transaction that
    only appends never lists them, so an INSERT costs the same however many files the table has."""

    schema: pa.Schema
    base: Callable[[], dict[int, _ViewFile]]  # the files visible at the transaction's base
    listed: dict[int, _ViewFile] | None = None  # base files, then this transaction's: once `files` was asked for
    appended: dict[int, _ViewFile] = field(default_factory=dict)  # this transaction's files, until then
    removed: set[int] = field(default_factory=set)
    changed: set[int] = field(default_factory=set)
    dependent: bool = False

    @property
    def files(self) -> dict[int, _ViewFile]:
        if self.listed is None:
            self.listed = self.base() | self.appended
            self.appended = {}
        return self.listed

    def add(self, file_no: int, rows: int) -> None:
        (self.appended if self.listed is None else self.listed)[file_no] = _ViewFile(rows, NO_POSITIONS, True)

    def _known(self) -> dict[int, _ViewFile]:
        """The files known without listing the base: this transaction's own, or all of them once listed."""
        return self.appended if self.listed is None else self.listed

    def wrote(self) -> bool:
        return bool(self.removed or self.changed) or any(f.pending for f in self._known().values())

    def change(self, table_id: str) -> TableChange:
        files = self._known()
        return TableChange(
            table_id,
            added=tuple((no, f.rows, f.deleted) for no, f in sorted(files.items()) if f.pending),
            removed=frozenset(self.removed),
            deletes={no: files[no].deleted for no in sorted(self.changed) if not files[no].pending},
        )


def _conform(table: pa.Table, schema: pa.Schema, table_id: str) -> pa.Table:
    if sorted(table.column_names) != sorted(schema.names):
        raise DatatypeMismatch(
            f"columns {table.column_names} do not match storage table {table_id!r} columns {schema.names}"
        )
    try:
        return table.select(schema.names).cast(schema)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as exc:
        raise DatatypeMismatch(f"rows do not fit storage table {table_id!r}: {exc}") from None


def _mask(selected: Any, rows: int) -> np.ndarray[Any, np.dtype[np.bool_]]:
    array = selected if isinstance(selected, pa.Array | pa.ChunkedArray) else pa.array(selected, type=pa.bool_())
    if len(array) != rows or not pa.types.is_boolean(array.type):
        raise InvalidParameterValue(f"a delete predicate must return {rows} booleans")
    result: np.ndarray[Any, np.dtype[np.bool_]] = np.asarray(array.fill_null(False).to_numpy(zero_copy_only=False))
    return result


class WriteTxn:
    def __init__(
        self,
        root: Path,
        base: StorageState,
        allocate_file_no: Callable[[], int],
        committer: Committer,
        latest: Callable[[], StorageState] | None = None,
    ):
        self._root = root
        self._base = base
        self._latest = latest or (lambda: base)
        self._allocate = allocate_file_no
        self._committer = committer
        self._views: dict[str, _TableView] = {}
        self._written: list[Path] = []
        self._open = True

    @property
    def base_ts(self) -> int:
        return self._base.latest_ts

    def _table(self, table_id: str) -> TableRecord:
        """The table at the base, or as created after it (empty at the base: its files all came later)."""
        table = self._base.tables.get(table_id) or self._latest().tables.get(table_id)
        if table is None:
            raise UndefinedTable(f"storage table {table_id!r} does not exist")
        return table

    def _view(self, table_id: str) -> _TableView:
        if not self._open:
            raise InvalidTransactionState("the storage transaction is already finished")
        view = self._views.get(table_id)
        if view is None:
            table = self._table(table_id)
            ts = self._base.latest_ts

            def base() -> dict[int, _ViewFile]:
                return {
                    no: _ViewFile(record.rows, record.deleted_at(ts), pending=False)
                    for no, record in table.files.items()
                    if record.visible_at(ts)
                }

            view = self._views[table_id] = _TableView(table.schema, base)
        return view

    def _data_files(self, table_id: str, view: _TableView) -> list[DataFile]:
        return [
            DataFile(data_path(self._root, table_id, no), no, f.rows, f.deleted) for no, f in sorted(view.files.items())
        ]

    def data_files(self, table_id: str) -> list[DataFile]:
        """The data files of `table_id` as this transaction sees them (its own pending files included), oldest
        first, with their deleted positions; for an engine that reads Parquet itself (see `spark_reader`)."""
        if not self._open:
            raise InvalidTransactionState("the storage transaction is already finished")
        view = self._views.get(table_id)
        if view is not None:
            return self._data_files(table_id, view)
        table = self._table(table_id)
        ts = self._base.latest_ts
        return [
            DataFile(data_path(self._root, table_id, no), no, record.rows, record.deleted_at(ts))
            for no, record in sorted(table.files.items())
            if record.visible_at(ts)
        ]

    def written_tables(self) -> frozenset[str]:
        """The tables this transaction has changed so far (appended, deleted or replaced rows)."""
        return frozenset(
            table_id
            for table_id, view in self._views.items()
            if view.wrote()
        )

    def _read(self, view: _TableView, files: list[DataFile], columns: list[str] | None, row_ids: bool) -> pa.Table:
        try:
            return read_data_files(view.schema, files, columns, row_ids)
        except FileNotFoundError:  # compacted away (the caller advanced `since` past base_ts) or dropped
            raise SerializationFailure("the storage transaction's snapshot is no longer available") from None

    def read_arrow(self, table_id: str, columns: list[str] | None = None, row_ids: bool = False) -> pa.Table:
        """The table as this transaction sees it (see `Snapshot.read_arrow`)."""
        view = self._view(table_id)
        return self._read(view, self._data_files(table_id, view), columns, row_ids)

    def append(self, table_id: str, rows: pa.Table) -> int:
        """Add `rows` (columns by name, cast to the table's types); returns how many."""
        view = self._view(table_id)
        rows = _conform(rows, view.schema, table_id)
        if rows.num_rows == 0:
            return 0
        file_no = self._allocate()
        path = data_path(self._root, table_id, file_no)
        self._written.append(path)
        write_data_file(path, rows)
        view.add(file_no, rows.num_rows)
        return int(rows.num_rows)

    def _delete(self, table_id: str, view: _TableView, file_no: int, positions: Positions) -> int:
        entry = view.files[file_no]
        deleted = frozen_positions(np.concatenate([entry.deleted, positions]))
        count = len(deleted) - len(entry.deleted)
        if len(deleted) == entry.rows:
            del view.files[file_no]
            view.changed.discard(file_no)
            if entry.pending:
                data_path(self._root, table_id, file_no).unlink()
            else:
                view.removed.add(file_no)
        elif count:
            entry.deleted = deleted
            view.changed.add(file_no)
        return count

    def delete_where(self, table_id: str, selector: RowSelector) -> int:
        """Delete the selected visible rows; returns how many were deleted."""
        view = self._view(table_id)
        view.dependent = True
        if callable(selector):
            count = 0
            for data_file in self._data_files(table_id, view):
                rows = self._read(view, [data_file], None, row_ids=True)
                mask = _mask(selector(rows.drop_columns([ROW_ID_COLUMN])), rows.num_rows)
                _, positions = split_row_ids(rows.column(ROW_ID_COLUMN).to_numpy()[mask])
                count += self._delete(table_id, view, data_file.file_no, positions)
            return count
        ids = np.asarray(
            selector.to_numpy(zero_copy_only=False)
            if isinstance(selector, pa.Array | pa.ChunkedArray)
            else list(selector),
            dtype=np.int64,
        )
        files, positions = split_row_ids(ids)
        count = 0
        for file_no in np.unique(files).tolist():
            entry = view.files.get(file_no)
            chosen = positions[files == file_no]
            if entry is None or int(chosen.max()) >= entry.rows:
                raise InvalidParameterValue(f"row id not visible in storage table {table_id!r}")
            count += self._delete(table_id, view, file_no, chosen)
        return count

    def replace(self, table_id: str, rows: pa.Table) -> int:
        """Make `rows` the table's whole contents (TRUNCATE + INSERT); returns how many rows it now has."""
        view = self._view(table_id)
        view.dependent = True
        rows = _conform(rows, view.schema, table_id)
        for file_no, entry in list(view.files.items()):
            self._delete(table_id, view, file_no, np.arange(entry.rows, dtype=np.int64))
        return self.append(table_id, rows)

    def _finish(self) -> None:
        if not self._open:
            raise InvalidTransactionState("the storage transaction is already finished")
        self._open = False

    def commit(self, timestamp: Timestamp) -> int:
        """Commit atomically at `timestamp` (or at what the callable returns, called under the storage's commit
        lock); returns the commit's timestamp, or the base timestamp if nothing changed."""
        self._finish()
        changes = tuple(view.change(table_id) for table_id, view in self._views.items())
        dependent = frozenset(table_id for table_id, view in self._views.items() if view.dependent)
        try:
            return self._committer(changes, self.base_ts, dependent, timestamp)
        except BaseException:
            self._discard()
            raise

    def abort(self) -> None:
        self._finish()
        self._discard()

    def forget_tables(self, keep: frozenset[str]) -> None:
        """Drop this transaction's changes to every table not in `keep` (tables dropped while it was open: their
        writes have nowhere to go), deleting the files it wrote for them."""
        for table_id in [t for t in self._views if t not in keep]:
            del self._views[table_id]
            directory = data_path(self._root, table_id, 0).parent
            for path in [p for p in self._written if p.parent == directory]:
                path.unlink(missing_ok=True)
                self._written.remove(path)

    def _discard(self) -> None:
        for path in self._written:
            path.unlink(missing_ok=True)
