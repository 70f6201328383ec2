"""mz_internal.mz_spark_health: the Spark engine's health as its watchdog sees it — one row, always current.

Contract: `SparkHealthView(engine, spark)` (after `store.install`) registers the vectorized UDF `LIVE_FUNCTION` and
replaces the store's empty table of the relation with a view that calls it, so a query reads
`SparkEngine.health()` at the moment it runs: state (`starting`, `ready`, `restarting`, `failed`), restarts since the
server started, statements failed by a Spark failure, statements cancelled to relieve memory pressure, the last
failure and its time, and when the watchdog last looked. Nothing is written and nothing waits for Spark: `health()`
reads fields under the engine's own short lock. Readable by everyone (as Materialize's replica statuses are).
"""

from __future__ import annotations

import pyarrow as pa

from sparkwire.engine.duckdb import DuckDBEngine
from sparkwire.engine.spark import SparkEngine
from sparkwire.introspection.tables import engine_type, quoted, table_sql
from sparkwire.introspection.workload.relations import SPARK_HEALTH, relation

LIVE_FUNCTION = "sw_spark_health"
_ARROW = pa.struct(
    [
        ("state", pa.string()),
        ("restarts", pa.int64()),
        ("failed_statements", pa.int64()),
        ("memory_cancels", pa.int64()),
        ("last_failure", pa.string()),
        ("last_failure_at", pa.timestamp("us", tz="UTC")),
        ("checked_at", pa.timestamp("us", tz="UTC")),
    ]
)


class SparkHealthView:
    def __init__(self, engine: DuckDBEngine, spark: SparkEngine) -> None:
        self._spark = spark
        rel = relation(SPARK_HEALTH)
        struct = ", ".join(f"{quoted(name)} {engine_type(pg_type)}" for name, pg_type in rel.columns)
        engine.register_function(LIVE_FUNCTION, self._values, ["INTEGER"], f"STRUCT({struct})", vectorized=True)
        columns = ", ".join(f"h.{quoted(name)}" for name, _ in rel.columns)
        con = engine.connect(counts_writes=False)
        try:
            con.command(f"DROP TABLE IF EXISTS {table_sql(rel)}")
            con.command(f"CREATE VIEW {table_sql(rel)} AS SELECT {columns} FROM (SELECT {LIVE_FUNCTION}(0) AS h)")
        finally:
            con.close()

    def _values(self, rows: pa.Array) -> pa.Array:
        h = self._spark.health()
        value = {
            "state": h.state,
            "restarts": h.restarts,
            "failed_statements": h.failed_statements,
            "memory_cancels": h.memory_cancels,
            "last_failure": h.last_failure,
            "last_failure_at": h.last_failure_at,
            "checked_at": h.checked_at,
        }
        return pa.array([value] * len(rows), _ARROW)
