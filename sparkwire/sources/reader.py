"""The contract between one upstream reader and the ingestion that lands its output in storage.

A reader knows one upstream (a load generator, one PostgreSQL publication) and nothing of storage, the catalog or
Spark. Ingestion (one per source, supervised by the cluster controller) owns the durable side:

- `subsources()` is asked once, when the source is created: the collections the upstream feeds, each with its
  columns as PostgreSQL types. Ingestion creates one storage collection per subsource (plus `<source>_progress`).
- `run(resume, sink, stop)` reads until `stop` is set, calling `sink.emit(batch)` once per upstream transaction
  (a generator tick, a PostgreSQL COMMIT). `resume` is the `offset` of the last batch ingestion made durable, or
  None for a new source (the reader then starts with its snapshot). Ingestion commits each batch — all of its
  subsources' changes and its offset — atomically at one timestamp, so a restart resumes exactly after the last
  durable batch: no gap, no duplicate. `emit` returns once the batch is durable; a reader may acknowledge the
  offset upstream (e.g. a replication slot's flush LSN) after it returns, never before.
- A reader raises `SourceError` for a failure it cannot retry past (a schema change it cannot follow, a missing
  publication); any other exception is treated as transient: ingestion records it in the source's status and
  calls `run` again, with backoff, from the last durable offset. Per-subsource errors (one upstream table altered)
  are reported with `SourceError(subsource=...)`, and the other subsources keep flowing.
- `stop` is checked at least every `POLL_SECONDS`; `close()` releases upstream resources that outlive `run`
  (e.g. drops a replication slot when the source is dropped).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Protocol

import pyarrow as pa

POLL_SECONDS = 0.2


@dataclass(frozen=True, slots=True)
class SubsourceColumn:
    name: str
    type_oid: int  # a PostgreSQL type OID (sparkwire.pgtypes), as catalog Columns carry
    typmod: int = -1
    nullable: bool = True


@dataclass(frozen=True, slots=True)
class SubsourceSpec:
    """One collection the upstream feeds. `name` is the subsource's default name in sparkwire (`bids`,
    `lineitem`, `t` for upstream `public.t`); `upstream` names where it comes from (`public.t`, or the
    generator's output name); `key` lists key columns when the upstream has one (else empty)."""

    name: str
    upstream: str
    columns: tuple[SubsourceColumn, ...]
    key: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Changes:
    """One subsource's changes in one batch, as Arrow tables with exactly the subsource's columns (in order).
    `deletes` are whole rows: each retracts one equal row (multiset semantics; an UPDATE is a delete of the old
    row plus an insert of the new one). Deletes apply before inserts."""

    inserts: pa.Table | None = None
    deletes: pa.Table | None = None


@dataclass(frozen=True, slots=True)
class Batch:
    """One upstream transaction: changes per subsource name, and the offset to resume after it (opaque text the
    reader alone interprets: a tick number, an LSN). `snapshot` marks the batch(es) of the initial snapshot;
    `snapshot_done` marks the batch that completes it. `messages` / `bytes` are what the reader received from
    upstream for this batch (for mz_source_statistics)."""

    offset: str
    changes: dict[str, Changes] = field(default_factory=dict)
    snapshot: bool = False
    snapshot_done: bool = False
    messages: int = 0
    bytes: int = 0


class Sink(Protocol):
    def emit(self, batch: Batch) -> None:
        """Make `batch` durable, atomically at one timestamp; return only when it is."""


class SourceError(Exception):
    """A failure retrying will not fix. `subsource` names the one collection it concerns (None: the whole
    source). The message is shown to users in mz_source_statuses.error: say what happened and what to do."""

    def __init__(self, message: str, subsource: str | None = None) -> None:
        super().__init__(message)
        self.subsource = subsource


class UpstreamReader(Protocol):
    def subsources(self) -> list[SubsourceSpec]: ...

    def run(self, resume: str | None, sink: Sink, stop: threading.Event) -> None: ...

    def close(self) -> None: ...
