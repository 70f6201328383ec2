"""mz_internal.mz_cluster_replica_statuses, mz_cluster_replica_utilization and mz_cluster_replica_history as live
views over the cluster controller (their declarations: catalog/cluster_relations.py).

Contract: `install_live_views(engine, controller)` (after `store.install`) registers one vectorized DuckDB UDF per
relation, returning the controller's current rows as a list of structs, and replaces the store's empty table with
a view that unnests it, each column cast to its store type. A query reads the controller at the moment it runs;
nothing is written and nothing waits for Spark (utilization asks the live SparkContext for its pools' running
tasks: two py4j calls, or nothing when Spark is not up).
"""

from __future__ import annotations

from collections.abc import Callable

import pyarrow as pa

from sparkwire.catalog.cluster_relations import (
    CLUSTER_RELATIONS,
    REPLICA_HISTORY,
    REPLICA_STATUSES,
    REPLICA_UTILIZATION,
)
from sparkwire.catalog.relations.relation import BuiltinRelation
from sparkwire.compute.controller import ClusterController
from sparkwire.engine.duckdb import DuckDBEngine
from sparkwire.introspection.tables import engine_type, quoted, table_sql

Rows = Callable[[], list[dict[str, object]]]
_ARROW: dict[str, tuple[pa.DataType, str]] = {
    "text": (pa.string(), "VARCHAR"),
    "uint8": (pa.uint64(), "UBIGINT"),
    "double precision": (pa.float64(), "DOUBLE"),
    "boolean": (pa.bool_(), "BOOLEAN"),
    "timestamp with time zone": (pa.timestamp("us", tz="UTC"), "TIMESTAMPTZ"),
    "uuid": (pa.string(), "VARCHAR"),  # the view casts it to UUID
    "text list": (pa.list_(pa.string()), "VARCHAR[]"),
}


def _install(engine: DuckDBEngine, name: str, rows: Rows) -> None:
    install_live_view(engine, next(r for r in CLUSTER_RELATIONS if r.name == name), rows)


def install_live_view(engine: DuckDBEngine, rel: BuiltinRelation, rows: Rows) -> None:
    """Replace the store's table of the live relation `rel` by a view over `rows()` (columns of type text, uint8,
    double precision, boolean, timestamp with time zone, uuid or text list)."""
    name = rel.name
    struct_type = pa.struct([(column, _ARROW[pg_type][0]) for column, pg_type in rel.columns])
    list_type = pa.list_(struct_type)
    function = f"sw_{name}"

    def values(args: pa.Array) -> pa.Array:
        current = rows()
        return pa.array([current] * len(args), list_type)

    struct = ", ".join(f"{quoted(column)} {_ARROW[pg_type][1]}" for column, pg_type in rel.columns)
    engine.register_function(function, values, ["INTEGER"], f"STRUCT({struct})[]", vectorized=True)
    columns = ", ".join(
        f"CAST(r.{quoted(column)} AS {engine_type(pg_type)}) AS {quoted(column)}" for column, pg_type in rel.columns
    )
    con = engine.connect(counts_writes=False)
    try:
        con.command(f"DROP TABLE IF EXISTS {table_sql(rel)}")
        con.command(
            f"CREATE VIEW {table_sql(rel)} AS SELECT {columns} FROM (SELECT unnest({function}(0)) AS r)"
        )
    finally:
        con.close()


def install_live_views(engine: DuckDBEngine, controller: ClusterController) -> None:
    _install(engine, REPLICA_STATUSES, controller.statuses)
    _install(engine, REPLICA_UTILIZATION, controller.utilization)
    _install(engine, REPLICA_HISTORY, controller.history)
