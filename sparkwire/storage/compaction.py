"""Compaction policy: merge a table's small files (and files with deleted rows) into few full ones.

Contract: `rewrite_table` looks at the files visible at one timestamp and, when there is something to gain (two or
more candidate files, or any file with deleted rows), writes their live rows into new files of at most
`target_rows` rows and returns the `TableChange` that swaps them in. The change leaves the table's contents
unchanged; the caller commits it like any write (so a concurrent delete on the table makes it fail and nothing is
lost). A candidate is a file with fewer than `target_rows` live rows or with any deleted rows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pyarrow as pa

from sparkwire.storage.changes import TableChange
from sparkwire.storage.files import data_path, read_data_files, write_data_file
from sparkwire.storage.model import NO_POSITIONS, DataFile


def rewrite_table(
    root: Path,
    table_id: str,
    schema: pa.Schema,
    files: Sequence[DataFile],
    target_rows: int,
    allocate_file_no: Callable[[], int],
    written: list[Path],
) -> TableChange | None:
    """Write the merged files (their paths are appended to `written`, for cleanup if the commit fails)."""
    candidates = [f for f in files if f.live_rows < target_rows or len(f.deleted)]
    if len(candidates) < 2 and not any(len(f.deleted) for f in candidates):
        return None
    merged = read_data_files(schema, candidates, None, with_row_ids=False)
    added: list[tuple[int, int]] = []
    for start in range(0, merged.num_rows, target_rows):
        chunk = merged.slice(start, target_rows)
        file_no = allocate_file_no()
        path = data_path(root, table_id, file_no)
        written.append(path)
        write_data_file(path, chunk)
        added.append((file_no, chunk.num_rows))
    return TableChange(
        table_id,
        added=tuple((no, rows, NO_POSITIONS) for no, rows in added),
        removed=frozenset(f.file_no for f in candidates),
    )
