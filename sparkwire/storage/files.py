"""Data files on disk: `<root>/<table_id>/<file_no>.parquet`, written once, fsynced, never modified.

Contract: `write_data_file` returns only after the file's bytes are durable (the directory entry is made durable
by `fsync_dir`, which the committer calls once per table directory before the manifest commit).
`read_data_files` reads files as a reader at some timestamp sees them (deleted positions skipped, optionally with
a row-id column). Files of at most `DECODED_FILE_BYTES` are kept decoded after their first read, in one LRU of
`DECODED_BYTES` for the process: a table written by many small commits (one file each) is read at every write that
checks a key or matches a predicate and at every small-table query, and opening and decoding hundreds of tiny
Parquet files was most of an INSERT's time. A file is written once and never modified, and the cache is keyed by
its path, inode, size and modification time, so a path written anew (a file number reused after an aborted commit)
is never served from an older entry; a removed file raises FileNotFoundError as before (the key is a stat).
`remove_orphans` deletes every file and table directory the manifest does not reference: leftovers of aborted or
interrupted commits, compacted files and dropped tables.
"""

from __future__ import annotations

import os
import re
import shutil
import threading
from collections.abc import Mapping, Sequence, Set
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from cachetools import LRUCache

from sparkwire.errors import InvalidParameterValue
from sparkwire.storage.model import DataFile, row_ids

ROW_ID_COLUMN = "__sw_row_id"
"""The int64 column `read_arrow(..., row_ids=True)` adds; values are accepted by `WriteTxn.delete_where`."""

_THREADED_ROWS = 65536  # smaller files read faster on one thread
DECODED_FILE_BYTES = 1 << 20  # files up to this size on disk are kept decoded (see the module docstring)
DECODED_BYTES = 128 << 20  # the decoded files kept, in Arrow bytes
_decoded: LRUCache[tuple[str, int, int, int], pa.Table] = LRUCache(DECODED_BYTES, getsizeof=lambda t: max(t.nbytes, 1))
_decoded_lock = threading.Lock()
_TABLE_ID = re.compile(r"[A-Za-z0-9_]+")
_SUFFIX = ".parquet"


def table_dir(root: Path, table_id: str) -> Path:
    if not _TABLE_ID.fullmatch(table_id):
        raise InvalidParameterValue(f"invalid storage table id {table_id!r}")
    return root / table_id


def data_path(root: Path, table_id: str, file_no: int) -> Path:
    return table_dir(root, table_id) / f"{file_no:012d}{_SUFFIX}"


def fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_data_file(path: Path, table: pa.Table) -> None:
    with open(path, "wb") as out:
        pq.write_table(table, out, compression="zstd")
        out.flush()
        os.fsync(out.fileno())


def _parquet(data_file: DataFile, columns: Sequence[str] | None) -> pa.Table:
    with pq.ParquetFile(data_file.path, memory_map=True) as parquet:  # ~3x cheaper than pq.read_table per file
        return parquet.read(
            columns=list(columns) if columns is not None else None, use_threads=data_file.rows >= _THREADED_ROWS
        )


def _all_rows(data_file: DataFile, columns: Sequence[str] | None) -> pa.Table:
    """Every row the file holds (deleted or not), projected to `columns`; small files from the decoded cache."""
    stat = os.stat(data_file.path)
    if stat.st_size > DECODED_FILE_BYTES:
        return _parquet(data_file, columns)
    key = (str(data_file.path), stat.st_ino, stat.st_size, stat.st_mtime_ns)
    with _decoded_lock:
        table = _decoded.get(key)
    if table is None:
        table = _parquet(data_file, None)
        with _decoded_lock:
            _decoded[key] = table
    return table if columns is None else table.select(list(columns))


def read_data_file(data_file: DataFile, columns: Sequence[str] | None, with_row_ids: bool) -> pa.Table:
    table = _all_rows(data_file, columns)
    positions = np.arange(data_file.rows, dtype=np.int64)
    if len(data_file.deleted):
        keep = np.ones(data_file.rows, dtype=np.bool_)
        keep[data_file.deleted] = False
        table = table.filter(pa.array(keep))
        positions = positions[keep]
    if with_row_ids:
        table = table.append_column(ROW_ID_COLUMN, pa.array(row_ids(data_file.file_no, positions)))
    return table


def read_data_files(
    schema: pa.Schema, data_files: Sequence[DataFile], columns: Sequence[str] | None, with_row_ids: bool
) -> pa.Table:
    """Rows of `data_files` in order, as `schema` (projected to `columns`, plus `ROW_ID_COLUMN` if asked)."""
    if columns is not None:
        schema = pa.schema([schema.field(name) for name in columns])
    if with_row_ids:
        schema = schema.append(pa.field(ROW_ID_COLUMN, pa.int64(), nullable=False))
    parts = [read_data_file(data_file, columns, with_row_ids) for data_file in data_files]
    if not parts:
        return schema.empty_table()
    return pa.concat_tables(parts).cast(schema)


def remove_orphans(root: Path, referenced: Mapping[str, Set[int]]) -> None:
    """Delete files and directories under `root` that `referenced` (table id -> file numbers) does not name."""
    if not root.is_dir():
        return
    for entry in root.iterdir():
        if not entry.is_dir():
            continue
        files = referenced.get(entry.name)
        if files is None:
            shutil.rmtree(entry)
            continue
        for path in entry.iterdir():
            if not (
                path.name.endswith(_SUFFIX)
                and path.name[: -len(_SUFFIX)].isdigit()
                and int(path.name[: -len(_SUFFIX)]) in files
            ):
                path.unlink()
