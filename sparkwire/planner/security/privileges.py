"""Privilege checks: what a role may read, write, create and alter, with Materialize's errors.

Contract (every function takes the session's `CatalogState` and the role the session runs as; superusers pass every
check; a role holds the privileges of the roles it inherits and of PUBLIC, and owners hold every privilege —
`CatalogState.has_privilege`):
- `check_read(tree, state, names, role_id) -> tree` checks every relation a statement reads — direct references,
  joins, subqueries, CTE bodies, the query of COPY (…) TO and of EXPLAIN (pass the explained statement's tree) —
  and returns the tree to run: `tree` itself, or a copy in which each reference to a row-filtered builtin relation
  (mz_internal.mz_notices_redacted for a role without full access) is replaced by a subquery that keeps only the
  rows of objects the role owns or may SELECT. User relations need USAGE on their schema and SELECT; a view or
  materialized view is read with its owner's rights: the owner needs USAGE and SELECT on everything the view
  reads, recursively (PostgreSQL's rules for views, Materialize's for both kinds). Builtin relations are readable
  as their sensitivity says (`builtin_access`); through a view, a row-filtered relation needs the view owner's
  full access.
- `check_dml(tree, state, names, role_id) -> tree` for INSERT / UPDATE / DELETE / COPY … FROM (sqlglot's trees):
  the target needs INSERT / UPDATE / DELETE (`check_write`; COPY FROM is an INSERT), UPDATE and DELETE also SELECT
  on it (they read it, as Materialize's read-then-write), and every other relation the statement reads goes
  through `check_read`. Any other statement is passed to `check_read`.
- `check_write(target, verb, state, role_id)` for a write to a user table (COPY FROM is an INSERT).
- `check_create(schema, state, role_id)`: CREATE on the schema. `check_owner(obj, state, role_id)`: ownership
  (membership in the owning role), needed to DROP, ALTER, GRANT and REVOKE.
- `check_ops(ops, state, role_id)`: the checks a DDL plan's catalog ops need, before `transact`: CREATE on the
  schema for a new item (and ownership of the indexed relation for an index, CREATE on the cluster for an index or
  materialized view), ownership of every replaced, renamed or dropped item and dropped schema, CREATE on the
  database for a new schema. Role and privilege ops are checked by `rbac.plan_rbac` instead.

Errors are 42501 in Materialize's wording (issue 5 asks for it): `permission denied for TABLE
"materialize.public.t"` (VIEW, MATERIALIZED VIEW, SCHEMA "materialize.public", DATABASE "materialize", CLUSTER
"quickstart"; builtin relations as TABLE "mz_internal.mz_notices") and `must be owner of TABLE
materialize.public.t`.

Builtin relations' access by sensitivity: `public` everyone; `superuser_and_support` superusers and mz_support;
`superuser` superusers only. The notice relations of issue 5: mz_optimizer_notices, mz_notices and
mz_ignored_optimizer_notices are for superusers and mz_monitor; mz_notices_redacted also for mz_support and
mz_monitor_redacted, and for any other role row-filtered to the objects it owns or may SELECT.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Literal

from sqlglot import exp

from sparkwire import errors as e
from sparkwire.catalog import CatalogState
from sparkwire.catalog.builtins import IMPLICIT_SEARCH_SCHEMAS
from sparkwire.catalog.objects import Item, ObjectRef, Schema
from sparkwire.catalog.ops import (
    AlterCluster,
    CreateCluster,
    CreateClusterReplica,
    CreateDatabase,
    CreateItem,
    CreateSchema,
    DropCluster,
    DropClusterReplica,
    DropDatabase,
    DropItems,
    DropSchema,
    Op,
    RenameItem,
    ReplaceItem,
)
from sparkwire.catalog.relations.relation import BuiltinRelation
from sparkwire.planner.bind.resolve import (
    BUILTIN_SCHEMAS,
    Names,
    cte_names,
    is_table_function,
    relation_references,
    resolve_table,
)
from sparkwire.planner.grammar import ddl as ddl_grammar
from sparkwire.planner.security.stat_activity import RELATION as STAT_ACTIVITY
from sparkwire.planner.security.stat_activity import masked_columns, needs_mask
from sparkwire.planner.translate.duckdb import parse

MZ_SUPPORT_ROLE_ID = "s2"
MZ_MONITOR_ROLE_ID = "g1"
MZ_MONITOR_REDACTED_ROLE_ID = "g2"

Verb = Literal["INSERT", "UPDATE", "DELETE"]
_LETTER: dict[str, str] = {"SELECT": "r", "INSERT": "a", "UPDATE": "w", "DELETE": "d", "USAGE": "U", "CREATE": "C"}
_KIND_WORDS: dict[str, str] = {"materialized-view": "MATERIALIZED VIEW"}


RowFilter = Literal["objects", "own_statements", "own_lifecycle"]


@dataclass(frozen=True, slots=True)
class BuiltinAccess:
    """Who reads a builtin relation: `readers` None = everyone; otherwise superusers and members of these roles.
    `row_filtered`: any other role may read it too, only some rows — `row_filter` says which: "objects", those of
    objects it owns or may SELECT (the notices); "own_statements", the statements its sessions ran (the statement
    history, by `authenticated_user`); "own_lifecycle", the lifecycle events of those statements."""

    readers: frozenset[str] | None
    row_filtered: bool = False
    row_filter: RowFilter = "objects"


_BY_SENSITIVITY: dict[str, BuiltinAccess] = {
    "public": BuiltinAccess(None),
    "superuser_and_support": BuiltinAccess(frozenset({MZ_SUPPORT_ROLE_ID})),
    "superuser": BuiltinAccess(frozenset()),
}
_MONITOR = BuiltinAccess(frozenset({MZ_MONITOR_ROLE_ID}))
# Issue 5 item 7: the notice relations' readers (by name: their access is part of the feature, not of a family).
_NOTICE_ACCESS: dict[tuple[str, str], BuiltinAccess] = {
    ("mz_internal", "mz_optimizer_notices"): _MONITOR,
    ("mz_internal", "mz_notices"): _MONITOR,
    ("mz_internal", "mz_ignored_optimizer_notices"): _MONITOR,
    ("mz_internal", "mz_notices_redacted"): BuiltinAccess(
        frozenset({MZ_MONITOR_ROLE_ID, MZ_MONITOR_REDACTED_ROLE_ID, MZ_SUPPORT_ROLE_ID}), row_filtered=True
    ),
    # Issue 14: live Spark work (introspection/workload/spark_jobs.py) is for superusers and mz_monitor.
    ("mz_internal", "mz_spark_jobs"): _MONITOR,
    ("mz_internal", "mz_spark_stages"): _MONITOR,
}
_MONITORS = frozenset({MZ_MONITOR_ROLE_ID})
_REDACTED_READERS = frozenset({MZ_MONITOR_ROLE_ID, MZ_MONITOR_REDACTED_ROLE_ID, MZ_SUPPORT_ROLE_ID})
# Issue 14: the statement history, as Materialize's roles read it; every other role reads its own statements.
_NOTICE_ACCESS.update(
    {
        ("mz_internal", "mz_recent_activity_log"): BuiltinAccess(_MONITORS, True, "own_statements"),
        ("mz_internal", "mz_recent_activity_log_redacted"): BuiltinAccess(_REDACTED_READERS, True, "own_statements"),
        ("mz_internal", "mz_statement_lifecycle_history"): BuiltinAccess(_REDACTED_READERS, True, "own_lifecycle"),
        ("mz_internal", "mz_sql_text"): _MONITOR,
        ("mz_internal", "mz_sql_text_redacted"): BuiltinAccess(_REDACTED_READERS),
    }
)
ROW_FILTER_COLUMN = "object_id"


def builtin_access(schema: str, name: str, sensitivity: str) -> BuiltinAccess:
    return _NOTICE_ACCESS.get((schema, name)) or _BY_SENSITIVITY[sensitivity]


def is_superuser(state: CatalogState, role_id: str) -> bool:
    role = state.roles.get(role_id)
    return role is not None and role.superuser


# ---- descriptions and errors ---------------------------------------------------------------------------------


def object_description(state: CatalogState, obj: ObjectRef) -> tuple[str, str]:
    """(KIND, full name) as Materialize prints an object in RBAC errors."""
    match obj.kind:
        case "item":
            item = state.items[obj.id]
            return _KIND_WORDS.get(item.kind, item.kind.upper()), state.qualified_name(item)
        case "schema":
            schema = state.schemas[obj.id]
            if schema.database_id is None:
                return "SCHEMA", schema.name
            return "SCHEMA", f"{state.databases[schema.database_id].name}.{schema.name}"
        case "database":
            return "DATABASE", state.databases[obj.id].name
        case "cluster":
            return "CLUSTER", state.clusters[obj.id].name
        case "role":
            return "ROLE", state.roles[obj.id].name
        case "system":
            return "SYSTEM", ""


def permission_denied(kind: str, name: str) -> e.PgError:
    what = f'permission denied for {kind} "{name}"' if name else f"permission denied for {kind}"
    return e.InsufficientPrivilege(what)


def _denied(state: CatalogState, obj: ObjectRef) -> e.PgError:
    return permission_denied(*object_description(state, obj))


# ---- single checks -------------------------------------------------------------------------------------------


def check_privilege(obj: ObjectRef, privilege: str, state: CatalogState, role_id: str) -> None:
    """`privilege`: SELECT, INSERT, UPDATE, DELETE, USAGE or CREATE (or an ACL letter)."""
    if not state.has_privilege(role_id, obj, _LETTER.get(privilege, privilege)):
        raise _denied(state, obj)


def check_owner(obj: ObjectRef, state: CatalogState, role_id: str) -> None:
    if is_superuser(state, role_id):
        return
    if state.owner_of(obj) in state.effective_roles(role_id):
        return
    kind, name = object_description(state, obj)
    raise e.InsufficientPrivilege(f"must be owner of {kind} {name}")


def check_create(schema: Schema, state: CatalogState, role_id: str) -> None:
    check_privilege(ObjectRef("schema", schema.id), "CREATE", state, role_id)


def check_write(target: Item, verb: Verb, state: CatalogState, role_id: str) -> None:
    check_privilege(ObjectRef("schema", target.schema_id), "USAGE", state, role_id)
    check_privilege(ObjectRef("item", target.id), verb, state, role_id)


# ---- reads ---------------------------------------------------------------------------------------------------


@cache
def _relations_by_name() -> dict[tuple[str, str], BuiltinRelation]:
    from sparkwire.introspection.relations import RELATIONS

    return {(rel.schema, rel.name): rel for rel in RELATIONS}


def builtin_relation_name(node: exp.Table) -> tuple[str, str] | None:
    """(schema, name) of the builtin relation a reference that `resolve_table` left to DuckDB names; None when it
    names none (DuckDB reports the missing relation)."""
    relations = _relations_by_name()
    if node.db:
        key = (node.db, node.name)
        return key if key in relations or key in _NOTICE_ACCESS else None
    for schema in IMPLICIT_SEARCH_SCHEMAS:
        if (schema, node.name) in relations:
            return schema, node.name
    return None


def _builtin_access_of(key: tuple[str, str]) -> BuiltinAccess:
    relation = _relations_by_name().get(key)
    return builtin_access(key[0], key[1], "superuser" if relation is None else relation.sensitivity)


def _has_full_access(access: BuiltinAccess, state: CatalogState, role_id: str) -> bool:
    if access.readers is None or is_superuser(state, role_id):
        return True
    return not access.readers.isdisjoint(state.effective_roles(role_id))


@lru_cache(maxsize=512)
def _view_builtins(create_sql: str) -> tuple[tuple[str, str], ...]:
    """The builtin relations a view's stored definition reads (user relations are its `dependencies`)."""
    stmt = ddl_grammar.parse_materialize_ddl(create_sql)
    if not isinstance(stmt, ddl_grammar.CreateView):
        return ()
    found: list[tuple[str, str]] = []
    for node in parse(stmt.query).find_all(exp.Table):
        if is_table_function(node) or (not node.db and node.name in cte_names(node)):
            continue
        if node.db and node.db not in BUILTIN_SCHEMAS:
            continue
        key = builtin_relation_name(node)
        if key is not None:
            found.append(key)
    return tuple(dict.fromkeys(found))


class _ReadCheck:
    """One statement's read check; `seen` avoids checking a (object, role) pair twice."""

    def __init__(self, state: CatalogState, reader: str) -> None:
        self.state = state
        self.reader = reader  # the role that runs the statement
        self.seen: set[tuple[str, str]] = set()

    def item(self, item: Item, role_id: str) -> None:
        if (item.id, role_id) in self.seen:
            return
        self.seen.add((item.id, role_id))
        check_privilege(ObjectRef("schema", item.schema_id), "USAGE", self.state, role_id)
        check_privilege(ObjectRef("item", item.id), "SELECT", self.state, role_id)
        if item.kind in ("view", "materialized-view"):
            self.view_inputs(item)

    def view_inputs(self, view: Item) -> None:
        for dependency in view.dependencies:
            found = self.state.items.get(dependency)
            if found is not None:
                self.item(found, view.owner_id)
        for key in _view_builtins(view.create_sql):
            self.builtin(key, view.owner_id, allow_row_filter=False)
            if key == STAT_ACTIVITY and (
                needs_mask(self.state, self.reader, _MONITORS) or needs_mask(self.state, view.owner_id, _MONITORS)
            ):  # the mask rewrites the statement, not a view's body: through a view, only with full access
                raise permission_denied("TABLE", f"{key[0]}.{key[1]}")

    def builtin(self, key: tuple[str, str], role_id: str, *, allow_row_filter: bool) -> bool:
        """Raise unless `role_id` may read the builtin relation; True when its rows must be filtered."""
        access = _builtin_access_of(key)
        if _has_full_access(access, self.state, role_id):
            return False
        if access.row_filtered and allow_row_filter:
            return True
        raise permission_denied("TABLE", f"{key[0]}.{key[1]}")


def check_read(tree: exp.Expression, state: CatalogState, names: Names, role_id: str) -> exp.Expression:
    if is_superuser(state, role_id):
        return tree
    return _check_reads(tree, state, names, role_id, skip=None)


def _check_reads(
    tree: exp.Expression, state: CatalogState, names: Names, role_id: str, skip: exp.Table | None
) -> exp.Expression:
    check = _ReadCheck(state, role_id)
    rewritten: dict[int, tuple[str, str]] = {}  # table references that read a filtered or masked relation
    tables = list(tree.find_all(exp.Table))
    position = {id(node): n for n, node in enumerate(tables)}
    for node, item in relation_references(tree, state, names):
        if node is skip:
            continue
        if item is not None:
            check.item(item, role_id)
            continue
        key = builtin_relation_name(node)
        filtered = key is not None and check.builtin(key, role_id, allow_row_filter=True)  # raises if denied
        if key is not None and (filtered or (key == STAT_ACTIVITY and needs_mask(state, role_id, _MONITORS))):
            rewritten[position[id(node)]] = key
    if not rewritten:
        return tree
    return _rewrite_references(tree, rewritten, lambda key: _readable_rows(key, state, role_id))


def _readable_rows(key: tuple[str, str], state: CatalogState, role_id: str) -> exp.Select:
    """What `role_id` reads in place of builtin relation `key`: its rows the role may read, or pg_stat_activity
    with other roles' sessions masked (stat_activity.py)."""
    source = exp.Table(this=exp.to_identifier(key[1]), db=exp.to_identifier(key[0]))
    if key == STAT_ACTIVITY:
        columns = [name for name, _ in _relations_by_name()[STAT_ACTIVITY].columns]
        return exp.select(*masked_columns(columns, state, role_id)).from_(source)
    return exp.select("*").from_(source).where(_row_condition(key, state, role_id))


def _row_condition(key: tuple[str, str], state: CatalogState, role_id: str) -> exp.Expression:
    """The condition that keeps the rows of builtin relation `key` that `role_id` may read."""
    kind = _builtin_access_of(key).row_filter
    if kind == "objects":
        ids = [exp.Literal.string(i) for i in visible_objects(state, role_id)]
        return exp.In(this=exp.column(ROW_FILTER_COLUMN), expressions=ids) if ids else exp.false()
    own = exp.EQ(this=exp.column("authenticated_user"), expression=exp.Literal.string(state.roles[role_id].name))
    if kind == "own_statements":
        return own
    statements = (
        exp.select("execution_id").from_(exp.table_("mz_recent_activity_log_redacted", db="mz_internal")).where(own)
    )
    return exp.In(this=exp.column("statement_id"), query=exp.Subquery(this=statements))


def visible_objects(state: CatalogState, role_id: str) -> list[str]:
    """Ids of the items whose notices a role may read: those it owns or may SELECT (an index: its relation)."""
    roles = state.effective_roles(role_id)

    def may_select(item: Item) -> bool:
        if item.owner_id in roles:
            return True
        target = state.items.get(item.on_id) if item.kind == "index" and item.on_id else item
        return target is not None and state.has_privilege(role_id, ObjectRef("item", target.id), "r")

    return sorted(i.id for i in state.items.values() if may_select(i))


def _rewrite_references(
    tree: exp.Expression,
    rewritten: dict[int, tuple[str, str]],
    query_of: Callable[[tuple[str, str]], exp.Select],
) -> exp.Expression:
    """A copy of `tree` whose `rewritten` table references (by position in `find_all` order) read
    `query_of(relation)` instead, under the reference's name."""
    out = tree.copy()
    tables = list(out.find_all(exp.Table))
    for n, key in rewritten.items():
        node = tables[n]
        alias = exp.TableAlias(this=exp.to_identifier(node.alias_or_name))
        node.replace(exp.Subquery(this=query_of(key), alias=alias))
    return out


# ---- writes --------------------------------------------------------------------------------------------------


def check_dml(tree: exp.Expression, state: CatalogState, names: Names, role_id: str) -> exp.Expression:
    if is_superuser(state, role_id):
        return tree
    verb: Verb
    match tree:
        case exp.Insert():
            verb = "INSERT"
        case exp.Update():
            verb = "UPDATE"
        case exp.Delete():
            verb = "DELETE"
        case exp.Copy() if tree.args.get("kind"):
            verb = "INSERT"
        case _:
            return check_read(tree, state, names, role_id)
    target_node = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
    if not isinstance(target_node, exp.Table):
        raise e.FeatureNotSupported(f"{verb} into this target is not supported")
    target = resolve_table(target_node, state, names)
    if target is None:
        key = builtin_relation_name(target_node)
        raise permission_denied("TABLE", ".".join(key) if key else target_node.name)
    check_write(target, verb, state, role_id)
    if verb != "INSERT":
        check_privilege(ObjectRef("item", target.id), "SELECT", state, role_id)
    return _check_reads(tree, state, names, role_id, skip=target_node)


# ---- DDL ops -------------------------------------------------------------------------------------------------


def check_ops(ops: Iterable[Op], state: CatalogState, role_id: str) -> None:
    if is_superuser(state, role_id):
        return
    for op in ops:
        match op:
            case CreateItem(spec=spec) | ReplaceItem(spec=spec):
                if isinstance(op, ReplaceItem):
                    check_owner(ObjectRef("item", op.old_id), state, role_id)
                check_create(state.schemas[spec.schema_id], state, role_id)
                if spec.on_id is not None:
                    check_owner(ObjectRef("item", spec.on_id), state, role_id)
                if spec.cluster_id is not None:
                    check_privilege(ObjectRef("cluster", spec.cluster_id), "CREATE", state, role_id)
            case DropItems(ids=ids):
                for item_id in ids:
                    check_owner(ObjectRef("item", item_id), state, role_id)
            case RenameItem(item_id=item_id):
                check_owner(ObjectRef("item", item_id), state, role_id)
            case CreateSchema(database_id=database_id):
                check_privilege(ObjectRef("database", database_id), "CREATE", state, role_id)
            case DropSchema(schema_id=schema_id):
                check_owner(ObjectRef("schema", schema_id), state, role_id)
            case DropDatabase(database_id=database_id):
                check_owner(ObjectRef("database", database_id), state, role_id)
            case (
                DropCluster(cluster_id=cluster_id)
                | AlterCluster(cluster_id=cluster_id)
                | CreateClusterReplica(cluster_id=cluster_id)
                | DropClusterReplica(cluster_id=cluster_id)
            ):
                check_owner(ObjectRef("cluster", cluster_id), state, role_id)
            case CreateDatabase() | CreateCluster():
                letter = "B" if isinstance(op, CreateDatabase) else "N"
                if not state.has_privilege(role_id, ObjectRef("system", ""), letter):
                    raise permission_denied("SYSTEM", "")
            case _:
                pass
