"""One relation's change feed, shared by every subscription to it, and the process-wide registry of them.

Contract:
- `ChangeStream(key, storage, tables, table_id, contents)`: the changes of one relation (or query). `tables` are the
  storage tables whose commits can change it (`resident.base_tables`); `table_id` is set when the relation *is* a
  storage table (a table or a source's collection: kinds "table" / "source"), whose changes come straight from
  storage deltas (storage/deltas.py); otherwise `contents(snapshot)` — the one injected call that computes the
  relation's full contents at a snapshot (Spark, or the resident contents of a materialized view) — is called at
  each timestamp one of `tables` changed, and diffed against the contents before it (a multiset diff: group by
  every column, sum the diffs).
  - `next_time(after, upper)`: the first commit timestamp in (`after`, `upper.ts`] that changed one of `tables`,
    or None. `changes_at(ts)`: the changes at that commit, consolidated (a row inserted and deleted at one
    timestamp is not there), as the relation's columns plus `DIFF_COLUMN`. `snapshot_rows(snapshot)`: the
    contents at a snapshot. All three are memoized — the recent change batches by timestamp and the latest
    contents by version, in bounded LRU caches — so N subscriptions at the same frontier cost one computation
    (`computations` counts the real ones, `hits` the memoized answers).
  - Computations of one stream are serialized (one lock); a reader of another stream never waits for it.
- `StreamRegistry(storage, timestamp)`: `acquire(key, make)` returns the stream for `key` (made by `make()` for
  the first subscriber) and counts the subscriber; `release(stream)` uncounts it and drops the stream with its
  last subscriber. `streams()` lists the live ones; `started(sub)` / `ended(sub)` track the running subscriptions
  whose `row()` / `stats()` are the rows of mz_subscriptions / mz_subscription_streams (`subscription_rows()`,
  `stream_rows()`). `now(fresh)` is a readable timestamp: the latest storage
  commit, or a fresher one drawn from the timeline (`timestamp()`, the catalog's write timestamps) and sealed in
  storage at most once per `TICK_SECONDS` (so that PROGRESS and UP TO advance while nothing commits).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Protocol

import pyarrow as pa
from cachetools import LRUCache

from sparkwire.storage import Snapshot, Storage
from sparkwire.storage.deltas import DIFF_COLUMN, changes, consolidate

Contents = Callable[[Snapshot], pa.Table]
BATCHES_KEPT = 32  # recent change batches memoized per stream
CONTENTS_KEPT = 2  # contents kept per stream (the recompute path diffs the latest two)
TICK_SECONDS = 1.0


def with_diff(table: pa.Table, diff: int) -> pa.Table:
    return table.append_column(DIFF_COLUMN, pa.array([diff] * table.num_rows, pa.int64()))


def multiset_diff(before: pa.Table, after: pa.Table) -> pa.Table:
    """`after` − `before` as rows with their net diff (consolidated)."""
    if not before.schema.equals(after.schema):
        before = before.cast(after.schema)
    return consolidate(pa.concat_tables([with_diff(before, -1), with_diff(after, 1)]))


class ChangeStream:
    def __init__(
        self, key: str, storage: Storage, tables: Sequence[str], table_id: str | None, contents: Contents
    ) -> None:
        self.key = key
        self._storage = storage
        self.tables = tuple(tables)
        self._table_id = table_id
        self._contents = contents
        self._lock = threading.Lock()
        self._batches: LRUCache[int, pa.Table] = LRUCache(BATCHES_KEPT)
        self._states: LRUCache[tuple[object, ...], pa.Table] = LRUCache(CONTENTS_KEPT)
        self.subscribers = 0
        self.computations = 0
        self.hits = 0

    @property
    def cached_batches(self) -> int:
        return len(self._batches)

    def _version(self, snapshot: Snapshot) -> tuple[object, ...]:
        return tuple((table, snapshot.version(table)) for table in self.tables)

    def _at(self, snapshot: Snapshot) -> pa.Table:
        """The contents at `snapshot` (caller holds the lock)."""
        version = self._version(snapshot)
        known = self._states.get(version)
        if known is not None:
            return known
        table = snapshot.read_arrow(self._table_id) if self._table_id is not None else self._contents(snapshot)
        self.computations += 1
        self._states[version] = table
        return table

    def snapshot_rows(self, snapshot: Snapshot) -> pa.Table:
        with self._lock:
            before = self.computations
            table = self._at(snapshot)
            self.hits += self.computations == before
            return table

    def next_time(self, after: int, upper: Snapshot) -> int | None:
        times = [t for table in self.tables for t in upper.write_times(table, after)[:1]]
        return min(times) if times else None

    def changes_at(self, ts: int) -> pa.Table:
        with self._lock:
            known = self._batches.get(ts)
            if known is not None:
                self.hits += 1
                return known
            before, after = self._storage.snapshot(ts - 1), self._storage.snapshot(ts)
            if self._table_id is not None:
                batch = consolidate(changes(before, after, self._table_id))
                self.computations += 1
            else:
                batch = multiset_diff(self._at(before), self._at(after))
            self._batches[ts] = batch
            return batch


class Live(Protocol):
    """A running subscription as the introspection relations see it (subscription.py)."""

    id: str

    def row(self) -> dict[str, object]: ...

    def stats(self) -> dict[str, object]: ...


class StreamRegistry:
    def __init__(self, storage: Storage, timestamp: Callable[[], int]) -> None:
        self._storage = storage
        self._timestamp = timestamp
        self._lock = threading.Lock()
        self._streams: dict[str, ChangeStream] = {}
        self._live: dict[str, Live] = {}
        self._tick = 0
        self._tick_at = float("-inf")

    def acquire(self, key: str, make: Callable[[], ChangeStream]) -> ChangeStream:
        with self._lock:
            stream = self._streams.get(key)
            if stream is None:
                stream = self._streams[key] = make()
            stream.subscribers += 1
            return stream

    def release(self, stream: ChangeStream) -> None:
        with self._lock:
            stream.subscribers -= 1
            if stream.subscribers <= 0 and self._streams.get(stream.key) is stream:
                del self._streams[stream.key]

    def started(self, subscription: Live) -> None:
        with self._lock:
            self._live[subscription.id] = subscription

    def ended(self, subscription: Live) -> None:
        with self._lock:
            self._live.pop(subscription.id, None)

    def subscription_rows(self) -> list[dict[str, object]]:
        """mz_internal.mz_subscriptions: one row per running subscription."""
        with self._lock:
            live = list(self._live.values())
        return [sub.row() for sub in live]

    def stream_rows(self) -> list[dict[str, object]]:
        """mz_internal.mz_subscription_streams: what each subscription holds and what its stream computed."""
        with self._lock:
            live = list(self._live.values())
        return [sub.stats() for sub in live]

    def streams(self) -> list[ChangeStream]:
        with self._lock:
            return list(self._streams.values())

    def now(self, fresh: bool = False) -> int:
        """A timestamp every commit at or below has landed (readable now): see the module docstring."""
        latest = self._storage.latest_ts
        with self._lock:
            if fresh and time.monotonic() - self._tick_at >= TICK_SECONDS:
                tick = self._timestamp()
                self._storage.snapshot(tick)  # seals it: no later commit lands at or below
                self._tick, self._tick_at = tick, time.monotonic()
            return max(latest, self._tick)

    def snapshot(self, ts: int) -> Snapshot:
        return self._storage.snapshot(ts)
