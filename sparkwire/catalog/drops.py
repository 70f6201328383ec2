"""Drop planning: which items a DROP removes, in which order, and PostgreSQL's error when RESTRICT forbids it.

Contract: `plan_drop(state, ids, cascade)` returns a `DropPlan` whose `order` lists every item to drop with
each item before anything it depends on (the order `DropItems` needs). Indexes on a dropped object are dropped
with it even under RESTRICT (PostgreSQL's automatic dependency); any other dependent makes RESTRICT fail with
DependentObjectsStillExist (2BP01) and PostgreSQL's message, one detail line per dependency (`view v depends
on table t`) and hint; given a session's `NameContext`, names not visible there are schema-qualified as
PostgreSQL does. `plan_drop_schema`, `plan_drop_database` and `plan_drop_cluster` do the same for the
items in a schema, database or cluster; `check_role_droppable` raises when a role still owns objects or
holds/granted privileges.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from sparkwire.catalog.state import CatalogState, NameContext
from sparkwire.errors import DependentObjectsStillExist, UndefinedObject

CASCADE_HINT = "Use DROP ... CASCADE to drop the dependent objects too."


@dataclass(frozen=True, slots=True)
class DropPlan:
    """`order`: every item id to drop, dependents first. `cascaded`: the ones dropped only because of
    CASCADE (not requested, not an index of a dropped object); the planner reports `drop cascades to view v`
    for each."""

    order: tuple[str, ...]
    cascaded: tuple[str, ...]


def plan_drop(
    state: CatalogState, ids: Sequence[str], cascade: bool, names: NameContext | None = None
) -> DropPlan:
    requested = list(dict.fromkeys(ids))
    for item_id in requested:
        if item_id not in state.items:
            raise UndefinedObject(f"catalog item {item_id} does not exist")
    order, reached_from = _walk(state, requested)
    dropping = set(order)
    cascaded = [
        item_id
        for item_id in reversed(order)  # PostgreSQL reports in this order
        if item_id in reached_from
        and item_id not in requested
        and not _is_automatic(state, item_id, dropping)
    ]
    if cascaded and not cascade:
        what = (
            f"cannot drop {state.describe_item(requested[0], names)} because other objects depend on it"
            if len(requested) == 1
            else "cannot drop desired object(s) because other objects depend on them"
        )
        detail = "\n".join(
            f"{state.describe_item(d, names)} depends on {state.describe_item(reached_from[d], names)}"
            for d in cascaded
        )
        raise DependentObjectsStillExist(what, detail=detail, hint=CASCADE_HINT)
    return DropPlan(order=tuple(order), cascaded=tuple(cascaded))


def plan_drop_schema(
    state: CatalogState, schema_id: str, cascade: bool, names: NameContext | None = None
) -> DropPlan:
    schema = state.schemas[schema_id]
    contents = [i.id for i in state.items_in_schema(schema_id)]
    if contents and not cascade:
        detail = "\n".join(
            f"{state.describe_item(i, names)} depends on schema {schema.name}" for i in contents
        )
        raise DependentObjectsStillExist(
            f"cannot drop schema {schema.name} because other objects depend on it",
            detail=detail,
            hint=CASCADE_HINT,
        )
    return _plan_contents(state, contents)


def plan_drop_database(
    state: CatalogState, database_id: str, cascade: bool, names: NameContext | None = None
) -> DropPlan:
    database = state.databases[database_id]
    schemas = state.schemas_in(database_id)
    contents = [i.id for s in schemas for i in state.items_in_schema(s.id)]
    extra_schemas = [s for s in schemas if s.name != "public"]
    if (contents or extra_schemas) and not cascade:
        lines = [f"schema {s.name} depends on database {database.name}" for s in extra_schemas]
        lines += [f"{state.describe_item(i, names)} depends on database {database.name}" for i in contents]
        raise DependentObjectsStillExist(
            f"cannot drop database {database.name} because other objects depend on it",
            detail="\n".join(lines),
            hint=CASCADE_HINT,
        )
    return _plan_contents(state, contents)


def plan_drop_cluster(
    state: CatalogState, cluster_id: str, cascade: bool, names: NameContext | None = None
) -> DropPlan:
    cluster = state.clusters[cluster_id]
    contents = sorted((i.id for i in state.items.values() if i.cluster_id == cluster_id), key=_oid_of(state))
    if contents and not cascade:
        detail = "\n".join(
            f"{state.describe_item(i, names)} depends on cluster {cluster.name}" for i in contents
        )
        raise DependentObjectsStillExist(
            f"cannot drop cluster {cluster.name} because other objects depend on it",
            detail=detail,
            hint=CASCADE_HINT,
        )
    return _plan_contents(state, contents)


def check_role_droppable(state: CatalogState, role_id: str, names: NameContext | None = None) -> None:
    lines = [f"owner of {state.describe_object(ref, names)}" for ref in state.objects_owned_by(role_id)]
    lines += [
        f"privileges for {state.describe_object(p.object, names)}"
        for p in state.privileges.values()
        if role_id in (p.grantee_id, p.grantor_id) and p.object.kind != "system"
    ]
    if lines:
        raise DependentObjectsStillExist(
            f'role "{state.roles[role_id].name}" cannot be dropped because some objects depend on it',
            detail="\n".join(dict.fromkeys(lines)),
        )


def _plan_contents(state: CatalogState, contents: list[str]) -> DropPlan:
    """Drop everything in a schema/database: the contents plus, by cascade, their dependents elsewhere."""
    plan = plan_drop(state, contents, cascade=True)
    return DropPlan(order=plan.order, cascaded=tuple(i for i in plan.order if i not in set(contents)))


def _oid_of(state: CatalogState) -> Callable[[str], int]:
    return lambda item_id: state.items[item_id].oid


def _by_oid(state: CatalogState, ids: Iterable[str]) -> list[str]:
    return sorted(ids, key=_oid_of(state))


def _is_automatic(state: CatalogState, item_id: str, dropping: set[str]) -> bool:
    """An index goes with the object it indexes without being reported, as in PostgreSQL; a subsource or progress
    collection with its source, as in Materialize."""
    item = state.items[item_id]
    if item.kind == "source" and item.source_type in ("subsource", "progress"):
        return any(dep in dropping for dep in item.dependencies)
    return item.kind == "index" and item.on_id in dropping


def _walk(state: CatalogState, roots: list[str]) -> tuple[list[str], dict[str, str]]:
    """Depth-first over the reverse dependency graph from `roots` (dependents in OID order), as PostgreSQL's
    findDependentObjects: returns the post-order (every item after all of its dependents, i.e. a drop order)
    and, for each item reached as a dependent, the item it was reached from."""
    order: list[str] = []
    reached_from: dict[str, str] = {}
    seen: set[str] = set()
    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        stack: list[tuple[str, Iterator[str]]] = [(root, iter(_by_oid(state, state.direct_dependents(root))))]
        while stack:
            node, pending = stack[-1]
            following = next((d for d in pending if d not in seen), None)
            if following is None:
                stack.pop()
                order.append(node)
                continue
            seen.add(following)
            reached_from[following] = node
            stack.append((following, iter(_by_oid(state, state.direct_dependents(following)))))
    return order, reached_from
