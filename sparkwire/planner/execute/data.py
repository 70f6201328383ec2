"""`DataPlane`: what every session shares for user data — catalog, storage, Spark, resident relations.

Contract (one per process, made by `PlannerService`; every method may be called from any session thread):
- `state`: the catalog's committed `CatalogState`. `transact(ops)` commits catalog ops (the introspection store and
  the schema shadows follow in the same transaction, see session/service.py) and then applies the storage side:
  tables the transaction created get their (empty) storage table, dropped tables lose theirs, dropped relations leave
  the resident cache. Storage is changed after the catalog commit, outside the catalog's lock (storage commits take
  catalog write timestamps under the storage lock, so the opposite order could deadlock); a crash in between is
  repaired by `reconcile()` at start, and a write that races a fresh CREATE TABLE creates the storage table itself
  (`ensure_table`).
- `snapshot()`: every table at the latest commit (one timestamp for every relation a statement reads);
  `begin_write()` a storage write transaction, committed with `commit_write(txn)` at a timeline timestamp.
- `spark_ready(notify, engine=None)`: waits for Spark, or for a cluster replica's own application (starting it if
  it was configured to start on demand, or again after a failed restart), telling the session's client once with
  a NOTICE that it waits. After a Spark restart the executor's temporary views are registered again on first use;
  materialized view contents and indexes are held in this process (resident.py), so they survive a restart and are
  recomputed only when stale, as always.
- `executor` (Spark queries at a snapshot, planner/execute/spark/spark_exec.py), `resident` (materialized view contents
  and indexes held in memory, planner/execute/resident.py; each computation of resident contents is told to `refreshes`,
  the freshness relations' source, introspection/workload/freshness.py) and `notices` (optimizer notices,
  planner/statements/notice_service.py: one per process, so that ALTER NOTICE finds a SELECT notice any session was
  sent). `clusters` (compute/controller.py) picks the cluster replica's FAIR pool every Spark job runs in — a
  materialized view's or index's refresh runs on the object's cluster — and tracks what runs where; it follows every
  catalog commit. `spark_jobs` is the live Spark work feed when the service started one (progress notices read it).
- `sources` (sparkwire/sources/manager.py) runs one ingestion per source, following every catalog commit and started
  by `reconcile()`; every source and subsource has a storage table like a table's (created and dropped here), which
  queries, views, materialized views and indexes read like a table's. `subscriptions` holds SUBSCRIBE's shared
  change streams and running subscriptions (planner/execute/subscribe/). `close()` stops ingestion and the cluster
  replicas' own Spark applications (at shutdown).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path

import pyarrow as pa
from sqlglot import exp

from sparkwire.catalog import Catalog, CatalogState
from sparkwire.catalog.catalog import TransactResult
from sparkwire.catalog.objects import Item, ItemSpec, ObjectRef
from sparkwire.catalog.ops import CreateItem, Op
from sparkwire.compute.controller import ClusterController, WorkKind
from sparkwire.compute.dataflow.live import install_maintenance_view
from sparkwire.compute.dataflow.maintainer import MaintainedObject, Maintainers, Version
from sparkwire.compute.dataflow.plan import Maintenance
from sparkwire.compute.live import install_live_views
from sparkwire.engine.duckdb import DuckDBEngine
from sparkwire.engine.spark import SparkEngine
from sparkwire.introspection.workload.freshness import RefreshLog
from sparkwire.introspection.workload.spark_jobs import SparkJobsFeed
from sparkwire.planner.bind.resolve import Names, user_relations
from sparkwire.planner.execute.lock_waits import lock_bound
from sparkwire.planner.execute.resident import ResidentRelations, base_tables, relation_version
from sparkwire.planner.execute.shadow import definition_query
from sparkwire.planner.execute.spark.spark_exec import ReadContext, SparkExecutor
from sparkwire.planner.execute.subscribe.live import install_subscription_views
from sparkwire.planner.execute.subscribe.stream import StreamRegistry
from sparkwire.planner.execute.unique_keys import check_unique_index, key_columns
from sparkwire.planner.execute.writes import storage_schema
from sparkwire.planner.planning.dataflow import contents_schema, maintenance
from sparkwire.planner.statements.notice_service import NoticeService
from sparkwire.planner.translate.duckdb import SessionContext, to_duckdb
from sparkwire.sources.live import install_source_views
from sparkwire.sources.manager import Sources
from sparkwire.storage import Storage
from sparkwire.storage.snapshot import Snapshot
from sparkwire.storage.txn import WriteTxn

SPARK_WAIT_SECONDS = 600.0
_NO_COLUMNS = pa.schema([])


def _nobody(message: str) -> None:
    """Where a maintainer's 'waiting for Spark' notice goes: it has no client."""


TEMPORAL_TICK_SECONDS = 1.0  # how often a materialized view with a temporal filter (mz_now()) is recomputed
MAINTAINED_READ_WAIT = 60.0  # how long a read waits for a materialized view's maintainer to reach its snapshot
STORED_KINDS = frozenset({"table", "source"})  # relations whose rows are a storage table of the same id
_BUILTIN_CONTEXT = SessionContext(0, "materialize", 0)


class DataPlane:
    def __init__(
        self, catalog: Catalog, storage: Storage, spark: SparkEngine, duck: DuckDBEngine, data_dir: Path | None = None
    ) -> None:
        self.catalog = catalog
        self.storage = storage
        self.spark = spark
        self._builtin_con = duck.connect()
        self._builtin_lock = threading.Lock()
        self.executor = SparkExecutor(spark, builtin=self._builtin_arrow, resident=self._resident_contents)
        # a restarted Spark has none of the old JVM's temporary views; resident contents live in this process
        spark.add_restart_listener(self.executor.relations.forget_registrations)
        self.resident = ResidentRelations(self._compute, self._maintained)
        self.notices = NoticeService()
        self.notices.start(catalog.state)
        self.refreshes = RefreshLog()  # freshness: every computation of resident contents (`_compute`)
        self.spark_jobs: SparkJobsFeed | None = None  # live Spark work, set by the service (progress notices)
        history = None if data_dir is None else data_dir / "compute" / "replica_history.jsonl"
        self.clusters = ClusterController(spark, catalog.state, history)  # which replica's pool runs what (compute/)
        install_live_views(duck, self.clusters)
        self.sources = Sources(storage, catalog.write_ts, self.clusters, data_dir)
        install_source_views(duck, self.sources.health)
        self.subscriptions = StreamRegistry(storage, catalog.write_ts)  # SUBSCRIBE's shared change streams
        install_subscription_views(duck, self.subscriptions)
        self.maintainers = Maintainers(storage, self._maintenance_work, self._published)
        install_maintenance_view(duck, self.maintainers)

    @property
    def state(self) -> CatalogState:
        return self.catalog.state

    # ---- catalog and storage ------------------------------------------------------------------------------

    def transact(self, ops: Sequence[Op]) -> TransactResult:
        before = self.catalog.state
        for op in ops:
            if isinstance(op, CreateItem) and op.spec.unique and op.spec.on_id in self.storage.tables():
                self._check_unique(before, op.spec)
        result = self.catalog.transact(ops)
        self.clusters.sync(result.state)
        if result.dropped:
            self.sources.sync(result.state)  # a dropped source stops before its storage goes
            self.maintainers.discard(ref.id for ref in result.dropped if ref.kind == "item")  # and a dropped view
        for ref in result.dropped:
            self._forget(before, ref)
        for ref in result.created:
            item = result.state.items.get(ref.id) if ref.kind == "item" else None
            if item is not None and item.kind in STORED_KINDS:
                self.ensure_table(item)
        if result.created:
            self.sources.sync(result.state)
        if result.created or result.dropped:
            self._maintain(result.state)
        return result

    def _check_unique(self, state: CatalogState, spec: ItemSpec) -> None:
        """CREATE UNIQUE INDEX over the committed rows: 23505 when they repeat a key (a write racing the index's
        creation is not seen: the check and the catalog commit are not one step)."""
        if spec.on_id is None or state.find_item(spec.schema_id, spec.name) is not None:
            return
        key = key_columns(spec.keys)
        check_unique_index(self.snapshot().read_arrow(spec.on_id, columns=key), spec.name, key)

    def _forget(self, before: CatalogState, ref: ObjectRef) -> None:
        if ref.kind != "item":
            return
        item = before.items.get(ref.id)
        if item is None:
            return
        self.resident.drop(item.id)
        if item.kind in STORED_KINDS and item.id in self.storage.tables():
            self.storage.drop_table(item.id)

    def ensure_table(self, item: Item) -> None:
        if item.id not in self.storage.tables():
            try:
                self.storage.create_table(item.id, storage_schema(item))
            except Exception:
                if item.id not in self.storage.tables():  # lost a race with another creator: fine
                    raise

    def reconcile(self) -> None:
        """Make storage hold exactly the catalog's tables (after a crash between the two commits)."""
        tables = {i.id: i for i in self.state.items.values() if i.kind in STORED_KINDS}
        for table_id in self.storage.tables() - tables.keys():
            self.storage.drop_table(table_id)
        for item in tables.values():
            self.ensure_table(item)
        self.sources.sync(self.state)
        self._maintain(self.state)

    def close(self) -> None:
        self.sources.close()
        self.maintainers.close()
        self.clusters.applications.stop()  # the replicas' own Spark applications, if any

    def snapshot(self) -> Snapshot:
        return self.storage.snapshot()

    def begin_write(self) -> WriteTxn:
        return self.storage.begin()

    def commit_write(self, txn: WriteTxn) -> int:
        txn.forget_tables(self.storage.tables())  # tables dropped meanwhile (DDL is not transactional)
        return txn.commit(self.catalog.write_ts)

    # ---- Spark --------------------------------------------------------------------------------------------

    def spark_ready(self, notify: Callable[[str], None], engine: SparkEngine | None = None) -> None:
        """Wait for `engine` (a cluster replica's own application; None: the main engine), see the docstring."""
        spark = engine or self.spark
        if spark.is_ready:
            return
        spark.start_background()
        if not spark.wait_ready(0.05):
            restarting = spark.health().state == "restarting"
            what = "the Spark engine" if engine is None else "the cluster's Spark application"
            notify(f"waiting for {what} to {'restart' if restarting else 'start'}")
            spark.wait_ready(SPARK_WAIT_SECONDS)
        spark.session  # noqa: B018 - raises the start failure (XX000) or 55000 if still not up

    # ---- relation contents --------------------------------------------------------------------------------

    def _builtin_arrow(self, tree: exp.Expression) -> pa.Table:
        sql = to_duckdb(tree, _BUILTIN_CONTEXT, [])
        with self._builtin_lock:
            schema = self._builtin_con.arrow_schema(sql)
            _, batches = self._builtin_con.query(sql)
            return pa.Table.from_batches(list(batches), schema=schema)

    # ---- maintained materialized views (compute/dataflow/, docs/continual.md) --------------------------------

    def _maintain(self, state: CatalogState) -> None:
        """Every materialized view gets its maintainer (an incremental dataflow, or a background recompute), and
        so does every index on a table, source or view (rebuilt after each change to its relation; an index on a
        materialized view is rebuilt by the view's maintainer, `_published`)."""
        objects: list[MaintainedObject] = []
        for item in state.items.values():
            if item.kind not in ("materialized-view", "index") or item.cluster_id is None:
                continue
            known = self.maintainers.get(item.id)
            if known is not None and known.obj.definition == item.create_sql:
                objects.append(known.obj)
                continue
            if item.kind == "index":
                relation = state.items.get(item.on_id or "")
                if relation is not None and relation.kind != "materialized-view":
                    tables = base_tables(relation, state)
                    rebuilt = Maintenance(None, "an index is rebuilt after each change to its relation")
                    objects.append(
                        MaintainedObject(
                            item.id, item.cluster_id, tables, _NO_COLUMNS, rebuilt, recompute=self._rebuild(item),
                            definition=item.create_sql, kind="index",
                        )
                    )  # fmt: skip
                continue
            plan = maintenance(item, state)
            tables = plan.plan.table_ids if plan.plan is not None else base_tables(item, state)
            objects.append(
                MaintainedObject(
                    item.id, item.cluster_id, tables, contents_schema(item, plan), plan,
                    recompute=self._recompute(item),
                    definition=item.create_sql,
                    tick_seconds=TEMPORAL_TICK_SECONDS if "mz_now" in item.create_sql.lower() else None,
                )
            )  # fmt: skip
        self.maintainers.sync(objects)

    def recomputed(self, item_ids: Sequence[str]) -> list[str]:
        """A notice for each of these materialized views that has no incremental plan (it is recomputed)."""
        messages = []
        for item_id in item_ids:
            maintained = self.maintainers.get(item_id)
            if (
                maintained is not None
                and maintained.obj.kind == "materialized-view"
                and not maintained.obj.maintenance.plan
            ):
                name = self.state.items[item_id].name
                why = maintained.obj.maintenance.reason
                messages.append(f'materialized view "{name}" is maintained by recomputing it after each change: {why}')
        return messages

    def _recompute(self, item: Item) -> Callable[[Snapshot], pa.Table]:
        def recompute(snapshot: Snapshot) -> pa.Table:
            self.spark_ready(_nobody)  # starts Spark if it starts on demand, and waits for it
            return self._contents(item, self.state, snapshot)

        return recompute

    def _rebuild(self, index: Item) -> Callable[[Snapshot], pa.Table]:
        def rebuild(snapshot: Snapshot) -> pa.Table:
            relation = self.state.items.get(index.on_id or "")
            if relation is not None and relation.kind == "view":
                self.spark_ready(_nobody)  # the view is computed on Spark
            self.resident.prebuild(index, self.state, snapshot)
            return _NO_COLUMNS.empty_table()

        return rebuild

    def _maintenance_work(self, object_id: str, cluster_id: str) -> AbstractContextManager[object]:
        item = self.state.items.get(object_id)
        kind: WorkKind = "index" if item is not None and item.kind == "index" else "materialized-view"
        return self.clusters.running(kind, cluster_id, object_id=object_id)

    def _published(self, object_id: str, ts: int, version: Version, seconds: float, table: pa.Table) -> None:
        item = self.state.items.get(object_id)
        if item is None or item.kind == "index":
            return  # an index's rebuild is logged by `_compute` as any resident computation is
        self.refreshes.refreshed(object_id, ts, version, seconds)
        state = self.state
        indexes = [i for i in state.items.values() if i.kind == "index" and i.on_id == object_id]
        if indexes:
            snapshot = self.storage.snapshot(ts)
            for index in indexes:  # built now, so that a lookup after this change finds it ready
                self.resident.prebuild(index, state, snapshot)

    def freshest(self, snapshot: Snapshot, tree: exp.Expression | None, names: Names) -> Snapshot:
        """`snapshot`, or an older one at which every materialized view `tree` reads (directly or through views)
        is current: what a serializable read takes so that it never waits for a maintainer."""
        if tree is None:
            return snapshot
        state = self.state
        views: set[str] = set()
        stack = [item for _, item in user_relations(tree, state, names)]
        while stack:
            item = stack.pop()
            if item.kind == "materialized-view":
                views.add(item.id)
            elif item.kind == "view":
                stack.extend(state.items[d] for d in item.dependencies if d in state.items)
        ready = self.maintainers.available_ts(views) if views else None
        if ready is None or ready >= snapshot.ts:
            return snapshot
        return self.storage.snapshot(ready)

    def _maintained(self, item: Item, snapshot: Snapshot, version: Version) -> pa.Table | None:
        bound = lock_bound()
        return self.maintainers.read(item.id, snapshot, version, bound or MAINTAINED_READ_WAIT, bounded=bound > 0)

    def _resident_contents(self, item: Item, read: ReadContext) -> pa.Table:
        return self.resident.contents(item, self.state, read.snapshot)

    def _compute(self, item: Item, state: CatalogState, snapshot: Snapshot) -> pa.Table:
        started = time.monotonic()
        table = self._contents(item, state, snapshot)
        version = relation_version(item, state, snapshot)
        self.refreshes.refreshed(item.id, snapshot.ts, version, time.monotonic() - started)
        return table

    def _contents(self, item: Item, state: CatalogState, snapshot: Snapshot) -> pa.Table:
        if item.kind in STORED_KINDS:
            return snapshot.read_arrow(item.id)
        schema = state.schemas[item.schema_id]
        database = state.databases[schema.database_id or ""].name
        names, read = Names(database=database), ReadContext(snapshot)
        cluster_id = self.clusters.cluster_of(item, state)
        if cluster_id is None:  # an unindexed view computed for a reader: the default pool
            return self.executor.run_arrow(definition_query(item), state, names, read)
        kind: WorkKind = "materialized-view" if item.kind == "materialized-view" else "index"
        with self.clusters.running(kind, cluster_id, object_id=item.id) as placement:
            if placement.engine is not None:
                self.spark_ready(_nobody, placement.engine)
            query = definition_query(item)
            return self.executor.run_arrow(query, state, names, read, pool=placement.pool, engine=placement.engine)
