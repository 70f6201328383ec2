"""`mz_internal.mz_materialized_view_maintenance` (sparkwire's own; docs/continual.md#introspection), live: no rows
here — compute/dataflow/live.py replaces its table with a view over the running maintainers.

One row per materialized view: `object_id`; `strategy` ('incremental' or 'recompute') and `reason` (why there is
no incremental plan, else NULL); `plan` (the dataflow as EXPLAIN prints it, lines joined by newlines); `hydrated`;
`paused` (its cluster has no replica); `steps` (updates published since start); `last_step_ms`; `frontier` (the
timeline timestamp its contents are current at, ms since the epoch); `input_rows` (input changes read since start);
`error` (the last step's error, NULL once a step succeeds).
"""

from __future__ import annotations

from sparkwire.catalog.relations.relation import BuiltinRelation, no_rows, parse_columns

MAINTENANCE = "mz_materialized_view_maintenance"
MAINTENANCE_COLUMNS = (
    "object_id text, strategy text, reason text, plan text, hydrated boolean, paused boolean, steps uint8, "
    "last_step_ms double precision, frontier uint8, input_rows uint8, error text"
)

MAINTENANCE_RELATIONS: tuple[BuiltinRelation, ...] = (
    BuiltinRelation(
        "mz_internal", MAINTENANCE, 17190, parse_columns(MAINTENANCE_COLUMNS), no_rows, from_state=False, live=True
    ),
)
