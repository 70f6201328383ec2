"""Results Spark's optimizer has already computed, collected without a job.

A filter, projection or LIMIT over rows held in memory (a small table registered as its rows, builtin rows, an empty
relation) is folded by Spark's optimizer into new rows (its ConvertToLocalRelation and PropagateEmptyRelation rules):
the physical plan is then a single `LocalTableScan` whose rows sit on the driver. `DataFrame.toArrow()` would still
start a job to read them (a stage, a task, the closure serialized, a socket server for the Arrow stream: ~30 ms a
query on this machine, most of a sqllogictest query's cost); `local_result` converts them to Arrow where they are.

Contract: `local_result(frame)` → the frame's result as an Arrow table when its physical plan is a LocalTableScan,
None otherwise (the caller runs it as a job). The rows go through Spark's own Arrow writer (`ArrowConverters`, as a
job's tasks do), with the session time zone UTC (sparkwire's Spark sessions all run in UTC) and the type mapping
`toArrow` gives: `tests/engine/test_spark_local_result.py` compares the two over every type the planner sends.
Planning (`executedPlan`) runs the optimizer, so a folded expression's error (an ANSI overflow, a division by zero)
is raised here as Spark raises it, for the caller to map as it maps a job's. Classic sessions only: a Spark Connect
DataFrame has no JVM plan here (None).
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
from pyspark.sql import DataFrame

_MAX_BATCH_ROWS = 10_000
_MAX_BATCH_BYTES = 64 << 20
_TIME_ZONE = "UTC"


_known: list[tuple[Any, Any]] = []  # (the JVM view, its ArrowConverters): each py4j name lookup is a round trip


def _converters(frame: DataFrame) -> Any:
    """Spark's ArrowConverters object (a Scala object: its MODULE$ instance), looked up once per JVM."""
    jvm = frame.sparkSession._jvm
    known = _known[0] if _known else None
    if known is not None and known[0] is jvm:
        return known[1]
    package = jvm.org.apache.spark.sql.execution.arrow  # type: ignore[union-attr]
    converters = getattr(getattr(package, "ArrowConverters$"), "MODULE$")
    _known[:] = [(jvm, converters)]
    return converters


def local_result(frame: DataFrame) -> pa.Table | None:
    jdf = getattr(frame, "_jdf", None)
    if jdf is None:  # Spark Connect
        return None
    plan = jdf.queryExecution().executedPlan()
    if plan.nodeName() != "LocalTableScan":
        return None
    schema = plan.schema()
    converters = _converters(frame)
    batches = converters.toBatchWithSchemaIterator(
        plan.rows().iterator(), schema, _MAX_BATCH_ROWS, _MAX_BATCH_BYTES, _TIME_ZONE, True, False
    )
    tables = []
    while batches.hasNext():
        tables.append(pa.ipc.open_stream(bytes(batches.next())).read_all())
    if not tables:  # no rows: Spark writes no batch, but the schema still comes as an empty one
        empty = converters.createEmptyArrowBatch(schema, _TIME_ZONE, True, False)
        tables.append(pa.ipc.open_stream(bytes(empty)).read_all())
    table = pa.concat_tables(tables) if len(tables) > 1 else tables[0]
    return table.replace_schema_metadata(None)
