"""Cluster DDL planning: a parsed cluster statement (grammar/cluster.py) → the catalog ops that carry it out.

Contract: `plan_cluster(stmt, state, role_id, names)` resolves cluster and replica names against `state` and returns
a `DdlPlan` (ops for one `catalog.transact`, the CommandComplete tag, NOTICEs). Errors are Materialize's: a
missing cluster 42704 `unknown cluster 'c'` (IF EXISTS: a NOTICE `cluster "c" does not exist, skipping`), a
missing replica 42704 `unknown cluster replica 'c.r'`, an unknown size 22023 listing the valid sizes, a cluster
that hosts objects dropped without CASCADE 2BP01 naming them (catalog/drops.py), a name taken 42710. New clusters
are owned by the creating role. `active_cluster(state, name)` is the cluster a session's `cluster` variable names,
or 42704 `unknown cluster 'x'` — what Materialize answers at the statement that needs the cluster.
"""

from __future__ import annotations

from sparkwire import errors as e
from sparkwire.api import Notice
from sparkwire.catalog import CatalogState
from sparkwire.catalog.drops import plan_drop_cluster
from sparkwire.catalog.objects import Cluster, ObjectRef
from sparkwire.catalog.ops import AlterCluster, CreateCluster, CreateClusterReplica, DropCluster, DropClusterReplica, Op
from sparkwire.catalog.sizes import resolve_size
from sparkwire.catalog.state import NameContext
from sparkwire.planner.grammar import cluster as g
from sparkwire.planner.security.privileges import check_owner, is_superuser
from sparkwire.planner.statements.ddl import DdlPlan


def unknown_cluster(name: str) -> e.PgError:
    return e.UndefinedObject(f"unknown cluster '{name}'")


def active_cluster(state: CatalogState, name: str) -> Cluster:
    cluster = state.cluster_by_name(name)
    if cluster is None:
        raise unknown_cluster(name)
    return cluster


def _skip(name: str) -> Notice:
    return Notice(f'cluster "{name}" does not exist, skipping')


def plan_cluster(stmt: g.ClusterStatement, state: CatalogState, role_id: str, names: NameContext) -> DdlPlan:
    match stmt:
        case g.CreateCluster():
            if state.cluster_by_name(stmt.name) is not None:
                raise e.DuplicateObject(f"cluster '{stmt.name}' already exists")
            if stmt.replicas is not None:
                replicas = tuple((name, resolve_size(size)) for name, size in stmt.replicas)
                return DdlPlan((CreateCluster(stmt.name, role_id, replicas=replicas),), "CREATE CLUSTER")
            size = resolve_size(stmt.options.size) if stmt.options.size is not None else None
            factor = stmt.options.replication_factor
            op = CreateCluster(stmt.name, role_id, size, 1 if factor is None else factor)
            return DdlPlan((op,), "CREATE CLUSTER")
        case g.CreateClusterReplica():
            cluster = active_cluster(state, stmt.cluster)
            return DdlPlan(
                (CreateClusterReplica(cluster.id, stmt.name, resolve_size(stmt.size)),), "CREATE CLUSTER REPLICA"
            )
        case g.AlterCluster():
            return _alter(stmt, state)
        case g.DropCluster():
            return _drop(stmt, state, role_id, names)
        case g.DropClusterReplica():
            return _drop_replicas(stmt, state)


def _alter(stmt: g.AlterCluster, state: CatalogState) -> DdlPlan:
    cluster = state.cluster_by_name(stmt.name)
    if cluster is None:
        if stmt.if_exists:
            return DdlPlan((), "ALTER CLUSTER", (_skip(stmt.name),))
        raise unknown_cluster(stmt.name)
    if stmt.new_name is not None:
        if stmt.new_name != cluster.name and state.cluster_by_name(stmt.new_name) is not None:
            raise e.DuplicateObject(f"cluster '{stmt.new_name}' already exists")
        return DdlPlan((AlterCluster(cluster.id, new_name=stmt.new_name),), "ALTER CLUSTER")
    options = stmt.options or g.ClusterOptions()
    size = resolve_size(options.size) if options.size is not None else None
    op = AlterCluster(cluster.id, size=size, replication_factor=options.replication_factor)
    return DdlPlan((op,), "ALTER CLUSTER")


def _drop(stmt: g.DropCluster, state: CatalogState, role_id: str, names: NameContext) -> DdlPlan:
    ops: list[Op] = []
    notices: list[Notice] = []
    for name in dict.fromkeys(stmt.names):
        cluster = state.cluster_by_name(name)
        if cluster is None:
            if not stmt.if_exists:
                raise unknown_cluster(name)
            notices.append(_skip(name))
            continue
        if not is_superuser(state, role_id):  # ownership first, as Materialize: then 2BP01 naming its objects
            check_owner(ObjectRef("cluster", cluster.id), state, role_id)
        plan = plan_drop_cluster(state, cluster.id, stmt.cascade, names)
        notices += [Notice(f"drop cascades to {state.describe_item(i, names)}") for i in plan.order]
        ops.append(DropCluster(cluster.id, stmt.cascade))
    return DdlPlan(tuple(ops), "DROP CLUSTER", tuple(notices))


def _drop_replicas(stmt: g.DropClusterReplica, state: CatalogState) -> DdlPlan:
    ops: list[Op] = []
    notices: list[Notice] = []
    for cluster_name, replica_name in stmt.names:
        cluster = state.cluster_by_name(cluster_name)
        replica = None if cluster is None else next((r for r in cluster.replicas if r.name == replica_name), None)
        if cluster is None or replica is None:
            if not stmt.if_exists:
                if cluster is None:
                    raise unknown_cluster(cluster_name)
                raise e.UndefinedObject(f"unknown cluster replica '{cluster_name}.{replica_name}'")
            notices.append(Notice(f'cluster replica "{cluster_name}.{replica_name}" does not exist, skipping'))
            continue
        ops.append(DropClusterReplica(cluster.id, replica.id))
    return DdlPlan(tuple(ops), "DROP CLUSTER REPLICA", tuple(notices))
