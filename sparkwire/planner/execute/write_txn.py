"""`StorageTransaction`: a session's open storage write transaction, driven by session/transactions.py.

Contract: implements the three engine-transaction calls `Transactions` makes. `begin()` marks the block open: the
storage `WriteTxn` itself starts at the block's first write (`writer()`), so a block that only reads costs nothing
and a table created earlier in the block is writable. `commit()` commits it at a timeline timestamp (all tables at
once, durably; a conflicting concurrent delete/update raises 40001 and nothing is written); `rollback()` discards
it. `current` is the open transaction or None. Statements in autocommit mode use `autocommit()` instead: a
transaction committed when the statement succeeds, aborted when it fails. Nothing is written to storage before
COMMIT, so a crash never exposes a partial transaction and every acknowledged COMMIT is durable.

`snapshot()` is what a statement reads: outside a block the latest commit, each statement anew; inside a block
(from `begin()` to `commit()` / `rollback()`) one snapshot for the whole block, taken when its first statement
reads (the latest commit then), so every read of the block sees the same committed state whatever other sessions
commit meanwhile (Materialize's one timestamp per read transaction: strict serializable). ROLLBACK TO SAVEPOINT
(`rollback()` then `begin()`) keeps it. The block's own writes are read from `current` on top of it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sparkwire.planner.execute.data import DataPlane
from sparkwire.storage.snapshot import Snapshot
from sparkwire.storage.txn import WriteTxn


class StorageTransaction:
    def __init__(self, data: DataPlane) -> None:
        self._data = data
        self.current: WriteTxn | None = None
        self._in_block = False
        self._pinned: Snapshot | None = None  # the block's snapshot, from its first read

    def begin(self) -> None:
        """The block's storage transaction starts at its first write (`writer`), its snapshot at its first read."""
        self._in_block = True

    def snapshot(self) -> Snapshot:
        if not self._in_block:
            self._pinned = None
            return self._data.snapshot()
        if self._pinned is None:
            self._pinned = self._data.snapshot()
        return self._pinned

    def writer(self) -> WriteTxn:
        if self.current is None:
            self.current = self._data.begin_write()
        return self.current

    def commit(self) -> None:
        txn, self.current = self.current, None
        self._in_block, self._pinned = False, None
        if txn is not None:
            self._data.commit_write(txn)

    def rollback(self) -> None:
        """Discard the writes; the snapshot is kept for a `begin()` that follows at once (ROLLBACK TO)."""
        txn, self.current = self.current, None
        self._in_block = False
        if txn is not None:
            txn.abort()

    @contextmanager
    def autocommit(self) -> Iterator[WriteTxn]:
        txn = self._data.begin_write()
        try:
            yield txn
        except BaseException:
            txn.abort()
            raise
        self._data.commit_write(txn)
