"""The catalog's object model: frozen dataclasses, one per kind of catalog entry.

Contract: every object is immutable and identified by a string id (see `sparkwire.catalog.builtins` for the id
scheme). Objects refer to each other only by id, never by Python reference, so a `CatalogState` snapshot can
share unchanged objects with the next snapshot. Passwords are never stored: a role carries a SCRAM-SHA-256
verifier (`SCRAM-SHA-256$<iter>:<salt>$<StoredKey>:<ServerKey>`, as PostgreSQL's `pg_authid.rolpassword`) or
None.

Privileges are PostgreSQL ACL letters (`r` SELECT, `a` INSERT, `w` UPDATE, `d` DELETE, `U` USAGE, `C` CREATE,
…) plus Materialize's system privileges (`R` CREATEROLE, `B` CREATEDB, `N` CREATECLUSTER) on the `system`
object.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ItemKind = Literal[
    "table", "view", "materialized-view", "index", "source", "sink", "type", "func", "secret", "connection"
]
ITEM_KINDS: tuple[ItemKind, ...] = (
    "table",
    "view",
    "materialized-view",
    "index",
    "source",
    "sink",
    "type",
    "func",
    "secret",
    "connection",
)
RELATION_KINDS: frozenset[str] = frozenset({"table", "view", "materialized-view", "index", "source", "sink"})
INDEXABLE_KINDS: frozenset[str] = frozenset({"table", "view", "materialized-view", "source"})

ObjectKind = Literal["database", "schema", "cluster", "item", "role", "system"]
NoticeStatus = Literal["ignored", "resolved"]

# The ACL letters each kind of object accepts (Materialize's RBAC model).
PRIVILEGES_BY_KIND: dict[str, str] = {
    "database": "UC",
    "schema": "UC",
    "cluster": "UC",
    "system": "RBN",
    "table": "arwd",
    "view": "r",
    "materialized-view": "r",
    "source": "r",
    "index": "",
    "sink": "",
    "type": "U",
    "func": "",
    "secret": "U",
    "connection": "U",
}


@dataclass(frozen=True, slots=True)
class Database:
    id: str
    oid: int
    name: str
    owner_id: str


@dataclass(frozen=True, slots=True)
class Schema:
    """A schema. `database_id` is None for the ambient builtin schemas (pg_catalog, mz_catalog, …)."""

    id: str
    oid: int
    database_id: str | None
    name: str
    owner_id: str

    @property
    def is_builtin(self) -> bool:
        return self.database_id is None


@dataclass(frozen=True, slots=True)
class Role:
    id: str
    oid: int
    name: str
    superuser: bool = False
    login: bool = False
    inherit: bool = True
    password_verifier: str | None = None  # SCRAM-SHA-256 verifier, never a plain password


@dataclass(frozen=True, slots=True)
class RoleMembership:
    """`member_id` is a member of `role_id` (GRANT role TO member)."""

    role_id: str
    member_id: str
    grantor_id: str


@dataclass(frozen=True, slots=True)
class ClusterReplica:
    """A replica of a cluster: `id` from its own id space (`u1`, …), `name` unique within the cluster (`r1`, … for
    a managed cluster's), `size` a name of `catalog.sizes.SIZES`. A replica is a FAIR pool on Spark."""

    id: str
    name: str
    size: str


@dataclass(frozen=True, slots=True)
class Cluster:
    """A cluster (the unit of compute). Managed (`CREATE CLUSTER c (SIZE = …, REPLICATION FACTOR = n)`): its
    replicas `r1` … `rn` all have `size`. Unmanaged (`CREATE CLUSTER c REPLICAS (…)`): `size` and
    `replication_factor` are None and replicas come and go with CREATE / DROP CLUSTER REPLICA. Clusters stored
    before sizes existed load as managed with no size and no replicas (`catalog.clusters.effective_size`)."""

    id: str
    name: str
    owner_id: str
    size: str | None = None
    replication_factor: int | None = None
    managed: bool = True
    replicas: tuple[ClusterReplica, ...] = ()


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    type_oid: int
    typmod: int = -1
    nullable: bool = True
    default: str | None = None  # SQL text of the DEFAULT expression


@dataclass(frozen=True, slots=True, kw_only=True)
class ItemSpec:
    """Everything that describes a catalog item except its identity (id, oid), which the catalog allocates.

    `dependencies` are the ids of the items this one references (for an index, its `on_id` is implied).
    Index fields: `on_id`, `keys` (SQL expressions; an empty tuple is the empty key), `is_default_index`.
    `cluster_id` is set for indexes, materialized views, sources and sinks. `primary_key` names columns.
    `unique`: a UNIQUE index (its keys are columns), enforced on writes like the primary key (NULLs are distinct).
    Sources (sparkwire/sources/): `source_type` is Materialize's mz_sources.type (`load-generator`, `postgres`,
    `subsource`, `progress`); `source_options` the JSON the source type's module reads (a subsource's: the upstream
    it is fed from). A subsource or progress collection depends on its source.
    """

    kind: ItemKind
    schema_id: str
    name: str
    owner_id: str
    create_sql: str
    columns: tuple[Column, ...] = ()
    dependencies: tuple[str, ...] = ()
    on_id: str | None = None
    keys: tuple[str, ...] = ()
    is_default_index: bool = False
    cluster_id: str | None = None
    primary_key: tuple[str, ...] = ()
    unique: bool = False
    source_type: str | None = None
    source_options: str = ""

    @property
    def references(self) -> frozenset[str]:
        """Every item id this item depends on (its dependencies plus the indexed object)."""
        refs = set(self.dependencies)
        if self.on_id is not None:
            refs.add(self.on_id)
        return frozenset(refs)


@dataclass(frozen=True, slots=True, kw_only=True)
class Item(ItemSpec):
    """A catalog item: an `ItemSpec` with the id and OID the catalog gave it.

    `created_at` is the timeline timestamp (ms since the epoch) of the transaction that created the item, kept by
    CREATE OR REPLACE; `updated_at` that of its latest definition (creation or replacement). Both are durable, so
    what is derived from an item (its optimizer notices) keeps its timestamps across restarts. 0 = unknown
    (items stored before the fields existed).
    """

    id: str
    oid: int
    created_at: int = 0
    updated_at: int = 0

    @classmethod
    def from_spec(cls, spec: ItemSpec, *, id: str, oid: int, created_at: int = 0, updated_at: int = 0) -> Item:
        return cls(
            id=id,
            oid=oid,
            created_at=created_at,
            updated_at=updated_at,
            kind=spec.kind,
            schema_id=spec.schema_id,
            name=spec.name,
            owner_id=spec.owner_id,
            create_sql=spec.create_sql,
            columns=spec.columns,
            dependencies=spec.dependencies,
            on_id=spec.on_id,
            keys=spec.keys,
            is_default_index=spec.is_default_index,
            cluster_id=spec.cluster_id,
            primary_key=spec.primary_key,
            unique=spec.unique,
            source_type=spec.source_type,
            source_options=spec.source_options,
        )


@dataclass(frozen=True, slots=True)
class ObjectRef:
    """A privilege-bearing object: (kind, id). The `system` object has id ""."""

    kind: ObjectKind
    id: str


SYSTEM_OBJECT = ObjectRef("system", "")


@dataclass(frozen=True, slots=True)
class Privilege:
    """One ACL entry: `grantor_id` granted `privileges` (ACL letters) on `object` to `grantee_id`."""

    object: ObjectRef
    grantee_id: str
    grantor_id: str
    privileges: str


@dataclass(frozen=True, slots=True)
class IgnoredNotice:
    """A durable optimizer-notice status set by a user, keyed by the notice's fingerprint."""

    fingerprint: str
    status: NoticeStatus
    set_by: str  # role id
    set_at: int  # timeline timestamp, ms since the epoch


@dataclass(frozen=True, slots=True)
class SystemVariable:
    """A durable default for a session variable (ALTER SYSTEM SET), keyed by the variable's canonical name."""

    name: str
    value: str  # canonical text, validated by the variable's normalizer
    set_by: str  # role id
    set_at: int  # timeline timestamp, ms since the epoch


@dataclass(frozen=True, slots=True)
class Comment:
    """COMMENT ON: `text` on `object`, on its column number `sub_id` (1-based) or on the object itself (0)."""

    object: ObjectRef
    sub_id: int
    text: str
