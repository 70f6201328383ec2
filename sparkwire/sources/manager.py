"""`Sources`: the one place that knows which sources run (STORAGE's orchestration of ingestion, seed 001).

Contract (one per process, made by the data plane; every method may be called from any thread):
- `sync(state)` after every catalog commit and once at start: every source whose progress collection exists gets
  one `Ingestion` (one reader, one thread: views, materialized views and indexes over a source read its collections
  in storage and never open a reader of their own — seed 002); a source no longer in the catalog is stopped and its
  reader closed (DROP SOURCE: upstream resources released), its statuses `dropped`. A source whose plan cannot be
  made (its type's configuration unreadable) is `stalled` and tried again at the next sync; a reader that cannot be
  opened is retried by its ingestion thread.
- `subsource_items(state, source_id)` are the catalog items fed by a source (subsources, progress).
- `close()` stops every ingestion without closing readers (a shutdown, not a drop: a replication slot stays).
- `health` is the status and statistics record (sources/status.py); `reader_count()` the ingestion threads alive.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa

from sparkwire.catalog import CatalogState
from sparkwire.catalog.objects import Item
from sparkwire.compute.controller import ClusterController
from sparkwire.pgtypes.mapping import arrow_type_for_pg
from sparkwire.sources.ingestion import THREAD_PREFIX, Ingestion, IngestionPlan
from sparkwire.sources.registry import SourceContext, source_type
from sparkwire.sources.status import SourceHealth
from sparkwire.storage import Storage

log = logging.getLogger(__name__)


def primary_config(item: Item) -> tuple[str, str]:
    """(type name, configuration JSON) of a primary source: `source_options` is {"type": …, "config": …}."""
    options = json.loads(item.source_options)
    return str(options["type"]), str(options["config"])


def output_of(item: Item) -> str | None:
    """The reader output a subsource (or the primary source) is fed from."""
    if not item.source_options:
        return None
    found = json.loads(item.source_options).get("output")
    return None if found is None else str(found)


def subsource_items(state: CatalogState, source_id: str) -> list[Item]:
    return sorted(
        (
            i
            for i in state.items.values()
            if i.kind == "source" and i.source_type in ("subsource", "progress") and source_id in i.dependencies
        ),
        key=lambda i: i.oid,
    )


def _schema(item: Item) -> pa.Schema:
    return pa.schema([(c.name, arrow_type_for_pg(c.type_oid, c.typmod)) for c in item.columns])


def is_primary(item: Item) -> bool:
    return item.kind == "source" and item.source_type not in (None, "subsource", "progress")


class Sources:
    def __init__(
        self, storage: Storage, timestamp: Callable[[], int], controller: ClusterController, data_dir: Path | None
    ) -> None:
        self._storage = storage
        self._timestamp = timestamp
        self._controller = controller
        self.data_dir = data_dir
        self._lock = threading.Lock()
        self._running: dict[str, Ingestion] = {}
        self.health = SourceHealth(data_dir / "sources" / "status_history.jsonl" if data_dir is not None else None)

    def _plan(self, state: CatalogState, source: Item) -> IngestionPlan | None:
        members = subsource_items(state, source.id)
        progress = next((i for i in members if i.source_type == "progress"), None)
        if progress is None or source.cluster_id is None:
            return None  # CREATE SOURCE has not finished making its collections
        type_name, config = primary_config(source)
        kind = source_type(type_name)
        context = SourceContext(state, self.data_dir, source.id, source.name)
        outputs = {o: i.id for i in members if i.source_type == "subsource" and (o := output_of(i)) is not None}
        if (primary := kind.primary_output(config)) is not None:
            outputs[primary] = source.id
        schemas = {i.id: _schema(i) for i in (source, *members)}
        ids = (source.id, *(i.id for i in members))
        return IngestionPlan(
            source.id, source.name, source.cluster_id, kind, lambda: kind.open(config, context), outputs, progress.id,
            schemas[progress.id], ids,
            schemas,
        )  # fmt: skip

    def sync(self, state: CatalogState) -> None:
        with self._lock:
            wanted = {i.id: i for i in state.items.values() if is_primary(i)}
            for source_id in [s for s in self._running if s not in wanted]:
                ingestion = self._running.pop(source_id)
                ingestion.stop(close_reader=True)
                self.health.forget(ingestion.plan.members)
            gone = [str(row["id"]) for row in self.health.statuses() if row["id"] not in state.items]
            if gone:  # never started (a CREATE SOURCE undone), or subsources dropped alone
                self.health.forget(gone)
            for source_id, source in wanted.items():
                if source_id in self._running:
                    continue
                self._register(state, source)
                try:
                    plan = self._plan(state, source)
                except Exception as error:
                    log.warning("source %s cannot start: %s", source.name, error)
                    self.health.set([source.id], "stalled", str(error))
                    continue
                if plan is None:
                    continue
                ingestion = Ingestion(plan, self._storage, self._timestamp, self._controller, self.health)
                self._running[source_id] = ingestion
                ingestion.start()

    def _register(self, state: CatalogState, source: Item) -> None:
        self.health.register(source.id, source.name, source.source_type or "")
        for item in subsource_items(state, source.id):
            self.health.register(item.id, item.name, item.source_type or "")

    def ingestion(self, source_id: str) -> Ingestion | None:
        with self._lock:
            return self._running.get(source_id)

    def close(self) -> None:
        with self._lock:
            running, self._running = list(self._running.values()), {}
        for ingestion in running:
            ingestion.stop(close_reader=False)

    @staticmethod
    def reader_count() -> int:
        return sum(1 for t in threading.enumerate() if t.name.startswith(THREAD_PREFIX) and t.is_alive())
