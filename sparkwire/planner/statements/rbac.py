"""Role and privilege planning: a parsed `grammar/rbac.py` statement → the catalog ops that carry it out, no side
effect.

Contract: `plan_rbac(stmt, state, names) -> RbacPlan(ops, tag, notices)` (a NamedTuple, so it unpacks as a triple)
runs as role `names.role_id`, resolves names against `state` as PostgreSQL does and raises, before building any op,
the error PostgreSQL raises, in its wording (checked against the PostgreSQL 15 oracle in tests):
- CREATE ROLE: 42501 `permission denied to create role` without CREATEROLE (Materialize's system privilege `GRANT
  CREATEROLE ON SYSTEM`) or superuser, `must be superuser to create superusers`; 42710 `role "x" already exists`;
  42939 for reserved names (mz_*, pg_*, public, …). A password becomes a SCRAM-SHA-256 verifier (`scram_secret`),
  never stored in clear. CREATE USER defaults to LOGIN.
- ALTER ROLE: 42704 `role "x" does not exist`; superuser roles and the SUPERUSER attribute need a superuser (`must be
  superuser to alter superuser roles or change superuser attribute`); other changes need CREATEROLE, except that a
  role may change its own password (`permission denied` otherwise, as PostgreSQL 15).
- DROP ROLE [IF EXISTS]: CREATEROLE (`permission denied to drop role`), superusers only by superusers, never the
  session's own role (55006 `current user cannot be dropped`), 2BP01 when the role owns objects or holds
  privileges (`drops.check_role_droppable`); IF EXISTS turns a missing role into a NOTICE.
- GRANT / REVOKE role: CREATEROLE or superuser (`must have admin option on role "r"`; a superuser role needs a
  superuser); an existing membership is a NOTICE, revoking a missing one a WARNING (PostgreSQL's); cycles are 0LP01.
- GRANT / REVOKE privileges: the grantor must own the object (superusers may grant anything); the grant is recorded
  with the owner as grantor, as PostgreSQL does. ALL [PRIVILEGES] means every privilege the object kind has; a
  privilege the kind does not have is 0LP01 `invalid privilege type INSERT for schema` (`for relation` for
  tables and views, as PostgreSQL). Builtin relations and
  schemas cannot be granted on (42501). System privileges (ON SYSTEM) need a superuser.
- ALTER … OWNER TO: the current owner (or a superuser) who is also a member of the new owner role (`must be member
  of role "r"`); a relation's indexes change owner with it (as Materialize).
Ownership and object-privilege errors use `privileges`' wording (Materialize's, see there).

Logins: `login_role(state, user)` is the catalog role a session runs as — FATAL 28000 `role "x" does not exist` or
`role "x" is not permitted to log in` otherwise. `scram_secret(password)` is the verifier a role stores (authentication
reads it back through server/auth/passwords.py `CatalogPasswords`).
"""

from __future__ import annotations

from typing import NamedTuple

from sparkwire import errors as e
from sparkwire.api import Notice
from sparkwire.catalog import CatalogState
from sparkwire.catalog import ops as o
from sparkwire.catalog.builtins import (
    MZ_SYSTEM_ROLE_ID,
    PUBLIC_ROLE_ID,
    RESERVED_ROLE_NAMES,
    RESERVED_ROLE_PREFIXES,
    is_builtin_id,
)
from sparkwire.catalog.drops import check_role_droppable
from sparkwire.catalog.objects import PRIVILEGES_BY_KIND, SYSTEM_OBJECT, Item, ObjectRef, Role
from sparkwire.catalog.wording import namespace_noun, noun
from sparkwire.planner.bind.resolve import BUILTIN_SCHEMAS, Names, is_builtin_relation
from sparkwire.planner.grammar import rbac as g
from sparkwire.planner.grammar.ddl_parser import Name
from sparkwire.planner.security.privileges import check_owner, is_superuser, permission_denied
from sparkwire.scram import ScramVerifier, secret_text

_LETTERS: dict[str, str] = {
    "SELECT": "r",
    "INSERT": "a",
    "UPDATE": "w",
    "DELETE": "d",
    "USAGE": "U",
    "CREATE": "C",
    "CREATEROLE": "R",
    "CREATEDB": "B",
    "CREATECLUSTER": "N",
}
_OWNER_TAGS: dict[str, str] = {
    "table": "ALTER TABLE",
    "view": "ALTER VIEW",
    "materialized-view": "ALTER MATERIALIZED VIEW",
    "schema": "ALTER SCHEMA",
    "database": "ALTER DATABASE",
    "cluster": "ALTER CLUSTER",
}


class RbacPlan(NamedTuple):
    ops: tuple[o.Op, ...]
    tag: str
    notices: tuple[Notice, ...] = ()


def plan_rbac(stmt: g.RbacStatement, state: CatalogState, names: Names) -> RbacPlan:
    match stmt:
        case g.CreateRole():
            return _create_role(stmt, state, names.role_id)
        case g.AlterRole():
            return _alter_role(stmt, state, names.role_id)
        case g.DropRole():
            return _drop_role(stmt, state, names)
        case g.GrantRole() | g.RevokeRole():
            return _membership(stmt, state, names.role_id)
        case g.GrantPrivileges() | g.RevokePrivileges():
            return _privileges(stmt, state, names)
        case g.AlterOwner():
            return _alter_owner(stmt, state, names)


# ---- SCRAM secrets -----------------------------------------------------------------------------------------


def scram_secret(password: str) -> str:
    """The verifier PostgreSQL stores in pg_authid.rolpassword for `password`."""
    return secret_text(ScramVerifier.from_password(password))


def login_role(state: CatalogState, user: str) -> Role:
    role = state.role_by_name(user)
    if role is None:
        raise e.InvalidAuthorizationSpecification(f'role "{user}" does not exist', severity="FATAL")
    if not role.login:
        raise e.InvalidAuthorizationSpecification(f'role "{user}" is not permitted to log in', severity="FATAL")
    return role


# ---- roles -------------------------------------------------------------------------------------------------


def _may_create_roles(state: CatalogState, role_id: str) -> bool:
    return state.has_privilege(role_id, SYSTEM_OBJECT, "R")


def _role(state: CatalogState, name: str) -> Role:
    return state.resolve_role(name)


def _create_role(stmt: g.CreateRole, state: CatalogState, role_id: str) -> RbacPlan:
    options = stmt.options
    if not _may_create_roles(state, role_id):
        raise e.InsufficientPrivilege("permission denied to create role")
    if options.superuser and not is_superuser(state, role_id):
        raise e.InsufficientPrivilege("must be superuser to create superusers")
    if stmt.name.lower() in RESERVED_ROLE_NAMES:
        raise e.ReservedName(f'role name "{stmt.name}" is reserved')
    if stmt.name.startswith(RESERVED_ROLE_PREFIXES):
        raise e.ReservedName(
            f'role name "{stmt.name}" is reserved',
            detail=f'Role names starting with "{stmt.name[:3]}" are reserved.',
        )
    if state.role_by_name(stmt.name) is not None:
        raise e.DuplicateObject(f'role "{stmt.name}" already exists')
    op = o.CreateRole(
        stmt.name,
        superuser=bool(options.superuser),
        login=stmt.user if options.login is None else options.login,
        inherit=True if options.inherit is None else options.inherit,
        password_verifier=None if options.password is None else scram_secret(options.password),
    )
    return RbacPlan((op,), "CREATE ROLE")


def _alter_role(stmt: g.AlterRole, state: CatalogState, role_id: str) -> RbacPlan:
    target = _role(state, stmt.name)
    options = stmt.options
    if target.superuser or options.superuser is not None:
        if not is_superuser(state, role_id):
            raise e.InsufficientPrivilege("must be superuser to alter superuser roles or change superuser attribute")
    elif not _may_create_roles(state, role_id):
        own_password_only = (
            target.id == role_id and options.login is None and options.inherit is None and options.password_given
        )
        if not own_password_only:
            raise e.InsufficientPrivilege("permission denied")
    if is_builtin_id(target.id):
        raise e.ReservedName(f'role name "{target.name}" is reserved')
    password = None
    if options.password_given:
        secret = None if options.password is None else scram_secret(options.password)
        password = o.SetPassword(secret)
    op = o.AlterRole(target.id, options.superuser, options.login, options.inherit, password)
    return RbacPlan((op,), "ALTER ROLE")


def _drop_role(stmt: g.DropRole, state: CatalogState, names: Names) -> RbacPlan:
    role_id = names.role_id
    if not _may_create_roles(state, role_id):
        raise e.InsufficientPrivilege("permission denied to drop role")
    ops: list[o.Op] = []
    notices: list[Notice] = []
    for name in dict.fromkeys(stmt.names):
        target = state.role_by_name(name)
        if target is None:
            if not stmt.if_exists:
                raise e.UndefinedObject(f'role "{name}" does not exist')
            notices.append(Notice(f'role "{name}" does not exist, skipping'))
            continue
        if target.id == role_id:
            raise e.ObjectInUse("current user cannot be dropped")
        if target.superuser and not is_superuser(state, role_id):
            raise e.InsufficientPrivilege("must be superuser to drop superusers")
        if is_builtin_id(target.id):
            raise e.ReservedName(f'role name "{target.name}" is reserved')
        check_role_droppable(state, target.id, names.context)
        ops.append(o.DropRole(target.id))
    return RbacPlan(tuple(ops), "DROP ROLE", tuple(notices))


# ---- memberships -------------------------------------------------------------------------------------------


def _membership(stmt: g.GrantRole | g.RevokeRole, state: CatalogState, role_id: str) -> RbacPlan:
    grant = isinstance(stmt, g.GrantRole)
    ops: list[o.Op] = []
    notices: list[Notice] = []
    for role_name in stmt.roles:
        role = _role(state, role_name)
        for member_name in stmt.members:
            member = _role(state, member_name)
            if role.superuser and not is_superuser(state, role_id):
                raise e.InsufficientPrivilege("must be superuser to alter superusers")
            if not _may_create_roles(state, role_id):
                raise e.InsufficientPrivilege(f'must have admin option on role "{role.name}"')
            is_member = (role.id, member.id) in state.memberships
            if grant and is_member:
                notices.append(Notice(f'role "{member.name}" is already a member of role "{role.name}"'))
            elif grant:
                ops.append(o.GrantRole(role.id, member.id, role_id))
            elif is_member:
                ops.append(o.RevokeRole(role.id, member.id))
            else:
                message = f'role "{member.name}" is not a member of role "{role.name}"'
                notices.append(Notice(message, severity="WARNING", sqlstate="01000"))
    return RbacPlan(tuple(ops), "GRANT ROLE" if grant else "REVOKE ROLE", tuple(notices))


# ---- privileges --------------------------------------------------------------------------------------------


def _grantee(state: CatalogState, name: str) -> str:
    return PUBLIC_ROLE_ID if name == g.PUBLIC else _role(state, name).id


def _relation(state: CatalogState, names: Names, name: Name) -> Item:
    """The catalog item a privilege or ownership statement names as a relation (42P01 when there is none)."""
    if name.schema in BUILTIN_SCHEMAS or (name.schema is None and is_builtin_relation(None, name.name)):
        raise permission_denied("TABLE", name.written)
    item = state.lookup_item(
        name.name,
        current_database=names.database,
        search_path=names.search_path,
        schema=name.schema,
        database=name.database,
    )
    if item is None or item.kind == "index":
        if item is None:
            raise e.UndefinedTable(f'relation "{name.written}" does not exist')
        raise e.WrongObjectType(f'"{name.written}" is an index')
    return item


def schema_ref(state: CatalogState, names: Names, name: Name) -> ObjectRef:
    if len(name.parts) > 2:
        raise e.SyntaxError(f"improper qualified name (too many dotted names): {name.written}")
    database = state.resolve_database(name.schema or names.database)
    schema = state.find_schema(database.id, name.name)
    if schema is None:
        raise e.InvalidSchemaName(f'schema "{name.name}" does not exist')
    if schema.is_builtin:
        raise permission_denied("SCHEMA", schema.name)
    return ObjectRef("schema", schema.id)


def _object(state: CatalogState, names: Names, kind: str, name: Name) -> tuple[ObjectRef, str]:
    """(object, privilege kind) named in GRANT … ON kind name."""
    match kind:
        case "table":
            item = _relation(state, names, name)
            return ObjectRef("item", item.id), item.kind
        case "schema":
            return schema_ref(state, names, name), "schema"
        case "database":
            return ObjectRef("database", state.resolve_database(name.written).id), "database"
        case "secret" | "connection":  # GRANT USAGE ON SECRET / CONNECTION (planner/statements/secrets.py)
            found = state.lookup_item(
                name.name,
                current_database=names.database,
                search_path=names.search_path,
                schema=name.schema,
                database=name.database,
            )
            if found is None or found.kind != kind:
                raise e.UndefinedObject(f"unknown catalog item '{name.written}'")
            return ObjectRef("item", found.id), kind
        case _:
            return ObjectRef("cluster", state.resolve_cluster(name.written).id), "cluster"


def _letters(words: tuple[str, ...], kind: str) -> str:
    allowed = PRIVILEGES_BY_KIND[kind]
    if words == ("ALL",):
        return allowed
    letters = ""
    for word in words:
        letter = _LETTERS[word]
        if letter not in allowed:
            raise e.InvalidGrantOperation(f"invalid privilege type {word} for {namespace_noun(kind)}")
        letters += letter
    return "".join(dict.fromkeys(letters))


def _privileges(stmt: g.GrantPrivileges | g.RevokePrivileges, state: CatalogState, names: Names) -> RbacPlan:
    grant = isinstance(stmt, g.GrantPrivileges)
    role_id = names.role_id
    targets: list[tuple[ObjectRef, str, str]] = []  # (object, privilege kind, grantor)
    if stmt.kind == "system":
        if not is_superuser(state, role_id):
            raise e.InsufficientPrivilege(
                f"permission denied to {'grant' if grant else 'revoke'} system privileges",
                detail="You must be a superuser to grant or revoke system privileges",
            )
        targets.append((SYSTEM_OBJECT, "system", MZ_SYSTEM_ROLE_ID))
    for name in stmt.objects:
        obj, kind = _object(state, names, stmt.kind, name)
        check_owner(obj, state, role_id)
        owner = state.owner_of(obj)
        targets.append((obj, kind, owner if owner is not None else role_id))
    grantees = [_grantee(state, name) for name in stmt.grantees]
    ops: list[o.Op] = []
    for obj, kind, grantor in targets:
        letters = _letters(stmt.privileges, kind)
        if not letters:
            continue
        for grantee in grantees:
            if grant:
                ops.append(o.GrantPrivileges(obj, grantee, grantor, letters))
            else:
                ops.append(o.RevokePrivileges(obj, grantee, letters))
    return RbacPlan(tuple(ops), "GRANT" if grant else "REVOKE")


# ---- ownership ---------------------------------------------------------------------------------------------


def _owned(stmt: g.AlterOwner, state: CatalogState, names: Names) -> ObjectRef | None:
    match stmt.kind:
        case "schema":
            return schema_ref(state, names, stmt.name)
        case "database":
            return ObjectRef("database", state.resolve_database(stmt.name.written).id)
        case "cluster":
            return ObjectRef("cluster", state.resolve_cluster(stmt.name.written).id)
    try:
        item = _relation(state, names, stmt.name)
    except e.UndefinedTable:
        if stmt.if_exists:
            return None
        raise
    if item.kind != stmt.kind:
        raise e.WrongObjectType(f'"{stmt.name.written}" is not a {noun(stmt.kind)}')
    return ObjectRef("item", item.id)


def _alter_owner(stmt: g.AlterOwner, state: CatalogState, names: Names) -> RbacPlan:
    tag = _OWNER_TAGS[stmt.kind]
    obj = _owned(stmt, state, names)
    if obj is None:
        return RbacPlan((), tag, (Notice(f'relation "{stmt.name.written}" does not exist, skipping'),))
    new_owner = _role(state, stmt.new_owner)
    role_id = names.role_id
    if not is_superuser(state, role_id):
        check_owner(obj, state, role_id)
        if new_owner.id != role_id and new_owner.id not in state.all_roles_of(role_id):
            raise e.InsufficientPrivilege(f'must be member of role "{new_owner.name}"')
    ops: list[o.Op] = [o.AlterOwner(obj, new_owner.id)]
    if obj.kind == "item":
        indexes = sorted(
            (i for i in state.items.values() if i.kind == "index" and i.on_id == obj.id), key=lambda i: i.oid
        )
        ops += [o.AlterOwner(ObjectRef("item", i.id), new_owner.id) for i in indexes]
    return RbacPlan(tuple(ops), tag)
