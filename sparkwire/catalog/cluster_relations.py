"""The cluster relations, with Materialize's names and columns (catalog/relations/ is full; mz_clusters is in mz.py):

- `mz_catalog.mz_cluster_replicas` (id, name, cluster_id, size, availability_zone, owner_id, disk): from the catalog;
- `mz_catalog.mz_cluster_replica_sizes` (size, processes, workers, cpu_nano_cores, memory_bytes, disk_bytes,
  credits_per_hour): constant, catalog/sizes.py's table; `workers` and `cpu_nano_cores` are the size's cores;
- `mz_internal.mz_cluster_replica_statuses` (replica_id, process_id, status, reason, updated_at),
  `mz_internal.mz_cluster_replica_utilization` (replica_id, process_id, cpu_percent, memory_percent, disk_percent)
  and `mz_internal.mz_cluster_replica_history` (replica_id, size, cluster_id, cluster_name, replica_name, created_at,
  dropped_at, credits_per_hour): live, no rows here — sparkwire/compute/live.py replaces their tables with views over
  the cluster controller.

Contract: `CLUSTER_RELATIONS` lists them for `introspection.relations`. All public, as in Materialize.
credits_per_hour is double precision here (Materialize: numeric; the store has no numeric column type).
"""

from __future__ import annotations

from sparkwire.catalog.clusters import replicas
from sparkwire.catalog.relations.relation import BuiltinRelation, Row, no_rows, parse_columns
from sparkwire.catalog.sizes import SIZES
from sparkwire.catalog.state import CatalogState

REPLICA_STATUSES = "mz_cluster_replica_statuses"
REPLICA_UTILIZATION = "mz_cluster_replica_utilization"
REPLICA_HISTORY = "mz_cluster_replica_history"


def _replicas(state: CatalogState) -> list[Row]:
    return [
        (r.id, r.name, c.id, r.size, None, c.owner_id, False)
        for c in sorted(state.clusters.values(), key=lambda c: c.id)
        for r in replicas(c)
    ]


def _sizes(state: CatalogState) -> list[Row]:
    return [
        (s.name, 1, s.cores, s.cores * 1_000_000_000, s.memory_bytes, 0, float(s.credits_per_hour))
        for s in SIZES.values()
    ]


def _live(name: str, oid: int, columns: str) -> BuiltinRelation:
    return BuiltinRelation("mz_internal", name, oid, parse_columns(columns), no_rows, from_state=False, live=True)


REPLICA_STATUS_COLUMNS = (
    "replica_id text, process_id uint8, status text, reason text, updated_at timestamp with time zone"
)
REPLICA_UTILIZATION_COLUMNS = (
    "replica_id text, process_id uint8, cpu_percent double precision, memory_percent double precision, "
    "disk_percent double precision"
)
REPLICA_HISTORY_COLUMNS = (
    "replica_id text, size text, cluster_id text, cluster_name text, replica_name text, "
    "created_at timestamp with time zone, dropped_at timestamp with time zone, credits_per_hour double precision"
)

CLUSTER_RELATIONS: tuple[BuiltinRelation, ...] = (
    BuiltinRelation(
        "mz_catalog",
        "mz_cluster_replicas",
        16718,
        parse_columns(
            "id text, name text, cluster_id text, size text, availability_zone text, owner_id text, disk boolean"
        ),
        _replicas,
    ),
    BuiltinRelation(
        "mz_catalog",
        "mz_cluster_replica_sizes",
        16719,
        parse_columns(
            "size text, processes uint8, workers uint8, cpu_nano_cores uint8, memory_bytes uint8, disk_bytes uint8, "
            "credits_per_hour double precision"
        ),
        _sizes,
        from_state=False,
    ),
    _live(REPLICA_STATUSES, 17160, REPLICA_STATUS_COLUMNS),
    _live(REPLICA_UTILIZATION, 17161, REPLICA_UTILIZATION_COLUMNS),
    _live(REPLICA_HISTORY, 17162, REPLICA_HISTORY_COLUMNS),
)
