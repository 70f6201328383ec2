"""Maintained relations: one thread per materialized view that keeps its contents current as its inputs change,
so that reads find them ready (COMPUTE, seed 001; docs/continual.md).

Contract:
- `Maintainers(storage, running)` is process-wide. `sync(objects)` starts a `Maintained` for every object newly listed
  (a `MaintainedObject`: id, cluster, input tables, contents schema and `Maintenance`, plus `recompute`, the full
  computation used when the planner found no incremental plan) and stops those no longer listed; `discard(ids)` stops
  dropped objects before their input tables go (a maintainer that still meets a table gone with such a DROP stops
  quietly); `close()` stops all. `running(object_id, cluster_id)` is the cluster controller's context for the work (it
  raises while the cluster has no replica: the object is then paused, as a source is).
- Each `Maintained` follows the storage's commits (`Storage.wait_for_commit`): at each commit timestamp that
  changed one of its input tables it computes the contents (hydration first; then `Dataflow.step` on the changes,
  or `recompute` for a view without a plan) and publishes them with the input tables' version; a commit that
  did not touch its inputs only advances its frontier (`ts`, the snapshot it is current at). When more than
  `BATCH_COMMITS` commits wait, it jumps to the latest (one step covers them all). It keeps the contents of its
  last `HISTORY` versions. A failure (e.g. an overflow in an expression) is logged and kept as `error`; the next
  commit retries.
- `read(object_id, snapshot, version, timeout)` returns the contents at exactly `version` (the inputs' version at
  the reader's snapshot) without computing anything: at once when published, after waiting when the maintainer
  has not reached the snapshot yet (a read never does the refresh itself), None when the object is not
  maintained here, is paused, errored, timed out, or the version was skipped or left the history (the caller then
  computes it as before: planner/execute/resident.py). `bounded`: the timeout is the reader's lock_timeout, and
  running out of it is 55P03 "canceling statement due to lock timeout", as waiting for a REFRESH is in PostgreSQL.
- `available_ts(ids)`: the newest timestamp all these objects are current at (serializable reads choose it).
- `on_publish(object_id, ts, version, seconds, table)` is called after each publish (freshness, index prebuilds).
- An object with `tick_seconds` (a view whose definition uses mz_now(): a temporal filter) is also recomputed that
  often without a change, so that rows leave it as time passes; readers take the newest contents of a version.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field

import pyarrow as pa

from sparkwire import errors
from sparkwire.compute.controller import NoReplicas
from sparkwire.compute.dataflow.dataflow import Dataflow
from sparkwire.compute.dataflow.plan import Maintenance
from sparkwire.storage import Snapshot, Storage

log = logging.getLogger(__name__)

Version = tuple[tuple[str, tuple[tuple[int, int], ...]], ...]
Running = Callable[[str, str], AbstractContextManager[object]]
Publish = Callable[[str, int, Version, float, pa.Table], None]
HISTORY = 8
BATCH_COMMITS = 16
IDLE_WAIT_SECONDS = 1.0
DROP_WAIT_SECONDS = 1.0  # how long a maintainer that lost an input table waits to be stopped by its DROP


@dataclass(frozen=True, slots=True)
class MaintainedObject:
    id: str
    cluster_id: str
    table_ids: tuple[str, ...]  # the storage tables its contents depend on (sorted)
    schema: pa.Schema
    maintenance: Maintenance
    recompute: Callable[[Snapshot], pa.Table] = field(compare=False)
    definition: str = ""  # what identifies its definition (a changed definition is a new object)
    tick_seconds: float | None = None  # recompute this often even without a change (a temporal filter: mz_now())
    kind: str = "materialized-view"  # or "index" (an index on a table or view: `recompute` rebuilds it)


@dataclass(frozen=True, slots=True)
class _Published:
    ts: int
    version: Version
    table: pa.Table


def version_of(snapshot: Snapshot, table_ids: tuple[str, ...]) -> Version:
    return tuple((t, snapshot.version(t)) for t in table_ids)


class Maintained:
    def __init__(self, obj: MaintainedObject, storage: Storage, running: Running, on_publish: Publish) -> None:
        self.obj = obj
        self._storage = storage
        self._running = running
        self._on_publish = on_publish
        plan = obj.maintenance.plan
        self._dataflow = Dataflow(plan, obj.schema) if plan is not None else None
        self._cond = threading.Condition()
        self._history: deque[_Published] = deque(maxlen=HISTORY)
        self.ts = 0  # the newest snapshot its contents are current at
        self.error: Exception | None = None
        self.paused = False
        self.steps = 0
        self.last_step_seconds = 0.0
        self._stepped_at = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"maintain-{obj.id}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()

    @property
    def hydrated(self) -> bool:
        return bool(self._history)

    @property
    def input_rows(self) -> int:
        return self._dataflow.rows_in if self._dataflow is not None else 0

    # ---- the maintainer thread ---------------------------------------------------------------------------

    def _targets(self) -> Iterator[Snapshot]:
        """The snapshots to bring the contents to next: each commit that changed an input, or the latest."""
        latest = self._storage.snapshot()
        if self.obj.tick_seconds is not None:  # mz_now() is the snapshot's timestamp: now, not the last commit
            yield self._storage.snapshot(max(latest.ts, int(time.time() * 1000) - 1))
            return
        if not self._history or self._dataflow is None:
            yield latest
            return
        times = sorted({t for table in self.obj.table_ids for t in latest.write_times(table, after=self.ts)})
        if not times or len(times) > BATCH_COMMITS:
            yield latest
            return
        for ts in times:
            yield self._storage.snapshot(ts)
        if times[-1] < latest.ts:
            yield latest

    def _advance(self, snapshot: Snapshot) -> None:
        version = version_of(snapshot, self.obj.table_ids)
        tick = self.obj.tick_seconds
        due = tick is not None and time.monotonic() - self._stepped_at >= tick
        if self._history and self._history[-1].version == version and not due:
            with self._cond:
                self.ts = max(self.ts, snapshot.ts)
                self._cond.notify_all()
            return
        started = time.monotonic()
        with self._running(self.obj.id, self.obj.cluster_id):
            if self._dataflow is not None:
                self._dataflow.step(snapshot)
                table = self._dataflow.table()
            else:
                table = self.obj.recompute(snapshot)
        seconds = time.monotonic() - started
        self._stepped_at = time.monotonic()
        with self._cond:
            self._history.append(_Published(snapshot.ts, version, table))
            self.ts = max(self.ts, snapshot.ts)
            self.error, self.paused = None, False
            self.steps += 1
            self.last_step_seconds = seconds
            self._cond.notify_all()
        self._on_publish(self.obj.id, snapshot.ts, version, seconds, table)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                for snapshot in self._targets():
                    if self._stop.is_set():
                        return
                    self._advance(snapshot)
            except Exception as exc:
                if isinstance(exc, errors.UndefinedTable) and self._stop.wait(DROP_WAIT_SECONDS):
                    return  # an input table went with a DROP that stops this object too: nothing went wrong
                paused = isinstance(exc, NoReplicas)
                if not paused:
                    log.warning("maintaining %s failed", self.obj.id, exc_info=True)
                with self._cond:
                    self.error, self.paused = exc, paused
                    self._cond.notify_all()
                self._stop.wait(IDLE_WAIT_SECONDS)
            self._storage.wait_for_commit(self.ts, self.obj.tick_seconds or IDLE_WAIT_SECONDS)

    # ---- readers -----------------------------------------------------------------------------------------

    def read(self, snapshot: Snapshot, version: Version, timeout: float, bounded: bool = False) -> pa.Table | None:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for published in reversed(self._history):
                    if published.version == version:
                        return published.table
                if self.ts >= snapshot.ts or self.paused or self._stop.is_set():
                    return None
                if self.error is not None:
                    return None  # the reader computes (and reports the error, e.g. an overflow, itself)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    if bounded:
                        raise errors.LockNotAvailable("canceling statement due to lock timeout")
                    return None
                self._cond.wait(remaining)

    def current(self) -> tuple[int, Version | None]:
        with self._cond:
            return self.ts, (self._history[-1].version if self._history else None)


class Maintainers:
    def __init__(self, storage: Storage, running: Running, on_publish: Publish) -> None:
        self._storage = storage
        self._running = running
        self._on_publish = on_publish
        self._lock = threading.Lock()
        self._objects: dict[str, Maintained] = {}

    def discard(self, object_ids: Iterable[str]) -> None:
        """Stop these objects now (dropped: before their input tables go)."""
        with self._lock:
            for object_id in object_ids:
                maintained = self._objects.pop(object_id, None)
                if maintained is not None:
                    maintained.stop()

    def sync(self, objects: list[MaintainedObject]) -> None:
        wanted = {o.id: o for o in objects}
        with self._lock:
            stale = [m for i, m in self._objects.items() if i not in wanted or wanted[i].definition != m.obj.definition]
            for maintained in stale:
                maintained.stop()
                del self._objects[maintained.obj.id]
            started = [
                Maintained(o, self._storage, self._running, self._on_publish)
                for i, o in wanted.items()
                if i not in self._objects
            ]
            for maintained in started:
                self._objects[maintained.obj.id] = maintained
        for maintained in started:
            maintained.start()

    def get(self, object_id: str) -> Maintained | None:
        with self._lock:
            return self._objects.get(object_id)

    def all(self) -> list[Maintained]:
        with self._lock:
            return list(self._objects.values())

    def available_ts(self, object_ids: Iterable[str]) -> int | None:
        """The newest timestamp at which every one of these objects that is maintained here has contents ready (a
        serializable read of them there waits for nothing); None when none of them is hydrated."""
        found = [m for m in map(self.get, object_ids) if m is not None and m.hydrated and m.error is None]
        return min((m.ts for m in found), default=None)

    def read(
        self, object_id: str, snapshot: Snapshot, version: Version, timeout: float, bounded: bool = False
    ) -> pa.Table | None:
        maintained = self.get(object_id)
        return None if maintained is None else maintained.read(snapshot, version, timeout, bounded)

    def close(self) -> None:
        with self._lock:
            for maintained in self._objects.values():
                maintained.stop()
            self._objects.clear()
