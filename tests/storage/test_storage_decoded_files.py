"""Small data files are kept decoded after their first read (storage/files.py): reads see exactly what the files
hold, a path written anew is read anew, a removed file is still an error, and projections and deletion vectors
apply to the kept rows as to a fresh read. On real files in the test's temp dir."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from sparkwire.storage.files import DECODED_FILE_BYTES, read_data_files, write_data_file
from sparkwire.storage.model import NO_POSITIONS, DataFile

SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string())])


def _table(ids: range) -> pa.Table:
    return pa.table({"id": pa.array(list(ids), pa.int64()), "name": pa.array([f"n{i}" for i in ids])})


def _file(path: Path, table: pa.Table, file_no: int = 1, deleted: list[int] | None = None) -> DataFile:
    positions = np.array(deleted, dtype=np.int64) if deleted else NO_POSITIONS
    return DataFile(path=path, file_no=file_no, rows=table.num_rows, deleted=positions)


def test_reads_repeat_the_files_contents_with_projection_and_deletions(tmp_path: Path) -> None:
    first, second = _table(range(0, 5)), _table(range(5, 9))
    write_data_file(tmp_path / "1.parquet", first)
    write_data_file(tmp_path / "2.parquet", second)
    files = [_file(tmp_path / "1.parquet", first, 1), _file(tmp_path / "2.parquet", second, 2, deleted=[0, 2])]
    for _ in range(3):  # the first read decodes, the later ones are served from the kept rows
        assert read_data_files(SCHEMA, files, None, False).column("id").to_pylist() == [0, 1, 2, 3, 4, 6, 8]
        assert read_data_files(SCHEMA, files, ["name"], False).column_names == ["name"]
        ids = read_data_files(SCHEMA, files, ["id"], True)
        assert ids.num_columns == 2 and ids.column("id").to_pylist() == [0, 1, 2, 3, 4, 6, 8]


def test_a_path_written_anew_is_read_anew(tmp_path: Path) -> None:
    path = tmp_path / "1.parquet"
    before = _table(range(3))
    write_data_file(path, before)
    assert read_data_files(SCHEMA, [_file(path, before)], None, False).equals(before)
    path.unlink()  # an aborted commit's file number, used again by the next commit
    after = _table(range(100, 104))
    write_data_file(path, after)
    assert read_data_files(SCHEMA, [_file(path, after)], None, False).equals(after)


def test_a_removed_file_is_still_an_error(tmp_path: Path) -> None:
    path = tmp_path / "1.parquet"
    table = _table(range(3))
    write_data_file(path, table)
    read_data_files(SCHEMA, [_file(path, table)], None, False)
    os.remove(path)
    with pytest.raises(FileNotFoundError):
        read_data_files(SCHEMA, [_file(path, table)], None, False)


def test_large_files_are_read_as_before(tmp_path: Path) -> None:
    path = tmp_path / "big.parquet"
    rng = np.random.default_rng(7)  # incompressible values, so the file passes the size limit
    table = pa.table({"id": pa.array(rng.integers(0, 2**62, 200_000)), "name": pa.array(["x"] * 200_000)})
    write_data_file(path, table)
    assert path.stat().st_size > DECODED_FILE_BYTES
    assert read_data_files(table.schema, [_file(path, table)], ["id"], False).column("id").equals(table.column("id"))
