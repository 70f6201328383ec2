"""Freshness of materialized views and indexes: mz_materialization_lag, mz_hydration_statuses,
mz_wallclock_global_lag (Materialize's names and columns) and mz_materialization_refreshes (sparkwire's own).

Contract:
- `RefreshLog` (one per process, thread-safe) is told by the data plane, right where a resident relation is computed
  (a materialized view's maintainer publishing a step, `DataPlane._published`; `DataPlane._compute`: an indexed
  table read from Parquet, an indexed view computed), `refreshed(item_id, snapshot_ts, version, duration)`. It
  keeps the newest refresh per relation (a computation at an older snapshot than the one recorded is ignored, as
  the resident cache ignores it).
- `FreshnessFeed(engine, log, state, snapshot, lineage)` owns a DuckDB connection and, once `start()`ed, a daemon
  thread that every `TICK_SECONDS` derives the four relations from the log, the catalog state (`state()`) and the
  latest storage snapshot (`snapshot()`, taken as any statement takes one), and rewrites them in one DuckDB
  transaction when a row changed. It never calls Spark, never waits on the resident cache's computations, and logs
  (never raises) a failure. `lineage` gives a relation's base tables and content version
  (planner/execute/resident.py's `base_tables` and `relation_version`). `tick()` does one round on the caller's
  thread; `close()` stops and closes.

How sparkwire's values map onto Materialize's concepts (materialized views and indexes are kept current by their
maintainers, docs/continual.md; an index holds its relation's resident contents, shared with a view it indexes):
- An object is *hydrated* once its contents (an index: its relation's) were computed since the server started.
- Its *write frontier*: now, when its recorded version equals its inputs' current version (a read would use the
  contents as they are); else the commit timestamp of the first write to a base table after the snapshot it was
  computed at (its contents are valid up to then). Tables' frontier is now; a view's is its inputs' least.
- `mz_wallclock_global_lag.lag` = now − frontier (tables: 0). `mz_materialization_lag.global_lag` = the same (the
  root inputs are tables, whose frontier is now); `local_lag` = its direct inputs' least frontier − its frontier
  (an index's direct input is its relation); the slowest inputs are those with the least frontier (a base table:
  the one written first after the computation). NULL while not hydrated. `replica_id` is NULL (no replicas).
- `mz_materialization_refreshes`: `last_refreshed_at` and `refresh_duration` of the last computation, `refreshes`
  since start, `reflected_write_ts` the newest base-table commit its contents include, `input_write_ts` the newest
  base-table commit now (storage timestamps: milliseconds since the epoch), `up_to_date` when the versions agree.
"""

from __future__ import annotations

import datetime
import logging
import threading
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Protocol

from sparkwire.catalog import CatalogState
from sparkwire.catalog.objects import Item
from sparkwire.engine.duckdb import DuckDBConnection, DuckDBEngine
from sparkwire.introspection.tables import column_sqls, table_sql
from sparkwire.introspection.workload.relations import (
    HYDRATION_STATUSES,
    MATERIALIZATION_LAG,
    REFRESHES,
    WALLCLOCK_GLOBAL_LAG,
    Values,
    arrow_of,
    relation,
)
from sparkwire.storage import Snapshot

log = logging.getLogger(__name__)

TICK_SECONDS = 1.0
_OBJECT_TYPES = {"materialized-view": "materialized-view", "index": "index"}
_BASE_KINDS = frozenset({"table", "source"})
_RELATIONS = tuple(
    relation(name) for name in (MATERIALIZATION_LAG, HYDRATION_STATUSES, WALLCLOCK_GLOBAL_LAG, REFRESHES)
)


class Lineage(Protocol):
    def base_tables(self, item: Item, state: CatalogState) -> tuple[str, ...]: ...

    def relation_version(self, item: Item, state: CatalogState, snapshot: Snapshot) -> Hashable: ...


@dataclass(frozen=True, slots=True)
class Refresh:
    snapshot_ts: int
    version: Hashable
    at: datetime.datetime
    duration: datetime.timedelta
    count: int


class RefreshLog:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._refreshes: dict[str, Refresh] = {}

    def refreshed(self, item_id: str, snapshot_ts: int, version: Hashable, duration: float) -> None:
        at = datetime.datetime.now(datetime.UTC)
        with self._lock:
            last = self._refreshes.get(item_id)
            if last is not None and last.snapshot_ts > snapshot_ts:
                return
            count = 1 if last is None else last.count + 1
            self._refreshes[item_id] = Refresh(snapshot_ts, version, at, datetime.timedelta(seconds=duration), count)

    def get(self, item_id: str) -> Refresh | None:
        with self._lock:
            return self._refreshes.get(item_id)

    def prune(self, state: CatalogState) -> None:
        with self._lock:
            for item_id in [i for i in self._refreshes if i not in state.items]:
                del self._refreshes[item_id]


def _ms(ms: int) -> datetime.timedelta:
    return datetime.timedelta(milliseconds=max(0, ms))


class _Round:
    """One tick's view: frontiers of the items asked about, memoized."""

    def __init__(self, log: RefreshLog, state: CatalogState, snapshot: Snapshot, lineage: Lineage) -> None:
        self.log, self.state, self.snapshot, self.lineage = log, state, snapshot, lineage
        self.now = time.time_ns() // 1_000_000
        self._frontiers: dict[str, int | None] = {}
        self._stale_tables: dict[str, list[tuple[int, str]]] = {}

    def contents_of(self, item: Item) -> Item | None:
        """The relation whose resident contents serve `item` (an index: its relation)."""
        return self.state.items.get(item.on_id) if item.kind == "index" and item.on_id else item

    def stale_tables(self, rel: Item, refresh: Refresh) -> list[tuple[int, str]]:
        """(first write after the refresh, table id) of each base table written since, earliest first."""
        if rel.id not in self._stale_tables:
            found: list[tuple[int, str]] = []
            for table_id in self.lineage.base_tables(rel, self.state):
                if table_id in self.snapshot.tables():
                    times = self.snapshot.write_times(table_id, after=refresh.snapshot_ts)
                    if times:
                        found.append((times[0], table_id))
            self._stale_tables[rel.id] = sorted(found)
        return self._stale_tables[rel.id]

    def up_to_date(self, rel: Item, refresh: Refresh) -> bool:
        return refresh.version == self.lineage.relation_version(rel, self.state, self.snapshot)

    def frontier(self, item_id: str) -> int | None:
        if item_id in self._frontiers:
            return self._frontiers[item_id]
        self._frontiers[item_id] = None  # a cycle cannot happen, but never recurse forever
        item = self.state.items.get(item_id)
        result: int | None = None
        if item is None or item.kind in _BASE_KINDS:
            result = self.now
        elif item.kind == "view":
            inputs = [self.frontier(dep) for dep in item.dependencies if dep in self.state.items]
            result = None if None in inputs else min([self.now, *(f for f in inputs if f is not None)])
        else:
            rel = self.contents_of(item)
            refresh = None if rel is None else self.log.get(rel.id)
            if rel is not None and refresh is not None:
                stale = [] if self.up_to_date(rel, refresh) else self.stale_tables(rel, refresh)
                result = stale[0][0] if stale else self.now
        self._frontiers[item_id] = result
        return result

    def inputs_of(self, item: Item) -> list[str]:
        deps = [item.on_id] if item.kind == "index" and item.on_id else list(item.dependencies)
        return sorted(dep for dep in deps if dep in self.state.items)

    def rows(self, item: Item) -> tuple[Values, Values, Values, Values]:
        rel = self.contents_of(item)
        refresh = None if rel is None else self.log.get(rel.id)
        frontier = self.frontier(item.id)
        base = () if rel is None else self.lineage.base_tables(rel, self.state)
        lag: datetime.timedelta | None = None if frontier is None else _ms(self.now - frontier)
        local: datetime.timedelta | None = None
        slowest_local: str | None = None
        inputs = [(self.frontier(dep), dep) for dep in self.inputs_of(item)]
        if frontier is not None and inputs and all(f is not None for f, _ in inputs):
            least, slowest_local = min((f, dep) for f, dep in inputs if f is not None)
            local = _ms(least - frontier)
        elif frontier is not None:
            local = datetime.timedelta(0)
        slowest_global: str | None = base[0] if base else None
        reflected: int | None = None
        current: int | None = None
        up_to_date: bool | None = None
        if rel is not None and refresh is not None:
            stale = self.stale_tables(rel, refresh) if not self.up_to_date(rel, refresh) else []
            up_to_date = not stale and self.up_to_date(rel, refresh)
            if stale:
                slowest_global = stale[0][1]
            reflected = self._newest_write(base, refresh.snapshot_ts)
            current = self._newest_write(base, self.snapshot.ts)
        hydrated = refresh is not None
        return (
            (item.id, local, lag, slowest_local, slowest_global),
            (item.id, None, hydrated),
            (item.id, lag),
            (
                item.id, _OBJECT_TYPES[item.kind], hydrated, up_to_date, None if refresh is None else refresh.at,
                None if refresh is None else refresh.duration, 0 if refresh is None else refresh.count, reflected,
                current,
            ),
        )  # fmt: skip

    def _newest_write(self, tables: Sequence[str], ts: int) -> int | None:
        newest: int | None = None
        for table_id in tables:
            if table_id in self.snapshot.tables():
                times = [t for t in self.snapshot.write_times(table_id) if t <= ts]
                if times and (newest is None or times[-1] > newest):
                    newest = times[-1]
        return newest


class FreshnessFeed:
    def __init__(
        self,
        engine: DuckDBEngine,
        log: RefreshLog,
        state: Callable[[], CatalogState],
        snapshot: Callable[[], Snapshot],
        lineage: Lineage,
    ) -> None:
        self._con: DuckDBConnection = engine.connect(counts_writes=False)  # live relations: never cached
        self._log, self._state, self._snapshot, self._lineage = log, state, snapshot, lineage
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._written: tuple[list[Values], ...] = ([], [], [], [])
        self._last_error: str | None = None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="freshness-feed", daemon=True)
            self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self._con.close()

    def _run(self) -> None:
        while not self._stop.wait(TICK_SECONDS):
            try:
                self.tick()
                self._last_error = None
            except Exception as exc:  # logged, never raised: the next tick tries again
                message = f"{type(exc).__name__}: {exc}"
                if message != self._last_error:
                    log.warning("computing freshness failed: %s", message.splitlines()[0][:300])
                    log.debug("computing freshness failed", exc_info=True)
                self._last_error = message

    def tick(self) -> None:
        state = self._state()
        self._log.prune(state)
        current = _Round(self._log, state, self._snapshot(), self._lineage)
        tables: tuple[list[Values], ...] = ([], [], [], [])
        for item in sorted(state.items.values(), key=lambda i: i.oid):
            if item.kind in _OBJECT_TYPES and current.contents_of(item) is not None:
                for rows, row in zip(tables, current.rows(item), strict=True):
                    rows.append(row)
            elif item.kind in _BASE_KINDS:
                tables[2].append((item.id, datetime.timedelta(0)))
        if tables == self._written:
            return
        con = self._con
        con.begin()
        try:
            for rel, rows in zip(_RELATIONS, tables, strict=True):
                con.command(f"DELETE FROM {table_sql(rel)}")
                if rows:
                    con.insert_arrow(table_sql(rel), column_sqls(rel), arrow_of(rel, rows))
            con.commit()
        except BaseException:
            con.rollback()
            raise
        self._written = tables
