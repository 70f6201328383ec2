"""DataRows of batches many sessions send: encoded once per way of encoding them, for every session.

Contract: a producer that hands the same immutable Arrow batch to many sessions (the result cache's answers, the
activity log's newest rows held in memory) calls `SHARED.mark(batch)`. The protocol asks `SHARED.encoded(batch,
oids, formats, options)` before encoding a batch: for a marked batch that is the DataRows encoded before with the
same types, formats and options (equal, not identical: sessions have options objects of their own), or None;
`SHARED.keep(...)` stores what it encoded. A batch that was never marked answers None and is never kept, so a
session's own results never take room here. Marked batches are held (strong references, so an id never names
another batch) in a least-recently-used table of `MAX_BATCHES`, each with at most `MAX_WAYS` encodings, all of them
together at most `MAX_BYTES` (one encoding at most an eighth of that); thread-safe.

Why (issue 14): monitors poll the same answers (the activity log's newest rows, psql's `\\dt`) from many
connections; encoding 100 rows × 32 columns to text costs ~2 ms of the connection's thread each time, where the
answer itself came from memory.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable

import pyarrow as pa

from sparkwire.pgtypes.options import EncodeOptions

MAX_BATCHES = 256
MAX_WAYS = 4
MAX_BYTES = 32 << 20  # all kept encodings together; the least recently used batches go first


class _Marked:
    __slots__ = ("batch", "size", "ways")

    def __init__(self, batch: pa.RecordBatch) -> None:
        self.batch = batch
        self.ways: dict[Hashable, bytes] = {}
        self.size = 0


class SharedRows:
    def __init__(self, max_batches: int = MAX_BATCHES, max_bytes: int = MAX_BYTES) -> None:
        self._marked: OrderedDict[int, _Marked] = OrderedDict()
        self._max_batches = max_batches
        self._max_bytes = max_bytes
        self._bytes = 0
        self._lock = threading.Lock()

    def mark(self, batch: pa.RecordBatch) -> None:
        with self._lock:
            entry = self._marked.get(id(batch))
            if entry is not None and entry.batch is batch:
                return
            if entry is not None:
                self._bytes -= entry.size
            self._marked[id(batch)] = _Marked(batch)
            self._marked.move_to_end(id(batch))
            self._shrink()

    def _entry(self, batch: pa.RecordBatch) -> _Marked | None:
        entry = self._marked.get(id(batch))
        if entry is None or entry.batch is not batch:
            return None
        self._marked.move_to_end(id(batch))
        return entry

    def encoded(
        self, batch: pa.RecordBatch, oids: list[int], formats: tuple[int, ...], options: EncodeOptions
    ) -> bytes | None:
        with self._lock:
            entry = self._entry(batch)
            return None if entry is None else entry.ways.get((tuple(oids), formats, options))

    def keep(
        self, batch: pa.RecordBatch, oids: list[int], formats: tuple[int, ...], options: EncodeOptions, data: bytes
    ) -> None:
        with self._lock:
            entry = self._entry(batch)
            if entry is None or len(entry.ways) >= MAX_WAYS or len(data) > self._max_bytes // 8:
                return
            entry.ways[(tuple(oids), formats, options)] = data
            entry.size += len(data)
            self._bytes += len(data)
            self._shrink()

    def _shrink(self) -> None:
        while self._marked and (len(self._marked) > self._max_batches or self._bytes > self._max_bytes):
            _, oldest = self._marked.popitem(last=False)
            self._bytes -= oldest.size


SHARED = SharedRows()
