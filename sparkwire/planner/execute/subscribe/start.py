"""Starting a subscription: resolve what it reads, check it may, find (or make) its shared change stream.

Contract: `start(plan, params, fields, user, data, names, bounds, cancelled, session_id, cluster_id)` starts the
SUBSCRIBE `plan` (kind "subscribe", planning/plan.py) whose query `plan.inner` describes as `fields`:
- privileges as a SELECT of the same query (42501, with a row filter the role's privileges add: security/), and
  USAGE on the session's cluster (`info[1]`) when it reads user relations;
- a subscription to a table or a source's collection (no row filter) shares the stream keyed by the relation's id,
  whose changes are storage deltas; anything else (a view, a materialized view, a (query), a filtered relation)
  shares a stream keyed by its query text and name context, recomputed at each change of its base tables through
  Spark (`SparkExecutor.run_arrow`; a materialized view's contents are its resident ones);
- a query that reads no user relation (constant, or builtin relations only) is computed once on the session's
  engine by `constant_rows()` and ends after its snapshot, as Materialize ends a SUBSCRIBE to a constant view;
- the subscription ends with 42704 when a relation it reads is dropped.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence

import pyarrow as pa

from sparkwire import errors as e
from sparkwire.api import Field
from sparkwire.catalog.objects import ObjectRef
from sparkwire.planner.bind.resolve import Names, user_relations
from sparkwire.planner.execute.data import DataPlane
from sparkwire.planner.execute.resident import BASE_KINDS, base_tables
from sparkwire.planner.execute.spark.spark_exec import ReadContext
from sparkwire.planner.execute.subscribe.output import Shape
from sparkwire.planner.execute.subscribe.stream import ChangeStream
from sparkwire.planner.execute.subscribe.subscription import Bounds, Checks, Info, Subscription
from sparkwire.planner.execute.user_data import UserData
from sparkwire.planner.planning.plan import Plan
from sparkwire.planner.security.privileges import check_privilege
from sparkwire.storage import Snapshot


def start(
    plan: Plan,
    params: Sequence[object],
    fields: Sequence[Field],
    user: UserData,
    data: DataPlane,
    names: Names,
    bounds: Bounds,
    cancelled: Callable[[], bool],
    info: tuple[str, str],
    constant_rows: Callable[[], pa.Table],
) -> Subscription:
    """`info`: (session id, cluster id) for mz_subscriptions."""
    inner, stmt = plan.inner, plan.subscribe
    assert inner is not None and stmt is not None and inner.tree is not None
    state = data.state
    tree = user.readable(inner)  # 42501 unless the role may read it all (may add a row filter)
    assert tree is not None
    schema = user._arrow_schema(inner, fields)
    shape = Shape(fields, schema, bounds.progress, stmt.envelope, stmt.keys)
    refs = [item for _, item in user_relations(tree, state, names)]
    if refs:  # it runs on the session's cluster, as a SELECT of it would
        check_privilege(ObjectRef("cluster", info[1]), "USAGE", state, names.role_id)
    registry = data.subscriptions
    if not refs:  # constant or builtin relations only: one snapshot, then the end
        rows = constant_rows()
        key = f"constant:{id(rows)}"
        stream = registry.acquire(key, lambda: ChangeStream(key, data.storage, (), None, lambda _s: rows))
        bounds = Bounds(bounds.as_of, bounds.as_of + 1, bounds.snapshot, bounds.progress)
    else:
        tables = tuple(sorted({t for item in refs for t in base_tables(item, state)}))
        direct = stmt.relation is not None and tree is inner.tree and len(refs) == 1 and refs[0].kind in BASE_KINDS
        if direct:
            key, table_id = refs[0].id, refs[0].id
        else:
            key, table_id = f"query:{names}:{tree.sql(dialect='postgres')}:{list(params)!r}", None
            if tables:
                data.spark_ready(lambda _message: None)
        param_types = [t[1] for t in inner.param_types]

        def contents(snapshot: Snapshot) -> pa.Table:
            read = ReadContext(snapshot)
            return data.executor.run_arrow(tree, data.state, names, read, params, param_types)

        def make() -> ChangeStream:
            return ChangeStream(key, data.storage, tables, table_id, contents)

        stream = registry.acquire(key, make)
    ids = tuple(dict.fromkeys(item.id for item in refs))
    labels = {item.id: item.name for item in refs}

    def dropped() -> e.PgError | None:
        items = data.state.items
        for item_id in ids:
            if item_id not in items:
                return e.UndefinedObject(
                    f'subscribe has been terminated because underlying relation "{labels[item_id]}" was dropped'
                )
        return None

    created = datetime.datetime.now(datetime.UTC)
    try:
        return Subscription(
            registry, stream, shape, bounds, Checks(cancelled, dropped), Info(info[0], info[1], ids, created)
        )
    except BaseException:
        registry.release(stream)
        raise
