"""The semantics of the cluster ops (CREATE / ALTER CLUSTER, CREATE / DROP CLUSTER REPLICA): pure functions of a
`CatalogState`, called by `apply.py` inside `apply_ops`.

Contract: each function validates its op against `state` and returns the next state (never modifying `state`),
raising the PgError Materialize gives: 42710 for a cluster or replica name taken, 42939 for a reserved `mz_` name,
42704 for a missing replica, 22023 for an unknown size (with the valid sizes) or a replication factor out of range,
0A000 (`cannot modify managed cluster c`) for replica DDL on a managed cluster. Replica ids come from their own
id space (`Counters.replica`), so a replaced replica (ALTER … SET (SIZE)) gets a new id and hence a new Spark pool.
`effective_size(cluster)` / `replicas(cluster)` read a cluster stored before sizes existed as a managed cluster of
the default size with one replica (id `<cluster id>-r1`, name `r1`).
"""

from __future__ import annotations

import dataclasses

from sparkwire.catalog.objects import Cluster, ClusterReplica, ObjectRef
from sparkwire.catalog.ops import AlterCluster, CreateCluster, CreateClusterReplica, DropClusterReplica
from sparkwire.catalog.sizes import DEFAULT_SIZE, resolve_size
from sparkwire.catalog.state import CatalogState
from sparkwire.errors import DuplicateObject, FeatureNotSupported, InvalidParameterValue, ReservedName, UndefinedObject

MAX_REPLICATION_FACTOR = 8


def effective_size(cluster: Cluster) -> str | None:
    if cluster.managed and cluster.size is None:
        return DEFAULT_SIZE
    return cluster.size


def replicas(cluster: Cluster) -> tuple[ClusterReplica, ...]:
    """The cluster's replicas; a managed cluster stored before replicas existed has one of the default size."""
    if cluster.managed and cluster.size is None and not cluster.replicas:
        return (ClusterReplica(f"{cluster.id}-r1", "r1", DEFAULT_SIZE),)
    return cluster.replicas


def _factor(n: int) -> int:
    if not 0 <= n <= MAX_REPLICATION_FACTOR:
        raise InvalidParameterValue(f"REPLICATION FACTOR must be between 0 and {MAX_REPLICATION_FACTOR}, got {n}")
    return n


def _check_name(name: str, what: str) -> None:
    if name.startswith("mz_"):
        raise ReservedName(f'{what} name "{name}" is reserved')


def _new_replica(state: CatalogState, name: str, size: str) -> tuple[ClusterReplica, CatalogState]:
    n = state.counters.replica
    return ClusterReplica(f"u{n}", name, resolve_size(size)), state.with_counters(replica=n + 1)


def _managed_replicas(
    state: CatalogState, size: str, factor: int, keep: tuple[ClusterReplica, ...] = ()
) -> tuple[tuple[ClusterReplica, ...], CatalogState]:
    """`r1` … `r<factor>`: those of `keep` that exist with this size stay, the others are new."""
    kept = {r.name: r for r in keep if r.size == size}
    out: list[ClusterReplica] = []
    for i in range(1, factor + 1):
        name = f"r{i}"
        if name in kept:
            out.append(kept[name])
        else:
            replica, state = _new_replica(state, name, size)
            out.append(replica)
    return tuple(out), state


def create_cluster(state: CatalogState, op: CreateCluster, out_created: list[ObjectRef]) -> CatalogState:
    if state.cluster_by_name(op.name) is not None:
        raise DuplicateObject(f"cluster '{op.name}' already exists")
    _check_name(op.name, "cluster")
    if op.owner_id not in state.roles:
        raise UndefinedObject(f"role with id {op.owner_id} does not exist")
    n = state.counters.cluster
    cluster_id, state = f"u{n}", state.with_counters(cluster=n + 1)
    if op.replicas is None:
        size = resolve_size(op.size or DEFAULT_SIZE)
        reps, state = _managed_replicas(state, size, _factor(op.replication_factor))
        cluster = Cluster(cluster_id, op.name, op.owner_id, size, op.replication_factor, True, reps)
    else:
        made: list[ClusterReplica] = []
        for name, size in op.replicas:
            if any(r.name == name for r in made):
                raise DuplicateObject(f"cannot create multiple replicas named '{name}' on cluster '{op.name}'")
            replica, state = _new_replica(state, name, size)
            made.append(replica)
        cluster = Cluster(cluster_id, op.name, op.owner_id, None, None, False, tuple(made))
    out_created.append(ObjectRef("cluster", cluster_id))
    return state.evolve(clusters={**state.clusters, cluster_id: cluster})


def _cluster(state: CatalogState, cluster_id: str) -> Cluster:
    cluster = state.clusters.get(cluster_id)
    if cluster is None:
        raise UndefinedObject(f"cluster with id {cluster_id} does not exist")
    return cluster


def _with(state: CatalogState, cluster: Cluster) -> CatalogState:
    return state.evolve(clusters={**state.clusters, cluster.id: cluster})


def alter_cluster(state: CatalogState, op: AlterCluster) -> CatalogState:
    cluster = _cluster(state, op.cluster_id)
    if op.new_name is not None and op.new_name != cluster.name:
        if state.cluster_by_name(op.new_name) is not None:
            raise DuplicateObject(f"cluster '{op.new_name}' already exists")
        _check_name(op.new_name, "cluster")
        cluster = dataclasses.replace(cluster, name=op.new_name)
    if op.size is None and op.replication_factor is None:
        return _with(state, cluster)
    if not cluster.managed:
        raise FeatureNotSupported(
            f"cannot modify unmanaged cluster {cluster.name}",
            hint="Its replicas are created and dropped with CREATE / DROP CLUSTER REPLICA.",
        )
    size = resolve_size(op.size) if op.size is not None else (effective_size(cluster) or DEFAULT_SIZE)
    factor = _factor(op.replication_factor if op.replication_factor is not None else cluster.replication_factor or 1)
    reps, state = _managed_replicas(state, size, factor, replicas(cluster))
    return _with(state, dataclasses.replace(cluster, size=size, replication_factor=factor, replicas=reps))


def _unmanaged(cluster: Cluster) -> None:
    if cluster.managed:
        raise FeatureNotSupported(
            f"cannot modify managed cluster {cluster.name}",
            hint="Change its replicas with ALTER CLUSTER … SET (SIZE = …, REPLICATION FACTOR = …).",
        )


def create_replica(state: CatalogState, op: CreateClusterReplica) -> CatalogState:
    cluster = _cluster(state, op.cluster_id)
    _unmanaged(cluster)
    _check_name(op.name, "cluster replica")
    if any(r.name == op.name for r in cluster.replicas):
        raise DuplicateObject(f"cluster replica '{cluster.name}.{op.name}' already exists")
    replica, state = _new_replica(state, op.name, op.size)
    return _with(state, dataclasses.replace(cluster, replicas=(*cluster.replicas, replica)))


def drop_replica(state: CatalogState, op: DropClusterReplica) -> CatalogState:
    cluster = _cluster(state, op.cluster_id)
    _unmanaged(cluster)
    if not any(r.id == op.replica_id for r in cluster.replicas):
        raise UndefinedObject(f"cluster replica with id {op.replica_id} does not exist")
    kept = tuple(r for r in cluster.replicas if r.id != op.replica_id)
    return _with(state, dataclasses.replace(cluster, replicas=kept))
