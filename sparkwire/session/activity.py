"""What one session tells the workload introspection: its live pg_stat_activity row and its statement history.

Contract: `Activity(state, workload)` is made once per session. For each statement the session calls
`begin(plan, params, prepared_name)` before running it (the live row turns `active` with the statement's text and
start; with probability min(statement_logging_sample_rate, statement_logging_max_sample_rate), and when the history's
data rate allows it (statement_logging_target_data_rate: history/throttle.py), an `Execution` is handed to the
history), then exactly one of:
- `failed(execution, error)`: the statement raised (57014 → `canceled`, anything else → `error` with its message);
- `result(execution, result, finish_on_end)`: the statement produced `result`. A result with rows is metered: its
  stream counts rows and bytes, and the execution finishes when that stream ends (`finish_on_end`, the simple
  protocol) or, in the extended protocol, when `done()` says the portal holding it is exhausted or when the portal is
  closed (`portal_closed`). Any other result finishes at once.
`terminate()` marks what is still open `aborted`. The live row returns to `idle` / `idle in transaction` /
`idle in transaction (aborted)` when the statement ends. Everything here is in-memory bookkeeping of a few
microseconds; writing it out is the history writer's job (introspection/history/log.py), never the statement's.
Sessions created without a workload (in-process tests) log nothing.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pyarrow as pa

from sparkwire import errors as e
from sparkwire.api import CommandComplete, Result, Rows, RowStream
from sparkwire.introspection.history.log import HistoryLog, HistorySettings
from sparkwire.introspection.history.records import Execution, ExecutionContext, SessionRecord
from sparkwire.introspection.history.sqltext import MAX_SQL_BYTES
from sparkwire.introspection.history.throttle import row_cost
from sparkwire.introspection.peeks import Peek
from sparkwire.introspection.sessions import LiveActivity
from sparkwire.planner.planning.plan import Plan
from sparkwire.session.state import SessionState


@dataclass(frozen=True, slots=True)
class Workload:
    """The session's handles on the workload introspection (PlannerService makes them)."""

    history: HistoryLog
    live: LiveActivity
    record: SessionRecord
    cluster_ids: Callable[[], dict[str, str]]  # cluster name → id in the catalog's current state
    signal: Callable[[str, int, bool], bool | None]  # (role id, pid, terminate): pg_cancel/terminate_backend
    peeks: tuple[Peek, ...] = ()  # live relations answered from memory (introspection/peeks.py)


def _statement_type(plan: Plan) -> str | None:
    if plan.kind == "empty":
        return None
    tag = plan.tag or plan.kind
    return tag.strip().lower().replace(" ", "_")


def _type_of_tag(tag: str) -> str:
    """A command tag as Materialize's statement_type: "CREATE TABLE" → create_table, "INSERT 0 2" → insert."""
    return "_".join(word for word in tag.lower().split() if word.isalpha())


def _param_text(value: object) -> str | None:
    return None if value is None else str(value)


class MeteredStream:
    """A result's RowStream that counts what passes and tells the activity when it ends."""

    def __init__(
        self,
        stream: RowStream,
        activity: Activity,
        execution: Execution | None,
        finish: bool,
        done: Callable[[], bool] | None = None,
    ) -> None:
        self._stream = stream
        self._activity = activity
        self._execution = execution
        self._finish = finish
        self._done = done
        self.rows = 0
        self.bytes = 0

    def __iter__(self) -> Iterator[pa.RecordBatch]:
        return self

    def __next__(self) -> pa.RecordBatch:
        try:
            batch = next(self._stream)
        except StopIteration:
            self._ended(None)
            raise
        except e.PgError as err:
            self._ended(err)
            raise
        self.rows += batch.num_rows
        self.bytes += batch.get_total_buffer_size()  # nbytes walks the buffers: 30 times slower
        return batch

    def _ended(self, error: e.PgError | None) -> None:
        execution = self._execution
        if execution is not None:
            execution.rows_returned = (execution.rows_returned or 0) + self.rows
            execution.result_size = (execution.result_size or 0) + self.bytes
            self.rows = self.bytes = 0
        if error is not None:
            self._activity.failed(execution, error)
        elif self._finish or (self._done is not None and self._done()):
            self._activity.finished(execution, "success")

    def close(self) -> None:
        if self._finish:
            self._activity.finished(self._execution, "aborted")
        self._stream.close()


class Activity:
    def __init__(self, state: SessionState, workload: Workload | None) -> None:
        self._s = state
        self._w = workload
        self._transaction_id = 0
        self._open: dict[uuid.UUID, Execution] = {}
        self._context_cache: tuple[tuple[int, HistorySettings, dict[str, str]], ExecutionContext] | None = None
        self._session_logged = False  # mz_session_history has the session once one of its statements is logged

    def _context(self, w: Workload, settings: HistorySettings) -> ExecutionContext:
        """The session's facts for its executions, made again only when a variable, the system's settings or the
        clusters changed."""
        variables = self._s.vars
        key = (variables.version, settings, w.cluster_ids())
        cached = self._context_cache
        if cached is not None and cached[0] == key:
            return cached[1]
        cluster = variables.get("cluster")
        context = ExecutionContext(
            session=w.record,
            sample_rate=min(float(variables.get("statement_logging_sample_rate")), key[1].max_sample_rate),
            cluster_id=key[2].get(cluster),
            cluster_name=cluster,
            application_name=variables.get("application_name"),
            database_name=self._s.ctx.database,
            search_path=tuple(p.strip() for p in variables.get("search_path").split(",") if p.strip()),
            transaction_isolation=variables.get("transaction_isolation"),
        )
        self._context_cache = (key, context)
        return context

    def begin(self, plan: Plan, params: tuple[object, ...] = (), prepared_name: str = "") -> Execution | None:
        w = self._w
        if w is None:
            return None
        s = self._s
        s.strategy = None
        if s.tx.status == "I":
            self._transaction_id += 1
        w.live.began(plan.sql)
        settings = w.history.settings()
        context = self._context(w, settings)
        rate = context.sample_rate
        if rate <= 0.0 or (rate < 1.0 and random.random() >= rate):
            s.user.execution_id = ""
            return None
        texts = tuple(_param_text(p) for p in params) if params else ()
        throttled = w.history.admit(row_cost(min(len(plan.sql), MAX_SQL_BYTES), texts), settings)
        if throttled is None:  # over the history's data rate: not logged, counted on the next one logged
            s.user.execution_id = ""
            return None
        execution = Execution(
            context, plan.sql, self._transaction_id, prepared_name, _statement_type(plan), texts, throttled
        )
        self._open[execution.execution_id] = execution
        s.user.execution_id = str(execution.execution_id)  # its Spark jobs carry it (mz_spark_jobs)
        if not self._session_logged:  # as Materialize: a session none of whose statements is logged is not either
            self._session_logged = True
            w.history.session_started(w.record)
        w.history.began(execution)
        return execution

    def result(
        self,
        execution: Execution | None,
        result: Result,
        *,
        finish_on_end: bool,
        done: Callable[[], bool] | None = None,
    ) -> Result:
        if self._w is None:
            return result
        if execution is not None:
            execution.execution_strategy = self._s.strategy
            execution.dependencies_finished()
        if isinstance(result, Rows):
            stream = MeteredStream(result.stream, self, execution, finish_on_end, done)
            return Rows(result.fields, stream, result.formats, result.tag_prefix, result.tag)
        if execution is not None and isinstance(result, CommandComplete) and _type_of_tag(result.tag):
            execution.statement_type = _type_of_tag(result.tag)  # the tag names DDL better than the plan's kind
        self.finished(execution, "success")
        return result

    def resumed(
        self, plan: Plan, execution: Execution | None, rows: Rows, done: Callable[[], bool]
    ) -> Rows:
        """A later Execute of a suspended portal: the same record, more rows."""
        if self._w is None:
            return rows
        self._w.live.began(plan.sql)
        stream = MeteredStream(rows.stream, self, execution, False, done)
        return Rows(rows.fields, stream, rows.formats, rows.tag_prefix, rows.tag)

    def rejected(self, sql: str, error: e.PgError, prepared_name: str = "") -> None:
        """A statement refused before it could be planned (a syntax error, a batch past the size limit): logged
        with its text (truncated if huge) and the error, as Materialize logs what it could not plan."""
        execution = self.begin(Plan(sql=sql, kind="empty"), (), prepared_name)
        self.failed(execution, error)

    def failed(self, execution: Execution | None, error: e.PgError) -> None:
        status = "canceled" if isinstance(error, e.QueryCanceled) else "error"
        if execution is not None:
            execution.execution_strategy = execution.execution_strategy or self._s.strategy
        self.finished(execution, status, error.message)

    def finished(self, execution: Execution | None, status: str, error: str | None = None) -> None:
        w = self._w
        if w is None:
            return
        tx = self._s.tx
        w.live.finished("idle" if tx.status == "I" else "idle in transaction" + (" (aborted)" if tx.failed else ""))
        if execution is None or execution.finished:
            return
        execution.finish(status, error=error, rows=execution.rows_returned, size=execution.result_size)
        self._open.pop(execution.execution_id, None)
        w.history.finished(execution)

    def portal_closed(self, execution: Execution | None) -> None:
        self.finished(execution, "success")

    def terminate(self) -> None:
        for execution in list(self._open.values()):
            self.finished(execution, "aborted")
