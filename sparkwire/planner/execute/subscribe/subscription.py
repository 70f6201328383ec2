"""One subscription: a frontier that pulls the next batch of its stream's changes when its client is ready.

Contract:
- `Subscription(registry, stream, shape, bounds, checks, info)` holds only its frontier (every change at a timestamp at
  or below it has been emitted) and asks the shared `ChangeStream` for the next batch when `next(wait)` is called: the
  first call gives the progress row at AS OF (with PROGRESS) and the snapshot at AS OF (with SNAPSHOT: the contents,
  each row mz_diff +1, at mz_timestamp AS OF); each later one the changes of the next commit that changed the relation
  (recomputed: up to the latest, stream.py; consolidated: nothing when they cancel out), or with PROGRESS a progress row
  at frontier + 1 once the frontier moved past timestamps without changes. `next` waits up to `wait` seconds (None:
  until there is a row) woken by storage's commits (`Storage.wait_for_commit`) or every `POLL_SECONDS` (in memory, no
  engine work), and returns None when nothing came in time or the subscription finished (`finished`: UP TO reached —
  rows at timestamps >= UP TO are never emitted); with `heartbeat` it returns an empty batch after that many seconds
  without rows (the server then checks that its client is still connected). Each wait round checks `checks.cancelled()`
  (57014) and `checks.dropped()` (the error to end with when a relation it reads was dropped). Nothing is queued:
  backpressure is the client not asking.
- `SubscriptionSource` is the RowSource (planner/execute/streams.py) a COPY, a plain SUBSCRIBE or a cursor reads:
  `streaming()` (COPY, SUBSCRIBE: every read waits for the next batch, or a heartbeat's empty one), or
  `fetching(timeout)` before each FETCH (the first read waits up to `timeout` — None: until a row — for at least one
  row, later reads of the same FETCH take only what is ready now). It hands out at most `BATCH_ROWS` rows at a time and
  holds at most the rest of one batch a FETCH count cut (`held_rows`). `close()` ends the subscription (the registry
  drops the stream with its last subscriber).
"""

from __future__ import annotations

import datetime
import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass

import pyarrow as pa

from sparkwire import errors as e
from sparkwire.api import Field
from sparkwire.planner.execute.streams import Guard, RowSource
from sparkwire.planner.execute.subscribe.output import Shape
from sparkwire.planner.execute.subscribe.stream import ChangeStream, StreamRegistry

POLL_SECONDS = 0.1
BATCH_ROWS = 65_536  # rows handed to the server at a time
HEARTBEAT_SECONDS = 1.0  # a streaming read with nothing to send returns an empty batch this often
_ids = itertools.count(1)


@dataclass(frozen=True, slots=True)
class Bounds:
    as_of: int
    up_to: int | None
    snapshot: bool = True
    progress: bool = False


@dataclass(frozen=True, slots=True)
class Checks:
    cancelled: Callable[[], bool]
    dropped: Callable[[], e.PgError | None]


@dataclass(frozen=True, slots=True)
class Info:
    """mz_subscriptions' columns."""

    session_id: str
    cluster_id: str
    referenced_object_ids: tuple[str, ...]
    created_at: datetime.datetime


class Subscription:
    def __init__(
        self,
        registry: StreamRegistry,
        stream: ChangeStream,
        shape: Shape,
        bounds: Bounds,
        checks: Checks,
        info: Info,
    ) -> None:
        self.id = f"t{next(_ids)}"
        self._registry = registry
        self._stream = stream
        self._shape = shape
        self._bounds = bounds
        self._checks = checks
        self._info = info
        self.frontier = bounds.as_of - 1  # nothing emitted yet
        self.finished = bounds.up_to is not None and bounds.up_to <= bounds.as_of
        self._started = False
        self._closed = False
        self.emitted_rows = 0
        self.held_rows: Callable[[], int] = lambda: 0
        registry.started(self)

    def ended(self) -> bool:
        return self.finished

    @property
    def fields(self) -> tuple[Field, ...]:
        return self._shape.fields

    # ---- pulling ------------------------------------------------------------------------------------------

    def next(self, wait: float | None, heartbeat: float | None = None) -> pa.RecordBatch | None:
        deadline = None if wait is None else time.monotonic() + wait
        beat = None if heartbeat is None else time.monotonic() + heartbeat
        while not self.finished:
            self._check()
            batch = self._step()
            if batch is not None and batch.num_rows:
                self.emitted_rows += batch.num_rows
                return batch
            if batch is not None:
                continue  # the frontier moved: look again at once
            if deadline is not None and time.monotonic() >= deadline:
                return None
            if beat is not None and time.monotonic() >= beat:
                return _concat([], self._shape)  # no rows: the server checks its client is still there
            pause = POLL_SECONDS if deadline is None else min(POLL_SECONDS, max(0.0, deadline - time.monotonic()))
            self._registry.wait_for_commit(pause)
        return None

    def _check(self) -> None:
        if self._checks.cancelled():
            raise e.QueryCanceled("canceling statement due to user request")
        error = self._checks.dropped()
        if error is not None:
            raise error

    def _done(self) -> None:
        up_to = self._bounds.up_to
        if up_to is not None and self.frontier >= up_to - 1:
            self.finished = True

    def _step(self) -> pa.RecordBatch | None:
        """The next output batch (possibly empty when the frontier moved without output), or None when nothing
        new is readable yet."""
        bounds, shape, registry = self._bounds, self._shape, self._registry
        # time must move even when nothing commits: for PROGRESS, UP TO, and an AS OF not reached yet
        fresh = bounds.progress or bounds.up_to is not None or not self._started
        upper = registry.now(fresh)
        if not self._started:
            if upper < bounds.as_of:
                return None
            self._started = True
            parts = [shape.progress(bounds.as_of)] if bounds.progress else []
            if bounds.snapshot:
                parts.append(shape.changes(bounds.as_of, self._stream.snapshot_rows(registry.snapshot(bounds.as_of))))
            self.frontier = bounds.as_of
            self._done()
            return _concat(parts, shape)
        if bounds.up_to is not None:
            upper = min(upper, bounds.up_to - 1)
        if upper <= self.frontier:
            return None
        ts = self._stream.next_time(self.frontier, registry.snapshot(upper))
        if ts is None:
            self.frontier = upper
            self._done()
            return shape.progress(upper + 1) if bounds.progress and not self.finished else _concat([], shape)
        batch = shape.changes(ts, self._stream.changes_at(self.frontier, ts))
        self.frontier = ts
        self._done()
        return batch

    # ---- the end and introspection ------------------------------------------------------------------------

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._registry.ended(self)
        self._registry.release(self._stream)

    def row(self) -> dict[str, object]:
        info = self._info
        return {
            "id": self.id,
            "session_id": info.session_id,
            "cluster_id": info.cluster_id,
            "created_at": info.created_at,
            "referenced_object_ids": list(info.referenced_object_ids),
        }

    def stats(self) -> dict[str, object]:
        stream = self._stream
        return {
            "subscription_id": self.id,
            "stream": stream.key,
            "frontier": max(self.frontier, 0),
            "emitted_rows": self.emitted_rows,
            "held_rows": self.held_rows(),
            "stream_subscribers": stream.subscribers,
            "stream_computations": stream.computations,
            "stream_hits": stream.hits,
            "stream_cached_batches": stream.cached_batches,
        }


def _concat(parts: list[pa.RecordBatch], shape: Shape) -> pa.RecordBatch:
    parts = [p for p in parts if p.num_rows]
    if len(parts) == 1:
        return parts[0]
    if not parts:
        return shape.changes(0, pa.table({}))
    return pa.Table.from_batches(parts).combine_chunks().to_batches()[0]


class SubscriptionSource(RowSource):
    def __init__(self, subscription: Subscription, guard: Guard) -> None:
        super().__init__(iter(()), guard, closer=subscription.close)
        self.subscription = subscription
        self._fetch = False
        self._deadline: float | None = None
        self._got = False
        subscription.held_rows = lambda: self._pending.num_rows if self._pending is not None else 0

    def streaming(self) -> None:
        self._fetch = False

    def fetching(self, timeout: float | None) -> None:
        self._fetch, self._got = True, False
        self._deadline = None if timeout is None else time.monotonic() + timeout

    @property
    def exhausted(self) -> bool:
        return self._pending is None and self.subscription.finished

    def _next_batch(self) -> pa.RecordBatch | None:
        if self._pending is not None:
            batch, self._pending = self._pending, None
            self._got = True
            return batch
        sub = self.subscription
        if sub.finished:
            self._finish()
            return None
        wait: float | None = None
        heartbeat = None if self._fetch else HEARTBEAT_SECONDS
        if self._fetch:
            wait = 0.0 if self._got else None
            if not self._got and self._deadline is not None:
                wait = max(0.0, self._deadline - time.monotonic())
        with self._guard():
            batch = sub.next(wait, heartbeat)
        if batch is None:
            if sub.ended():
                self._finish()
            return None
        self._got = True
        if batch.num_rows > BATCH_ROWS:  # a large snapshot goes out in pieces (the rest is the one batch held)
            self._pending = batch.slice(BATCH_ROWS)
            batch = batch.slice(0, BATCH_ROWS)
        return batch

    def materialize(self, max_bytes: int = 0, too_large: Exception | None = None) -> None:
        """A subscription is never read ahead: it holds no engine connection."""
