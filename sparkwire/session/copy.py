"""COPY of one session: `COPY … TO STDOUT` streams a query's rows, `COPY … FROM STDIN` writes into a user table.

Contract: `run(stmt)` returns a `CopyOut` (fields, the query's row stream and the text / CSV / binary options with
PostgreSQL's defaults) for COPY TO — a table, a SELECT or a SUBSCRIBE (a live stream: subscriptions.py; 0A000 for
other statements) — or a `CopyIn` for COPY
FROM (25006 in a read-only transaction): its sink parses CopyData payloads for the target's columns and writes them
to storage, committing on finish in its own transaction in autocommit mode, or into the block's transaction
(recorded for savepoint replay) inside one.
"""

from __future__ import annotations

from collections.abc import Callable

from sparkwire import errors as e
from sparkwire.api import CopyIn, CopyOut, Result
from sparkwire.api import CopyInSink as CopyInSinkApi
from sparkwire.planner.execute.copy import copy_format, copy_out_query, copy_parser
from sparkwire.planner.execute.copy_storage import CommittingSink, StorageCopyInSink, copy_columns
from sparkwire.planner.execute.streams import RowSource
from sparkwire.planner.execute.unique_keys import unique_indexes
from sparkwire.planner.grammar.copy_statement import CopyFrom, CopyTo
from sparkwire.session.lifecycle import Lifecycle
from sparkwire.session.plans import PlanCache
from sparkwire.session.queries import Queries
from sparkwire.session.state import SessionState
from sparkwire.session.subscriptions import Subscriptions
from sparkwire.session.transaction_control import TransactionControl
from sparkwire.storage.txn import WriteTxn


class Copy:
    def __init__(
        self,
        state: SessionState,
        life: Lifecycle,
        plans: PlanCache,
        queries: Queries,
        control: TransactionControl,
        subscriptions: Subscriptions,
    ) -> None:
        self._subscriptions = subscriptions
        self._s = state
        self._life = life
        self._plans = plans
        self._queries = queries
        self._control = control

    def run(self, stmt: CopyTo | CopyFrom) -> Result:
        opts = stmt.options
        csv = opts.format == "csv"
        if isinstance(stmt, CopyTo):
            plan = self._plans.plan_one(copy_out_query(stmt))
            live = plan.kind == "subscribe"
            if live:  # COPY (SUBSCRIBE …) TO STDOUT: streams until UP TO, a cancel or a drop
                fields, sub = self._subscriptions.start(plan, (), streaming=True)
                source: RowSource = sub
            elif plan.kind != "query":
                raise e.FeatureNotSupported("COPY (query) TO supports only SELECT and SUBSCRIBE queries")
            else:
                fields, source = self._queries.start_query(plan, ())
            return CopyOut(
                fields,
                source.take(None),
                live=live,
                format=copy_format(stmt),
                delimiter=opts.delimiter or ("," if csv else "\t"),
                null=opts.null if opts.null is not None else ("" if csv else "\\N"),
                header=opts.header,
                quote=opts.quote,
                escape=opts.escape or opts.quote,
            )
        return self._copy_in(stmt)

    def _copy_in(self, stmt: CopyFrom) -> Result:
        s, life = self._s, self._life
        self._control.check_writable("COPY FROM")
        life.prepare_engine()
        item = s.user.copy_target(stmt.table)
        columns = copy_columns(item, stmt.columns)
        options = s.encode_options()
        parser = copy_parser(
            stmt, [c.type_oid for c in columns], [c.name for c in columns], [c.typmod for c in columns], options
        )

        def sink_for(txn: Callable[[], WriteTxn], record: Callable[[Callable[[], object]], None]) -> StorageCopyInSink:
            return StorageCopyInSink(
                parser, item, columns, txn, s.engine, s.ctx, options=options, guard=life.running,
                on_done=life.stop_timer, record=record, unique=unique_indexes(s.data.state, item),
                times=self._queries.times(),
            )  # fmt: skip

        sink: CopyInSinkApi
        if s.tx.mode == "idle":
            own = s.data.begin_write()
            sink = CommittingSink(sink_for(lambda: own, lambda _replay: None), own, s.data.commit_write)
        else:
            s.tx.before_write()
            sink = sink_for(s.storage_tx.writer, s.tx.record)
        return CopyIn(len(columns), sink, format=copy_format(stmt))
