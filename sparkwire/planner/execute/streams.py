"""Row sources for portals and cursors: batches pulled lazily from the engine, handed out in row-limited
slices.

Contract: a `RowSource` wraps an iterator of Arrow record batches (an engine reader or precomputed batches)
and a `guard` context manager that the session supplies (it marks the session as running so cancel can
interrupt, maps engine errors to PgError and puts the session in the failed state). `take(limit)` returns a
`RowStream` (see api.py) yielding at most `limit` rows (None = all); rows of a batch beyond the limit
are kept for the next `take`, so successive Executes / FETCHes resume exactly where the previous one stopped.
`materialize(max_bytes, too_large)` reads the remaining rows into memory (the next read raises `too_large` once
they would exceed `max_bytes`), freeing the engine connection (which serves one open
result at a time). `on_exhausted` runs once when the source runs dry (the session stops the statement timer
there). `close()` is idempotent.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager

import pyarrow as pa

Guard = Callable[[], AbstractContextManager[None]]


class RowSource:
    def __init__(
        self,
        batches: Iterator[pa.RecordBatch],
        guard: Guard,
        on_exhausted: Callable[[], None] | None = None,
        closer: Callable[[], None] | None = None,
    ) -> None:
        self._batches: Iterator[pa.RecordBatch] | None = batches
        self._guard = guard
        self._pending: pa.RecordBatch | None = None
        self._on_exhausted = on_exhausted
        self._closer = closer

    @property
    def exhausted(self) -> bool:
        return self._batches is None and self._pending is None

    def _next_batch(self) -> pa.RecordBatch | None:
        if self._pending is not None:
            batch, self._pending = self._pending, None
            return batch
        while self._batches is not None:
            with self._guard():
                batch = next(self._batches, None)
            if batch is None:
                self._finish()
                return None
            if batch.num_rows:
                return batch
        return None

    def _finish(self) -> None:
        self._batches = None
        if self._on_exhausted is not None:
            callback, self._on_exhausted = self._on_exhausted, None
            callback()
        if self._closer is not None:
            closer, self._closer = self._closer, None
            closer()

    def next_rows(self, limit: int | None) -> pa.RecordBatch | None:
        batch = self._next_batch()
        if batch is None:
            return None
        if limit is not None and batch.num_rows > limit:
            self._pending = batch.slice(limit)
            batch = batch.slice(0, limit)
        return batch

    def materialize(self, max_bytes: int = 0, too_large: Exception | None = None) -> None:
        """Read the remaining rows into memory now (the engine connection is needed by another statement). Past
        `max_bytes` (0: no limit) reading stops, and the source's next read raises `too_large` instead."""
        if self._batches is None:
            return
        rest: list[pa.RecordBatch] = []
        held = self._pending.nbytes if self._pending is not None else 0
        with self._guard():
            for batch in self._batches:
                held += batch.nbytes
                if max_bytes and held > max_bytes and too_large is not None:
                    self._pending = None
                    self._batches = _failing(too_large)
                    return
                rest.append(batch)
        self._batches = iter(rest)

    def take(self, limit: int | None) -> RowSlice:
        return RowSlice(self, limit)

    def close(self) -> None:
        self._pending = None
        self._batches = None
        self._on_exhausted = None
        if self._closer is not None:
            closer, self._closer = self._closer, None
            closer()


class RowSlice:
    """A RowStream over the next `limit` rows of a RowSource."""

    def __init__(self, source: RowSource, limit: int | None) -> None:
        self._source = source
        self._remaining = limit

    def __iter__(self) -> Iterator[pa.RecordBatch]:
        return self

    def __next__(self) -> pa.RecordBatch:
        if self._remaining is not None and self._remaining <= 0:
            raise StopIteration
        batch = self._source.next_rows(self._remaining)
        if batch is None:
            raise StopIteration
        if self._remaining is not None:
            self._remaining -= batch.num_rows
        return batch

    def close(self) -> None:
        self._source.close()


def _failing(error: Exception) -> Iterator[pa.RecordBatch]:
    """An iterator that raises `error` on its first read."""
    yield from ()
    raise error
