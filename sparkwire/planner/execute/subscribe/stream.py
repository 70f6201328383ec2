"""One relation's change feed, shared by every subscription to it, and the process-wide registry of them.

Contract:
- `ChangeStream(key, storage, tables, table_id, contents)`: the changes of one relation (or query). `tables` are the
  storage tables whose commits can change it (`resident.base_tables`); `table_id` is set when the relation *is* a
  storage table (a table or a source's collection: kinds "table" / "source"), whose changes come straight from
  storage deltas (storage/deltas.py); otherwise `contents(snapshot)` — the one injected call that computes the
  relation's full contents at a snapshot (Spark, or the resident contents of a materialized view) — is called at
  the timestamps one of `tables` changed, and diffed against the subscriber's last contents (a multiset diff: group
  by every column, sum the diffs).
  - `next_time(after, upper)`: the timestamp of the next batch in (`after`, `upper.ts`], or None: the first commit after
    `after` that changed one of `tables`; for a recomputed relation more than `CATCH_UP_AFTER` commits behind, the
    latest (it catches up with one computation, its intermediate states skipped). `changes_at(after, ts)`: the changes
    in (`after`, `ts`], consolidated (a row inserted and deleted at one timestamp is not there), as the relation's
    columns plus `DIFF_COLUMN`. `snapshot_rows(snapshot)`: the contents at a snapshot. Both are memoized — the recent
    change batches by timestamp (and, recomputed, the version they start from, up to `BATCH_BYTES_KEPT`) and the latest
    contents by version (a table's snapshot only when small), in bounded LRU caches — so N subscriptions at the same
    frontier cost one computation (`computations` counts the real ones, `hits` the memoized answers).
  - Computations of one stream are serialized (one lock); a reader of another stream never waits for it.
- `StreamRegistry(storage, timestamp)`: `acquire(key, make)` returns the stream for `key` (made by `make()` for
  the first subscriber) and counts the subscriber; `release(stream)` uncounts it and drops the stream with its
  last subscriber. `streams()` lists the live ones; `started(sub)` / `ended(sub)` track the running subscriptions
  whose `row()` / `stats()` are the rows of mz_subscriptions / mz_subscription_streams (`subscription_rows()`,
  `stream_rows()`). `now(fresh)` is a readable timestamp: the latest storage commit, or a fresher one drawn from
  the timeline (`timestamp()`, the catalog's write timestamps) and sealed in storage at most once per `TICK_SECONDS`
  (so that PROGRESS and UP TO advance while nothing commits). `wait_for_commit(timeout)` sleeps until the next
  storage commit (`Storage.wait_for_commit`) or the timeout.
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
BATCH_BYTES_KEPT = 64 << 20  # recent change batches memoized per stream, by their Arrow size
CONTENTS_KEPT = 4  # contents kept per stream (the recompute path diffs a subscriber's last and the latest)
TABLE_CONTENTS_KEPT_BYTES = 16 << 20  # a table's snapshot is kept for the next subscriber only when this small
TICK_SECONDS = 1.0
CATCH_UP_AFTER = 8  # a recomputed relation further behind than this many commits jumps to the latest


def with_diff(table: pa.Table, diff: int) -> pa.Table:
    return table.append_column(DIFF_COLUMN, pa.array([diff] * table.num_rows, pa.int64()))


def _size(table: pa.Table) -> int:
    return max(1, int(table.nbytes))


def frozen(value: object) -> object:
    """A value usable as a dict key: lists (arrays) as tuples, structs and maps as sorted item tuples."""
    if isinstance(value, list):
        return tuple(frozen(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, frozen(v)) for k, v in value.items()))
    return value


def consolidated(table: pa.Table) -> pa.Table:
    """`deltas.consolidate`, also for columns Arrow cannot group by (arrays, structs): then row by row in Python."""
    try:
        return consolidate(table)
    except (pa.ArrowNotImplementedError, pa.ArrowTypeError):
        pass
    keys = [name for name in table.column_names if name != DIFF_COLUMN]
    rows = zip(*([frozen(v) for v in table.column(name).to_pylist()] for name in keys), strict=True)
    totals: dict[object, int] = {}
    first: dict[object, int] = {}
    for i, (row, diff) in enumerate(zip(rows, table.column(DIFF_COLUMN).to_pylist(), strict=True)):
        totals[row] = totals.get(row, 0) + diff
        first.setdefault(row, i)
    kept = [(first[row], total) for row, total in totals.items() if total]
    picked = table.take(pa.array([i for i, _ in kept], pa.int64())).drop_columns([DIFF_COLUMN])
    return picked.append_column(DIFF_COLUMN, pa.array([total for _, total in kept], pa.int64()))


def multiset_diff(before: pa.Table, after: pa.Table) -> pa.Table:
    """`after` − `before` as rows with their net diff (consolidated)."""
    if not before.schema.equals(after.schema):
        before = before.cast(after.schema)
    return consolidated(pa.concat_tables([with_diff(before, -1), with_diff(after, 1)]))


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
        self._batches: LRUCache[tuple[object, ...], pa.Table] = LRUCache(BATCH_BYTES_KEPT, getsizeof=_size)
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
        table = table.rename_columns([f"c{i}" for i in range(table.num_columns)])  # a query may repeat a name
        self.computations += 1
        if self._table_id is None or table.nbytes <= TABLE_CONTENTS_KEPT_BYTES:
            self._states[version] = table
        return table

    def snapshot_rows(self, snapshot: Snapshot) -> pa.Table:
        with self._lock:
            before = self.computations
            table = self._at(snapshot)
            self.hits += self.computations == before
            return table

    def next_time(self, after: int, upper: Snapshot) -> int | None:
        """The timestamp of the next batch after `after`: the next commit that changed it; for a recomputed relation
        more than `CATCH_UP_AFTER` commits behind, the latest (one computation catches up)."""
        times = sorted({t for table in self.tables for t in upper.write_times(table, after)})
        if not times:
            return None
        return times[-1] if self._table_id is None and len(times) > CATCH_UP_AFTER else times[0]

    def changes_at(self, after: int, ts: int) -> pa.Table:
        """The changes in (`after`, `ts`], `ts` from `next_time(after, …)`."""
        with self._lock:
            before = self._storage.snapshot(after if self._table_id is None else ts - 1)
            key = (ts,) if self._table_id is not None else (ts, self._version(before))
            known = self._batches.get(key)
            if known is not None:
                self.hits += 1
                return known
            target = self._storage.snapshot(ts)
            if self._table_id is not None:
                batch = consolidated(changes(before, target, self._table_id))
                self.computations += 1
            else:
                batch = multiset_diff(self._at(before), self._at(target))
            if _size(batch) <= BATCH_BYTES_KEPT:
                self._batches[key] = batch
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

    def wait_for_commit(self, timeout: float) -> None:
        """Return when a commit lands (or after `timeout` seconds): storage's notification, no polling of engines."""
        self._storage.wait_for_commit(self._storage.latest_ts, timeout)
