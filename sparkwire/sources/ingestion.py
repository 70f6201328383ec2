"""`Ingestion`: one source's reader on one thread, landing every batch in storage atomically with its offset.

Contract: `Ingestion(plan, storage, timestamp, controller, health)`; `start()` runs a thread named
`sparkwire-source-<id>` (the OS thread `sw-src-<id>.<n>`, sources/threads.py) that, under the cluster controller
(`running("ingestion", cluster, object_id=source)`: the source's work is recorded on its cluster's replica like any
view maintenance), reads the durable offset from the source's progress collection and calls `reader.run(resume,
sink, stop)`. The sink (`emit`) commits one batch in one storage `WriteTxn`: every subsource's deletes (whole rows,
one equal row each) and inserts, and the progress collection's one row replaced by the batch's offset, at one
timestamp drawn from the catalog timeline. So a restart resumes exactly after the last committed batch: no gap, no
duplicate, and every reader of the source's collections at a timestamp sees them consistent with each other and with
the progress row. The same transaction merges a subsource's small files when a size tier is full (sources/merge.py).

Failures: a `SourceError` for the whole source sets status `failed` and ingestion stops (until the source is
dropped or the server restarts); a `SourceError(subsource=…)` sets that subsource `failed`, its output is ignored
from then on and the reader runs again; anything else is transient: status `stalled` with the error, and `run` is
called again after a backoff (0.5 s doubling to 30 s) from the durable offset; a cluster without replicas pauses it
(status `paused`, as Materialize) until one comes. `stop(close_reader)` ends the thread;
with `close_reader` (DROP SOURCE) the reader's `close()` releases its upstream resources. The reader is opened on
the thread (`plan.open_reader()`), once, so a source whose reader cannot be opened yet is stalled and retried too.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc

from sparkwire import errors as e
from sparkwire.compute.controller import ClusterController, NoReplicas
from sparkwire.sources.merge import merge_small_files
from sparkwire.sources.reader import Batch, SourceError, UpstreamReader
from sparkwire.sources.registry import SourceType
from sparkwire.sources.status import SourceHealth
from sparkwire.sources.threads import name_current, release
from sparkwire.storage import ROW_ID_COLUMN, Storage, WriteTxn

log = logging.getLogger(__name__)
THREAD_PREFIX = "sparkwire-source-"
_started = itertools.count(1)  # ingestions started in this process: each OS thread name is new
_MAX_BACKOFF = 30.0


@dataclass(frozen=True, slots=True)
class IngestionPlan:
    """A source as ingestion needs it: the reader output → storage table (subsource item id) map, the progress
    collection's id and every id whose status follows the source's."""

    source_id: str
    name: str
    cluster_id: str
    type: SourceType
    open_reader: Callable[[], UpstreamReader]
    outputs: dict[str, str]
    progress_id: str
    progress_schema: pa.Schema
    members: tuple[str, ...] = field(default=())
    schemas: dict[str, pa.Schema] = field(default_factory=dict)  # storage schemas of the outputs' tables


def delete_rows(txn: WriteTxn, table_id: str, deletes: pa.Table) -> int:
    """Retract one equal visible row per row of `deletes` (multiset semantics); returns how many were found. The
    collection is read whole (Parquet, in C++), but only the rows whose first column is among the deletes' (NULL
    matching NULL) are compared whole, in Python: a batch's cost follows its deletes, not the collection's size."""
    current = txn.read_arrow(table_id, row_ids=True)
    names = [n for n in current.column_names if n != ROW_ID_COLUMN]
    deletes = deletes.select(names).cast(current.select(names).schema)
    if names:  # only rows whose first column matches can be retracted: compare those alone, in Python
        first = deletes.column(names[0]).combine_chunks()
        current = current.filter(pc.is_in(current.column(names[0]), value_set=first, skip_nulls=False))
    index: dict[tuple[object, ...], list[int]] = defaultdict(list)
    columns = [current.column(n).to_pylist() for n in names]
    for row_id, *values in zip(current.column(ROW_ID_COLUMN).to_pylist(), *columns, strict=True):
        index[tuple(values)].append(row_id)
    chosen: list[int] = []
    for row in zip(*(deletes.column(n).to_pylist() for n in names), strict=True):
        ids = index.get(tuple(row))
        if ids:
            chosen.append(ids.pop())
    if chosen:
        txn.delete_where(table_id, chosen)
    return len(chosen)


class Ingestion:
    def __init__(
        self,
        plan: IngestionPlan,
        storage: Storage,
        timestamp: Callable[[], int],
        controller: ClusterController,
        health: SourceHealth,
    ) -> None:
        self.plan = plan
        self._storage = storage
        self._timestamp = timestamp
        self._controller = controller
        self._health = health
        self._stop = threading.Event()
        self._failed: set[str] = set()  # outputs whose subsource failed
        self._thread = threading.Thread(target=self._main, name=THREAD_PREFIX + plan.source_id, daemon=True)
        self.last_commit_ts: int | None = None
        self._reader: UpstreamReader | None = None

    def start(self) -> None:
        self._thread.start()

    def stop(self, close_reader: bool, timeout: float = 10.0) -> None:
        self._stop.set()
        self._thread.join(timeout)
        if close_reader and self._reader is not None:
            try:
                self._reader.close()
            except Exception:
                log.exception("closing the reader of source %s failed", self.plan.source_id)

    # ---- the thread ------------------------------------------------------------------------------------------

    def _members(self) -> tuple[str, ...]:
        failed = {self.plan.outputs[o] for o in self._failed if o in self.plan.outputs}
        return tuple(i for i in self.plan.members if i not in failed)

    def _replica(self) -> str | None:
        """The cluster replica the controller picked for this ingestion (its work record)."""
        mine = [w for w in self._controller.active() if w.kind == "ingestion" and w.object_id == self.plan.source_id]
        return mine[-1].replica_id if mine else None

    def _rows(self) -> dict[str, int]:
        """The rows each output's collection holds now (from the storage manifest: no data is read)."""
        snapshot = self._storage.snapshot()
        tables = set(self.plan.outputs.values()) & self._storage.tables()
        return {t: sum(f.live_rows for f in snapshot.files(t)) for t in tables}

    def _resume(self) -> str | None:
        rows = self._storage.snapshot().read_arrow(self.plan.progress_id).to_pylist()
        return self.plan.type.resume_offset(rows[0]) if rows else None

    def _main(self) -> None:
        name = f"sw-src-{self.plan.source_id}.{next(_started)}"
        name_current(name)
        try:
            self._loop()
        finally:
            release(name)

    def _loop(self) -> None:
        backoff = 0.5
        while not self._stop.is_set():
            try:
                self._health.set(self._members(), "starting")
                with self._controller.running("ingestion", self.plan.cluster_id, object_id=self.plan.source_id):
                    resume = self._resume()
                    self._health.indexed(self.plan.source_id, self._rows())
                    replica = self._replica()
                    self._health.statistics(self.plan.source_id).replica_id = replica
                    self._health.set(self._members(), "running", replica_id=replica)
                    if self._reader is None:  # opened here, so a failure to open is retried like any other
                        self._reader = self.plan.open_reader()
                    self._reader.run(resume, self, self._stop)
                backoff = 0.5
                if not self._stop.is_set():
                    self._stop.wait(backoff)
            except SourceError as error:
                if error.subsource is not None and error.subsource in self.plan.outputs:
                    self._failed.add(error.subsource)
                    self._health.set([self.plan.outputs[error.subsource]], "failed", str(error))
                    self._stop.wait(backoff)
                    continue
                self._health.set(self._members(), "failed", str(error))
                log.warning("source %s failed: %s", self.plan.name, error)
                return
            except Exception as error:
                if self._stop.is_set():
                    return
                message = error.message if isinstance(error, e.PgError) else str(error) or type(error).__name__
                if isinstance(error, NoReplicas):
                    # Materialize's `paused`: the source's cluster has no replicas to run on (ALTER CLUSTER … SET
                    # (REPLICATION FACTOR = 1) resumes it); checked again every second
                    self._health.set(self._members(), "paused", None, {"reason": message})
                    self._stop.wait(1.0)
                    continue
                self._health.set(self._members(), "stalled", message)
                log.info("source %s stalled (retrying in %.1fs): %s", self.plan.name, backoff, message)
                self._stop.wait(backoff)
                backoff = min(backoff * 2, _MAX_BACKOFF)

    # ---- the sink --------------------------------------------------------------------------------------------

    def emit(self, batch: Batch) -> None:
        if self._stop.is_set():
            raise InterruptedError("the source is stopping")
        txn = self._storage.begin()
        updates = 0
        tables: dict[str, tuple[int, int]] = {}
        try:
            for output, changes in batch.changes.items():
                table_id = self.plan.outputs.get(output)
                if table_id is None or output in self._failed:
                    continue
                deleted = inserted = 0
                if changes.deletes is not None and changes.deletes.num_rows:
                    deleted = delete_rows(txn, table_id, changes.deletes)
                if changes.inserts is not None and changes.inserts.num_rows:
                    inserted = txn.append(table_id, changes.inserts)
                tables[table_id] = (inserted, deleted)
                updates += inserted + deleted
            for table_id in txn.written_tables():
                if table_id in self.plan.schemas:
                    merge_small_files(txn, table_id, self.plan.schemas[table_id])
            row = self.plan.type.progress_row(batch.offset)
            txn.replace(self.plan.progress_id, pa.Table.from_pylist([row], schema=self.plan.progress_schema))
        except BaseException:
            txn.abort()
            raise
        txn.forget_tables(self._storage.tables())
        self.last_commit_ts = txn.commit(self._timestamp)
        self._health.committed(
            self.plan.source_id,
            messages=batch.messages,
            size=batch.bytes,
            updates=updates,
            offset=batch.offset,
            snapshot=batch.snapshot,
            snapshot_done=batch.snapshot_done,
            tables=tables,
        )
