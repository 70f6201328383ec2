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

from collections.abc import Iterable, Mapping
from pathlib import Path

from sparkwire.catalog.codec import Row
from sparkwire.durable_sqlite import ExclusiveDatabase

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
    def __init__(self, db: ExclusiveDatabase) -> None:
        self._db = db
        self._conn = db.conn

    @classmethod
    def open(cls, data_dir: Path) -> Store:
        return cls(ExclusiveDatabase.open(data_dir / "catalog", "catalog.db", _SCHEMA, "catalog"))

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
        self._db.close()
