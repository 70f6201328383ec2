"""The in-memory image of the storage manifest: immutable records, and what is visible at a timestamp.

Contract: every value here is immutable once published (numpy arrays are made read-only), so readers share a
`StorageState` without locks while the writer builds the next one. A data file is visible at `ts` when
`added_ts <= ts` and (`removed_ts is None` or `ts < removed_ts`); its deleted rows at `ts` are the positions of
the newest `DeleteVersion` with `ts' <= ts` (each version is cumulative, so one lookup suffices).

Row ids: a row's id is `file_no << 32 | position` (`row_id`/`split_row_ids`); it names one row of one
immutable file, so it stays valid at every timestamp at which that file is visible.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

Positions = npt.NDArray[np.int64]
"""Sorted, unique row positions inside one data file."""

_POSITION_BITS = 32
NO_POSITIONS: Positions = np.empty(0, dtype=np.int64)
NO_POSITIONS.setflags(write=False)


def frozen_positions(values: Any) -> Positions:
    """A sorted, unique, read-only int64 array of positions."""
    result: Positions = np.unique(np.asarray(values, dtype=np.int64))
    result.setflags(write=False)
    return result


def row_ids(file_no: int, positions: Positions) -> Positions:
    ids: Positions = (np.int64(file_no) << _POSITION_BITS) | positions
    return ids


def split_row_ids(ids: Positions) -> tuple[Positions, Positions]:
    """(file numbers, positions) of row ids."""
    files: Positions = ids >> _POSITION_BITS
    positions: Positions = ids & ((1 << _POSITION_BITS) - 1)
    return files, positions


@dataclass(frozen=True, slots=True, eq=False)
class DeleteVersion:
    """The rows of a file deleted as of `ts` (cumulative: includes every earlier version's rows)."""

    ts: int
    positions: Positions


@dataclass(frozen=True, slots=True)
class FileRecord:
    file_no: int
    rows: int
    added_ts: int
    removed_ts: int | None = None
    deletes: tuple[DeleteVersion, ...] = ()

    def visible_at(self, ts: int) -> bool:
        return self.added_ts <= ts and (self.removed_ts is None or ts < self.removed_ts)

    def deleted_at(self, ts: int) -> Positions:
        found = NO_POSITIONS
        for version in self.deletes:
            if version.ts > ts:
                break
            found = version.positions
        return found


@dataclass(frozen=True, slots=True)
class TableRecord:
    """One collection: its Arrow schema, every data file still on disk, and its last commit timestamp."""

    table_id: str
    schema: pa.Schema
    files: Mapping[int, FileRecord] = field(default_factory=dict)
    last_write_ts: int = 0


@dataclass(frozen=True, slots=True)
class StorageState:
    """`latest_ts`: the newest commit; `since`: the compaction frontier (reads below it are refused)."""

    tables: Mapping[str, TableRecord]
    latest_ts: int
    since: int


@dataclass(frozen=True, slots=True, eq=False)
class DataFile:
    """A file of a table as a reader at some timestamp sees it: read `path`, skip the `deleted` positions."""

    path: Path
    file_no: int
    rows: int
    deleted: Positions

    @property
    def live_rows(self) -> int:
        return self.rows - len(self.deleted)
