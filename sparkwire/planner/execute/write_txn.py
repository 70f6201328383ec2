"""`StorageTransaction`: a session's open storage write transaction, driven by session/transactions.py.

Contract: implements the three engine-transaction calls `Transactions` makes. `begin()` marks the block open: the
storage `WriteTxn` itself starts at the block's first write (`writer()`), so a block that only reads costs nothing
and a table created earlier in the block is writable. `commit()` commits it at a timeline timestamp (all tables at
once, durably; a conflicting concurrent delete/update raises 40001 and nothing is written); `rollback()` discards
it. `current` is the open transaction or None. Statements in autocommit mode use `autocommit()` instead: a
transaction committed when the statement succeeds, aborted when it fails. Nothing is written to storage before
COMMIT, so a crash never exposes a partial transaction and every acknowledged COMMIT is durable.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sparkwire.planner.execute.data import DataPlane
from sparkwire.storage.txn import WriteTxn


class StorageTransaction:
    def __init__(self, data: DataPlane) -> None:
        self._data = data
        self.current: WriteTxn | None = None

    def begin(self) -> None:
        """The block's storage transaction starts at its first write (`writer`)."""

    def writer(self) -> WriteTxn:
        if self.current is None:
            self.current = self._data.begin_write()
        return self.current

    def commit(self) -> None:
        txn, self.current = self.current, None
        if txn is not None:
            self._data.commit_write(txn)

    def rollback(self) -> None:
        txn, self.current = self.current, None
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
