"""Typed catalog operations: what the planner's sequencing step builds and `Catalog.transact` applies.

Contract: an op names existing objects by id (the planner resolves names against `catalog.state` first) and
new objects by name; the catalog allocates ids and OIDs. A list of ops is applied in order, each validated
against the state the previous ops produced, all-or-nothing. Ops never refer to ids created earlier in the
same list.

Choices:
- `CreateDatabase` also creates the database's `public` schema (as Materialize and PostgreSQL do).
- `ReplaceItem` (CREATE OR REPLACE) gives the new definition a new id and OID, as Materialize does: the old
  item is dropped with RESTRICT semantics (its indexes go with it; any other dependent is an error) and a new
  item created.
- `DropItems` takes a drop order from `drops.plan_drop` (which applies RESTRICT/CASCADE and gives the
  NOTICEs); it re-checks that nothing left behind depends on a dropped item, so a dependent created by
  another session between planning and transact makes it fail with 2BP01 instead of dangling.
  `DropSchema`/`DropDatabase`/`DropCluster` plan their contents themselves inside the transaction.
- `RenameItem` carries its dependents' rewritten `create_sql` (the planner writes them).
- `if_not_exists` on create ops turns a name clash into a skipped op reported in `TransactResult.skipped`.
- Cluster ops (`CreateCluster`, `AlterCluster`, `CreateClusterReplica`, `DropClusterReplica`) are applied in
  catalog/clusters.py; sizes are validated by the planner (`sizes.resolve_size`) and again there.
- `SetSystemVariable` / `ResetSystemVariable` store and remove an ALTER SYSTEM default; the catalog does not know
  the variables (planner/statements/variables.py does), so the planner validates name and value first.
"""

from __future__ import annotations

from dataclasses import dataclass

from sparkwire.catalog.objects import ItemSpec, NoticeStatus, ObjectRef


@dataclass(frozen=True, slots=True)
class CreateDatabase:
    name: str
    owner_id: str
    if_not_exists: bool = False


@dataclass(frozen=True, slots=True)
class DropDatabase:
    """Drops the database with all its schemas; with `cascade=False` it must contain no schema but `public`
    and no items (Materialize's RESTRICT)."""

    database_id: str
    cascade: bool


@dataclass(frozen=True, slots=True)
class CreateSchema:
    database_id: str
    name: str
    owner_id: str
    if_not_exists: bool = False


@dataclass(frozen=True, slots=True)
class DropSchema:
    schema_id: str
    cascade: bool


@dataclass(frozen=True, slots=True)
class CreateCluster:
    """A managed cluster (`replicas` None: `replication_factor` replicas `r1`… of `size`, default size when None)
    or an unmanaged one (`replicas`: (name, size) pairs). Sizes are canonical (`sizes.resolve_size`)."""

    name: str
    owner_id: str
    size: str | None = None
    replication_factor: int = 1
    replicas: tuple[tuple[str, str], ...] | None = None


@dataclass(frozen=True, slots=True)
class AlterCluster:
    """ALTER CLUSTER: rename, or (managed clusters) a new size / replication factor. A new size replaces every
    replica by new ones (new ids, hence new Spark pools), as Materialize's managed clusters do; a new factor adds
    or removes the highest-numbered replicas. None leaves a setting as it is."""

    cluster_id: str
    new_name: str | None = None
    size: str | None = None
    replication_factor: int | None = None


@dataclass(frozen=True, slots=True)
class CreateClusterReplica:
    cluster_id: str
    name: str
    size: str


@dataclass(frozen=True, slots=True)
class DropClusterReplica:
    cluster_id: str
    replica_id: str


@dataclass(frozen=True, slots=True)
class DropCluster:
    """Drops the cluster; items placed on it (indexes, materialized views, …) need `cascade=True`."""

    cluster_id: str
    cascade: bool


@dataclass(frozen=True, slots=True)
class CreateItem:
    spec: ItemSpec
    if_not_exists: bool = False


@dataclass(frozen=True, slots=True)
class ReplaceItem:
    old_id: str
    spec: ItemSpec


@dataclass(frozen=True, slots=True)
class DropItems:
    """Drop `ids` in the given order (dependents before what they depend on), as `plan_drop` returns them."""

    ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RenameItem:
    """Rename an item within its schema. `create_sql` is the item's definition rewritten with the new name;
    `dependents` the (id, create_sql) of every item that refers to it, rewritten to the new name (the planner's
    statements/renames.py). A dependent the planner did not rewrite makes the rename fail (a concurrent CREATE)."""

    item_id: str
    new_name: str
    create_sql: str
    dependents: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class CreateRole:
    name: str
    superuser: bool = False
    login: bool = False
    inherit: bool = True
    password_verifier: str | None = None


@dataclass(frozen=True, slots=True)
class SetPassword:
    """For `AlterRole`: replace the verifier (None removes the password)."""

    verifier: str | None


@dataclass(frozen=True, slots=True)
class AlterRole:
    """Change the given attributes; None leaves an attribute as it is."""

    role_id: str
    superuser: bool | None = None
    login: bool | None = None
    inherit: bool | None = None
    password: SetPassword | None = None


@dataclass(frozen=True, slots=True)
class DropRole:
    role_id: str


@dataclass(frozen=True, slots=True)
class GrantRole:
    role_id: str
    member_id: str
    grantor_id: str


@dataclass(frozen=True, slots=True)
class RevokeRole:
    role_id: str
    member_id: str


@dataclass(frozen=True, slots=True)
class GrantPrivileges:
    object: ObjectRef
    grantee_id: str
    grantor_id: str
    privileges: str  # ACL letters


@dataclass(frozen=True, slots=True)
class RevokePrivileges:
    """Revoke `privileges` granted by `grantor_id` (all grantors if None) on `object` from `grantee_id`."""

    object: ObjectRef
    grantee_id: str
    privileges: str
    grantor_id: str | None = None


@dataclass(frozen=True, slots=True)
class AlterOwner:
    object: ObjectRef
    new_owner_id: str


@dataclass(frozen=True, slots=True)
class SetNoticeStatus:
    fingerprint: str
    status: NoticeStatus
    set_by: str  # role id


@dataclass(frozen=True, slots=True)
class ResetNoticeStatus:
    fingerprint: str


@dataclass(frozen=True, slots=True)
class SetSystemVariable:
    """ALTER SYSTEM SET: `name` and `value` canonical (the planner validates them against the variable table)."""

    name: str
    value: str
    set_by: str  # role id


@dataclass(frozen=True, slots=True)
class ResetSystemVariable:
    """ALTER SYSTEM RESET: back to the built-in default (a name with no stored value is a no-op)."""

    name: str


@dataclass(frozen=True, slots=True)
class SetComment:
    """COMMENT ON: set (or, with `text` None, remove) the comment on `object` or its column `sub_id` (0: the object).
    The planner checks the object, the column and the privilege; comments go when their object goes."""

    object: ObjectRef
    sub_id: int
    text: str | None


@dataclass(frozen=True, slots=True)
class AdvanceTimestamp:
    """Move the timeline to at least `timestamp` (ms since the epoch), durably, with the transaction."""

    timestamp: int


Op = (
    CreateDatabase
    | DropDatabase
    | CreateSchema
    | DropSchema
    | CreateCluster
    | DropCluster
    | AlterCluster
    | CreateClusterReplica
    | DropClusterReplica
    | CreateItem
    | ReplaceItem
    | DropItems
    | RenameItem
    | CreateRole
    | AlterRole
    | DropRole
    | GrantRole
    | RevokeRole
    | GrantPrivileges
    | RevokePrivileges
    | AlterOwner
    | SetNoticeStatus
    | ResetNoticeStatus
    | SetSystemVariable
    | ResetSystemVariable
    | SetComment
    | AdvanceTimestamp
)
