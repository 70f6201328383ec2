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

Timestamps (docs/timestamps.md): the one place a statement's read timestamp is chosen. `oracle_ts()` is the
timeline's read timestamp now: the latest commit, or the wall clock (ms) when that is later, so that mz_now()
advances with time as Materialize's does while tables are idle (reading at a timestamp seals it in storage: every
later commit lands above it). `timestamped()` is `snapshot()` for a statement that needs its timestamp (mz_now(),
EXPLAIN TIMESTAMP): outside a block at `oracle_ts()`, inside one the block's snapshot (pinned there if it is the
block's first read). `as_of(ts, at_least, cancelled)` is the snapshot of `SELECT … AS OF [AT LEAST] ts`: AT LEAST
reads at `max(ts, timestamped().ts)`; an exact `ts` below the compaction frontier is 22000 "could not find a valid
timestamp for the query" (Materialize's error); a `ts` the timeline has not reached yet is waited for, polling
`cancelled()` (cancel, statement_timeout) every few milliseconds. `reading(snapshot)` makes `snapshot()` return
`snapshot` for the statement running inside it (a block's pin is not changed by an AS OF statement).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from sparkwire import errors as e
from sparkwire.catalog.timeline import wall_clock_ms
from sparkwire.planner.execute.data import DataPlane
from sparkwire.storage.snapshot import Snapshot
from sparkwire.storage.txn import WriteTxn


def oracle_ts(data: DataPlane) -> int:
    """The timeline's read timestamp now: the latest commit, or the wall clock when that is later."""
    return max(data.storage.latest_ts, wall_clock_ms() - 1)


class StorageTransaction:
    def __init__(self, data: DataPlane) -> None:
        self._data = data
        self.current: WriteTxn | None = None
        self._in_block = False
        self._pinned: Snapshot | None = None  # the block's snapshot, from its first read
        self._statement: Snapshot | None = None  # the running statement's own snapshot (AS OF, mz_now())

    def begin(self) -> None:
        """The block's storage transaction starts at its first write (`writer`), its snapshot at its first read."""
        self._in_block = True

    def snapshot(self) -> Snapshot:
        if self._statement is not None:
            return self._statement
        if not self._in_block:
            self._pinned = None
            return self._data.snapshot()
        if self._pinned is None:
            self._pinned = self._data.snapshot()
        return self._pinned

    # ---- timestamps ---------------------------------------------------------------------------------------

    def oracle_ts(self) -> int:
        return oracle_ts(self._data)

    @property
    def in_block(self) -> bool:
        return self._in_block

    def timestamped(self) -> Snapshot:
        if self._statement is not None:
            return self._statement
        if not self._in_block:
            return self._data.storage.snapshot(self.oracle_ts())
        if self._pinned is None:
            self._pinned = self._data.storage.snapshot(self.oracle_ts())
        return self._pinned

    def as_of(self, ts: int, at_least: bool, cancelled: Callable[[], bool]) -> Snapshot:
        if at_least:
            current = self.timestamped()
            if current.ts >= ts:
                return current
        since = self._data.storage.since
        if ts < since:
            raise e.DataException(
                "could not find a valid timestamp for the query",
                detail=f"Timestamp ({ts}) is not valid for all inputs: the compaction frontier (since) is {since}",
            )
        while ts > self.oracle_ts():  # in the future: wait for the timeline to reach it
            if cancelled():
                raise e.QueryCanceled("canceling statement")
            time.sleep(min(0.02, max(ts - self.oracle_ts(), 1) / 1000))
        return self._data.storage.snapshot(ts)

    @contextmanager
    def reading(self, snapshot: Snapshot) -> Iterator[None]:
        self._statement = snapshot
        try:
            yield
        finally:
            self._statement = None

    # ---- writes -------------------------------------------------------------------------------------------

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
