"""`CatalogState`: one immutable snapshot of the catalog with the lookups every layer needs.

Contract: a state is never mutated after construction (its maps are treated as read-only; `evolve` makes a new
state sharing unchanged objects). Lookups return None when an object is absent; `resolve_*` methods raise the
`PgError` PostgreSQL raises for a missing name. Derived indexes (names, OIDs, reverse dependencies,
memberships) are built lazily, once per snapshot. Readers take `catalog.state` and keep using that snapshot;
they never lock.

Name resolution follows PostgreSQL: an unqualified item name is looked up in mz_catalog and pg_catalog (unless
the search_path names them) and then in the search_path's schemas of the current database; builtin schemas are
ambient (they resolve in every database). Privileges follow PostgreSQL too: superusers bypass checks, owners
hold every privilege, and a role holds the privileges of the roles it inherits (transitively, through roles
with INHERIT) and of PUBLIC. Drop planning (RESTRICT/CASCADE) lives in `sparkwire.catalog.drops`.
`comments` holds COMMENT ON texts by (object, column number or 0). `system_vars` holds the ALTER SYSTEM values
(`system_defaults`: canonical variable name → value), the defaults
of session variables.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from sparkwire.catalog.builtins import (
    FIRST_USER_OID,
    FIRST_USER_SCHEMA_NUMBER,
    IMPLICIT_SEARCH_SCHEMAS,
    PUBLIC_ROLE_ID,
)
from sparkwire.catalog.objects import (
    Cluster,
    Comment,
    Database,
    IgnoredNotice,
    Item,
    ItemKind,
    ObjectRef,
    Privilege,
    Role,
    RoleMembership,
    Schema,
    SystemVariable,
)
from sparkwire.catalog.wording import noun, undefined_item, with_article
from sparkwire.errors import (
    InsufficientPrivilege,
    InvalidCatalogName,
    InvalidSchemaName,
    UndefinedObject,
    WrongObjectType,
)

PrivilegeKey = tuple[ObjectRef, str, str]  # (object, grantee_id, grantor_id)
MembershipKey = tuple[str, str]  # (role_id, member_id)
CommentKey = tuple[ObjectRef, int]  # (object, column number or 0)


@dataclass(frozen=True, slots=True)
class Counters:
    """The next number of each id allocator and the next OID; they only move forward."""

    database: int = 1
    schema: int = FIRST_USER_SCHEMA_NUMBER
    role: int = 1
    cluster: int = 1
    item: int = 1
    replica: int = 1
    oid: int = FIRST_USER_OID


@dataclass(frozen=True, slots=True)
class NameContext:
    """A session's naming context: messages qualify an object (`s.t`) unless its plain name resolves to it."""

    database: str
    search_path: tuple[str, ...]


class CatalogState:
    """An immutable catalog snapshot. Build new ones with `evolve`."""

    def __init__(
        self,
        *,
        databases: Mapping[str, Database],
        schemas: Mapping[str, Schema],
        roles: Mapping[str, Role],
        memberships: Mapping[MembershipKey, RoleMembership],
        clusters: Mapping[str, Cluster],
        items: Mapping[str, Item],
        privileges: Mapping[PrivilegeKey, Privilege],
        notices: Mapping[str, IgnoredNotice],
        counters: Counters,
        revision: int,
        system_vars: Mapping[str, SystemVariable] | None = None,
        comments: Mapping[CommentKey, Comment] | None = None,
    ) -> None:
        self.databases = databases
        self.schemas = schemas
        self.roles = roles
        self.memberships = memberships
        self.clusters = clusters
        self.items = items
        self.privileges = privileges
        self.notices = notices
        self.system_vars: Mapping[str, SystemVariable] = {} if system_vars is None else system_vars
        self.comments: Mapping[CommentKey, Comment] = {} if comments is None else comments
        self.counters = counters
        self.revision = revision

    def evolve(
        self,
        *,
        databases: Mapping[str, Database] | None = None,
        schemas: Mapping[str, Schema] | None = None,
        roles: Mapping[str, Role] | None = None,
        memberships: Mapping[MembershipKey, RoleMembership] | None = None,
        clusters: Mapping[str, Cluster] | None = None,
        items: Mapping[str, Item] | None = None,
        privileges: Mapping[PrivilegeKey, Privilege] | None = None,
        notices: Mapping[str, IgnoredNotice] | None = None,
        counters: Counters | None = None,
        revision: int | None = None,
        system_vars: Mapping[str, SystemVariable] | None = None,
        comments: Mapping[CommentKey, Comment] | None = None,
    ) -> CatalogState:
        """A new state with the given maps replaced (the caller passes fresh maps, never mutated later)."""
        return CatalogState(
            databases=self.databases if databases is None else databases,
            schemas=self.schemas if schemas is None else schemas,
            roles=self.roles if roles is None else roles,
            memberships=self.memberships if memberships is None else memberships,
            clusters=self.clusters if clusters is None else clusters,
            items=self.items if items is None else items,
            privileges=self.privileges if privileges is None else privileges,
            notices=self.notices if notices is None else notices,
            counters=self.counters if counters is None else counters,
            revision=self.revision if revision is None else revision,
            system_vars=self.system_vars if system_vars is None else system_vars,
            comments=self.comments if comments is None else comments,
        )

    def with_counters(self, **changes: int) -> CatalogState:
        return self.evolve(counters=dataclasses.replace(self.counters, **changes))

    # ---- derived indexes ----------------------------------------------------------------------------------

    @cached_property
    def system_defaults(self) -> dict[str, str]:
        """ALTER SYSTEM values by canonical variable name: the defaults of new sessions' variables."""
        return {name: v.value for name, v in self.system_vars.items()}

    @cached_property
    def _database_by_name(self) -> dict[str, Database]:
        return {d.name: d for d in self.databases.values()}

    @cached_property
    def _schema_by_name(self) -> dict[tuple[str | None, str], Schema]:
        return {(s.database_id, s.name): s for s in self.schemas.values()}

    @cached_property
    def _item_by_name(self) -> dict[tuple[str, str], Item]:
        return {(i.schema_id, i.name): i for i in self.items.values()}

    @cached_property
    def _item_by_oid(self) -> dict[int, Item]:
        return {i.oid: i for i in self.items.values()}

    @cached_property
    def _items_by_schema(self) -> dict[str, list[Item]]:
        out: dict[str, list[Item]] = {}
        for item in self.items.values():
            out.setdefault(item.schema_id, []).append(item)
        return out

    @cached_property
    def _role_by_name(self) -> dict[str, Role]:
        return {r.name: r for r in self.roles.values()}

    @cached_property
    def _cluster_by_name(self) -> dict[str, Cluster]:
        return {c.name: c for c in self.clusters.values()}

    @cached_property
    def _dependents(self) -> dict[str, frozenset[str]]:
        out: dict[str, set[str]] = {}
        for item in self.items.values():
            for ref in item.references:
                out.setdefault(ref, set()).add(item.id)
        return {k: frozenset(v) for k, v in out.items()}

    @cached_property
    def _roles_of_member(self) -> dict[str, frozenset[str]]:
        out: dict[str, set[str]] = {}
        for m in self.memberships.values():
            out.setdefault(m.member_id, set()).add(m.role_id)
        return {k: frozenset(v) for k, v in out.items()}

    @cached_property
    def _privileges_by_object(self) -> dict[ObjectRef, list[Privilege]]:
        out: dict[ObjectRef, list[Privilege]] = {}
        for p in self.privileges.values():
            out.setdefault(p.object, []).append(p)
        return out

    # ---- databases, schemas, clusters, roles --------------------------------------------------------------

    def database_by_name(self, name: str) -> Database | None:
        return self._database_by_name.get(name)

    def resolve_database(self, name: str) -> Database:
        db = self._database_by_name.get(name)
        if db is None:
            raise InvalidCatalogName(f'database "{name}" does not exist')
        return db

    def find_schema(self, database_id: str | None, name: str) -> Schema | None:
        """The schema `name` in the database, or the builtin (ambient) schema of that name."""
        found = self._schema_by_name.get((database_id, name))
        return found if found is not None else self._schema_by_name.get((None, name))

    def resolve_schema(self, database: str, name: str) -> Schema:
        db = self.resolve_database(database)
        schema = self.find_schema(db.id, name)
        if schema is None:
            raise InvalidSchemaName(f'schema "{name}" does not exist')
        return schema

    def schemas_in(self, database_id: str) -> list[Schema]:
        return [s for s in self.schemas.values() if s.database_id == database_id]

    def cluster_by_name(self, name: str) -> Cluster | None:
        return self._cluster_by_name.get(name)

    def resolve_cluster(self, name: str) -> Cluster:
        cluster = self._cluster_by_name.get(name)
        if cluster is None:
            raise UndefinedObject(f'cluster "{name}" does not exist')
        return cluster

    def role_by_name(self, name: str) -> Role | None:
        return self._role_by_name.get(name)

    def resolve_role(self, name: str) -> Role:
        role = self._role_by_name.get(name)
        if role is None:
            raise UndefinedObject(f'role "{name}" does not exist')
        return role

    # ---- items --------------------------------------------------------------------------------------------

    def item_by_oid(self, oid: int) -> Item | None:
        return self._item_by_oid.get(oid)

    def find_item(self, schema_id: str, name: str) -> Item | None:
        return self._item_by_name.get((schema_id, name))

    def items_in_schema(self, schema_id: str) -> list[Item]:
        return sorted(self._items_by_schema.get(schema_id, ()), key=lambda i: i.oid)

    def lookup_item(
        self,
        name: str,
        *,
        current_database: str,
        search_path: Sequence[str],
        schema: str | None = None,
        database: str | None = None,
    ) -> Item | None:
        """Find an item by (optionally qualified) name; None if absent (or its schema is). A named database
        must exist (InvalidCatalogName)."""
        if schema is not None:
            db = self.resolve_database(database or current_database)
            found = self.find_schema(db.id, schema)
            return None if found is None else self.find_item(found.id, name)
        db = self.resolve_database(current_database)
        for schema_name in self.effective_search_path(search_path):
            candidate = self.find_schema(db.id, schema_name)
            if candidate is not None and (item := self.find_item(candidate.id, name)) is not None:
                return item
        return None

    def resolve_item(
        self,
        name: str,
        *,
        current_database: str,
        search_path: Sequence[str],
        schema: str | None = None,
        database: str | None = None,
        expected: ItemKind | None = None,
    ) -> Item:
        """Like `lookup_item` but raising PostgreSQL's error when absent, or WrongObjectType if `expected` is
        given and the item is of another kind (`"t" is not a view`)."""
        item = self.lookup_item(
            name, current_database=current_database, search_path=search_path, schema=schema, database=database
        )
        written = ".".join(p for p in (database, schema, name) if p is not None)
        if item is None:
            raise undefined_item(expected, written)
        if expected is not None and item.kind != expected:
            raise WrongObjectType(
                f'"{written}" is not {with_article(noun(expected))}',
                hint=f"Use DROP {noun(item.kind).upper()} to remove {with_article(noun(item.kind))}.",
            )
        return item

    @staticmethod
    def effective_search_path(search_path: Sequence[str]) -> list[str]:
        implicit = [s for s in IMPLICIT_SEARCH_SCHEMAS if s not in search_path]
        return [*implicit, *search_path]

    def describe_item(self, item_id: str, names: NameContext | None = None) -> str:
        """PostgreSQL's description of an item in messages: "table t", "materialized view s.mv" (qualified
        when `names` is given and the plain name does not resolve to the item there)."""
        item = self.items[item_id]
        return f"{noun(item.kind)} {self.display_name(item, names)}"

    def display_name(self, item: Item, names: NameContext | None) -> str:
        if names is None or self._is_visible(item, names):
            return item.name
        return f"{self.schemas[item.schema_id].name}.{item.name}"

    def _is_visible(self, item: Item, names: NameContext) -> bool:
        db = self._database_by_name.get(names.database)
        if db is None:
            return False
        for schema_name in self.effective_search_path(names.search_path):
            schema = self.find_schema(db.id, schema_name)
            if schema is not None and (found := self.find_item(schema.id, item.name)) is not None:
                return found is item
        return False

    def qualified_name(self, item: Item) -> str:
        schema = self.schemas[item.schema_id]
        if schema.database_id is None:
            return f"{schema.name}.{item.name}"
        return f"{self.databases[schema.database_id].name}.{schema.name}.{item.name}"

    # ---- dependencies -------------------------------------------------------------------------------------

    def direct_dependents(self, item_id: str) -> frozenset[str]:
        return self._dependents.get(item_id, frozenset())

    def dependents(self, item_id: str) -> set[str]:
        """Every item that depends on `item_id`, transitively (not including `item_id`)."""
        seen: set[str] = set()
        stack = [item_id]
        while stack:
            for dep in self._dependents.get(stack.pop(), ()):
                if dep not in seen:
                    seen.add(dep)
                    stack.append(dep)
        return seen

    # ---- roles and privileges -----------------------------------------------------------------------------

    def member_of(self, member_id: str) -> frozenset[str]:
        """The roles `member_id` was granted directly."""
        return self._roles_of_member.get(member_id, frozenset())

    def all_roles_of(self, member_id: str) -> set[str]:
        """Every role `member_id` belongs to, transitively, regardless of INHERIT (for cycle checks)."""
        seen: set[str] = set()
        stack = [member_id]
        while stack:
            for role_id in self.member_of(stack.pop()):
                if role_id not in seen:
                    seen.add(role_id)
                    stack.append(role_id)
        return seen

    def effective_roles(self, role_id: str) -> frozenset[str]:
        """The roles whose privileges `role_id` uses: itself, PUBLIC, and the roles it inherits transitively
        (membership is followed only out of roles that have INHERIT, as in PostgreSQL)."""
        seen = {role_id, PUBLIC_ROLE_ID}
        stack = [role_id]
        while stack:
            current = self.roles.get(stack.pop())
            if current is None or not current.inherit:
                continue
            for granted in self.member_of(current.id):
                if granted not in seen:
                    seen.add(granted)
                    stack.append(granted)
        return frozenset(seen)

    def owner_of(self, obj: ObjectRef) -> str | None:
        found: Database | Schema | Cluster | Item | None
        match obj.kind:
            case "database":
                found = self.databases.get(obj.id)
            case "schema":
                found = self.schemas.get(obj.id)
            case "cluster":
                found = self.clusters.get(obj.id)
            case "item":
                found = self.items.get(obj.id)
            case "system" | "role":
                found = None
        return None if found is None else found.owner_id

    def privileges_on(self, obj: ObjectRef) -> list[Privilege]:
        return list(self._privileges_by_object.get(obj, ()))

    def has_privilege(self, role_id: str, obj: ObjectRef, letter: str) -> bool:
        """Does `role_id` hold privilege `letter` on `obj`? Superusers always do; owners do; otherwise a grant
        to the role, to a role it inherits, or to PUBLIC is needed."""
        role = self.roles.get(role_id)
        if role is None:
            return False
        if role.superuser:
            return True
        roles = self.effective_roles(role_id)
        if self.owner_of(obj) in roles:
            return True
        return any(p.grantee_id in roles and letter in p.privileges for p in self.privileges_on(obj))

    def check_privilege(self, role_id: str, obj: ObjectRef, letter: str) -> None:
        """Raise InsufficientPrivilege (`permission denied for table t`) unless `has_privilege`."""
        if not self.has_privilege(role_id, obj, letter):
            raise InsufficientPrivilege(f"permission denied for {self.describe_object(obj)}")

    def describe_object(self, obj: ObjectRef, names: NameContext | None = None) -> str:
        match obj.kind:
            case "database":
                return f"database {self.databases[obj.id].name}"
            case "schema":
                return f"schema {self.schemas[obj.id].name}"
            case "cluster":
                return f"cluster {self.clusters[obj.id].name}"
            case "item":
                return self.describe_item(obj.id, names)
            case "role":
                return f"role {self.roles[obj.id].name}"
            case "system":
                return "system"

    def objects_owned_by(self, role_id: str) -> list[ObjectRef]:
        return [
            *(ObjectRef("database", o.id) for o in self.databases.values() if o.owner_id == role_id),
            *(ObjectRef("schema", o.id) for o in self.schemas.values() if o.owner_id == role_id),
            *(ObjectRef("cluster", o.id) for o in self.clusters.values() if o.owner_id == role_id),
            *(ObjectRef("item", o.id) for o in self.items.values() if o.owner_id == role_id),
        ]
