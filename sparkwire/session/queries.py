"""Queries and writes of one session: where a planned SELECT, DML statement or DDL statement meets the engines.

Contract:
- `start_query(plan, params)` → (fields, RowSource) for a row-returning plan. Optimizer notices go to the client
  first. A constant SELECT is computed once per process and answered from the result cache. A query over user data
  (privileges checked, row filters added by `user.readable`) runs through the user-data router (Spark, the fast
  path, resident indexes) at the session's storage snapshot. Anything else runs on the engine connection, answered
  from the result cache outside any transaction (a snapshot's answers are not shared). The returned source is the
  one `Lifecycle.streaming` tracks until it is exhausted.
- `run_returning(plan, params)` → (fields, RowSource, tag) for INSERT/UPDATE/DELETE … RETURNING.
- `write(plan, params)` → (count, RETURNING rows) for DML on a user table, `truncate(plan)`, `ddl(plan)` (CREATE
  TABLE AS rows go in through `fill`): each in its own storage transaction in autocommit mode, else in the block's,
  recorded for savepoint replay (transactions.py).
- `command(plan, params)` → row count of DML that stays on the engine connection.
- `describe(plan)` → the RowDescription of a query or a DML … RETURNING plan, without running it.
- Timestamps (docs/timestamps.md): a query with `AS OF [AT LEAST] t` reads the snapshot at t (waiting, within
  statement_timeout, for a t the timeline has not reached), one calling mz_now() the snapshot at the timeline's read
  timestamp (write_txn.py chooses both), and mz_now() is that snapshot's timestamp as a literal on every engine
  (never answered from the result cache). `explain_timestamp(plan)` is EXPLAIN TIMESTAMP's text.
"""

from __future__ import annotations

import contextlib
import functools

import pyarrow as pa
from sqlglot import exp

from sparkwire.api import Field
from sparkwire.catalog.objects import Item
from sparkwire.catalog.timeline import wall_clock_ms
from sparkwire.engine.base import Column
from sparkwire.planner.bind.fields import fields_for
from sparkwire.planner.bind.naming import align_names
from sparkwire.planner.bind.output_types import Declared, declared_types
from sparkwire.planner.bind.resolve import user_relations
from sparkwire.planner.execute.resident import base_tables
from sparkwire.planner.execute.result_cache import ResultCache
from sparkwire.planner.execute.streams import RowSource
from sparkwire.planner.planning.plan import Plan, dml_duck_sql
from sparkwire.planner.statements.timestamps import (
    SourceFrontiers,
    TimestampExplanation,
    as_of_ms,
    explain_timestamp_text,
)
from sparkwire.planner.translate.duckdb import to_duckdb
from sparkwire.planner.translate.functions.transaction_time import StatementTimes, with_transaction_time
from sparkwire.planner.translate.mz_now import with_read_ts
from sparkwire.session.lifecycle import Lifecycle
from sparkwire.session.state import SessionState
from sparkwire.session.transaction_control import TransactionControl
from sparkwire.storage.snapshot import Snapshot


def count_tag(plan: Plan, count: int) -> str:
    return f"INSERT 0 {count}" if plan.tag == "INSERT" else f"{plan.tag} {count}"


class Queries:
    def __init__(self, state: SessionState, life: Lifecycle, control: TransactionControl) -> None:
        self._s = state
        self._life = life
        self._control = control

    # ---- reading ------------------------------------------------------------------------------------------

    def start_query(self, plan: Plan, params: tuple[object, ...]) -> tuple[tuple[Field, ...], RowSource]:
        s, life = self._s, self._life
        for notice in s.user.query_notices(plan):  # optimizer notices (EqualsNull, CrossJoin, …)
            s.notices(notice)
        snapshot = None
        if plan.as_of is not None or plan.mz_now:  # AS OF, mz_now(): the statement's own timestamp
            life.prepare_engine()
            snapshot = self._statement_snapshot(plan)
        reading = s.storage_tx.reading(snapshot) if snapshot is not None else contextlib.nullcontext()
        if plan.constant and snapshot is None:
            s.strategy = "constant"
            key = ResultCache.constant_key(plan.duck())
            cached = s.results.get(key)
            if cached is None:
                life.prepare_engine()
                with life.running():
                    columns, batches = s.engine.query(plan.duck())
                    cached = (columns, list(batches))
                s.results.put(key, *cached)
            return self.fields(plan, cached[0]), RowSource(iter(cached[1]), contextlib.nullcontext)
        life.prepare_engine()
        tree = s.user.readable(plan)  # 42501 unless the role may read every relation (may add a row filter)
        if plan.transaction_time and tree is not None:  # now() and its kin: the transaction's start
            tree = with_transaction_time(tree, self.times())
        if s.user.reads_user_data(plan):
            fields = s.user.described(plan, lambda: self.describe(plan) or ())
            timezone = s.vars.get("TimeZone")
            with life.running(), reading:
                user_rows = s.user.query(
                    plan, params, fields, s.storage_tx.current, timezone, tree, self._life.max_result_bytes()
                )
            s.strategy = s.user.strategy
            user_source = RowSource(user_rows, life.running, on_exhausted=life.stop_timer)
            life.streaming = user_source
            return fields, user_source
        s.strategy = "introspection"
        shared = not s.tx.in_block and not s.tx.holds_snapshot and snapshot is None  # a snapshot's answers are its own
        if shared and (tree is None or tree is plan.tree) and plan.tree is not None:
            # live relations held in memory (the activity log's newest rows, the sessions, Spark's jobs): with no
            # row filter or mask of RBAC's and no snapshot of the session's, their answer is the store's
            for peek in s.peeks:  # (introspection/peeks.py)
                held = peek(plan.tree)
                if held is not None:
                    s.strategy = "fast-path"
                    life.stop_timer()
                    return self.fields(plan, held[0]), RowSource(iter(held[1]), contextlib.nullcontext)
        if plan.mz_now and snapshot is not None:  # mz_now() as the snapshot's timestamp
            tree = with_read_ts(tree if tree is not None else plan.tree, snapshot.ts, "duckdb")  # type: ignore[arg-type]
        sql = (
            plan.duck()
            if tree is None or tree is plan.tree
            else to_duckdb(tree, s.ctx, [t[1] for t in plan.param_types], results_as_text=True)
        )
        key = None
        if shared and not plan.transaction_time:  # its answer is this transaction's alone
            s.engine.catch_up(sql)  # first: catching up after DDL moves the store's generation, part of the key
            key = s.results.key(sql, params, life.engine_zone, s.schema.value)
        cached = s.results.get(key) if key is not None else None
        if cached is not None:
            life.stop_timer()
            return self.fields(plan, cached[0]), RowSource(iter(cached[1]), contextlib.nullcontext)
        with life.running():
            columns, batches = s.engine.query(sql, params)
        if key is not None:
            batches = s.results.recording(key, columns, batches)
        fields = self.fields(plan, columns)
        source = RowSource(batches, life.running, on_exhausted=life.stop_timer)
        life.streaming = source
        return fields, source

    # ---- timestamps ---------------------------------------------------------------------------------------

    def _as_of_ms(self, plan: Plan) -> int:
        assert plan.as_of is not None
        return as_of_ms(plan.as_of, self._s.ctx, self._value)

    def _value(self, sql: str) -> object:
        """The one value of a one-row DuckDB query (an AS OF expression)."""
        with self._life.running():
            _, batches = self._s.engine.query(sql)
            rows = [b for b in batches if b.num_rows]
        return rows[0].column(0)[0].as_py() if rows else None

    def _statement_snapshot(self, plan: Plan) -> Snapshot | None:
        """The snapshot a query with AS OF or mz_now() reads (None: the session's usual one)."""
        s = self._s
        if plan.as_of is not None:
            ts = self._as_of_ms(plan)
            with self._life.running():
                return s.storage_tx.as_of(ts, plan.as_of.at_least, self._life.cancelled)
        return s.storage_tx.timestamped() if plan.mz_now else None

    def explain_timestamp(self, plan: Plan) -> str:
        """EXPLAIN TIMESTAMP FOR `plan`: what its timestamp would be, without reading (or waiting for) it."""
        s = self._s
        storage, tx = s.data.storage, s.storage_tx
        oracle = tx.oracle_ts()
        query_ts: int = oracle
        used_oracle: int | None = oracle
        if plan.as_of is not None:
            requested = self._as_of_ms(plan)
            query_ts, used_oracle = (max(requested, oracle), oracle) if plan.as_of.at_least else (requested, None)
        elif s.tx.in_block:
            query_ts = tx.timestamped().ts  # the block's snapshot, as mz_now() there
        since, upper = storage.since, max(storage.latest_ts, oracle) + 1
        if plan.as_of is not None and not plan.as_of.at_least and query_ts < since:
            tx.as_of(query_ts, False, self._life.cancelled)  # raises Materialize's 22000
        state = s.data.state
        ids: set[str] = set()
        for _, item in user_relations(plan.tree, state, s.names()) if plan.tree is not None else ():
            ids.update(base_tables(item, state))
        sources = []
        for item_id in sorted(ids):
            item = state.items[item_id]
            schema = state.schemas[item.schema_id]
            database = state.databases[schema.database_id or ""].name if schema.database_id else ""
            name = ".".join(part for part in (database, schema.name, item.name) if part)
            sources.append(SourceFrontiers(name, item.id, "storage", since, upper))
        explanation = TimestampExplanation(query_ts, used_oracle, since, upper, wall_clock_ms(), tuple(sources))
        return explain_timestamp_text(explanation)

    @staticmethod
    def fields(
        plan: Plan, columns: list[Column], declared: tuple[Declared, ...] | None = None
    ) -> tuple[Field, ...]:
        """`declared`: the plan's declared types unless given (a query over user relations: with their columns')."""
        aligned = len(columns) == len(plan.names or ())
        given = plan.declared_types if declared is None else declared
        return fields_for(
            columns,
            align_names(plan.names, len(columns)),
            plan.void_columns if aligned else (),
            given if len(columns) == len(given or ()) else None,
        )

    def describe(self, plan: Plan) -> tuple[Field, ...] | None:
        s = self._s
        if plan.kind == "query":
            cached = s.results.get(ResultCache.constant_key(plan.duck())) if plan.constant else None
            if cached is not None:
                return self.fields(plan, cached[0])
            assert plan.tree is not None
            known = s.user.column_types(plan.tree) if s.user.reads_user_data(plan) else None
            params = [t[1] for t in plan.param_types]
            sql = to_duckdb(plan.tree, s.ctx, params, null_parameters=True, columns=known, results_as_text=True)
            if known is None:
                return self.fields(plan, s.engine.describe(sql))
            return self.fields(plan, s.user.describe_duck(plan, sql), declared_types(plan.tree, known))
        assert plan.kind == "dml" and plan.returning and plan.tree is not None
        returning = plan.tree.args["returning"]
        target = plan.tree.this
        table = target.this if isinstance(target, exp.Schema) else target
        probe = exp.select(*[p.copy() for p in returning.expressions]).from_(table.copy())
        sql = to_duckdb(probe, s.ctx, [t[1] for t in plan.param_types], null_parameters=True)
        columns = s.engine.describe(sql)
        return fields_for(columns, align_names(plan.names, len(columns)))

    # ---- writing ------------------------------------------------------------------------------------------

    def run_returning(self, plan: Plan, params: tuple[object, ...]) -> tuple[tuple[Field, ...], RowSource, str]:
        s, life = self._s, self._life
        self._control.check_writable(plan.tag)
        life.prepare_engine()
        if s.user.write_target(plan) is not None:
            fields = self.describe(plan)
            assert fields is not None
            count, returned = self.write(plan, params)
            assert returned is not None
            schema = pa.schema([pa.field(f.name, c.type) for f, c in zip(fields, returned.schema, strict=True)])
            rows = returned.rename_columns([f.name for f in fields]).cast(schema).to_batches()
            return fields, RowSource(iter(rows), life.running), count_tag(plan, count)
        duck_sql = dml_duck_sql(plan, s.ctx)
        with life.running():
            columns, batches = s.engine.query(duck_sql, params)
            rows = list(batches)
        s.tx.record(functools.partial(self._replay_query, duck_sql, params))
        fields = fields_for(columns, align_names(plan.names, len(columns)))
        return fields, RowSource(iter(rows), life.running), count_tag(plan, sum(b.num_rows for b in rows))

    def write(self, plan: Plan, params: tuple[object, ...]) -> tuple[int, pa.Table | None]:
        """An INSERT/UPDATE/DELETE on a user table: its own storage transaction in autocommit mode, else the block's."""
        s = self._s
        with self._life.running():
            if s.tx.mode == "idle":
                with s.storage_tx.autocommit() as txn:
                    result = s.user.write(plan, params, txn, s.encode_options(), self.times())
            else:
                s.tx.before_write()
                result = s.user.write(plan, params, s.storage_tx.writer(), s.encode_options(), self.times())
                s.tx.record(functools.partial(self._replay_write, plan, params))
        return result.count, result.returning

    def times(self) -> StatementTimes:
        """now()'s value (the block's start, else the statement's), statement_timestamp()'s and the TimeZone."""
        s, statement = self._s, self._life.statement_at
        return StatementTimes(s.tx.started_at or statement, statement, s.vars.get("TimeZone"))

    def truncate(self, tree: exp.TruncateTable) -> None:
        s = self._s
        with self._life.running():
            if s.tx.mode == "idle":
                with s.storage_tx.autocommit() as txn:
                    s.user.truncate(tree, txn)
            else:
                s.tx.before_write()
                s.user.truncate(tree, s.storage_tx.writer())
                s.tx.record(lambda: s.user.truncate(tree, s.storage_tx.writer()))

    def ddl(self, plan: Plan) -> str:
        with self._life.running():
            tag = self._s.user.ddl(plan, self._fill, self._s.storage_tx.current)
        self._s.tx.ddl_executed()
        return tag

    def command(self, plan: Plan, params: tuple[object, ...]) -> int:
        with self._life.running():
            return self._s.engine.command(dml_duck_sql(plan, self._s.ctx), params)

    def _replay_write(self, plan: Plan, params: tuple[object, ...]) -> None:
        self._s.user.write(plan, params, self._s.storage_tx.writer(), self._s.encode_options(), self.times())

    def _fill(self, table: Item, rows: pa.Table) -> int:
        """CREATE TABLE AS: the rows go in like an INSERT (the block's transaction, or their own)."""
        s = self._s
        if s.tx.mode == "idle":
            with s.storage_tx.autocommit() as txn:
                return txn.append(table.id, rows)
        s.tx.before_write()
        count = s.storage_tx.writer().append(table.id, rows)
        s.tx.record(lambda: s.storage_tx.writer().append(table.id, rows))
        return count

    def _replay_query(self, sql: str, params: tuple[object, ...]) -> None:
        for _ in self._s.engine.query(sql, params)[1]:
            pass
