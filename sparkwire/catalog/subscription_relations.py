"""The subscription relations (docs/subscribe.md#introspection), live: no rows here — planner/execute/subscribe/live.py
replaces their tables with views over the running subscriptions.

- `mz_internal.mz_subscriptions` (id, session_id, cluster_id, created_at, referenced_object_ids): Materialize's, one
  row per running SUBSCRIBE (a COPY, a plain statement or a cursor);
- `mz_internal.mz_subscription_streams` (sparkwire's own): per subscription, its frontier, the rows it emitted and
  holds (at most the rest of one batch a FETCH count cut), and its shared change stream's subscribers, computations,
  memoized answers and cached batches.

Contract: `SUBSCRIPTION_RELATIONS` lists them for `introspection.relations`. Public, as in Materialize.
"""

from __future__ import annotations

from sparkwire.catalog.relations.relation import BuiltinRelation, no_rows, parse_columns

SUBSCRIPTIONS = "mz_subscriptions"
SUBSCRIPTION_STREAMS = "mz_subscription_streams"

SUBSCRIPTION_COLUMNS = (
    "id text, session_id uuid, cluster_id text, created_at timestamp with time zone, referenced_object_ids text list"
)
STREAM_COLUMNS = (
    "subscription_id text, stream text, frontier uint8, emitted_rows uint8, held_rows uint8, "
    "stream_subscribers uint8, stream_computations uint8, stream_hits uint8, stream_cached_batches uint8"
)


def _live(name: str, oid: int, columns: str) -> BuiltinRelation:
    return BuiltinRelation("mz_internal", name, oid, parse_columns(columns), no_rows, from_state=False, live=True)


SUBSCRIPTION_RELATIONS: tuple[BuiltinRelation, ...] = (
    _live(SUBSCRIPTIONS, 17180, SUBSCRIPTION_COLUMNS),
    _live(SUBSCRIPTION_STREAMS, 17181, STREAM_COLUMNS),
)
