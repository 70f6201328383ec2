"""The durable manifest of every table: one SQLite database, `<data_dir>/storage/manifest.db`.

Why one SQLite database for all tables (rather than a manifest log per table plus a global epoch file): a commit
that touches several tables must become visible all-or-nothing, and a SQLite transaction in WAL mode with
`synchronous=FULL` is exactly an atomic, durable, crash-safe commit record — after a kill -9 (or power loss) at any
instant it is either fully applied or absent. Putting the per-table entries in the same transaction makes the
global commit record and the per-table manifests one thing, so they can never disagree.

Layout (each committed write adds rows stamped with its timestamp; nothing is rewritten except `removed_ts`):
- `tables(id, schema)`: the Arrow schema (IPC-serialized) of each table;
- `files(table_id, file_no, rows, added_ts, removed_ts)`: every data file a reader at `>= since` may need;
- `deletes(table_id, file_no, ts, positions)`: cumulative deletion vectors (little-endian int64 positions);
- `settings(name, value)`: `latest_ts` (the newest commit) and `since` (the compaction frontier).

Data files are written and fsynced before the transaction that names them commits, so the manifest never names
a missing file; files it does not name are orphans (see `files.remove_orphans`). An exclusive `flock` on
`storage/LOCK` keeps a second process out. Every method is called under the storage writer lock.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pyarrow as pa

from sparkwire.durable_sqlite import ExclusiveDatabase
from sparkwire.storage.changes import Commit, Forgotten
from sparkwire.storage.model import DeleteVersion, FileRecord, Positions, StorageState, TableRecord, frozen_positions

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (id TEXT PRIMARY KEY, schema BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS files (
    table_id TEXT NOT NULL, file_no INTEGER NOT NULL, rows INTEGER NOT NULL,
    added_ts INTEGER NOT NULL, removed_ts INTEGER,
    PRIMARY KEY (table_id, file_no)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS deletes (
    table_id TEXT NOT NULL, file_no INTEGER NOT NULL, ts INTEGER NOT NULL, positions BLOB NOT NULL,
    PRIMARY KEY (table_id, file_no, ts)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
"""


def _encode_positions(positions: Positions) -> bytes:
    return positions.astype("<i8").tobytes()


class Manifest:
    def __init__(self, db: ExclusiveDatabase) -> None:
        self._db = db
        self._conn = db.conn

    @classmethod
    def open(cls, root: Path) -> Manifest:
        return cls(ExclusiveDatabase.open(root, "manifest.db", _SCHEMA, "storage"))

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield self._conn
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    def load(self) -> StorageState:
        conn = self._conn
        settings = dict(conn.execute("SELECT name, value FROM settings").fetchall())
        latest_ts = settings.get("latest_ts", 0)
        deletes: dict[tuple[str, int], list[DeleteVersion]] = {}
        for table_id, file_no, ts, blob in conn.execute(
            "SELECT table_id, file_no, ts, positions FROM deletes ORDER BY table_id, file_no, ts"
        ):
            deletes.setdefault((table_id, file_no), []).append(
                DeleteVersion(ts, frozen_positions(np.frombuffer(blob, dtype="<i8")))
            )
        files: dict[str, dict[int, FileRecord]] = {}
        for table_id, file_no, rows, added_ts, removed_ts in conn.execute(
            "SELECT table_id, file_no, rows, added_ts, removed_ts FROM files"
        ):
            versions = tuple(deletes.get((table_id, file_no), ()))
            files.setdefault(table_id, {})[file_no] = FileRecord(file_no, rows, added_ts, removed_ts, versions)
        tables: dict[str, TableRecord] = {}
        for table_id, schema_blob in conn.execute("SELECT id, schema FROM tables"):
            # no transaction is open across a restart, so the latest commit serves as every table's last write
            schema = pa.ipc.read_schema(pa.py_buffer(schema_blob))
            tables[table_id] = TableRecord(table_id, schema, files.get(table_id, {}), latest_ts)
        return StorageState(tables, latest_ts, settings.get("since", 0))

    def create_table(self, table_id: str, schema: pa.Schema) -> None:
        with self._transaction() as conn:
            conn.execute("INSERT INTO tables (id, schema) VALUES (?, ?)", (table_id, schema.serialize().to_pybytes()))

    def drop_table(self, table_id: str) -> None:
        with self._transaction() as conn:
            for table in ("deletes", "files"):
                conn.execute(f"DELETE FROM {table} WHERE table_id = ?", (table_id,))
            conn.execute("DELETE FROM tables WHERE id = ?", (table_id,))

    def commit(self, commit: Commit) -> None:
        with self._transaction() as conn:
            for change in commit.changes:
                conn.executemany(
                    "INSERT INTO files (table_id, file_no, rows, added_ts) VALUES (?, ?, ?, ?)",
                    [(change.table_id, file_no, rows, commit.ts) for file_no, rows, _ in change.added],
                )
                conn.executemany(
                    "UPDATE files SET removed_ts = ? WHERE table_id = ? AND file_no = ?",
                    [(commit.ts, change.table_id, file_no) for file_no in change.removed],
                )
                deletes = [(file_no, positions) for file_no, _, positions in change.added if len(positions)]
                deletes.extend(change.deletes.items())
                conn.executemany(
                    "INSERT INTO deletes (table_id, file_no, ts, positions) VALUES (?, ?, ?, ?)",
                    [(change.table_id, file_no, commit.ts, _encode_positions(pos)) for file_no, pos in deletes],
                )
            conn.execute("INSERT OR REPLACE INTO settings (name, value) VALUES ('latest_ts', ?)", (commit.ts,))

    def forget(self, since: int, forgotten: Forgotten) -> None:
        """Persist the compaction frontier and drop the rows `prune` dropped, in one transaction."""
        with self._transaction() as conn:
            conn.execute("INSERT OR REPLACE INTO settings (name, value) VALUES ('since', ?)", (since,))
            for table in ("deletes", "files"):
                conn.executemany(f"DELETE FROM {table} WHERE table_id = ? AND file_no = ?", list(forgotten.files))
            conn.executemany(
                "DELETE FROM deletes WHERE table_id = ? AND file_no = ? AND ts = ?", list(forgotten.delete_versions)
            )
