"""`ClusterController`: the one place that knows which cluster replica runs what (seed 003: one machinery for
statements, view maintenance and index building, and source ingestion when it comes).

Contract (one per process, made by the data plane; every method may be called from any thread):
- `sync(state)` after every catalog commit: the replicas of `state` become the Spark pools (declared for the next
  Spark start, created in the running one when first used) and the replica history (`history`: a file, kept across
  restarts; compute/replica_history.py) records replicas that came or went.
- `cluster_of(item, state)`: the cluster an object's work runs on — its own (materialized views, indexes), else the
  cluster of its oldest index (an indexed view), else None.
- `running(kind, cluster_id, object_id=…, execution_id=…)`: a context manager around one piece of work (`query`:
  a statement's Spark job; `materialized-view` / `index`: a refresh of a maintained object; `ingestion` later); it
  picks the cluster's replica (round robin over its replicas), makes sure its pool exists, records the work as
  running until the block ends and yields its `Placement`: `pool` (for `spark.scheduler.pool`) and `engine`, the
  replica's own Spark application with `--cluster-applications` (compute/applications.py), else None (the main
  engine). A cluster without replicas
  raises 55000 `CLUSTER "c" has no replicas available to service request` (Materialize's wording).
- Preemption (compute/preemption.py): while the replicas of two or more clusters have work, a replica whose tasks
  wait for a slot held by another cluster's replica above its guaranteed share gets one (`busy_pools()`: the pools
  with work now).
- `active()`: the work running now; `history()`, `statuses()`, `utilization()`: the rows of the live relations
  (compute/live.py). Utilization is per replica: cpu_percent = its pool's running tasks / Spark's task slots,
  memory_percent = the JVM heap in use × its share of the running tasks / the size's memory; 0 when idle. A replica
  that is an application of its own: its JVM's CPU since the last look over its cores, and its resident memory over
  the size's memory; its status is its engine's (`offline` with the reason while it starts, restarts or failed).
"""

from __future__ import annotations

import datetime
import itertools
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from sparkwire import errors
from sparkwire.catalog import CatalogState
from sparkwire.catalog.clusters import replicas
from sparkwire.catalog.objects import Cluster, ClusterReplica, Item
from sparkwire.catalog.sizes import size_of
from sparkwire.compute.applications import ReplicaApplications
from sparkwire.compute.pools import SparkPools, pool_name
from sparkwire.compute.preemption import Preemptor
from sparkwire.compute.replica_history import ReplicaHistory
from sparkwire.engine.spark import SparkEngine

log = logging.getLogger(__name__)
WorkKind = Literal["query", "materialized-view", "index", "ingestion"]


class NoReplicas(errors.ObjectNotInPrerequisiteState):
    """`running` on a cluster without replicas: the work waits (a source or a maintained view is `paused`)."""


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


@dataclass(frozen=True, slots=True)
class Placement:
    """Where one piece of work runs: its replica's FAIR pool, in its replica's own engine if it has one."""

    pool: str
    engine: SparkEngine | None = None


@dataclass(frozen=True, slots=True)
class Work:
    id: int
    kind: WorkKind
    cluster_id: str
    replica_id: str
    pool: str
    object_id: str | None
    execution_id: str | None
    started_at: datetime.datetime
    own_application: bool = False


class ClusterController:
    def __init__(self, spark: SparkEngine, state: CatalogState, history: Path | None = None) -> None:
        self._spark = spark
        self.pools = SparkPools(spark)
        self.applications = ReplicaApplications(spark)
        self._lock = threading.Lock()
        self._clusters: object = None
        self._replicas: dict[str, tuple[Cluster, tuple[ClusterReplica, ...]]] = {}
        self._turn = itertools.count()
        self._ids = itertools.count(1)
        self._work: dict[int, Work] = {}
        self._history = ReplicaHistory(history)
        self.preemption = Preemptor(self.pools, self.busy_pools)
        self.sync(state)

    # ---- the catalog's clusters → pools ---------------------------------------------------------------------

    def sync(self, state: CatalogState) -> None:
        with self._lock:
            if state.clusters is self._clusters:
                return
            self._clusters = state.clusters
            self._replicas = {c.id: (c, replicas(c)) for c in state.clusters.values()}
            self._history.observe(
                {r.id: (r.size, c.id, c.name, r.name) for c, reps in self._replicas.values() for r in reps}, _now()
            )
            named = {
                pool_name(c.id, r.id): (f"{c.name}.{r.name}", size_of(r.size))
                for c, reps in self._replicas.values()
                for r in reps
            }
        self.pools.declare({pool: size for pool, (_, size) in named.items()})
        try:  # a replica whose application cannot be made says so in its status; the commit stands
            self.applications.sync(named)
        except Exception:
            log.exception("could not start or stop the clusters' Spark applications")

    def cluster_of(self, item: Item, state: CatalogState) -> str | None:
        if item.cluster_id is not None:
            return item.cluster_id
        indexes = [i for i in state.items.values() if i.kind == "index" and i.on_id == item.id]
        return min(indexes, key=lambda i: i.oid).cluster_id if indexes else None

    # ---- work ------------------------------------------------------------------------------------------------

    def _replica(self, cluster_id: str) -> tuple[str, ClusterReplica]:
        with self._lock:
            found = self._replicas.get(cluster_id)
            if found is None:
                raise errors.UndefinedObject(f"unknown cluster '{cluster_id}'")
            cluster, reps = found
            if not reps:
                raise NoReplicas(
                    f'CLUSTER "{cluster.name}" has no replicas available to service request',
                    hint="Use CREATE CLUSTER REPLICA to attach cluster replicas to the cluster",
                )
            return cluster.id, reps[next(self._turn) % len(reps)]

    @contextmanager
    def running(
        self,
        kind: WorkKind,
        cluster_id: str,
        *,
        object_id: str | None = None,
        execution_id: str | None = None,
    ) -> Iterator[Placement]:
        cluster, replica = self._replica(cluster_id)
        pool = pool_name(cluster, replica.id)
        engine = self.applications.engine(pool)
        if engine is None:
            self.pools.ensure(pool)
        work = Work(
            next(self._ids), kind, cluster, replica.id, pool, object_id, execution_id or None, _now(),
            own_application=engine is not None,
        )  # fmt: skip
        with self._lock:
            self._work[work.id] = work
        self.preemption.watch()
        try:
            yield Placement(pool, engine)
        finally:
            with self._lock:
                self._work.pop(work.id, None)

    def busy_pools(self) -> set[str]:
        with self._lock:
            return {w.pool for w in self._work.values() if not w.own_application}  # the main engine's pools

    def active(self) -> list[Work]:
        with self._lock:
            return sorted(self._work.values(), key=lambda w: w.id)

    # ---- introspection -------------------------------------------------------------------------------------

    def history(self) -> list[dict[str, object]]:
        with self._lock:
            return [
                {
                    "replica_id": h.replica_id,
                    "size": h.size,
                    "cluster_id": h.cluster_id,
                    "cluster_name": h.cluster_name,
                    "replica_name": h.replica_name,
                    "created_at": h.created_at,
                    "dropped_at": h.dropped_at,
                    "credits_per_hour": float(size_of(h.size).credits_per_hour),
                }
                for h in self._history.rows()
            ]

    def _all_replicas(self) -> list[tuple[str, ClusterReplica]]:
        with self._lock:
            return [(c.id, r) for c, reps in self._replicas.values() for r in reps]

    def statuses(self) -> list[dict[str, object]]:
        main = self._spark.health()
        rows: list[dict[str, object]] = []
        for cluster_id, r in self._all_replicas():
            own = self.applications.health(pool_name(cluster_id, r.id))
            health, what = (main, "the Spark engine") if own is None else (own, "its Spark application")
            ready = health.state == "ready"
            rows.append(
                {
                    "replica_id": r.id,
                    "process_id": 0,
                    "status": "online" if ready else "offline",
                    "reason": None if ready else health.last_failure or f"{what} is {health.state}",
                    "updated_at": health.checked_at or _now(),
                }
            )
        return rows

    def utilization(self) -> list[dict[str, object]]:
        running = self.pools.running_tasks()
        slots = self.pools.slots()
        total = sum(running.values())
        heap = self._heap_used()
        rows: list[dict[str, object]] = []
        for cluster_id, r in self._all_replicas():
            pool = pool_name(cluster_id, r.id)
            if self.applications.engine(pool) is not None:
                cpu, resident = self.applications.usage(pool)
                memory = 100.0 * resident / size_of(r.size).memory_bytes
            else:
                tasks = running.get(pool, 0)
                cpu = 100.0 * tasks / slots if slots else 0.0
                memory = 100.0 * heap * tasks / total / size_of(r.size).memory_bytes if total else 0.0
            rows.append(
                {
                    "replica_id": r.id,
                    "process_id": 0,
                    "cpu_percent": min(cpu, 100.0),
                    "memory_percent": min(memory, 100.0),
                    "disk_percent": None,
                }
            )
        return rows

    def _heap_used(self) -> int:
        sc = self.pools.context()
        if sc is None:
            return 0
        try:
            runtime = sc._jvm.java.lang.Runtime.getRuntime()
            return int(runtime.totalMemory()) - int(runtime.freeMemory())
        except Exception:
            return 0
