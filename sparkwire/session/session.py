"""`DuckSession`: the `api.Session` the server drives, one per connection — a thin façade over the session's rooms.

Contract: implements sparkwire/api.py's Session (read its docstrings) plus `encode_options()`, and the hooks the
session functions inside the engine call (`current_setting`, `set_config`, `cancelled`, `remember_error`:
planner/execute/udfs.py). A statement enters each module of this folder once, in this order:

- simple query: `simple_query` → plans.py (split and plan, cached per SQL text) → for each statement
  lifecycle.py (`start_statement`) → dispatch.py (by plan kind) → one of queries.py (SELECT, DML, DDL),
  transaction_control.py, settings.py, prepared.py (PREPARE / EXECUTE / DEALLOCATE), cursors.py, copy.py →
  lifecycle.py (`running`, around the engine work); a multi-statement query runs in one implicit transaction,
  committed at its end (transaction_control.py).
- extended query: Parse / Bind / Describe / Execute / Close / Sync → extended.py → prepared.py (re-planning) →
  dispatch.py on the first Execute of a portal → as above; Sync ends the implicit transaction.

state.py holds what the session holds (variables, engine connection, transactions, the user-data router,
prepared statements and portals); portals.py the Prepared and Portal records; transactions.py the transaction
state machine; schema_generation.py the process-wide schema generation that invalidates plans.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from sparkwire import errors as e
from sparkwire.api import (
    EmptyQuery,
    Field,
    Notice,
    NoticeSink,
    ParameterStatusSink,
    Result,
    StartupInfo,
    StatementDescription,
    TransactionStatus,
)
from sparkwire.engine.duckdb import DuckDBConnection
from sparkwire.pgtypes.options import EncodeOptions
from sparkwire.planner.execute.data import DataPlane
from sparkwire.planner.execute.result_cache import ResultCache
from sparkwire.planner.execute.udfs import SessionFunctions
from sparkwire.planner.security.privileges import is_superuser
from sparkwire.planner.statements.materialize_variables import welcome_message
from sparkwire.planner.statements.variables import SessionVariables, duration_ms
from sparkwire.planner.translate.duckdb import SessionContext
from sparkwire.planner.translate.literal_templates import LiteralTemplates
from sparkwire.session.activity import Activity, Workload
from sparkwire.session.dispatch import Dispatch
from sparkwire.session.extended import ExtendedProtocol
from sparkwire.session.lifecycle import Lifecycle
from sparkwire.session.plans import PlanCache
from sparkwire.session.portals import all_text
from sparkwire.session.schema_generation import SchemaGeneration
from sparkwire.session.state import SessionState
from sparkwire.session.transaction_control import TransactionControl


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
        workload: Workload | None = None,
    ) -> None:
        overrides = dict(startup.options)
        if startup.application_name:
            overrides.setdefault("application_name", startup.application_name)
        overrides["session_authorization"] = startup.user
        overrides["is_superuser"] = "on" if is_superuser(data.state, role_id) else "off"
        try:
            variables = SessionVariables(parameter_status, overrides, system=lambda: data.state.system_defaults)
        except e.PgError as err:
            err.severity = "FATAL"
            raise
        self._on_close = on_close
        self._functions = functions
        self._sid = functions.register(self)
        ctx = SessionContext(self._sid, startup.user, startup.backend_pid)
        self._s = SessionState(role_id, variables, engine, ctx, data, results, schema, notices)
        self._life = Lifecycle(self._s)
        self._plans = PlanCache(self._s, templates)
        self._control = TransactionControl(self._s, self._life)
        self._dispatch = Dispatch(self._s, self._life, self._plans, self._control)
        self._workload = workload
        self._activity = Activity(self._s, workload)
        self._extended = ExtendedProtocol(self._s, self._life, self._plans, self._dispatch, self._activity)
        if workload is not None:
            self._dispatch.subscriptions.session_id = workload.record.session_text  # mz_subscriptions.session_id
            self._s.portal_closed = lambda portal: self._activity.portal_closed(portal.execution)
            self._s.user.waiting = workload.live.waiting
            self._s.peeks = workload.peeks
        if variables.get("welcome_message") == "on":  # Materialize's greeting, before the first ReadyForQuery
            greeting = welcome_message(
                variables.get("mz_version"),
                startup.user,
                variables.get("cluster"),
                variables.get("database"),
                variables.get("search_path"),
            )
            notices(Notice(message=greeting, severity="NOTICE", sqlstate="00000"))

    # ---- api.Session: state -------------------------------------------------------------------------------

    @property
    def transaction_status(self) -> TransactionStatus:
        return self._s.tx.status

    def idle_timeout(self) -> float | None:
        if self._s.tx.status == "I":
            return None
        ms = duration_ms(self._s.vars.get("idle_in_transaction_session_timeout"))
        return ms / 1000 if ms > 0 else None

    def reported_parameters(self) -> dict[str, str]:
        return self._s.vars.reported()

    def encode_options(self) -> EncodeOptions:
        return self._s.encode_options()

    # ---- hooks for the session functions (udfs.py) --------------------------------------------------------

    def current_setting(self, name: str, missing_ok: bool) -> str | None:
        try:
            return self._s.vars.get(name)
        except e.UndefinedObject:
            if missing_ok:
                return None
            raise

    def set_config(self, name: str, value: str, is_local: bool) -> str:
        variables, tx = self._s.vars, self._s.tx
        if is_local and not tx.in_block:
            return variables.get(name)
        variables.set(name, value, local=is_local, in_transaction=tx.in_transaction)
        return variables.get(name)

    def cancelled(self) -> bool:
        return self._life.cancelled()

    def remember_error(self, error: e.PgError) -> None:
        self._life.remember_error(error)

    def signal_backend(self, pid: int, terminate: bool) -> bool:
        signalled = None if self._workload is None else self._workload.signal(self._s.role_id, pid, terminate)
        if signalled is None:
            self._life.notify(f"PID {pid} is not a PostgreSQL backend process")
            return False
        return signalled

    # ---- api.Session: simple query ------------------------------------------------------------------------

    def simple_query(self, sql: str) -> Iterator[Result]:
        tx = self._s.tx
        activity = self._activity
        try:
            plans = self._plans.plans(sql)
        except e.PgError as err:
            activity.rejected(sql, err)
            tx.fail()
            raise
        if not plans:
            yield EmptyQuery()
            return
        if len(plans) > 1:
            tx.start_implicit()
        finished = False
        try:
            for plan in plans:
                self._life.start_statement()
                execution = activity.begin(plan)
                try:
                    result = self._dispatch.run(plan, (), all_text)
                except e.PgError as err:
                    activity.failed(execution, err)
                    tx.fail()
                    raise err from None
                except Exception:
                    activity.failed(execution, e.InternalError("internal error"))
                    raise
                yield activity.result(execution, result, finish_on_end=True)
            finished = True
        finally:
            if not finished:
                tx.fail()
        if tx.mode == "implicit":
            self._control.end(committed=True)

    # ---- api.Session: extended query (extended.py) ---------------------------------------------------------

    def parse(self, name: str, sql: str, param_oids: list[int]) -> None:
        self._extended.parse(name, sql, param_oids)

    def bind(
        self,
        portal: str,
        statement: str,
        param_formats: list[int],
        params: list[bytes | None],
        result_formats: list[int],
    ) -> None:
        self._extended.bind(portal, statement, param_formats, params, result_formats)

    def describe_statement(self, name: str) -> StatementDescription:
        return self._extended.describe_statement(name)

    def describe_portal(self, name: str) -> tuple[Field, ...] | None:
        return self._extended.describe_portal(name)

    def execute(self, portal: str, max_rows: int) -> Result:
        return self._extended.execute(portal, max_rows)

    def close_statement(self, name: str) -> None:
        self._extended.close_statement(name)

    def close_portal(self, name: str) -> None:
        self._extended.close_portal(name)

    def sync(self) -> None:
        self._extended.sync()

    # ---- api.Session: failure, cancel, end ------------------------------------------------------------------

    def fail(self) -> None:
        self._s.tx.fail()

    def cancel(self) -> None:
        self._life.cancel()

    def terminate(self) -> None:
        self._activity.terminate()
        self._life.stop_timer()
        self._s.close_portals()
        with contextlib.suppress(e.PgError):  # the connection is gone: a failed rollback has no one to tell
            self._s.tx.end(committed=False)
        self._functions.unregister(self._sid)
        self._s.engine.close()
        self._on_close()
