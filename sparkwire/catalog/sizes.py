"""Cluster replica sizes: sparkwire's own table, one row per size a replica may have.

Contract: `SIZES` maps a size name to its `ReplicaSize`; `resolve_size(name)` gives the canonical size for a name
or an alias (case-insensitive) and raises 22023 `unknown cluster replica size '<x>'` with the valid sizes in its
detail. `DEFAULT_SIZE` is the size of a managed cluster created without SIZE (and of `quickstart`).

What a size means (docs/clusters.md):
- `cores`: the Spark task slots the replica's work is entitled to — its FAIR pool's `minShare` on an embedded
  `local[*]` Spark, and `spark.cores.max` when the cluster is its own application on a Spark cluster;
- `weight`: the FAIR pool's weight (its share of the task slots above the minShares, relative to other pools);
- `memory_bytes`: `spark.executor.memory` of a cluster application; embedded, every pool shares the one JVM heap
  and the figure is the replica's nominal share (mz_cluster_replica_utilization reports it against the heap);
- `credits_per_hour`: Materialize's billing column, here the size in units of '100cc'.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from sparkwire.errors import InvalidParameterValue

GIB = 1 << 30


@dataclass(frozen=True, slots=True)
class ReplicaSize:
    name: str
    cores: int
    weight: int
    memory_bytes: int
    credits_per_hour: Decimal

    @property
    def min_share(self) -> int:
        return self.cores


SIZES: dict[str, ReplicaSize] = {
    s.name: s
    for s in (
        ReplicaSize("25cc", 1, 1, 1 * GIB, Decimal("0.25")),
        ReplicaSize("50cc", 1, 2, 2 * GIB, Decimal("0.5")),
        ReplicaSize("100cc", 2, 4, 4 * GIB, Decimal("1")),
        ReplicaSize("200cc", 4, 8, 8 * GIB, Decimal("2")),
        ReplicaSize("400cc", 8, 16, 16 * GIB, Decimal("4")),
    )
}
# Materialize's older t-shirt names, for scripts written against them.
ALIASES: dict[str, str] = {"xsmall": "25cc", "small": "50cc", "medium": "100cc", "large": "200cc", "xlarge": "400cc"}
DEFAULT_SIZE = "100cc"


def valid_sizes() -> str:
    return ", ".join([*SIZES, *(f"{a} (= {s})" for a, s in ALIASES.items())])


def resolve_size(name: str) -> str:
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    if key not in SIZES:
        raise InvalidParameterValue(
            f"unknown cluster replica size '{name}'",
            detail=f"Valid sizes: {valid_sizes()}.",
            hint="SELECT * FROM mz_catalog.mz_cluster_replica_sizes lists them with their cores and memory.",
        )
    return key


def size_of(name: str | None) -> ReplicaSize:
    """The size of a replica (a size name the catalog stored; None or unknown → the default)."""
    return SIZES.get(name or DEFAULT_SIZE, SIZES[DEFAULT_SIZE])
