"""The extended query protocol of one session: Parse, Bind, Describe, Execute, Close and Sync.

Contract (PostgreSQL's, message by message; every PgError also fails the transaction, so the server discards
until Sync):
- `parse(name, sql, param_oids)` plans one statement with the client's declared parameter types into a prepared
  statement (42P05 if a named one exists; in a failed block only transaction control is accepted, 25P02).
- `bind(portal, statement, …)` re-plans the statement if the schema moved (prepared.py), decodes the parameter
  values and makes a portal (42P03 if a named one exists).
- `describe_statement` / `describe_portal`: parameter types and fields, described once per plan.
- `execute(portal, max_rows)`: a portal's first Execute runs its plan (dispatch.py), in an implicit transaction
  unless a block is open; later Executes resume its row stream; a portal that returns no rows answers its result
  again.
- `close_statement` / `close_portal`; `sync()` ends an implicit transaction (committing unless it failed) and
  drops the unnamed portal.
"""

from __future__ import annotations

from collections.abc import Callable

from sparkwire import errors as e
from sparkwire.api import CopyIn, CopyOut, Field, Result, Rows, StatementDescription
from sparkwire.session.activity import Activity
from sparkwire.session.dispatch import Dispatch
from sparkwire.session.lifecycle import Lifecycle
from sparkwire.session.plans import PlanCache
from sparkwire.session.portals import Portal, decode_bind_params, expand_formats
from sparkwire.session.state import SessionState


def _exhausted(entry: Portal) -> Callable[[], bool]:
    return lambda: entry.source is None or entry.source.exhausted


class ExtendedProtocol:
    def __init__(
        self, state: SessionState, life: Lifecycle, plans: PlanCache, dispatch: Dispatch, activity: Activity
    ) -> None:
        self._activity = activity
        self._s = state
        self._life = life
        self._plans = plans
        self._dispatch = dispatch
        self._prepared = dispatch.prepared
        self._control = dispatch.control

    def parse(self, name: str, sql: str, param_oids: list[int]) -> None:
        try:
            if name and name in self._s.statements:
                raise e.DuplicatePreparedStatement(f'prepared statement "{name}" already exists')
            if self._s.tx.failed:
                self._control.check_not_failed(self._plans.plan_one(sql, ()))
            self._prepared.add(name, sql, tuple(param_oids))
        except e.PgError as err:
            self._activity.rejected(sql, err, name)
            self._s.tx.fail()
            raise

    def bind(
        self,
        portal: str,
        statement: str,
        param_formats: list[int],
        params: list[bytes | None],
        result_formats: list[int],
    ) -> None:
        s = self._s
        try:
            prepared = self._prepared.statement(statement)
            plan = self._prepared.current_plan(prepared)
            self._control.check_not_failed(plan)
            if portal and portal in s.portals:
                raise e.DuplicateCursor(f'cursor "{portal}" already exists')
            values = decode_bind_params(statement, plan, param_formats, params, s.encode_options())
            s.close_portal(portal)
            fields = prepared.fields if prepared.described else None
            s.portals[portal] = Portal(
                plan, values, tuple(result_formats), fields=fields, statement=prepared, statement_name=statement
            )
        except e.PgError:
            s.tx.fail()
            raise

    def describe_statement(self, name: str) -> StatementDescription:
        try:
            prepared = self._prepared.statement(name)
            plan = self._prepared.current_plan(prepared)
            return StatementDescription(
                tuple(oid for oid, _ in plan.param_types), self._prepared.describe_prepared(prepared)
            )
        except e.PgError:
            self._s.tx.fail()
            raise

    def describe_portal(self, name: str) -> tuple[Field, ...] | None:
        try:
            portal = self._prepared.portal(name)
            if portal.fields is None:
                statement = portal.statement
                if statement is not None and statement.plan is portal.plan:
                    portal.fields = self._prepared.describe_prepared(statement)
                else:
                    portal.fields = self._dispatch.describe(portal.plan)
            return portal.fields
        except e.PgError:
            self._s.tx.fail()
            raise

    def execute(self, portal: str, max_rows: int) -> Result:
        activity = self._activity
        try:
            self._life.start_statement()
            entry = self._prepared.portal(portal)
            self._control.check_not_failed(entry.plan)
            limit = max_rows if max_rows > 0 else None
            if entry.source is not None:
                assert entry.fields is not None
                rows = Rows(entry.fields, entry.source.take(limit), entry.formats, tag=entry.tag)
                return activity.resumed(entry.plan, entry.execution, rows, _exhausted(entry))
            if entry.done is not None:
                return entry.done
            self._s.tx.start_implicit()
        except e.PgError:
            self._s.tx.fail()
            raise
        entry.execution = activity.begin(entry.plan, entry.params, entry.statement_name)
        try:
            result = self._first_execute(entry, limit)
        except e.PgError as err:
            activity.failed(entry.execution, err)
            self._s.tx.fail()
            raise
        except Exception:
            activity.failed(entry.execution, e.InternalError("internal error"))
            raise
        if not _exhausted(entry)():  # a portal that holds rows: its record ends with them or with the portal
            return activity.result(entry.execution, result, finish_on_end=False, done=_exhausted(entry))
        return activity.result(entry.execution, result, finish_on_end=True)

    def _first_execute(self, entry: Portal, limit: int | None) -> Result:
        plan, queries = entry.plan, self._dispatch.queries
        if plan.kind == "query":
            self._dispatch.subscriptions.saw(plan)
            self._dispatch.subscriptions.check_query()
        if plan.kind == "query" or (plan.kind == "dml" and plan.returning):
            fields, source, tag = (
                (*queries.start_query(plan, entry.params), None)
                if plan.kind == "query"
                else queries.run_returning(plan, entry.params)
            )
            entry.fields, entry.source, entry.tag = fields, source, tag
            entry.formats = expand_formats(entry.result_formats, len(fields))
            return Rows(fields, source.take(limit), entry.formats, tag=tag)
        if plan.kind == "subscribe":  # a live stream the portal keeps, like a query's rows
            fields, subscription = self._dispatch.subscriptions.start(plan, entry.params, streaming=True)
            entry.fields, entry.source = fields, subscription
            entry.formats = expand_formats(entry.result_formats, len(fields))
            return Rows(fields, subscription.take(limit), entry.formats, tag_prefix="SUBSCRIBE", live=True)
        result = self._dispatch.run(plan, entry.params, lambda n: expand_formats(entry.result_formats, n), limit)
        if not isinstance(result, Rows | CopyIn | CopyOut):
            entry.done = result
        return result

    def close_statement(self, name: str) -> None:
        self._s.statements.pop(name, None)

    def close_portal(self, name: str) -> None:
        self._s.close_portal(name)

    def sync(self) -> None:
        self._life.stop_timer()
        if self._s.tx.mode == "implicit":
            self._control.end(committed=not self._s.tx.failed)
        self._s.close_portal("")
