"""One process's exclusive, crash-safe SQLite database: how the catalog and table storage keep their state.

`ExclusiveDatabase.open(directory, filename, schema, what)` creates `directory`, takes an exclusive `flock` on
`directory/LOCK` (a second process gets 55000 `<what> <directory> is in use by another process`), opens
`directory/filename` in autocommit mode (callers issue BEGIN IMMEDIATE / COMMIT themselves) with WAL and
synchronous=FULL — every COMMIT is durable before it returns, and a kill -9 at any instant leaves each transaction
fully applied or not at all — and runs `schema` (idempotent DDL). `close()` closes the database and releases the
lock.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from sparkwire.errors import ObjectNotInPrerequisiteState


@dataclass(frozen=True, slots=True)
class ExclusiveDatabase:
    conn: sqlite3.Connection
    lock_fd: int

    @classmethod
    def open(cls, directory: Path, filename: str, schema: str, what: str) -> ExclusiveDatabase:
        directory.mkdir(parents=True, exist_ok=True)
        lock_fd = os.open(directory / "LOCK", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(lock_fd)
            raise ObjectNotInPrerequisiteState(f"{what} {directory} is in use by another process") from None
        conn = sqlite3.connect(directory / filename, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        conn.executescript(schema)
        return cls(conn, lock_fd)

    def close(self) -> None:
        self.conn.close()
        os.close(self.lock_fd)  # releases the flock
