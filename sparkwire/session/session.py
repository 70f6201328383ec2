"""`DuckSession`: the api.Session the server drives, executing on one engine connection.

Contract: implements planner/api.py's Session (read its docstrings) plus `encode_options()`. Statements are
planned by plan.py (cached per session by SQL text: parse, translate and classify once) and dispatched by
kind; utility statements by type in `_utility`. Transactions follow transactions.py (every successful write
inside a block is recorded there as a replay, which is how ROLLBACK TO SAVEPOINT works); variables
variables.py and set_show.py; portals and cursors portals.py; COPY copy.py. The engine connection's TimeZone
follows the session's before each statement.

Running engine work always goes through `_running()`: it marks the session active (so `cancel()` from another
thread and the statement_timeout timer interrupt only a statement that is actually running — a cancel arriving
while idle does nothing), rewords interrupts as 57014 "canceling statement due to user request | statement
timeout", re-raises the PgError a session function (current_setting, …) raised inside the engine, and moves
the transaction to its failed state. The engine connection serves one open result at a time, so before any
statement runs, a still-streaming portal or cursor is read into memory.

Constant SELECTs (plan.constant) are computed once per process and answered from memory without the engine.
"""

from __future__ import annotations

import contextlib
import functools
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pyarrow as pa
from sqlglot import exp

from sparkwire import errors as e
from sparkwire.api import (
    CommandComplete,
    CopyIn,
    CopyOut,
    EmptyQuery,
    Field,
    FormatCode,
    Notice,
    NoticeSink,
    ParameterStatusSink,
    Result,
    Rows,
    StartupInfo,
    StatementDescription,
    TransactionStatus,
)
from sparkwire.api import (
    CopyInSink as CopyInSinkApi,
)
from sparkwire.catalog.objects import Item
from sparkwire.engine.base import Column
from sparkwire.engine.duckdb import DuckDBConnection
from sparkwire.pgtypes.options import EncodeOptions
from sparkwire.pgtypes.registry import parse_type_name
from sparkwire.planner.bind.fields import fields_for
from sparkwire.planner.bind.naming import align_names
from sparkwire.planner.bind.resolve import Names
from sparkwire.planner.execute.copy import copy_format, copy_out_query, copy_parser
from sparkwire.planner.execute.copy_storage import CommittingSink, StorageCopyInSink, copy_columns
from sparkwire.planner.execute.data import DataPlane
from sparkwire.planner.execute.result_cache import ResultCache
from sparkwire.planner.execute.streams import RowSource
from sparkwire.planner.execute.udfs import SessionFunctions
from sparkwire.planner.execute.user_data import UserData
from sparkwire.planner.execute.write_txn import StorageTransaction
from sparkwire.planner.grammar import utility as u
from sparkwire.planner.grammar.copy_statement import CopyFrom, CopyTo
from sparkwire.planner.grammar.split import split_statements
from sparkwire.planner.planning.plan import Plan, plan_statement
from sparkwire.planner.statements.notice_service import enabled_by
from sparkwire.planner.statements.set_show import ALTER_SYSTEM, alter_system_ops, apply_setting, show, show_fields
from sparkwire.planner.statements.variables import SessionVariables, duration_ms
from sparkwire.planner.translate.duckdb import SessionContext, to_duckdb
from sparkwire.planner.translate.literal_templates import LiteralTemplates
from sparkwire.session.portals import Portal, Prepared, all_text, decode_bind_params, expand_formats
from sparkwire.session.schema_generation import SchemaGeneration
from sparkwire.session.transactions import Transactions
from sparkwire.storage.txn import WriteTxn

PLAN_CACHE_SIZE = 512
EXPLAIN_FIELDS = (Field("QUERY PLAN", 25),)
_REDACTED = re.compile(r"\bredacted\b", re.I)  # EXPLAIN WITH (redacted)
_MESSAGE_RANK = {
    "debug5": 0,
    "debug4": 0,
    "debug3": 0,
    "debug2": 0,
    "debug1": 0,
    "debug": 0,
    "log": 1,
    "info": 2,
    "notice": 2,
    "warning": 3,
    "error": 4,
}


class DuckSession:
    def __init__(
        self,
        role_id: str,
        engine: DuckDBConnection,
        functions: SessionFunctions,
        results: ResultCache,
        templates: LiteralTemplates,
        schema: SchemaGeneration,
        startup: StartupInfo,
        notices: NoticeSink,
        parameter_status: ParameterStatusSink,
        data: DataPlane,
        on_close: Callable[[], None] = lambda: None,
    ) -> None:
        overrides = dict(startup.options)
        if startup.application_name:
            overrides.setdefault("application_name", startup.application_name)
        overrides["session_authorization"] = startup.user
        try:
            self._vars = SessionVariables(parameter_status, overrides, system=lambda: data.state.system_defaults)
        except e.PgError as err:
            err.severity = "FATAL"
            raise
        self._role_id = role_id
        self._on_close = on_close
        self._engine = engine
        self._functions = functions
        self._results = results
        self._templates = templates
        self._notices = notices
        self._sid = functions.register(self)
        self._ctx = SessionContext(self._sid, startup.user, startup.backend_pid)
        self._schema = schema
        self._data = data
        self._storage_tx = StorageTransaction(data)
        self._tx = Transactions(self._storage_tx, schema)
        self._user = UserData(data, engine, self._ctx, self._names, self._notices, enabled_by(self._vars.get))
        self._plan_cache: OrderedDict[tuple[str, tuple[int, ...]], tuple[Plan, ...]] = OrderedDict()
        self._plan_generation = schema.value  # the schema generation the plan cache was built at
        self._statements: dict[str, Prepared] = {}
        self._portals: dict[str, Portal] = {}
        self._streaming: RowSource | None = None
        self._lock = threading.Lock()
        self._active = False
        self._cancel_reason: str | None = None
        self._timeout_pending = False
        self._udf_error: e.PgError | None = None
        self._timer: threading.Timer | None = None
        self._encode: tuple[int, EncodeOptions] | None = None
        self._timeout_ms = (-1, 0)  # (variables version, statement_timeout in ms)
        self._engine_zone = "UTC"  # the TimeZone the engine connection was last given

    # ---- api.Session: state -------------------------------------------------------------------------------

    @property
    def transaction_status(self) -> TransactionStatus:
        return self._tx.status

    def reported_parameters(self) -> dict[str, str]:
        return self._vars.reported()

    def encode_options(self) -> EncodeOptions:
        cached = self._encode
        if cached is not None and cached[0] == self._vars.version:
            return cached[1]
        options = EncodeOptions(
            timezone=self._vars.get("TimeZone"),
            extra_float_digits=int(self._vars.get("extra_float_digits")),
            datestyle=self._vars.get("DateStyle"),
            intervalstyle=self._vars.get("IntervalStyle"),
            bytea_output=self._vars.get("bytea_output"),
        )
        self._encode = (self._vars.version, options)
        return options

    # ---- hooks for the session functions (udfs.py) --------------------------------------------------------

    def current_setting(self, name: str, missing_ok: bool) -> str | None:
        try:
            return self._vars.get(name)
        except e.UndefinedObject:
            if missing_ok:
                return None
            raise

    def set_config(self, name: str, value: str, is_local: bool) -> str:
        if is_local and not self._tx.in_block:
            return self._vars.get(name)
        self._vars.set(name, value, local=is_local, in_transaction=self._tx.in_transaction)
        return self._vars.get(name)

    def cancelled(self) -> bool:
        return self._cancel_reason is not None

    def remember_error(self, error: e.PgError) -> None:
        self._udf_error = error

    # ---- running engine work ------------------------------------------------------------------------------

    @contextmanager
    def _running(self) -> Iterator[None]:
        with self._lock:
            self._active = True
            if self._timeout_pending:
                self._timeout_pending = False
                self._cancel_reason = "statement timeout"
        try:
            if self._cancel_reason is not None:
                raise e.QueryCanceled("canceling statement")
            yield
        except e.PgError as err:
            raise self._failure(err) from None
        finally:
            with self._lock:
                self._active = False

    def _failure(self, err: e.PgError) -> e.PgError:
        reason, self._cancel_reason = self._cancel_reason, None
        udf_error, self._udf_error = self._udf_error, None
        if reason is not None:
            err = e.QueryCanceled(f"canceling statement due to {reason}")
        elif udf_error is not None:
            err = udf_error
        self._tx.fail()
        return err

    def cancel(self) -> None:
        with self._lock:
            if not self._active:
                return
            self._cancel_reason = "user request"
        self._interrupt()

    def _on_timeout(self) -> None:
        with self._lock:
            if not self._active:
                self._timeout_pending = True
                return
            self._cancel_reason = "statement timeout"
        self._interrupt()

    def _interrupt(self) -> None:
        if not self._user.cancel():
            self._engine.interrupt()

    def _names(self) -> Names:
        return Names(self._ctx.database, ("public",), self._role_id)

    def _start_statement(self) -> None:
        """A new statement begins: the previous statement's timer and pending cancel no longer apply."""
        self._stop_timer()
        self._cancel_reason = None
        self._udf_error = None
        if self._timeout_ms[0] != self._vars.version:
            self._timeout_ms = (self._vars.version, duration_ms(self._vars.get("statement_timeout")))
        ms = self._timeout_ms[1]
        if ms > 0:
            self._timer = threading.Timer(ms / 1000, self._on_timeout)
            self._timer.daemon = True
            self._timer.start()

    def _stop_timer(self) -> None:
        timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
        elif not self._timeout_pending:
            return  # nothing armed and nothing pending (the common case): no lock needed
        with self._lock:
            self._timeout_pending = False

    def _prepare_engine(self) -> None:
        """Before a statement runs on the engine: free the connection and bring its TimeZone up to date."""
        streaming, self._streaming = self._streaming, None
        if streaming is not None and not streaming.exhausted:
            streaming.materialize()
        zone = self._vars.get("TimeZone")
        if zone != self._engine_zone:
            self._engine.set_time_zone(zone)
            self._engine_zone = zone

    def _notify(self, message: str, severity: str = "WARNING", sqlstate: str = "01000") -> None:
        wanted = _MESSAGE_RANK.get(self._vars.get("client_min_messages"), 2)
        if _MESSAGE_RANK.get(severity.lower(), 2) >= wanted:
            self._notices(Notice(message=message, severity=severity, sqlstate=sqlstate))

    # ---- planning -----------------------------------------------------------------------------------------

    def _describe_sql(self, sql: str) -> list[Column]:
        return self._engine.describe(sql)

    def _plans(self, sql: str, declared: tuple[int, ...] = ()) -> tuple[Plan, ...]:
        key = (sql, declared)
        generation = self._schema.value
        if generation != self._plan_generation:
            self._plan_cache.clear()  # some session changed the schema: inferred types and fields may be stale
            self._user.forget_plans()
            self._plan_generation = generation
        cached = self._plan_cache.get(key)
        if cached is not None:
            self._plan_cache.move_to_end(key)
            return cached
        planned: list[Plan] = []
        end = 0
        for piece in split_statements(sql):
            offset = sql.find(piece, end)
            end = offset + len(piece)
            try:
                planned.append(
                    plan_statement(piece, self._ctx, declared, self._describe_sql, self._templates, generation)
                )
            except e.PgError as err:
                if err.position is not None:
                    err.position += offset  # PostgreSQL counts from the start of the whole query string
                raise
        plans = tuple(planned)
        self._plan_cache[key] = plans
        if len(self._plan_cache) > PLAN_CACHE_SIZE:
            self._plan_cache.popitem(last=False)
        return plans

    def _plan_one(self, sql: str, declared: tuple[int, ...] = ()) -> Plan:
        plans = self._plans(sql, declared)
        if len(plans) > 1:
            raise e.SyntaxError("cannot insert multiple commands into a prepared statement")
        return plans[0] if plans else plan_statement("", self._ctx, (), self._describe_sql)

    # ---- simple query -------------------------------------------------------------------------------------

    def simple_query(self, sql: str) -> Iterator[Result]:
        try:
            plans = self._plans(sql)
        except e.PgError:
            self._tx.fail()
            raise
        if not plans:
            yield EmptyQuery()
            return
        if len(plans) > 1:
            self._tx.start_implicit()
        finished = False
        try:
            for plan in plans:
                self._start_statement()
                try:
                    result = self._run(plan, (), all_text)
                except e.PgError as err:
                    self._tx.fail()
                    raise err from None
                yield result
            finished = True
        finally:
            if not finished:
                self._tx.fail()
        if self._tx.mode == "implicit":
            self._end_transaction(committed=True)

    # ---- extended query -----------------------------------------------------------------------------------

    def _check_not_failed(self, plan: Plan) -> None:
        if self._tx.failed and not isinstance(plan.utility, u.TRANSACTION_CONTROL):
            raise e.InFailedSqlTransaction(
                "current transaction is aborted, commands ignored until end of transaction block"
            )

    def parse(self, name: str, sql: str, param_oids: list[int]) -> None:
        try:
            if name and name in self._statements:
                raise e.DuplicatePreparedStatement(f'prepared statement "{name}" already exists')
            if self._tx.failed:
                self._check_not_failed(self._plan_one(sql, ()))
            generation = self._schema.value
            self._statements[name] = Prepared(self._plan_one(sql, tuple(param_oids)), sql, generation)
        except e.PgError:
            self._tx.fail()
            raise

    def bind(
        self,
        portal: str,
        statement: str,
        param_formats: list[int],
        params: list[bytes | None],
        result_formats: list[int],
    ) -> None:
        try:
            prepared = self._statement(statement)
            plan = self._current_plan(prepared)
            self._check_not_failed(plan)
            if portal and portal in self._portals:
                raise e.DuplicateCursor(f'cursor "{portal}" already exists')
            values = decode_bind_params(statement, plan, param_formats, params, self.encode_options())
            self._close_portal_entry(portal)
            fields = prepared.fields if prepared.described else None
            self._portals[portal] = Portal(plan, values, tuple(result_formats), fields=fields, statement=prepared)
        except e.PgError:
            self._tx.fail()
            raise

    def _current_plan(self, prepared: Prepared) -> Plan:
        """The statement's plan, re-made when the schema changed since it was planned, as PostgreSQL re-plans: the
        parameter types stay those the client was told at Parse, and once the client has seen the result fields a
        re-plan that changes them fails (0A000) — every time, since the statement keeps its old plan."""
        generation = self._schema.value
        if prepared.generation == generation:
            return prepared.plan
        declared = tuple(oid for oid, _ in prepared.plan.param_types)
        plan = self._plan_one(prepared.sql, declared)
        fields = self._describe(plan)
        if prepared.described and fields != prepared.fields:
            raise e.FeatureNotSupported("cached plan must not change result type")
        prepared.plan, prepared.generation = plan, generation
        prepared.fields, prepared.described = fields, plan.kind in ("query", "dml")
        return plan

    def _describe_prepared(self, prepared: Prepared) -> tuple[Field, ...] | None:
        """Describe a statement once per plan: queries and DML only, whose description depends on nothing else."""
        if prepared.described:
            return prepared.fields
        fields = self._describe(prepared.plan)
        if prepared.plan.kind in ("query", "dml"):
            prepared.fields, prepared.described = fields, True
        return fields

    def _statement(self, name: str) -> Prepared:
        found = self._statements.get(name)
        if found is None:
            if name:
                raise e.InvalidSqlStatementName(f'prepared statement "{name}" does not exist')
            raise e.InvalidSqlStatementName("unnamed prepared statement does not exist")
        return found

    def _portal(self, name: str) -> Portal:
        found = self._portals.get(name)
        if found is None:
            if name:
                raise e.InvalidCursorName(f'portal "{name}" does not exist')
            raise e.InvalidCursorName("unnamed portal does not exist")
        return found

    def describe_statement(self, name: str) -> StatementDescription:
        try:
            prepared = self._statement(name)
            plan = self._current_plan(prepared)
            return StatementDescription(tuple(oid for oid, _ in plan.param_types), self._describe_prepared(prepared))
        except e.PgError:
            self._tx.fail()
            raise

    def describe_portal(self, name: str) -> tuple[Field, ...] | None:
        try:
            portal = self._portal(name)
            if portal.fields is None:
                statement = portal.statement
                if statement is not None and statement.plan is portal.plan:
                    portal.fields = self._describe_prepared(statement)
                else:
                    portal.fields = self._describe(portal.plan)
            return portal.fields
        except e.PgError:
            self._tx.fail()
            raise

    def execute(self, portal: str, max_rows: int) -> Result:
        try:
            self._start_statement()
            entry = self._portal(portal)
            self._check_not_failed(entry.plan)
            limit = max_rows if max_rows > 0 else None
            if entry.source is not None:
                assert entry.fields is not None
                return Rows(entry.fields, entry.source.take(limit), entry.formats, tag=entry.tag)
            if entry.done is not None:
                return entry.done
            self._tx.start_implicit()
            return self._execute_portal(entry, limit)
        except e.PgError:
            self._tx.fail()
            raise

    def _execute_portal(self, entry: Portal, limit: int | None) -> Result:
        plan = entry.plan
        if plan.kind == "query" or (plan.kind == "dml" and plan.returning):
            fields, source, tag = (
                (*self._start_query(plan, entry.params), None)
                if plan.kind == "query"
                else self._run_returning(plan, entry.params)
            )
            entry.fields, entry.source, entry.tag = fields, source, tag
            entry.formats = expand_formats(entry.result_formats, len(fields))
            return Rows(fields, source.take(limit), entry.formats, tag=tag)
        result = self._run(plan, entry.params, lambda n: expand_formats(entry.result_formats, n), limit=limit)
        if not isinstance(result, Rows | CopyIn | CopyOut):
            entry.done = result
        return result

    def close_statement(self, name: str) -> None:
        self._statements.pop(name, None)

    def close_portal(self, name: str) -> None:
        self._close_portal_entry(name)

    def _close_portal_entry(self, name: str) -> None:
        entry = self._portals.pop(name, None)
        if entry is not None and entry.source is not None:
            entry.source.close()

    def sync(self) -> None:
        self._stop_timer()
        if self._tx.mode == "implicit":
            self._end_transaction(committed=not self._tx.failed)
        self._close_portal_entry("")

    def fail(self) -> None:
        self._tx.fail()

    def terminate(self) -> None:
        self._stop_timer()
        for name in list(self._portals):
            self._close_portal_entry(name)
        with contextlib.suppress(e.PgError):  # the connection is gone: a failed rollback has no one to tell
            self._tx.end(committed=False)
        self._functions.unregister(self._sid)
        self._engine.close()
        self._on_close()

    # ---- execution ----------------------------------------------------------------------------------------

    def _end_transaction(self, committed: bool) -> None:
        try:
            self._prepare_engine()
            self._tx.end(committed)
        finally:
            self._vars.end_transaction(committed)
            for name, portal in list(self._portals.items()):
                if not portal.hold:
                    self._close_portal_entry(name)

    def _check_writable(self, verb: str) -> None:
        read_only = self._vars.get("transaction_read_only" if self._tx.in_block else "default_transaction_read_only")
        if read_only == "on":
            raise e.ReadOnlySqlTransaction(f"cannot execute {verb} in a read-only transaction")

    def _start_query(self, plan: Plan, params: tuple[object, ...]) -> tuple[tuple[Field, ...], RowSource]:
        for notice in self._user.query_notices(plan):  # optimizer notices (EqualsNull, CrossJoin, …)
            self._notices(notice)
        if plan.constant:
            key = ResultCache.constant_key(plan.duck_sql)
            cached = self._results.get(key)
            if cached is None:
                self._prepare_engine()
                with self._running():
                    columns, batches = self._engine.query(plan.duck_sql)
                    cached = (columns, list(batches))
                self._results.put(key, *cached)
            return self._fields(plan, cached[0]), RowSource(iter(cached[1]), contextlib.nullcontext)
        self._prepare_engine()
        tree = self._user.readable(plan)  # 42501 unless the role may read every relation (may add a row filter)
        if self._user.reads_user_data(plan):
            fields = self._user.described(plan, lambda: self._describe(plan) or ())
            timezone = self._vars.get("TimeZone")
            with self._running():
                user_rows = self._user.query(plan, params, fields, self._storage_tx.current, timezone, tree)
            user_source = RowSource(user_rows, self._running, on_exhausted=self._stop_timer)
            self._streaming = user_source
            return fields, user_source
        sql = (
            plan.duck_sql
            if tree is None or tree is plan.tree
            else to_duckdb(tree, self._ctx, [t[1] for t in plan.param_types])
        )
        key = None
        if not self._tx.in_block and not self._tx.holds_snapshot:  # a snapshot's answers are not shared
            key = self._results.key(sql, params, self._engine_zone, self._schema.value)
        cached = self._results.get(key) if key is not None else None
        if cached is not None:
            self._stop_timer()
            return self._fields(plan, cached[0]), RowSource(iter(cached[1]), contextlib.nullcontext)
        with self._running():
            columns, batches = self._engine.query(sql, params)
        if key is not None:
            batches = self._results.recording(key, columns, batches)
        fields = self._fields(plan, columns)
        source = RowSource(batches, self._running, on_exhausted=self._stop_timer)
        self._streaming = source
        return fields, source

    @staticmethod
    def _fields(plan: Plan, columns: list[Column]) -> tuple[Field, ...]:
        aligned = len(columns) == len(plan.names or ())
        declared = plan.declared_types if len(columns) == len(plan.declared_types or ()) else None
        return fields_for(
            columns,
            align_names(plan.names, len(columns)),
            plan.void_columns if aligned else (),
            declared,
        )

    def _run_returning(self, plan: Plan, params: tuple[object, ...]) -> tuple[tuple[Field, ...], RowSource, str]:
        self._check_writable(plan.tag)
        self._prepare_engine()
        if self._user.write_target(plan) is not None:
            fields = self._describe(plan)
            assert fields is not None
            count, returned = self._write(plan, params)
            assert returned is not None
            tag = f"INSERT 0 {count}" if plan.tag == "INSERT" else f"{plan.tag} {count}"
            schema = pa.schema([pa.field(f.name, c.type) for f, c in zip(fields, returned.schema, strict=True)])
            rows = returned.rename_columns([f.name for f in fields]).cast(schema).to_batches()
            return fields, RowSource(iter(rows), self._running), tag
        with self._running():
            columns, batches = self._engine.query(plan.duck_sql, params)
            rows = list(batches)
        self._tx.record(functools.partial(self._replay_query, plan.duck_sql, params))
        count = sum(b.num_rows for b in rows)
        tag = f"INSERT 0 {count}" if plan.tag == "INSERT" else f"{plan.tag} {count}"
        fields = fields_for(columns, align_names(plan.names, len(columns)))
        return fields, RowSource(iter(rows), self._running), tag

    def _write(self, plan: Plan, params: tuple[object, ...]) -> tuple[int, pa.Table | None]:
        """An INSERT/UPDATE/DELETE on a user table: its own storage transaction in autocommit mode, else the block's."""
        with self._running():
            if self._tx.mode == "idle":
                with self._storage_tx.autocommit() as txn:
                    result = self._user.write(plan, params, txn, self.encode_options())
            else:
                self._tx.before_write()
                result = self._user.write(plan, params, self._storage_tx.writer(), self.encode_options())
                self._tx.record(functools.partial(self._replay_write, plan, params))
        return result.count, result.returning

    def _replay_write(self, plan: Plan, params: tuple[object, ...]) -> None:
        self._user.write(plan, params, self._storage_tx.writer(), self.encode_options())

    def _fill(self, table: Item, rows: pa.Table) -> int:
        """CREATE TABLE AS: the rows go in like an INSERT (the block's transaction, or their own)."""
        if self._tx.mode == "idle":
            with self._storage_tx.autocommit() as txn:
                return txn.append(table.id, rows)
        self._tx.before_write()
        count = self._storage_tx.writer().append(table.id, rows)
        self._tx.record(lambda: self._storage_tx.writer().append(table.id, rows))
        return count

    def _replay_query(self, sql: str, params: tuple[object, ...]) -> None:
        for _ in self._engine.query(sql, params)[1]:
            pass

    def _run(
        self,
        plan: Plan,
        params: tuple[object, ...],
        formats: Callable[[int], tuple[FormatCode, ...]],
        limit: int | None = None,
    ) -> Result:
        self._check_not_failed(plan)
        if plan.kind == "empty":
            return EmptyQuery()
        if plan.kind == "utility":
            return self._utility(plan, params, formats, limit)
        if plan.kind == "query":
            fields, source = self._start_query(plan, params)
            return Rows(fields, source.take(limit), formats(len(fields)))
        if plan.kind == "dml" and plan.returning:
            fields, source, tag = self._run_returning(plan, params)
            return Rows(fields, source.take(limit), formats(len(fields)), tag=tag)
        if plan.kind == "show":
            shown, batch = self._user.show(plan.statement)
            return Rows(shown, RowSource(iter([batch]), contextlib.nullcontext).take(limit), formats(len(shown)))
        if plan.kind == "explain":
            assert plan.inner is not None
            redacted = _REDACTED.search(plan.sql[: len(plan.sql) - len(plan.inner.sql)]) is not None
            lines = self._user.explain(plan.inner, params, self._vars.get("TimeZone"), redacted)
            batch = pa.record_batch([pa.array(lines, pa.string())], names=["QUERY PLAN"])
            source = RowSource(iter([batch]), contextlib.nullcontext)
            return Rows(EXPLAIN_FIELDS, source.take(limit), formats(1), tag="EXPLAIN")
        verb = plan.tag.split()[0] if plan.kind == "dml" else plan.tag
        self._check_writable(verb)
        self._prepare_engine()
        if plan.kind == "dml" and self._user.write_target(plan) is not None:
            count, _ = self._write(plan, params)
            return CommandComplete(f"INSERT 0 {count}" if plan.tag == "INSERT" else f"{plan.tag} {count}")
        if isinstance(plan.tree, exp.TruncateTable):
            with self._running():
                if self._tx.mode == "idle":
                    with self._storage_tx.autocommit() as txn:
                        self._user.truncate(plan.tree, txn)
                else:
                    tree = plan.tree
                    self._tx.before_write()
                    self._user.truncate(tree, self._storage_tx.writer())
                    self._tx.record(lambda: self._user.truncate(tree, self._storage_tx.writer()))
            return CommandComplete("TRUNCATE TABLE")
        if plan.kind == "ddl":
            with self._running():
                tag = self._user.ddl(plan, self._fill, self._storage_tx.current)
            self._tx.ddl_executed()
            return CommandComplete(tag)
        with self._running():
            count = self._engine.command(plan.duck_sql, params)
        return CommandComplete(f"INSERT 0 {count}" if plan.tag == "INSERT" else f"{plan.tag} {count}")

    def _describe(self, plan: Plan) -> tuple[Field, ...] | None:
        if plan.kind == "query":
            cached = self._results.get(ResultCache.constant_key(plan.duck_sql)) if plan.constant else None
            if cached is not None:
                return self._fields(plan, cached[0])
            assert plan.tree is not None
            sql = to_duckdb(plan.tree, self._ctx, [t[1] for t in plan.param_types], null_parameters=True)
            return self._fields(plan, self._engine.describe(sql))
        if plan.kind == "dml" and plan.returning:
            assert plan.tree is not None
            returning = plan.tree.args["returning"]
            target = plan.tree.this
            table = target.this if isinstance(target, exp.Schema) else target
            probe = exp.select(*[p.copy() for p in returning.expressions]).from_(table.copy())
            sql = to_duckdb(probe, self._ctx, [t[1] for t in plan.param_types], null_parameters=True)
            columns = self._engine.describe(sql)
            return fields_for(columns, align_names(plan.names, len(columns)))
        if plan.kind == "explain":
            return EXPLAIN_FIELDS
        if plan.kind == "show":
            return self._user.show(plan.statement)[0]
        stmt = plan.utility
        if isinstance(stmt, u.ShowVariable):
            return show_fields(stmt)
        if isinstance(stmt, u.Fetch) and not stmt.move:
            cursor = self._portals.get(stmt.cursor)
            return cursor.fields if cursor is not None else None
        if isinstance(stmt, u.ExecutePrepared):
            return self._describe(self._statement(stmt.name).plan)
        return None

    # ---- utility statements -------------------------------------------------------------------------------

    def _utility(
        self,
        plan: Plan,
        params: tuple[object, ...],
        formats: Callable[[int], tuple[FormatCode, ...]],
        limit: int | None,
    ) -> Result:
        stmt = plan.utility
        match stmt:
            case u.Begin() | u.Commit() | u.Rollback() | u.Savepoint() | u.Release() | u.RollbackTo():
                return self._transaction_control(stmt)
            case u.SetVariable() | u.ResetVariable() | u.SetTransaction() | u.ShowVariable():
                return self._variables(stmt, formats, limit)
            case u.AlterSystem():
                ops = alter_system_ops(stmt, self._data.state, self._role_id, in_block=self._tx.in_block)
                self._data.transact(ops)
                return CommandComplete(ALTER_SYSTEM)
            case u.Discard(what=what):
                return self._discard(what)
            case u.Prepare() | u.ExecutePrepared() | u.Deallocate():
                return self._prepared(stmt, formats, limit)
            case u.Declare():
                assert plan.inner is not None
                return self._declare(stmt, plan.inner, params)
            case u.Fetch() | u.CloseCursor():
                return self._cursor(stmt, formats)
            case CopyTo() | CopyFrom():
                return self._copy(stmt)
        raise e.FeatureNotSupported(f"{type(stmt).__name__} is not supported")

    def _transaction_control(self, stmt: u.Utility) -> Result:
        tx = self._tx
        match stmt:
            case u.Begin(isolation=isolation, read_only=read_only):
                if tx.in_block:
                    self._notify("there is already a transaction in progress", sqlstate="25001")
                    return CommandComplete("BEGIN")
                self._prepare_engine()
                with self._running():
                    tx.begin()
                default_ro = self._vars.get("default_transaction_read_only")
                self._vars.set_internal(
                    "transaction_isolation", isolation or self._vars.get("default_transaction_isolation")
                )
                ro = default_ro if read_only is None else ("on" if read_only else "off")
                self._vars.set_internal("transaction_read_only", ro)
                return CommandComplete("BEGIN")
            case u.Commit() | u.Rollback():
                verb = "COMMIT" if isinstance(stmt, u.Commit) else "ROLLBACK"
                if not tx.in_block:
                    self._notify("there is no transaction in progress", sqlstate="25P01")
                    if tx.mode == "implicit":
                        self._end_transaction(committed=verb == "COMMIT")
                        tx.start_implicit()
                    return CommandComplete(verb)
                commit = verb == "COMMIT" and not tx.failed
                with self._running():
                    self._end_transaction(committed=commit)
                return CommandComplete("COMMIT" if commit else "ROLLBACK")
            case u.Savepoint(name=name):
                tx.savepoint(name)
                return CommandComplete("SAVEPOINT")
            case u.Release(name=name):
                tx.release(name)
                return CommandComplete("RELEASE")
            case u.RollbackTo(name=name):
                self._prepare_engine()
                with self._running():
                    tx.rollback_to(name)
                return CommandComplete("ROLLBACK")
        raise AssertionError(stmt)

    def _variables(
        self, stmt: u.Utility, formats: Callable[[int], tuple[FormatCode, ...]], limit: int | None
    ) -> Result:
        if isinstance(stmt, u.ShowVariable):
            fields, batches = show(stmt, self._vars)
            source = RowSource(iter(batches), contextlib.nullcontext)
            return Rows(fields, source.take(limit), formats(len(fields)), tag_prefix="SHOW")
        return apply_setting(
            stmt, self._vars, in_block=self._tx.in_block, in_transaction=self._tx.in_transaction, warn=self._notify
        )

    def _discard(self, what: str) -> Result:
        if what == "ALL":
            if self._tx.in_block:
                raise e.ActiveSqlTransaction("DISCARD ALL cannot run inside a transaction block")
            self._vars.reset_all()
            self._statements.clear()
            for name in list(self._portals):
                self._close_portal_entry(name)
        if what in ("ALL", "PLANS"):
            self._plan_cache.clear()
        return CommandComplete(f"DISCARD {'TEMP' if what == 'TEMPORARY' else what}")

    def _prepared(self, stmt: u.Utility, formats: Callable[[int], tuple[FormatCode, ...]], limit: int | None) -> Result:
        match stmt:
            case u.Prepare(name=name, param_types=types, query=query):
                if name in self._statements:
                    raise e.DuplicatePreparedStatement(f'prepared statement "{name}" already exists')
                oids = tuple(parse_type_name(t)[0].oid for t in types)
                generation = self._schema.value
                self._statements[name] = Prepared(self._plan_one(query, oids), query, generation)
                return CommandComplete("PREPARE")
            case u.ExecutePrepared(name=name, args=args):
                plan = self._current_plan(self._statement(name))
                if len(args) != len(plan.param_types):
                    raise e.SyntaxError(
                        f'wrong number of parameters for prepared statement "{name}"',
                        detail=f"Expected {len(plan.param_types)} parameters but got {len(args)}.",
                    )
                return self._run(plan, self._evaluate_args(plan, args), formats, limit)
            case u.Deallocate(name=None):
                self._statements = {k: v for k, v in self._statements.items() if not k}
                return CommandComplete("DEALLOCATE ALL")
            case u.Deallocate(name=str(name)):
                if name not in self._statements:
                    raise e.InvalidSqlStatementName(f'prepared statement "{name}" does not exist')
                del self._statements[name]
                return CommandComplete("DEALLOCATE")
        raise AssertionError(stmt)

    def _evaluate_args(self, plan: Plan, args: tuple[str, ...]) -> tuple[object, ...]:
        if not args:
            return ()
        casts = ", ".join(f"CAST(({a}) AS {t[1]})" for a, t in zip(args, plan.param_types, strict=True))
        probe = plan_statement(f"SELECT {casts}", self._ctx, (), self._describe_sql)
        self._prepare_engine()
        with self._running():
            _, batches = self._engine.query(probe.duck_sql)
            table = pa.Table.from_batches(list(batches))
        return tuple(table.column(i)[0].as_py() for i in range(table.num_columns))

    def _declare(self, stmt: u.Declare, plan: Plan, params: tuple[object, ...]) -> Result:
        if not stmt.hold and not self._tx.in_block:
            raise e.NoActiveSqlTransaction("DECLARE CURSOR can only be used in transaction blocks")
        if stmt.name in self._portals:
            raise e.DuplicateCursor(f'cursor "{stmt.name}" already exists')
        if plan.kind != "query":
            raise e.SyntaxError("DECLARE CURSOR can only be used with a SELECT or VALUES query")
        fields, source = self._start_query(plan, params)
        if stmt.hold:
            source.materialize()
        code: FormatCode = 1 if stmt.binary else 0
        self._portals[stmt.name] = Portal(
            plan, fields=fields, formats=(code,) * len(fields), source=source, hold=stmt.hold
        )
        return CommandComplete("DECLARE CURSOR")

    def _cursor(self, stmt: u.Utility, formats: Callable[[int], tuple[FormatCode, ...]]) -> Result:
        match stmt:
            case u.Fetch(cursor=name, count=count, move=move):
                cursor = self._portals.get(name)
                if cursor is None or cursor.source is None or cursor.fields is None:
                    raise e.InvalidCursorName(f'cursor "{name}" does not exist')
                if move:
                    moved = sum(batch.num_rows for batch in cursor.source.take(count))
                    return CommandComplete(f"MOVE {moved}")
                # simple protocol: the cursor's own format (BINARY or text); extended: the FETCH portal's Bind
                fmts = cursor.formats if formats is all_text else formats(len(cursor.fields))
                return Rows(cursor.fields, cursor.source.take(count), fmts, tag_prefix="FETCH")
            case u.CloseCursor(name=None):
                for cursor_name in list(self._portals):
                    self._close_portal_entry(cursor_name)
                return CommandComplete("CLOSE CURSOR ALL")
            case u.CloseCursor(name=str(name)):
                if name not in self._portals:
                    raise e.InvalidCursorName(f'cursor "{name}" does not exist')
                self._close_portal_entry(name)
                return CommandComplete("CLOSE CURSOR")
        raise AssertionError(stmt)

    def _copy(self, stmt: CopyTo | CopyFrom) -> Result:
        opts = stmt.options
        csv = opts.format == "csv"
        if isinstance(stmt, CopyTo):
            plan = self._plan_one(copy_out_query(stmt))
            if plan.kind != "query":
                raise e.FeatureNotSupported("COPY (query) TO supports only SELECT queries")
            fields, source = self._start_query(plan, ())
            return CopyOut(
                fields,
                source.take(None),
                format=copy_format(stmt),
                delimiter=opts.delimiter or ("," if csv else "\t"),
                null=opts.null if opts.null is not None else ("" if csv else "\\N"),
                header=opts.header,
                quote=opts.quote,
                escape=opts.escape or opts.quote,
            )
        self._check_writable("COPY FROM")
        self._prepare_engine()
        item = self._user.copy_target(stmt.table)
        columns = copy_columns(item, stmt.columns)
        options = self.encode_options()
        parser = copy_parser(
            stmt, [c.type_oid for c in columns], [c.name for c in columns], [c.typmod for c in columns], options
        )

        def sink_for(txn: Callable[[], WriteTxn], record: Callable[[Callable[[], object]], None]) -> StorageCopyInSink:
            return StorageCopyInSink(
                parser, item, columns, txn, self._engine, self._ctx, options=options, guard=self._running,
                on_done=self._stop_timer, record=record,
            )  # fmt: skip

        sink: CopyInSinkApi
        if self._tx.mode == "idle":
            own = self._data.begin_write()
            sink = CommittingSink(sink_for(lambda: own, lambda _replay: None), own, self._data.commit_write)
        else:
            self._tx.before_write()
            sink = sink_for(self._storage_tx.writer, self._tx.record)
        return CopyIn(len(columns), sink, format=copy_format(stmt))
