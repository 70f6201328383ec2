"""The durable half of the catalog: one SQLite database, `<data_dir>/catalog/catalog.db`.

Why SQLite: it gives atomic, crash-safe transactions from the standard library. With `journal_mode=WAL` and
`synchronous=FULL` a transaction is durable when COMMIT returns, and a kill -9 (or power loss) at any instant
leaves every transaction either fully applied or not at all; it is among the best-tested storage engines there
is.

Layout: `objects(kind, key, payload)` holds every user object as JSON (see `codec`), keyed by (kind, key);
`settings(name, value)` holds the id/OID counters, the revision, the timeline's upper and the format version.
Builtin objects are never stored. An exclusive `flock` on `catalog/LOCK` keeps a second process from opening
the same catalog (the lock dies with the process). All methods are called under the catalog's writer lock.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path

from sparkwire.catalog.codec import Row
from sparkwire.errors import ObjectNotInPrerequisiteState

_SCHEMA = """
CREATE TABLE IF NOT EXISTS objects (
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (kind, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
"""


class Store:
    def __init__(self, conn: sqlite3.Connection, lock_fd: int) -> None:
        self._conn = conn
        self._lock_fd = lock_fd

    @classmethod
    def open(cls, data_dir: Path) -> Store:
        directory = data_dir / "catalog"
        directory.mkdir(parents=True, exist_ok=True)
        lock_fd = os.open(directory / "LOCK", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(lock_fd)
            raise ObjectNotInPrerequisiteState(f"catalog {directory} is in use by another process") from None
        conn = sqlite3.connect(directory / "catalog.db", isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        conn.executescript(_SCHEMA)
        return cls(conn, lock_fd)

    def load(self) -> tuple[list[tuple[str, str]], dict[str, str]]:
        """All stored (kind, payload) rows and all settings."""
        rows = self._conn.execute("SELECT kind, payload FROM objects ORDER BY kind, key").fetchall()
        settings = dict(self._conn.execute("SELECT name, value FROM settings").fetchall())
        return rows, settings

    def begin(self) -> None:
        self._conn.execute("BEGIN IMMEDIATE")

    def write(
        self, upserts: Iterable[Row], deletes: Iterable[tuple[str, str]], settings: Mapping[str, str]
    ) -> None:
        self._conn.executemany("DELETE FROM objects WHERE kind = ? AND key = ?", deletes)
        self._conn.executemany(
            "INSERT INTO objects (kind, key, payload) VALUES (?, ?, ?) "
            "ON CONFLICT (kind, key) DO UPDATE SET payload = excluded.payload",
            upserts,
        )
        self._conn.executemany(
            "INSERT INTO settings (name, value) VALUES (?, ?) "
            "ON CONFLICT (name) DO UPDATE SET value = excluded.value",
            settings.items(),
        )

    def commit(self) -> None:
        self._conn.execute("COMMIT")

    def rollback(self) -> None:
        if self._conn.in_transaction:
            self._conn.execute("ROLLBACK")

    def close(self) -> None:
        self._conn.close()
        os.close(self._lock_fd)  # releases the flock
