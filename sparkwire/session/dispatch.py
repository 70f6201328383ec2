"""Running and describing one planned statement: the session's single dispatch by plan kind.

Contract: `run(plan, params, formats, limit)` executes a `Plan` (planning/plan.py) and returns its `api.Result`: 25P02
first in a failed block (transaction_control.py); then by kind — empty → EmptyQuery; query → Rows (queries.py);
SUBSCRIBE → live Rows (subscriptions.py); DML … RETURNING → Rows with its count tag; SHOW <objects> and EXPLAIN →
Rows; DML, TRUNCATE and DDL (25006 in a read-only transaction) → CommandComplete; a utility statement by its type:
transaction control (transaction_control.py), settings (settings.py), PREPARE / EXECUTE / DEALLOCATE (prepared.py),
DECLARE / FETCH / MOVE / CLOSE (cursors.py), COPY (copy.py). `formats(n)` gives the result format codes for n columns
(all text in the simple protocol; the Bind's in the extended one) and `limit` an Execute's row limit. `describe(plan)`
is the RowDescription a statement would produce without running it (None for no rows).
"""

from __future__ import annotations

import contextlib
import json
import time

import pyarrow as pa
from sqlglot import exp

from sparkwire import errors as e
from sparkwire.api import CommandComplete, EmptyQuery, Field, Result, Rows
from sparkwire.engine.spark_status import SparkStatusReader
from sparkwire.engine.spark_status_rest import RestStatusReader
from sparkwire.pgtypes.registry import format_type
from sparkwire.planner.execute.explain import explain_json, explain_text
from sparkwire.planner.execute.streams import RowSource
from sparkwire.planner.grammar import utility as u
from sparkwire.planner.grammar.copy_statement import CopyFrom, CopyTo
from sparkwire.planner.planning.plan import Plan
from sparkwire.planner.statements.explain_analysis import Analysis, analysis_json, analysis_lines, spark_work
from sparkwire.planner.statements.set_show import show_fields
from sparkwire.session.copy import Copy
from sparkwire.session.cursors import Cursors
from sparkwire.session.lifecycle import Lifecycle
from sparkwire.session.plans import PlanCache
from sparkwire.session.portals import Formats
from sparkwire.session.prepared import PreparedStatements
from sparkwire.session.queries import Queries, count_tag
from sparkwire.session.settings import Settings
from sparkwire.session.state import SessionState
from sparkwire.session.subscriptions import Subscriptions
from sparkwire.session.transaction_control import TransactionControl

EXPLAIN_FIELDS = (Field("QUERY PLAN", 25),)
EXPLAIN_JSON_FIELDS = (Field("QUERY PLAN", 114),)  # FORMAT JSON: one row of type json, as PostgreSQL
TIMESTAMP_FIELDS = (Field("Timestamp", 25),)  # EXPLAIN TIMESTAMP: one text value, as Materialize


class Dispatch:
    def __init__(self, state: SessionState, life: Lifecycle, plans: PlanCache, control: TransactionControl) -> None:
        self._s = state
        self._life = life
        self.control = control
        self.queries = Queries(state, life, control)
        self.prepared = PreparedStatements(state, life, plans, self.describe)
        self._settings = Settings(state, life, plans)
        self.subscriptions = Subscriptions(state, life, plans, self.queries)
        self._cursors = Cursors(state, self.queries, self.subscriptions)
        self._copy = Copy(state, life, plans, self.queries, control, self.subscriptions)

    def run(self, plan: Plan, params: tuple[object, ...], formats: Formats, limit: int | None = None) -> Result:
        s, queries = self._s, self.queries
        self.control.check_not_failed(plan)
        self.subscriptions.saw(plan)
        match plan.kind:
            case "empty":
                return EmptyQuery()
            case "utility":
                return self._utility(plan, params, formats, limit)
            case "query":
                self.subscriptions.check_query()
                fields, source = queries.start_query(plan, params)
                return Rows(fields, source.take(limit), formats(len(fields)))
            case "subscribe":  # streams until UP TO, a cancel or a drop (subscriptions.py)
                fields, source = self.subscriptions.start(plan, params, streaming=True)
                return Rows(fields, source.take(limit), formats(len(fields)), tag_prefix="SUBSCRIBE", live=True)
            case "dml" if plan.returning:
                fields, source, tag = queries.run_returning(plan, params)
                return Rows(fields, source.take(limit), formats(len(fields)), tag=tag)
            case "show":
                shown, batch = s.user.show(plan.statement)
                return Rows(shown, RowSource(iter([batch]), contextlib.nullcontext).take(limit), formats(len(shown)))
            case "explain":
                fields, batch = self._explain(plan, params)
                source = RowSource(iter([batch]), contextlib.nullcontext)
                return Rows(fields, source.take(limit), formats(1), tag="EXPLAIN")
        self.control.check_writable(plan.tag.split()[0] if plan.kind == "dml" else plan.tag)
        self._life.prepare_engine()
        if plan.kind == "dml" and s.user.write_target(plan) is not None:
            count, _ = queries.write(plan, params)
            return CommandComplete(count_tag(plan, count))
        if isinstance(plan.tree, exp.TruncateTable):
            queries.truncate(plan.tree)
            return CommandComplete("TRUNCATE TABLE")
        if plan.kind == "ddl":
            return CommandComplete(queries.ddl(plan))
        return CommandComplete(count_tag(plan, queries.command(plan, params)))

    def _utility(self, plan: Plan, params: tuple[object, ...], formats: Formats, limit: int | None) -> Result:
        stmt = plan.utility
        match stmt:
            case u.Begin() | u.Commit() | u.Rollback() | u.Savepoint() | u.Release() | u.RollbackTo():
                return self.control.run(stmt)
            case u.SetVariable() | u.ResetVariable() | u.SetTransaction() | u.ShowVariable() | u.AlterSystem():
                return self._settings.run(stmt, formats, limit)
            case u.Discard():  # DISCARD ALL also drops prepared statements and portals: settings.py says how
                return self._settings.run(stmt, formats, limit)
            case u.Prepare() | u.ExecutePrepared() | u.Deallocate():
                return self.prepared.run(stmt, formats, limit, self.run)
            case u.Declare():
                assert plan.inner is not None
                return self._cursors.declare(stmt, plan.inner, params)
            case u.Fetch() | u.CloseCursor():
                return self._cursors.run(stmt, formats)
            case CopyTo() | CopyFrom():
                return self._copy.run(stmt)
        raise e.FeatureNotSupported(f"{type(stmt).__name__} is not supported")

    def _explain(self, plan: Plan, params: tuple[object, ...]) -> tuple[tuple[Field, ...], pa.RecordBatch]:
        """EXPLAIN's rows: the route, VERBOSE's output columns, the optimizer notices and, with ANALYZE, what
        running the query did (explain_analysis.py); FORMAT JSON as one json value."""
        s, inner, options = self._s, plan.inner, plan.explain
        assert inner is not None and options is not None
        if options.timestamp:  # Materialize's EXPLAIN TIMESTAMP (queries.py, docs/timestamps.md)
            if options.format != "text":
                raise e.FeatureNotSupported("EXPLAIN TIMESTAMP AS JSON is not supported")
            text = self.queries.explain_timestamp(inner)
            return TIMESTAMP_FIELDS, pa.record_batch([pa.array([text], pa.string())], names=["Timestamp"])
        if options.format in ("xml", "yaml"):
            raise e.FeatureNotSupported(f"EXPLAIN (FORMAT {options.format.upper()}) is not supported")
        route = s.user.explain_route(inner, params, s.vars.get("TimeZone"), options.verbose)
        output = [f"{f.name} {format_type(f.type_oid, f.type_modifier)}" for f in self.queries.describe(inner) or ()]
        notices = s.user.notice_lines(inner, options.redacted)
        analysis = self._analyze(inner, params) if options.analyze else None
        state = s.data.state
        if options.format == "json":
            document: dict[str, object] = {"Plan": explain_json(route, state)}
            if options.verbose:
                document["Output"] = output
            if notices:
                document["Notices"] = notices
            document.update(analysis_json(analysis) if analysis is not None else {})
            text = json.dumps([document], indent=2)
            return EXPLAIN_JSON_FIELDS, pa.record_batch([pa.array([text], pa.string())], names=["QUERY PLAN"])
        lines = explain_text(route, state)
        lines += [f"Output: {', '.join(output)}"] if options.verbose else []
        lines += notices + (analysis_lines(analysis) if analysis is not None else [])
        return EXPLAIN_FIELDS, pa.record_batch([pa.array(lines, pa.string())], names=["QUERY PLAN"])

    def _analyze(self, inner: Plan, params: tuple[object, ...]) -> Analysis:
        """Run the query to its last row (the rows are discarded) and read what Spark did for it."""
        s = self._s
        before = s.user.last_job_tag
        started = time.perf_counter()
        _, source = self.queries.start_query(inner, params)
        rows = 0
        while (batch := source.next_rows(None)) is not None:
            rows += batch.num_rows
        milliseconds = (time.perf_counter() - started) * 1000
        route, tag = s.strategy or "introspection", s.user.last_job_tag
        if route != "standard" or tag is None or tag == before:  # no Spark job (a table read as rows)
            return Analysis(route, rows, milliseconds)
        engine = s.user.last_job_engine  # a replica's own application (`--cluster-applications`): its UI's REST API
        work = spark_work(SparkStatusReader(s.data.spark) if engine is None else RestStatusReader(engine), tag)
        if work is None:
            raise e.FeatureNotSupported(
                "EXPLAIN ANALYZE is not supported with a Spark Connect server",
                detail="Spark's job and stage metrics are read from the driver's status store, which is not here.",
            )
        return Analysis("spark", rows, milliseconds, work.jobs, work.stages)

    def describe(self, plan: Plan) -> tuple[Field, ...] | None:
        if plan.kind == "query" or (plan.kind == "dml" and plan.returning):
            return self.queries.describe(plan)
        if plan.kind == "explain" and plan.explain is not None and plan.explain.timestamp:
            return TIMESTAMP_FIELDS
        if plan.kind == "subscribe":
            return self.subscriptions.describe(plan)
        if plan.kind == "explain":
            return EXPLAIN_JSON_FIELDS if plan.explain is not None and plan.explain.format == "json" else EXPLAIN_FIELDS
        if plan.kind == "show":
            return self._s.user.show(plan.statement)[0]
        stmt = plan.utility
        if isinstance(stmt, u.ShowVariable):
            return show_fields(stmt)
        if isinstance(stmt, u.Fetch) and not stmt.move:
            cursor = self._s.portals.get(stmt.cursor)
            return cursor.fields if cursor is not None else None
        if isinstance(stmt, u.ExecutePrepared):
            return self.describe(self.prepared.statement(stmt.name).plan)
        return None
