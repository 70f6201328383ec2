"""SUBSCRIBE in one session: a plain statement, `COPY (SUBSCRIBE …) TO STDOUT` and `DECLARE c CURSOR FOR SUBSCRIBE …`
all start here (docs/subscribe.md).

Contract: `start(plan, params)` → (fields, SubscriptionSource) for a "subscribe" plan: AS OF (default: now, a fresh
timestamp of the timeline) and UP TO are evaluated (a number of milliseconds since the epoch, or anything a
timestamp: its epoch milliseconds; 22023 otherwise), UP TO below AS OF is 22000 as in Materialize, and inside a
transaction block that already read or wrote, or that holds another SUBSCRIBE cursor, it is 25000 ("SUBSCRIBE in
transactions must be the only read statement"). Reads wait inside `Lifecycle.running` (cancel: 57014, the session
stays usable). `describe(plan)` is its RowDescription without starting it. `check_query()` refuses a SELECT in a
block that holds a SUBSCRIBE cursor (25006, Materialize's read-only rule). `fetch_timeout(text)` parses FETCH's
`timeout` in seconds (22023 for what is not a duration). `saw(plan)` is told of every statement before it runs
(what a block did before its SUBSCRIBE).
"""

from __future__ import annotations

import datetime
import decimal
import re

import pyarrow as pa

from sparkwire import errors as e
from sparkwire.api import Field
from sparkwire.planner.execute.subscribe.output import Shape
from sparkwire.planner.execute.subscribe.start import start
from sparkwire.planner.execute.subscribe.subscription import Bounds, SubscriptionSource
from sparkwire.planner.grammar.utility import Begin
from sparkwire.planner.planning.plan import Plan
from sparkwire.planner.statements.clusters import active_cluster
from sparkwire.session.lifecycle import Lifecycle
from sparkwire.session.plans import PlanCache
from sparkwire.session.queries import Queries
from sparkwire.session.state import SessionState

_DURATION = re.compile(r"^\s*(\d+(?:\.\d*)?)\s*(ms|s|min|h|d)?\s*$", re.I)
_SECONDS = {"ms": 0.001, "s": 1.0, "min": 60.0, "h": 3600.0, "d": 86400.0}
_NUMBER = re.compile(r"^\s*\d+\s*$")


def fetch_timeout(text: str | None) -> float | None:
    if text is None:
        return None
    m = _DURATION.match(text)
    if m is None:
        raise e.InvalidParameterValue(f'invalid timeout: "{text}"', hint="Use a duration such as '1s' or '100ms'.")
    return float(m.group(1)) * _SECONDS[(m.group(2) or "s").lower()]


class Subscriptions:
    def __init__(self, state: SessionState, life: Lifecycle, plans: PlanCache, queries: Queries) -> None:
        self._s = state
        self._life = life
        self._plans = plans
        self._queries = queries
        self.session_id = ""  # mz_subscriptions.session_id (the session's mz_sessions id)
        self._block_used = False  # the open block ran a statement other than BEGIN
        self._used_before = False  # … before the statement now running

    def saw(self, plan: Plan) -> None:
        """Every statement the session runs passes here first (dispatch.py, extended.py)."""
        self._used_before = self._block_used and self._s.tx.in_block
        if isinstance(plan.utility, Begin):
            self._block_used = False
        elif plan.kind != "empty":
            self._block_used = self._s.tx.in_block

    def _holds_cursor(self) -> bool:
        return any(isinstance(p.source, SubscriptionSource) for p in self._s.portals.values())

    def check_query(self) -> None:
        if self._s.tx.in_block and self._holds_cursor():
            raise e.ReadOnlySqlTransaction(
                "transaction in read-only mode",
                detail="SELECT queries cannot be combined with other query types, including SUBSCRIBE.",
            )

    def describe(self, plan: Plan) -> tuple[Field, ...]:
        inner, stmt = plan.inner, plan.subscribe
        assert inner is not None and stmt is not None
        fields = self._s.user.described(inner, lambda: self._queries.describe(inner) or ())
        return Shape(
            fields, pa.schema([pa.field(f.name, pa.null()) for f in fields]), stmt.progress, stmt.envelope, stmt.keys
        ).fields

    def _timestamp(self, text: str, clause: str) -> int:
        if _NUMBER.match(text):
            return int(text)
        plan = self._plans.plan_one(f"SELECT {text}")
        if plan.kind != "query":
            raise e.SyntaxError(f"{clause} must be a timestamp expression")
        _, source = self._queries.start_query(plan, ())
        value = None
        while (batch := source.next_rows(None)) is not None:
            if batch.num_rows and batch.num_columns:
                value = batch.column(0)[0].as_py()
        if isinstance(value, bool) or value is None:
            raise e.InvalidParameterValue(f"{clause} must be a timestamp: {text}")
        if isinstance(value, int | decimal.Decimal | float):
            return int(value)
        if isinstance(value, datetime.datetime):
            zoned = value if value.tzinfo is not None else value.replace(tzinfo=datetime.UTC)
            return int(zoned.timestamp() * 1000)
        if isinstance(value, str) and _NUMBER.match(value):
            return int(value)
        raise e.InvalidParameterValue(f"{clause} must be a timestamp: {text}")

    def start(
        self, plan: Plan, params: tuple[object, ...], streaming: bool = False
    ) -> tuple[tuple[Field, ...], SubscriptionSource]:
        """`streaming`: a COPY or a plain SUBSCRIBE (it runs until it ends; a cursor is read by FETCH instead)."""
        s, life = self._s, self._life
        inner, stmt = plan.inner, plan.subscribe
        assert inner is not None and stmt is not None
        used = self._used_before or s.storage_tx.current is not None or self._holds_cursor()
        if s.tx.in_block and used:
            raise e.InvalidTransactionState("SUBSCRIBE in transactions must be the only read statement")
        life.prepare_engine()
        registry = s.data.subscriptions
        as_of = self._timestamp(stmt.as_of, "AS OF") if stmt.as_of is not None else registry.now(fresh=True)
        up_to = self._timestamp(stmt.up_to, "UP TO") if stmt.up_to is not None else None
        if up_to is not None and up_to < as_of:
            raise e.DataException(
                f'subscription lower ("as of") bound is beyond its upper ("up to") bound: {up_to} < {as_of}'
            )
        fields = s.user.described(inner, lambda: self._queries.describe(inner) or ())
        cluster = active_cluster(s.data.state, s.user.cluster_name())
        bounds = Bounds(as_of, up_to, stmt.snapshot, stmt.progress)

        def constant_rows() -> pa.Table:
            _, source = self._queries.start_query(inner, params)
            batches = []
            while (batch := source.next_rows(None)) is not None:
                batches.append(batch)
            return pa.Table.from_batches(batches) if batches else pa.table({f.name: [] for f in fields})

        with life.running():
            subscription = start(
                plan, params, fields, s.user, s.data, s.names(), bounds, life.cancelled,
                (self.session_id, cluster.id), constant_rows,
            )  # fmt: skip
        source = SubscriptionSource(subscription, life.running)
        if streaming:
            source.streaming()
            life.live = True
        return subscription.fields, source
