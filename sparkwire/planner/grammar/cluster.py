"""Materialize's cluster statements, our grammar for them (called by grammar/ddl.py after CREATE / ALTER / DROP):

    CREATE CLUSTER name [(SIZE [=] 'size' [, REPLICATION FACTOR [=] n] [, MANAGED [=] true])]
    CREATE CLUSTER name REPLICAS (replica (SIZE [=] 'size') [, …])          -- an unmanaged cluster
    CREATE CLUSTER REPLICA cluster.replica (SIZE [=] 'size')
    ALTER CLUSTER [IF EXISTS] name SET (SIZE [=] 'size' | REPLICATION FACTOR [=] n [, …])
    ALTER CLUSTER [IF EXISTS] name RENAME TO new_name
    DROP CLUSTER [IF EXISTS] name [, …] [CASCADE | RESTRICT]
    DROP CLUSTER REPLICA [IF EXISTS] cluster.replica [, …]

Contract: `parse_create(p)`, `parse_alter(p)`, `parse_drop(p)` continue a `DdlParser` positioned after
`CREATE CLUSTER` / `ALTER CLUSTER` / `DROP CLUSTER` and return one frozen statement; ALTER CLUSTER … OWNER TO
returns None (grammar/rbac.py's). A repeated option is 42601 `conflicting or redundant options`; an option we do
not know is 0A000 naming it. Sizes are kept as written (the planner resolves them against catalog/sizes.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from sparkwire import errors as e
from sparkwire.planner.grammar.ddl_parser import DdlParser


@dataclass(frozen=True, slots=True)
class ClusterOptions:
    size: str | None = None
    replication_factor: int | None = None


@dataclass(frozen=True, slots=True)
class CreateCluster:
    """`replicas` None: a managed cluster with `options`; else an unmanaged one with these (name, size) replicas."""

    name: str
    options: ClusterOptions = ClusterOptions()
    replicas: tuple[tuple[str, str], ...] | None = None


@dataclass(frozen=True, slots=True)
class CreateClusterReplica:
    cluster: str
    name: str
    size: str


@dataclass(frozen=True, slots=True)
class AlterCluster:
    name: str
    if_exists: bool = False
    new_name: str | None = None
    options: ClusterOptions | None = None


@dataclass(frozen=True, slots=True)
class DropCluster:
    names: tuple[str, ...]
    if_exists: bool = False
    cascade: bool = False


@dataclass(frozen=True, slots=True)
class DropClusterReplica:
    names: tuple[tuple[str, str], ...]  # (cluster, replica)
    if_exists: bool = False


ClusterStatement = CreateCluster | CreateClusterReplica | AlterCluster | DropCluster | DropClusterReplica


def _string(p: DdlParser) -> str:
    t = p.peek()
    if t is None or t.kind not in ("string", "word", "ident", "number"):
        raise p.error()
    p.i += 1
    return t.text


def _options(p: DdlParser, *, managed_ok: bool) -> ClusterOptions:
    size: str | None = None
    factor: int | None = None
    seen: set[str] = set()
    p.expect_op("(")
    while True:
        if p.accept("size"):
            key = "size"
            p.accept_op("=")
            size = _string(p)
        elif p.accept("replication", "factor"):
            key = "replication factor"
            p.accept_op("=")
            factor = p.integer()
        elif managed_ok and p.accept("managed"):
            key = "managed"
            p.accept_op("=")
            if _string(p).lower() not in ("true", "on", "t", "1"):
                raise e.FeatureNotSupported(
                    "MANAGED = false is not supported", hint="CREATE CLUSTER c REPLICAS (…) makes an unmanaged cluster."
                )
        else:
            t = p.peek()
            if t is None or t.kind not in ("word", "ident"):
                raise p.error()
            raise e.FeatureNotSupported(f"cluster option {t.text.upper()} is not supported")
        if key in seen:
            raise e.SyntaxError("conflicting or redundant options")
        seen.add(key)
        if p.accept_op(")"):
            return ClusterOptions(size, factor)
        p.expect_op(",")


def _replica_size(p: DdlParser) -> str:
    options = _options(p, managed_ok=False)
    if options.replication_factor is not None:
        raise e.FeatureNotSupported("REPLICATION FACTOR is an option of a cluster, not of a replica")
    if options.size is None:
        raise e.InvalidParameterValue("SIZE option must be specified")
    return options.size


def _replica_name(p: DdlParser) -> tuple[str, str]:
    cluster = p.name()
    p.expect_op(".")
    return cluster, p.name()


def parse_create(p: DdlParser) -> ClusterStatement:
    if p.accept("replica"):
        cluster, name = _replica_name(p)
        size = _replica_size(p)
        p.end()
        return CreateClusterReplica(cluster, name, size)
    name = p.name()
    if p.accept("replicas"):
        p.expect_op("(")
        replicas: list[tuple[str, str]] = []
        if not p.accept_op(")"):
            while True:
                replicas.append((p.name(), _replica_size(p)))
                if p.accept_op(")"):
                    break
                p.expect_op(",")
        p.end()
        return CreateCluster(name, ClusterOptions(), tuple(replicas))
    options = _options(p, managed_ok=True) if p.at_op("(") else ClusterOptions()
    p.end()
    return CreateCluster(name, options)


def parse_alter(p: DdlParser) -> ClusterStatement | None:
    if_exists = p.accept("if", "exists")
    name = p.name()
    if p.at("owner", "to"):
        return None
    if p.accept("rename", "to"):
        new_name = p.name()
        p.end()
        return AlterCluster(name, if_exists, new_name=new_name)
    if p.accept("set"):
        options = _options(p, managed_ok=False)
        p.end()
        return AlterCluster(name, if_exists, options=options)
    if p.at("reset"):
        raise e.FeatureNotSupported("ALTER CLUSTER … RESET is not supported")
    raise p.error()


def parse_drop(p: DdlParser) -> ClusterStatement:
    if p.accept("replica"):
        if_exists = p.accept("if", "exists")
        names = [_replica_name(p)]
        while p.accept_op(","):
            names.append(_replica_name(p))
        p.end()
        return DropClusterReplica(tuple(names), if_exists)
    if_exists = p.accept("if", "exists")
    clusters = [p.name()]
    while p.accept_op(","):
        clusters.append(p.name())
    cascade = p.accept("cascade")
    if not cascade:
        p.accept("restrict")
    p.end()
    return DropCluster(tuple(clusters), if_exists, cascade)
