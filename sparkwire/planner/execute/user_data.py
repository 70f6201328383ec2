"""`UserData`: one session's statements over user relations — routing, Spark queries, writes, DDL, SHOW, EXPLAIN.

Contract (the session calls it; everything runs on the session's thread except `cancel`):
- `reads_user_data(plan)`: the statement references a catalog table, view or materialized view (so it runs on Spark
  or the index fast path, never on DuckDB, which only holds empty shadows of them); `write_target(plan)`: the user
  table an INSERT/UPDATE/DELETE writes, or None.
- `query(plan, params, fields, txn)`: the rows of a query, as Arrow batches shaped exactly like `fields` (the
  DuckDB description the client was given: names and Arrow types are conformed, so Describe and the DataRows
  always agree). Literal lookups on a whole index key are answered from the resident index (no Spark job);
  everything else runs on Spark at one snapshot (plus the session's own uncommitted writes when `txn` is open).
- `write(plan, params, txn)`: an INSERT/UPDATE/DELETE on a user table into the write transaction (writes.py).
- `ddl(plan)`: applies a DDL statement to the catalog (ddl.py) and storage; CREATE TABLE AS also fills the table.
- `show(stmt)`, `explain(plan, params)`: rows for SHOW <objects> and EXPLAIN.
- `cancel()`: cancels the Spark job of the running statement, if any (any thread); True when there was one.

Spark jobs run in the FAIR pool of a replica of the session's cluster (`cluster`, read through `setting`; 42704
`unknown cluster 'x'` when it does not exist, 42501 without USAGE on it), tracked by the cluster controller
(compute/controller.py). They are tagged `sw-<n>` or, when the session set `execution_id`, `sw-<n>.<execution_id>`
(mz_spark_jobs shows the statement by it; so are the materialized view computations its planning needs, see
`spark_exec.on_behalf_of`); with the session variable `progress_notices` on (read through `setting`), a Spark
statement sends progress NOTICEs every few seconds (introspection/workload/progress.py).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterator, Sequence

import pyarrow as pa
from cachetools import LRUCache
from sqlglot import exp

from sparkwire import errors as e
from sparkwire.api import Field, Notice
from sparkwire.catalog import CatalogState
from sparkwire.catalog.builtins import DEFAULT_CLUSTER
from sparkwire.catalog.objects import Column as CatalogColumn
from sparkwire.catalog.objects import Item, ObjectRef
from sparkwire.engine.base import Column
from sparkwire.engine.duckdb import DuckDBConnection
from sparkwire.engine.spark import SparkEngine
from sparkwire.engine.spark_results import SparkArrowStream
from sparkwire.introspection.workload.progress import watch as watch_progress
from sparkwire.notices.alter import TAG as ALTER_NOTICE
from sparkwire.notices.alter import AlterNotice, plan_alter_notice
from sparkwire.pgtypes.mapping import arrow_type_for_pg, pg_type_for_duckdb
from sparkwire.pgtypes.options import EncodeOptions
from sparkwire.planner.bind.output_types import COMPUTED, NUMERIC_QUOTIENT, declared_types, inferred
from sparkwire.planner.bind.resolve import Names, resolve_table, user_relations
from sparkwire.planner.execute.data import DataPlane
from sparkwire.planner.execute.explain import (
    DuckDBRoute,
    FastPathRoute,
    Route,
    ScanRoute,
    SparkRoute,
    explain_text,
)
from sparkwire.planner.execute.fast_path import FastPathPlan, fast_path, run_fast_path
from sparkwire.planner.execute.scan_path import held, run_scan, scan_path
from sparkwire.planner.execute.spark.conform import conform, result_field
from sparkwire.planner.execute.spark.spark_exec import ReadContext, on_behalf_of
from sparkwire.planner.execute.spark.spark_relations import item_columns
from sparkwire.planner.execute.write_txn import oracle_ts
from sparkwire.planner.execute.write_values import assign_rows
from sparkwire.planner.execute.writes import WriteResult, execute_write, storage_schema
from sparkwire.planner.grammar import cluster as cg
from sparkwire.planner.grammar import ddl as g
from sparkwire.planner.grammar import secrets as sg
from sparkwire.planner.grammar.comment import CommentOn
from sparkwire.planner.grammar.show import ShowColumns, ShowCreate, ShowObjects
from sparkwire.planner.grammar.sources import CreateSource
from sparkwire.planner.planning.plan import Plan
from sparkwire.planner.security.privileges import check_dml, check_ops, check_privilege, check_read, check_write
from sparkwire.planner.statements.byte_sizes import describe_byte_size
from sparkwire.planner.statements.clusters import active_cluster, plan_cluster
from sparkwire.planner.statements.comment import plan_comment
from sparkwire.planner.statements.ddl import DdlContext, plan_ddl
from sparkwire.planner.statements.rbac import plan_rbac
from sparkwire.planner.statements.secrets import SecretEnv, run_secret_statement, show_secret_objects
from sparkwire.planner.statements.show_objects import show_objects
from sparkwire.planner.statements.sources import create_source
from sparkwire.planner.translate.duckdb import SessionContext, to_duckdb, with_session_facts
from sparkwire.planner.translate.functions.transaction_time import StatementTimes, with_transaction_time
from sparkwire.planner.translate.mz_now import uses_mz_now, with_read_ts
from sparkwire.storage.secrets import SecretStore
from sparkwire.storage.snapshot import Snapshot
from sparkwire.storage.txn import WriteTxn

_job_numbers = itertools.count(1)
NUMERIC_OID = 1700
SHOW_STATEMENTS = (ShowObjects, ShowColumns, ShowCreate)
CLUSTER_STATEMENTS = (
    cg.CreateCluster, cg.CreateClusterReplica, cg.AlterCluster, cg.DropCluster, cg.DropClusterReplica
)  # fmt: skip
DDL_STATEMENTS = (
    g.CreateTable, g.CreateView, g.CreateIndex, g.CreateSchema, g.DropObjects, g.AlterRename, *CLUSTER_STATEMENTS,
    CreateSource,
)  # fmt: skip


def _not_waiting(event_type: str | None, event: str | None) -> None:
    pass


class UserData:
    def __init__(
        self,
        data: DataPlane,
        engine: DuckDBConnection,
        ctx: Callable[[], SessionContext],
        names: Callable[[], Names],
        notify: Callable[[Notice], None],
        enabled: Callable[[str], bool],
    ) -> None:
        self._data = data
        self._engine = engine
        self._ctx = ctx
        self._names = names
        self._notify = notify
        self._enabled = enabled
        self._routes: dict[int, tuple[Plan, bool, Item | None]] = {}
        self._arrow_schemas: dict[int, tuple[Plan, pa.Schema]] = {}
        self._duck_schemas: dict[int, tuple[Plan, pa.Schema]] = {}  # from describe_duck, until _arrow_schema
        self._fields: dict[int, tuple[Plan, tuple[Field, ...]]] = {}
        self._notices: LRUCache[int, tuple[Plan, CatalogState, Names, bool]] = LRUCache(256)  # per plan: notices apply?
        self._fast_paths: dict[tuple[int, int, str], tuple[Plan, FastPathPlan | None]] = {}
        self._lock = threading.Lock()
        self._job_tag: str | None = None
        self._job_engine: SparkEngine | None = None  # where the job runs when not on the main engine (compute/)
        self.last_job_tag: str | None = None  # the Spark job tag of the last query run on Spark
        self.last_job_engine: SparkEngine | None = None  # and the replica application it ran on (None: the main)
        # the snapshot a query reads: the session's (one per transaction block, write_txn.py); the latest by default
        self.read_snapshot: Callable[[], Snapshot] = data.snapshot
        self.in_block: Callable[[], bool] = lambda: False
        # the statement running (its Spark jobs are tagged `sw-<n>.<execution_id>`) and the session's variables
        # (`progress_notices`), both set by the session
        self.execution_id: str = ""
        self.setting: Callable[[str], str] | None = None
        # workload introspection: how the last query ran (fast-path / standard) and what the session waits on
        self.strategy: str | None = None
        self.waiting: Callable[[str | None, str | None], None] = _not_waiting

    def cluster_name(self) -> str:
        """The session's `cluster` (SET cluster); what its Spark jobs, indexes and materialized views use."""
        return self.setting("cluster") if self.setting is not None else DEFAULT_CLUSTER

    def forget_plans(self) -> None:
        self._routes.clear()
        self._arrow_schemas.clear()
        self._duck_schemas.clear()
        self._fields.clear()
        self._fast_paths.clear()

    # ---- routing ------------------------------------------------------------------------------------------

    def _route(self, plan: Plan) -> tuple[bool, Item | None]:
        cached = self._routes.get(id(plan))
        if cached is not None and cached[0] is plan:
            return cached[1], cached[2]
        reads, target = False, None
        if plan.tree is not None and plan.kind in ("query", "dml"):
            state, names = self._data.state, self._names()
            refs = user_relations(plan.tree, state, names)
            if plan.kind == "dml":
                table = plan.tree.this
                table = table.this if isinstance(table, exp.Schema) else table
                if isinstance(table, exp.Table):
                    target = resolve_table(table, state, names)
                    if target is not None and target.kind != "table":
                        raise e.WrongObjectType(f'cannot change {target.kind.replace("-", " ")} "{target.name}"')
            reads = bool(refs)
        self._routes[id(plan)] = (plan, reads, target)
        return reads, target

    def column_types(self, tree: exp.Expression) -> dict[str, dict[str, str]]:
        """The PostgreSQL column types of the user relations `tree` reads, by name and by alias (what DuckDB's
        translation needs to type numeric quotients as Spark's does)."""
        found: dict[str, dict[str, str]] = {}
        for node, item in user_relations(tree, self._data.state, self._names()):
            columns = item_columns(item)
            found[node.name] = columns
            found[node.alias_or_name] = columns
        return found

    def reads_user_data(self, plan: Plan) -> bool:
        return self._route(plan)[0]

    def write_target(self, plan: Plan) -> Item | None:
        return self._route(plan)[1]

    # ---- queries ------------------------------------------------------------------------------------------

    def describe_duck(self, plan: Plan, sql: str) -> list[Column]:
        """The columns DuckDB describes for `sql`, the description of the user query `plan` (its rows' DuckDB
        types); the same preparation gives the Arrow types the Spark result is conformed to (`_arrow_schema`)."""
        columns, described = self._engine.describe_arrow(sql)
        self._duck_schemas[id(plan)] = (plan, described)
        return columns

    def _arrow_schema(self, plan: Plan, fields: Sequence[Field]) -> pa.Schema:
        cached = self._arrow_schemas.get(id(plan))
        if cached is not None and cached[0] is plan:
            return cached[1]
        assert plan.tree is not None
        known_schema = self._duck_schemas.pop(id(plan), None)
        if known_schema is not None and known_schema[0] is plan:
            described = known_schema[1]
        else:
            params = [t[1] for t in plan.param_types]
            known = self.column_types(plan.tree)
            sql = to_duckdb(plan.tree, self._ctx(), params, null_parameters=True, columns=known, results_as_text=True)
            described = self._engine.arrow_schema(sql)
        schema = pa.schema([result_field(f, t.type) for f, t in zip(fields, described, strict=True)])
        self._arrow_schemas[id(plan)] = (plan, schema)
        return schema

    def described(self, plan: Plan, describe: Callable[[], tuple[Field, ...]]) -> tuple[Field, ...]:
        """The plan's result fields, described once per plan (plans are re-made when the schema changes)."""
        cached = self._fields.get(id(plan))
        if cached is not None and cached[0] is plan:
            return cached[1]
        fields = describe()
        self._fields[id(plan)] = (plan, fields)
        return fields

    def _fast_path(self, plan: Plan, state: CatalogState, names: Names, timezone: str) -> FastPathPlan | None:
        key = (id(plan), state.revision, timezone)
        cached = self._fast_paths.get(key)
        if cached is not None and cached[0] is plan:
            return cached[1]
        assert plan.tree is not None
        lookup = fast_path(plan.tree, state, names, timezone=timezone)
        if len(self._fast_paths) > 256:
            self._fast_paths.clear()
        self._fast_paths[key] = (plan, lookup)
        return lookup

    def _read(self, txn: WriteTxn | None, plan: Plan | None = None) -> ReadContext:
        snapshot = self.read_snapshot()
        if plan is not None and txn is None and plan.as_of is None and not plan.mz_now and self._serializable():
            snapshot = self._data.freshest(snapshot, plan.tree, self._names())
        return ReadContext(snapshot, txn)

    def _serializable(self) -> bool:
        """`SET transaction_isolation = 'serializable'` outside a block: a read of maintained views takes the
        freshest timestamp they are all current at instead of waiting for them (docs/continual.md)."""
        return self.setting is not None and self.setting("transaction_isolation") == "serializable" and not (
            self.in_block()
        )  # fmt: skip

    def readable(self, plan: Plan) -> exp.Expression | None:
        """The query the session's role may run: `plan.tree` itself, or with a row filter (notices of objects the
        role may see); 42501 when it reads a relation it may not."""
        if plan.tree is None:
            return None
        names = self._names()
        return check_read(plan.tree, self._data.state, names, names.role_id)

    def query(
        self,
        plan: Plan,
        params: Sequence[object],
        fields: Sequence[Field],
        txn: WriteTxn | None,
        timezone: str,
        tree: exp.Expression | None = None,
        max_bytes: int | None = None,
    ) -> Iterator[pa.RecordBatch]:
        """`max_bytes`: a result held in memory larger than this is 54000 (max_query_result_size)."""
        assert plan.tree is not None
        tree = plan.tree if tree is None else tree
        schema = self._arrow_schema(plan, fields)
        state, names = self._data.state, self._names()
        read = self._read(txn, plan)
        if plan.mz_now:  # mz_now() is the snapshot's timestamp, a literal (translate/mz_now.py); Spark only
            tree = with_read_ts(tree, read.snapshot.ts, "spark", self.column_types(tree))
        direct = txn is None and not plan.mz_now and not plan.transaction_time
        lookup = self._fast_path(plan, state, names, timezone) if direct else None
        if lookup is not None:
            self.strategy = "fast-path"
            with on_behalf_of(self.execution_id):  # an index on a stale view recomputes it
                table = run_fast_path(lookup, self._data.resident, state, read.snapshot, params)
            return (conform(b, schema) for b in table.to_batches())
        scan = scan_path(tree, state, names) if direct else None
        if scan is not None:
            self.strategy = "fast-path" if scan.maintained else "persist-fast-path"
            item = state.items[scan.relation_id]
            contents = lambda: self._data.resident.contents(item, state, read.snapshot)  # noqa: E731
            cluster = active_cluster(state, self.cluster_name())  # as on Spark: a role's queries use its cluster
            check_privilege(ObjectRef("cluster", cluster.id), "USAGE", state, names.role_id)
            if max_bytes is None:
                return (conform(b, schema) for b in run_scan(scan, read.snapshot, contents))
            whole = held(run_scan(scan, read.snapshot, contents), max_bytes)
            if whole is None:
                raise e.result_too_large(describe_byte_size(max_bytes))
            return (conform(b, schema) for b in whole)
        self.strategy = "standard"
        stream = self._run_spark(tree, state, names, read, params, [t[1] for t in plan.param_types])
        if max_bytes is not None and stream.nbytes > max_bytes:
            stream.close()
            raise e.result_too_large(describe_byte_size(max_bytes))
        return (conform(b, schema) for b in stream)

    def _run_spark(
        self,
        tree: exp.Expression,
        state: CatalogState,
        names: Names,
        read: ReadContext,
        params: Sequence[object],
        param_types: Sequence[str],
        results_as_text: bool = True,
    ) -> SparkArrowStream:
        """`results_as_text`: the rows go to a client (numeric quotients as PostgreSQL's text); False when they are
        written (INSERT … SELECT, CREATE TABLE AS)."""
        cluster = active_cluster(state, self.cluster_name())  # 42704 before waiting for Spark
        check_privilege(ObjectRef("cluster", cluster.id), "USAGE", state, names.role_id)
        def notify(message: str) -> None:
            self._notify(Notice(message=message, severity="NOTICE", sqlstate="00000"))

        self._data.spark_ready(notify)
        executor = self._data.executor
        tag = f"sw-{next(_job_numbers)}"
        if self.execution_id:
            tag += "." + self.execution_id.replace(",", "_")  # Spark job tags may not contain commas
        stop_progress = self._progress_notices(tag)  # also of the stale materialized views prepare recomputes
        try:
            with on_behalf_of(self.execution_id):
                facts = with_session_facts(tree, self._ctx())
                zone = self.setting("TimeZone") if self.setting is not None else "UTC"
                query = executor.prepare(facts, state, names, read, param_types, results_as_text, zone)
            with self._lock:
                self._job_tag = tag
            self.last_job_tag, self.last_job_engine = tag, None  # EXPLAIN ANALYZE reads this statement's jobs by it
            self.waiting("Extension", "SparkJob")
            try:
                with self._data.clusters.running("query", cluster.id, execution_id=self.execution_id) as placement:
                    if placement.engine is not None:
                        self._data.spark_ready(notify, placement.engine)
                    with self._lock:
                        self._job_engine = self.last_job_engine = placement.engine
                    return executor.run(query, params, tag, None, pool=placement.pool, engine=placement.engine)
            finally:
                self.waiting(None, None)
                with self._lock:
                    self._job_tag = None
                    self._job_engine = None
        finally:
            if stop_progress is not None:
                stop_progress()

    def _progress_notices(self, tag: str) -> Callable[[], None] | None:
        """With `progress_notices` on, a NOTICE with the statement's Spark progress every few seconds."""
        feed = self._data.spark_jobs
        if feed is None or self.setting is None or self.setting("progress_notices") != "on":
            return None
        notify = self._notify

        def send(message: str) -> None:
            notify(Notice(message=message, severity="NOTICE", sqlstate="00000"))

        return watch_progress(feed.progress, self.execution_id or tag, send)

    def query_arrow(self, tree: exp.Expression, txn: WriteTxn | None) -> pa.Table:
        """A query over user relations (INSERT … SELECT, CREATE TABLE AS) as one Arrow table."""
        state, names = self._data.state, self._names()
        stream = self._run_spark(tree, state, names, self._read(txn), (), (), results_as_text=False)
        return pa.Table.from_batches(list(stream), schema=stream.schema)

    def cancel(self) -> bool:
        with self._lock:
            tag, engine = self._job_tag, self._job_engine
        if tag is None:
            return False
        (engine or self._data.spark).cancel(tag)  # a statement whose placement is not known yet has no job
        return True

    # ---- writes -------------------------------------------------------------------------------------------

    def write(
        self, plan: Plan, params: Sequence[object], txn: WriteTxn, options: EncodeOptions, times: StatementTimes
    ) -> WriteResult:
        target = self.write_target(plan)
        assert target is not None and isinstance(plan.tree, exp.Insert | exp.Update | exp.Delete)
        names = self._names()
        # what it may read of builtin relations: RBAC's row filters and masks are in the tree it returns
        tree: exp.Expression = check_dml(plan.tree, self._data.state, names, names.role_id)
        self._data.ensure_table(target)
        # the timeline's read timestamp, a literal both engines take (VALUES on DuckDB); RBAC's rewrite is a new tree
        if plan.mz_now if tree is plan.tree else uses_mz_now(tree):
            tree = with_read_ts(tree, oracle_ts(self._data), "spark", self.column_types(tree))
        assert isinstance(tree, exp.Insert | exp.Update | exp.Delete)
        return execute_write(
            tree,
            target,
            self._data.state,
            self._names(),
            txn,
            self._engine,
            params,
            [t[1] for t in plan.param_types],
            lambda tree: self.query_arrow(with_transaction_time(tree, times), txn),
            ctx=self._ctx(),
            options=options,
            times=times,
        )

    def copy_target(self, name: str) -> Item:
        """The table COPY FROM writes (42809 for a view, 42501 for a builtin relation)."""
        node = exp.to_table(name, dialect="postgres")
        names = self._names()
        item = resolve_table(node, self._data.state, names)
        if item is None:
            raise e.InsufficientPrivilege(f"permission denied for table {node.name}")
        if item.kind != "table":
            raise e.WrongObjectType(f'cannot copy to {item.kind.replace("-", " ")} "{item.name}"')
        check_write(item, "INSERT", self._data.state, names.role_id)
        self._data.ensure_table(item)
        return item

    def truncate(self, tree: exp.TruncateTable, txn: WriteTxn) -> None:
        state, names = self._data.state, self._names()
        for node in tree.expressions:
            item = resolve_table(node, state, names) if isinstance(node, exp.Table) else None
            if item is None:
                raise e.InsufficientPrivilege(f"permission denied for table {node.name}")
            if item.kind != "table":
                raise e.WrongObjectType(f'"{node.name}" is not a table')
            self._data.ensure_table(item)
            txn.replace(item.id, storage_schema(item).empty_table())

    # ---- DDL, SHOW, EXPLAIN -------------------------------------------------------------------------------

    def describe_query(self, tree: exp.Expression) -> tuple[CatalogColumn, ...]:
        known = self.column_types(tree)
        columns = self._engine.describe(to_duckdb(tree, self._ctx(), [], columns=known))
        declared = declared_types(tree, known) or ()
        out = []
        for n, column in enumerate(columns):
            oid, typmod = pg_type_for_duckdb(column.engine_type)
            given = declared[n] if len(declared) == len(columns) else None
            if inferred(given):  # PostgreSQL's result type by its rules (pg_result_types.py)
                assert given is not None
                oid, typmod = given[0], -1
            computed = given in (COMPUTED, NUMERIC_QUOTIENT)
            out.append(CatalogColumn(column.name, oid, -1 if computed and oid == NUMERIC_OID else typmod))
        return tuple(out)

    def ddl(self, plan: Plan, fill: Callable[[Item, pa.Table], int], txn: WriteTxn | None) -> str:
        """Apply a DDL statement; returns the CommandComplete tag. `fill(table, rows)` commits CREATE TABLE AS rows."""
        statement = plan.statement
        if statement is None or isinstance(statement, (SHOW_STATEMENTS, sg.SecretShow)):
            raise e.FeatureNotSupported(f"{plan.tag or 'this statement'} is not supported")
        state, names = self._data.state, self._names()
        if isinstance(statement, sg.SecretStatement):  # secrets and connections: planner/statements/secrets.py
            env = SecretEnv(state, names, self._data.transact, SecretStore(self._data.storage.data_dir), self._notify)
            return run_secret_statement(statement, env)
        if isinstance(statement, AlterNotice):
            self._data.transact(plan_alter_notice(statement, state, names.role_id, self._data.notices))
            return ALTER_NOTICE
        if isinstance(statement, CommentOn):
            self._data.transact(list(plan_comment(statement, state, names)))
            return "COMMENT"
        if not isinstance(statement, DDL_STATEMENTS):
            rbac = plan_rbac(statement, state, names)
            for notice in rbac.notices:
                self._notify(notice)
            if rbac.ops:
                self._data.transact(list(rbac.ops))
            return rbac.tag
        if isinstance(statement, CLUSTER_STATEMENTS):
            planned = plan_cluster(statement, state, names.role_id, names.context)
        elif isinstance(statement, CreateSource):  # two catalog transactions, applied by create_source itself
            ctx = DdlContext(state, names, self.describe_query, self.cluster_name())
            planned = create_source(statement, ctx, self._data.transact, self._data.sources.data_dir)
            for notice in planned.notices:
                self._notify(notice)
            return planned.tag
        else:
            planned = plan_ddl(statement, DdlContext(state, names, self.describe_query, self.cluster_name()))
        check_ops(planned.ops, state, names.role_id)
        # CREATE TABLE … AS fills the table with what the role may read (RBAC's row filters and masks); a view's
        # body is stored as written and checked with its owner's access when read
        readable = check_read(planned.query, state, names, names.role_id) if planned.query is not None else None
        for notice in planned.notices:
            self._notify(notice)
        result = self._data.transact(planned.ops)
        created_ids = [ref.id for ref in result.created if ref.kind == "item"]
        for notice in self._data.notices.after_ddl(result.state, created_ids, self._enabled):
            self._notify(notice)
        for message in self._data.recomputed(created_ids):
            self._notify(Notice(message=message, severity="NOTICE", sqlstate="00000"))
        created = [
            result.state.items[ref.id] for ref in result.created if ref.kind == "item" and ref.id in result.state.items
        ]
        table = next((i for i in created if i.kind == "table"), None)
        if readable is None or table is None:
            return planned.tag
        query = readable
        if user_relations(query, result.state, self._names()):
            rows = self.query_arrow(query, txn)
        else:
            sql = to_duckdb(query, self._ctx(), [])
            schema = self._engine.arrow_schema(sql)
            _, batches = self._engine.query(sql)
            rows = pa.Table.from_batches(list(batches), schema=schema)
        return f"SELECT {fill(table, assign_rows(rows, table.columns))}"  # as an INSERT assigns (numeric text)

    def show(self, statement: object) -> tuple[tuple[Field, ...], pa.RecordBatch]:
        if isinstance(statement, sg.SecretShow):
            fields, rows = show_secret_objects(statement, self._data.state, self._names())
        else:
            assert isinstance(statement, SHOW_STATEMENTS)
            fields, rows = show_objects(statement, self._data.state, self._names())
        columns = [
            pa.array([row[i] for row in rows], arrow_type_for_pg(f.type_oid, f.type_modifier))
            for i, f in enumerate(fields)
        ]
        return fields, pa.record_batch(columns, names=[f.name for f in fields])

    def explain(self, plan: Plan, params: Sequence[object], timezone: str, redacted: bool) -> list[str]:
        return [*self._route_lines(plan, params, timezone), *self.notice_lines(plan, redacted)]

    def notice_lines(self, plan: Plan, redacted: bool) -> list[str]:
        assert plan.tree is not None
        return self._data.notices.explain_lines(plan.tree, self._data.state, self._names(), redacted, self._enabled)

    def query_notices(self, plan: Plan) -> list[Notice]:
        """The optimizer notices of a SELECT (EqualsNull, CrossJoin, …), unless their type is switched off. A
        query that reads relations but no user relation is introspection (psql's `\\d`, a BI tool's catalog
        queries): it gets none."""
        assert plan.tree is not None
        state, names = self._data.state, self._names()
        cached = self._notices.get(id(plan))
        if cached is None or cached[0] is not plan or cached[1] is not state or cached[2] != names:
            introspection = plan.tree.find(exp.Table) is not None and not self.reads_user_data(plan)
            cached = self._notices[id(plan)] = (plan, state, names, not introspection)
        if not cached[3]:
            return []
        return self._data.notices.for_query(plan.tree, state, names, self._enabled)

    def _route_lines(self, plan: Plan, params: Sequence[object], timezone: str) -> list[str]:
        return explain_text(self.explain_route(plan, params, timezone), self._data.state)

    def explain_route(self, plan: Plan, params: Sequence[object], timezone: str, verbose: bool = False) -> Route:
        """The route `plan` would take (explain.py); `verbose`: with every plan Spark makes, not only the physical."""
        assert plan.tree is not None
        tree = self.readable(plan) or plan.tree
        state, names = self._data.state, self._names()
        if not self.reads_user_data(plan):
            return DuckDBRoute(plan.duck())
        lookup = fast_path(plan.tree, state, names, timezone=timezone)
        if lookup is not None:
            return FastPathRoute(lookup)
        scan = scan_path(tree, state, names)
        if scan is not None:
            return ScanRoute(scan)
        self._data.spark_ready(lambda m: self._notify(Notice(message=m, severity="NOTICE", sqlstate="00000")))
        executor = self._data.executor
        read = self._read(None)
        facts = with_session_facts(plan.tree, self._ctx())
        if plan.mz_now:
            facts = with_read_ts(facts, read.snapshot.ts, "spark", self.column_types(plan.tree))
        types = [t[1] for t in plan.param_types]
        query = executor.prepare(facts, state, names, read, types, results_as_text=True, zone=timezone)
        materialized = tuple(
            item.id for _, item in user_relations(plan.tree, state, names) if item.kind == "materialized-view"
        )
        spark_plan = executor.explain(query, params, "extended" if verbose else "formatted")
        return SparkRoute(query.sql, spark_plan, materialized)
