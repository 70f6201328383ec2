"""The semantics of catalog ops: validate one op against a state and produce the next state. Pure, no I/O.

Contract: `apply_ops(state, ops, timestamp=…)` applies the ops in order, each validated against the state the
previous ops produced, and returns the final state with what was created, dropped and skipped (IF NOT EXISTS).
It raises the `PgError` PostgreSQL would raise (duplicate or missing names, RESTRICT with dependents, circular
role grants, invalid privilege letters, modifying builtin objects); `Catalog.transact` then commits nothing.
The input state is never modified. Ids and OIDs come from `state.counters`, which only move forward. A created
item gets the transaction's timestamp as `created_at` and `updated_at`; CREATE OR REPLACE (`ReplaceItem`) keeps the
old item's `created_at`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from sparkwire.catalog import clusters, drops
from sparkwire.catalog.builtins import (
    MZ_SYSTEM_ROLE_ID,
    PUBLIC_ROLE_ID,
    RESERVED_ROLE_NAMES,
    RESERVED_ROLE_PREFIXES,
    is_builtin_id,
)
from sparkwire.catalog.comments import set_comment, without_orphans
from sparkwire.catalog.objects import (
    INDEXABLE_KINDS,
    PRIVILEGES_BY_KIND,
    Database,
    IgnoredNotice,
    Item,
    ItemSpec,
    ObjectRef,
    Privilege,
    Role,
    RoleMembership,
    Schema,
    SystemVariable,
)
from sparkwire.catalog.ops import (
    AdvanceTimestamp,
    AlterCluster,
    AlterOwner,
    AlterRole,
    CreateCluster,
    CreateClusterReplica,
    CreateDatabase,
    CreateItem,
    CreateRole,
    CreateSchema,
    DropCluster,
    DropClusterReplica,
    DropDatabase,
    DropItems,
    DropRole,
    DropSchema,
    GrantPrivileges,
    GrantRole,
    Op,
    RenameItem,
    ReplaceItem,
    ResetNoticeStatus,
    ResetSystemVariable,
    RevokePrivileges,
    RevokeRole,
    SetComment,
    SetNoticeStatus,
    SetSystemVariable,
)
from sparkwire.catalog.state import CatalogState
from sparkwire.catalog.wording import AlreadyExists, noun, with_article
from sparkwire.errors import (
    DependentObjectsStillExist,
    InsufficientPrivilege,
    InvalidGrantOperation,
    InvalidObjectDefinition,
    ReservedName,
    UndefinedObject,
    WrongObjectType,
)

PRIVILEGE_NAMES: dict[str, str] = {
    "r": "SELECT",
    "a": "INSERT",
    "w": "UPDATE",
    "d": "DELETE",
    "U": "USAGE",
    "C": "CREATE",
    "R": "CREATEROLE",
    "B": "CREATEDB",
    "N": "CREATECLUSTER",
}


@dataclass
class Applied:
    """The outcome of `apply_ops`."""

    state: CatalogState
    created: list[ObjectRef] = field(default_factory=list)
    dropped: list[ObjectRef] = field(default_factory=list)
    skipped: list[AlreadyExists] = field(default_factory=list)
    advance_to: int = 0  # the largest AdvanceTimestamp, 0 if none


def apply_ops(state: CatalogState, ops: Sequence[Op], *, timestamp: int) -> Applied:
    out = Applied(state)
    for op in ops:
        out.state = _apply(out.state, op, out, timestamp)
    if out.state.comments and (out.dropped or any(isinstance(op, ReplaceItem) for op in ops)):
        out.state = without_orphans(out.state)
    return out


def _apply(state: CatalogState, op: Op, out: Applied, timestamp: int) -> CatalogState:
    match op:
        case CreateDatabase():
            return _create_database(state, op, out)
        case DropDatabase():
            return _drop_database(state, op, out)
        case CreateSchema():
            return _create_schema(state, op, out)
        case DropSchema():
            return _drop_schema(state, op, out)
        case CreateCluster():
            return clusters.create_cluster(state, op, out.created)
        case DropCluster():
            return _drop_cluster(state, op, out)
        case AlterCluster():
            return clusters.alter_cluster(state, op)
        case CreateClusterReplica():
            return clusters.create_replica(state, op)
        case DropClusterReplica():
            return clusters.drop_replica(state, op)
        case CreateItem():
            return _create_item(state, op.spec, op.if_not_exists, out, timestamp)
        case ReplaceItem():
            return _replace_item(state, op, out, timestamp)
        case DropItems():
            return _drop_items(state, op.ids, out)
        case RenameItem():
            return _rename_item(state, op)
        case CreateRole():
            return _create_role(state, op, out)
        case AlterRole():
            return _alter_role(state, op)
        case DropRole():
            return _drop_role(state, op, out)
        case GrantRole():
            return _grant_role(state, op)
        case RevokeRole():
            return _revoke_role(state, op)
        case GrantPrivileges():
            return _grant_privileges(state, op)
        case RevokePrivileges():
            return _revoke_privileges(state, op)
        case AlterOwner():
            return _alter_owner(state, op)
        case SetNoticeStatus():
            _require_role(state, op.set_by)
            notices = dict(state.notices)
            notices[op.fingerprint] = IgnoredNotice(op.fingerprint, op.status, op.set_by, timestamp)
            return state.evolve(notices=notices)
        case ResetNoticeStatus():
            notices = dict(state.notices)
            notices.pop(op.fingerprint, None)
            return state.evolve(notices=notices)
        case SetSystemVariable():
            _require_role(state, op.set_by)
            variable = SystemVariable(op.name, op.value, op.set_by, timestamp)
            return state.evolve(system_vars={**state.system_vars, op.name: variable})
        case ResetSystemVariable():
            if op.name not in state.system_vars:
                return state
            return state.evolve(system_vars={k: v for k, v in state.system_vars.items() if k != op.name})
        case SetComment():
            return set_comment(state, op)
        case AdvanceTimestamp():
            out.advance_to = max(out.advance_to, op.timestamp)
            return state


# ---- allocation and common checks ------------------------------------------------------------------------


def _alloc_id(state: CatalogState, counter: str) -> tuple[str, CatalogState]:
    n: int = getattr(state.counters, counter)
    return f"u{n}", state.with_counters(**{counter: n + 1})


def _alloc_oid(state: CatalogState) -> tuple[int, CatalogState]:
    oid = state.counters.oid
    return oid, state.with_counters(oid=oid + 1)


def _require_role(state: CatalogState, role_id: str) -> Role:
    role = state.roles.get(role_id)
    if role is None:
        raise UndefinedObject(f"role with id {role_id} does not exist")
    return role


def _require_user_role(state: CatalogState, role_id: str) -> Role:
    role = _require_role(state, role_id)
    if is_builtin_id(role_id):
        raise ReservedName(f'role name "{role.name}" is reserved')
    return role


def _require_item(state: CatalogState, item_id: str) -> Item:
    item = state.items.get(item_id)
    if item is None:
        raise UndefinedObject(f"catalog item {item_id} does not exist")
    return item


def _require_user_schema(state: CatalogState, schema_id: str) -> Schema:
    schema = state.schemas.get(schema_id)
    if schema is None:
        raise UndefinedObject(f"schema with id {schema_id} does not exist")
    if schema.is_builtin:
        raise InsufficientPrivilege(f"system schema '{schema.name}' cannot be modified")
    return schema


def _require_object(state: CatalogState, obj: ObjectRef) -> str:
    """Check that a user object that can carry privileges exists; return its privilege kind (for an item,
    its item kind)."""
    match obj.kind:
        case "system":
            return "system"
        case "database":
            found = obj.id in state.databases
        case "cluster":
            found = obj.id in state.clusters
        case "schema":
            found = obj.id in state.schemas
            if found:
                _require_user_schema(state, obj.id)
        case "item":
            item = state.items.get(obj.id)
            if item is not None:
                _require_user_schema(state, item.schema_id)
                return item.kind
            found = False
        case "role":
            raise WrongObjectType("roles carry no privileges and have no owner")
    if not found:
        raise UndefinedObject(f"{obj.kind} with id {obj.id} does not exist")
    return obj.kind


def _without_privileges_on(state: CatalogState, objs: Iterable[ObjectRef]) -> CatalogState:
    gone = set(objs)
    if not any(p.object in gone for p in state.privileges.values()):
        return state
    return state.evolve(privileges={k: p for k, p in state.privileges.items() if p.object not in gone})


# ---- databases, schemas, clusters ------------------------------------------------------------------------


def _create_database(state: CatalogState, op: CreateDatabase, out: Applied) -> CatalogState:
    existing = state.database_by_name(op.name)
    if existing is not None:
        return _skip_or_raise(
            AlreadyExists("database", op.name, ObjectRef("database", existing.id)),
            op.if_not_exists,
            state,
            out,
        )
    _require_role(state, op.owner_id)
    db_id, state = _alloc_id(state, "database")
    db_oid, state = _alloc_oid(state)
    schema_id, state = _alloc_id(state, "schema")
    schema_oid, state = _alloc_oid(state)
    databases = {**state.databases, db_id: Database(db_id, db_oid, op.name, op.owner_id)}
    schemas = {**state.schemas, schema_id: Schema(schema_id, schema_oid, db_id, "public", op.owner_id)}
    out.created += [ObjectRef("database", db_id), ObjectRef("schema", schema_id)]
    return state.evolve(databases=databases, schemas=schemas)


def _drop_database(state: CatalogState, op: DropDatabase, out: Applied) -> CatalogState:
    if op.database_id not in state.databases:
        raise UndefinedObject(f"database with id {op.database_id} does not exist")
    plan = drops.plan_drop_database(state, op.database_id, op.cascade)
    state = _drop_items(state, plan.order, out)
    schema_ids = {s.id for s in state.schemas_in(op.database_id)}
    schemas = {k: s for k, s in state.schemas.items() if k not in schema_ids}
    databases = {k: d for k, d in state.databases.items() if k != op.database_id}
    gone = [ObjectRef("schema", s) for s in schema_ids] + [ObjectRef("database", op.database_id)]
    out.dropped += gone
    return _without_privileges_on(state.evolve(databases=databases, schemas=schemas), gone)


def _create_schema(state: CatalogState, op: CreateSchema, out: Applied) -> CatalogState:
    if op.database_id not in state.databases:
        raise UndefinedObject(f"database with id {op.database_id} does not exist")
    existing = state.find_schema(op.database_id, op.name)
    if existing is not None:
        return _skip_or_raise(
            AlreadyExists("schema", op.name, ObjectRef("schema", existing.id)), op.if_not_exists, state, out
        )
    if op.name.startswith(("pg_", "mz_")):
        raise ReservedName(
            f'unacceptable schema name "{op.name}"',
            detail=f'The prefix "{op.name[:3]}" is reserved for system schemas.',
        )
    _require_role(state, op.owner_id)
    schema_id, state = _alloc_id(state, "schema")
    oid, state = _alloc_oid(state)
    out.created.append(ObjectRef("schema", schema_id))
    return state.evolve(
        schemas={**state.schemas, schema_id: Schema(schema_id, oid, op.database_id, op.name, op.owner_id)}
    )


def _drop_schema(state: CatalogState, op: DropSchema, out: Applied) -> CatalogState:
    _require_user_schema(state, op.schema_id)
    plan = drops.plan_drop_schema(state, op.schema_id, op.cascade)
    state = _drop_items(state, plan.order, out)
    out.dropped.append(ObjectRef("schema", op.schema_id))
    schemas = {k: s for k, s in state.schemas.items() if k != op.schema_id}
    return _without_privileges_on(state.evolve(schemas=schemas), [ObjectRef("schema", op.schema_id)])


def _drop_cluster(state: CatalogState, op: DropCluster, out: Applied) -> CatalogState:
    if op.cluster_id not in state.clusters:
        raise UndefinedObject(f"cluster with id {op.cluster_id} does not exist")
    plan = drops.plan_drop_cluster(state, op.cluster_id, op.cascade)
    state = _drop_items(state, plan.order, out)
    out.dropped.append(ObjectRef("cluster", op.cluster_id))
    clusters = {k: c for k, c in state.clusters.items() if k != op.cluster_id}
    return _without_privileges_on(state.evolve(clusters=clusters), [ObjectRef("cluster", op.cluster_id)])


def _skip_or_raise(
    clash: AlreadyExists, if_not_exists: bool, state: CatalogState, out: Applied
) -> CatalogState:
    if not if_not_exists:
        raise clash.error()
    out.skipped.append(clash)
    return state


# ---- items -----------------------------------------------------------------------------------------------


def _validate_spec(state: CatalogState, spec: ItemSpec) -> None:
    _require_user_schema(state, spec.schema_id)
    _require_role(state, spec.owner_id)
    for ref in spec.references:
        _require_item(state, ref)
    if spec.kind == "index":
        if spec.on_id is None:
            raise InvalidObjectDefinition(f'index "{spec.name}" has no indexed object')
        on = state.items[spec.on_id]
        if on.kind not in INDEXABLE_KINDS:
            raise WrongObjectType(
                f'cannot create index on "{on.name}" because it is {with_article(noun(on.kind))}'
            )
    elif spec.on_id is not None or spec.keys or spec.is_default_index:
        raise InvalidObjectDefinition(f'{noun(spec.kind)} "{spec.name}" cannot have index fields')
    if spec.cluster_id is not None and spec.cluster_id not in state.clusters:
        raise UndefinedObject(f"cluster with id {spec.cluster_id} does not exist")


def _create_item(
    state: CatalogState,
    spec: ItemSpec,
    if_not_exists: bool,
    out: Applied,
    timestamp: int,
    created_at: int | None = None,
) -> CatalogState:
    existing = state.find_item(spec.schema_id, spec.name)
    if existing is not None:
        return _skip_or_raise(
            AlreadyExists(spec.kind, spec.name, ObjectRef("item", existing.id)), if_not_exists, state, out
        )
    _validate_spec(state, spec)
    item_id, state = _alloc_id(state, "item")
    oid, state = _alloc_oid(state)
    out.created.append(ObjectRef("item", item_id))
    item = Item.from_spec(
        spec, id=item_id, oid=oid, created_at=timestamp if created_at is None else created_at, updated_at=timestamp
    )
    return state.evolve(items={**state.items, item_id: item})


def _replace_item(state: CatalogState, op: ReplaceItem, out: Applied, timestamp: int) -> CatalogState:
    old = _require_item(state, op.old_id)
    if old.kind != op.spec.kind:
        raise WrongObjectType(f'"{old.name}" is not a {noun(op.spec.kind)}')
    if (old.schema_id, old.name) != (op.spec.schema_id, op.spec.name):
        raise InvalidObjectDefinition(
            f"cannot replace {noun(old.kind)} {old.name} with an object of another name"
        )
    if old.id in op.spec.references:
        raise InvalidObjectDefinition(
            f"cannot replace {noun(old.kind)} {old.name} because the new definition depends on it"
        )
    plan = drops.plan_drop(state, [old.id], cascade=False)
    state = _drop_items(state, plan.order, out)
    return _create_item(state, op.spec, False, out, timestamp, created_at=old.created_at)


def _drop_items(state: CatalogState, ids: Sequence[str], out: Applied) -> CatalogState:
    if not ids:
        return state
    gone: set[str] = set()
    for item_id in ids:
        if item_id in gone:
            raise UndefinedObject(f"catalog item {item_id} does not exist")
        _require_user_schema(state, _require_item(state, item_id).schema_id)
        gone.add(item_id)
    items = {k: i for k, i in state.items.items() if k not in gone}
    for item in items.values():
        blocking = item.references & gone
        if blocking:
            on = state.describe_item(min(blocking))
            raise DependentObjectsStillExist(
                f"cannot drop {on} because other objects depend on it",
                detail=f"{state.describe_item(item.id)} depends on {on}",
                hint=drops.CASCADE_HINT,
            )
    refs = [ObjectRef("item", i) for i in ids]
    out.dropped += refs
    return _without_privileges_on(state.evolve(items=items), refs)


def _rename_item(state: CatalogState, op: RenameItem) -> CatalogState:
    item = _require_item(state, op.item_id)
    _require_user_schema(state, item.schema_id)
    if state.find_item(item.schema_id, op.new_name) is not None:
        raise AlreadyExists(item.kind, op.new_name, ObjectRef("item", item.id)).error()
    rewritten = dict(op.dependents)
    if set(rewritten) != state.direct_dependents(item.id):
        raise DependentObjectsStillExist(f"{noun(item.kind)} {item.name} gained or lost dependents while being renamed")
    items = dict(state.items)
    items[item.id] = dataclasses.replace(item, name=op.new_name, create_sql=op.create_sql)
    for dependent_id, create_sql in rewritten.items():
        items[dependent_id] = dataclasses.replace(items[dependent_id], create_sql=create_sql)
    return state.evolve(items=items)


# ---- roles -----------------------------------------------------------------------------------------------


def _create_role(state: CatalogState, op: CreateRole, out: Applied) -> CatalogState:
    if op.name.lower() in RESERVED_ROLE_NAMES:
        raise ReservedName(f'role name "{op.name}" is reserved')
    if op.name.startswith(RESERVED_ROLE_PREFIXES):
        raise ReservedName(
            f'role name "{op.name}" is reserved',
            detail=f'Role names starting with "{op.name[:3]}" are reserved.',
        )
    if state.role_by_name(op.name) is not None:
        raise AlreadyExists("role", op.name, ObjectRef("role", state.resolve_role(op.name).id)).error()
    role_id, state = _alloc_id(state, "role")
    oid, state = _alloc_oid(state)
    role = Role(role_id, oid, op.name, op.superuser, op.login, op.inherit, op.password_verifier)
    out.created.append(ObjectRef("role", role_id))
    return state.evolve(roles={**state.roles, role_id: role})


def _alter_role(state: CatalogState, op: AlterRole) -> CatalogState:
    role = _require_user_role(state, op.role_id)
    changed = dataclasses.replace(
        role,
        superuser=role.superuser if op.superuser is None else op.superuser,
        login=role.login if op.login is None else op.login,
        inherit=role.inherit if op.inherit is None else op.inherit,
        password_verifier=role.password_verifier if op.password is None else op.password.verifier,
    )
    return state.evolve(roles={**state.roles, role.id: changed})


def _drop_role(state: CatalogState, op: DropRole, out: Applied) -> CatalogState:
    _require_user_role(state, op.role_id)
    drops.check_role_droppable(state, op.role_id)
    memberships = {
        k: (m if m.grantor_id != op.role_id else dataclasses.replace(m, grantor_id=MZ_SYSTEM_ROLE_ID))
        for k, m in state.memberships.items()
        if op.role_id not in (m.role_id, m.member_id)
    }
    out.dropped.append(ObjectRef("role", op.role_id))
    roles = {k: r for k, r in state.roles.items() if k != op.role_id}
    return state.evolve(roles=roles, memberships=memberships)


def _grant_role(state: CatalogState, op: GrantRole) -> CatalogState:
    role = _require_role(state, op.role_id)
    member = _require_user_role(state, op.member_id)
    _require_role(state, op.grantor_id)
    if (op.role_id, op.member_id) in state.memberships:
        return state
    if op.role_id == op.member_id or op.member_id in state.all_roles_of(op.role_id):
        raise InvalidGrantOperation(f'role "{role.name}" is a member of role "{member.name}"')
    membership = RoleMembership(op.role_id, op.member_id, op.grantor_id)
    return state.evolve(memberships={**state.memberships, (op.role_id, op.member_id): membership})


def _revoke_role(state: CatalogState, op: RevokeRole) -> CatalogState:
    _require_role(state, op.role_id)
    _require_role(state, op.member_id)
    if (op.role_id, op.member_id) not in state.memberships:
        return state
    return state.evolve(
        memberships={k: m for k, m in state.memberships.items() if k != (op.role_id, op.member_id)}
    )


# ---- privileges and ownership ----------------------------------------------------------------------------


def _check_letters(kind: str, letters: str) -> str:
    """Validate ACL letters for an object kind; return them in the kind's canonical order."""
    allowed = PRIVILEGES_BY_KIND[kind]
    for letter in letters:
        if letter not in allowed:
            name = PRIVILEGE_NAMES.get(letter, letter)
            raise InvalidGrantOperation(f"invalid privilege type {name} for {noun(kind)}")
    return "".join(c for c in allowed if c in letters)


def _grant_privileges(state: CatalogState, op: GrantPrivileges) -> CatalogState:
    kind = _require_object(state, op.object)
    letters = _check_letters(kind, op.privileges)
    if op.grantee_id != PUBLIC_ROLE_ID:
        _require_role(state, op.grantee_id)
    _require_role(state, op.grantor_id)
    key = (op.object, op.grantee_id, op.grantor_id)
    before = state.privileges.get(key)
    merged = _check_letters(kind, letters + (before.privileges if before else ""))
    privilege = Privilege(op.object, op.grantee_id, op.grantor_id, merged)
    return state.evolve(privileges={**state.privileges, key: privilege})


def _revoke_privileges(state: CatalogState, op: RevokePrivileges) -> CatalogState:
    kind = _require_object(state, op.object)
    _check_letters(kind, op.privileges)
    privileges = dict(state.privileges)
    for key, p in state.privileges.items():
        if p.object != op.object or p.grantee_id != op.grantee_id:
            continue
        if op.grantor_id is not None and p.grantor_id != op.grantor_id:
            continue
        remaining = "".join(c for c in p.privileges if c not in op.privileges)
        if remaining:
            privileges[key] = dataclasses.replace(p, privileges=remaining)
        else:
            del privileges[key]
    return state.evolve(privileges=privileges)


def _alter_owner(state: CatalogState, op: AlterOwner) -> CatalogState:
    _require_object(state, op.object)
    _require_role(state, op.new_owner_id)
    match op.object.kind:
        case "database":
            db = dataclasses.replace(state.databases[op.object.id], owner_id=op.new_owner_id)
            return state.evolve(databases={**state.databases, db.id: db})
        case "schema":
            schema = dataclasses.replace(state.schemas[op.object.id], owner_id=op.new_owner_id)
            return state.evolve(schemas={**state.schemas, schema.id: schema})
        case "cluster":
            cluster = dataclasses.replace(state.clusters[op.object.id], owner_id=op.new_owner_id)
            return state.evolve(clusters={**state.clusters, cluster.id: cluster})
        case "item":
            item = dataclasses.replace(state.items[op.object.id], owner_id=op.new_owner_id)
            return state.evolve(items={**state.items, item.id: item})
        case "role" | "system":
            raise WrongObjectType(f"{op.object.kind} has no owner")
