"""JSON encoding of catalog objects for the durable store, and the state diff the store writes.

Contract: `encode(obj)` gives the (kind, key, payload) row of an object; `decode(kind, payload)` inverts it
exactly (`decode(*encode(o)[::2]) == o`). `diff(old, new)` lists the rows to upsert and delete to turn the
stored `old` state into `new`; it compares objects by identity first (unchanged objects are shared between
snapshots), so it costs one pointer comparison per unchanged object.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from typing import Any

from sparkwire.catalog.objects import (
    Cluster,
    ClusterReplica,
    Column,
    Comment,
    Database,
    IgnoredNotice,
    Item,
    ObjectRef,
    Privilege,
    Role,
    RoleMembership,
    Schema,
    SystemVariable,
)
from sparkwire.catalog.state import CatalogState

CatalogObject = (
    Database | Schema | Role | RoleMembership | Cluster | Item | Privilege | IgnoredNotice | SystemVariable | Comment
)
Row = tuple[str, str, str]  # (kind, key, payload)


def key_of(obj: CatalogObject) -> tuple[str, str]:
    match obj:
        case Database():
            return "database", obj.id
        case Schema():
            return "schema", obj.id
        case Role():
            return "role", obj.id
        case RoleMembership():
            return "membership", f"{obj.role_id}/{obj.member_id}"
        case Cluster():
            return "cluster", obj.id
        case Item():
            return "item", obj.id
        case Privilege():
            return "privilege", f"{obj.object.kind}/{obj.object.id}/{obj.grantee_id}/{obj.grantor_id}"
        case IgnoredNotice():
            return "notice", obj.fingerprint
        case SystemVariable():
            return "system_var", obj.name
        case Comment():
            return "comment", f"{obj.object.kind}/{obj.object.id}/{obj.sub_id}"


def encode(obj: CatalogObject) -> Row:
    kind, key = key_of(obj)
    return kind, key, json.dumps(dataclasses.asdict(obj), sort_keys=True, separators=(",", ":"))


def _item(d: dict[str, Any]) -> Item:
    d["columns"] = tuple(Column(**c) for c in d["columns"])
    for name in ("dependencies", "keys", "primary_key"):
        d[name] = tuple(d[name])
    return Item(**d)


def _cluster(d: dict[str, Any]) -> Cluster:
    d["replicas"] = tuple(ClusterReplica(**r) for r in d.get("replicas", ()))
    return Cluster(**d)


def _privilege(d: dict[str, Any]) -> Privilege:
    d["object"] = ObjectRef(**d["object"])
    return Privilege(**d)


def _comment(d: dict[str, Any]) -> Comment:
    d["object"] = ObjectRef(**d["object"])
    return Comment(**d)


_DECODERS: dict[str, Callable[[dict[str, Any]], CatalogObject]] = {
    "database": lambda d: Database(**d),
    "schema": lambda d: Schema(**d),
    "role": lambda d: Role(**d),
    "membership": lambda d: RoleMembership(**d),
    "cluster": _cluster,
    "item": _item,
    "privilege": _privilege,
    "notice": lambda d: IgnoredNotice(**d),
    "system_var": lambda d: SystemVariable(**d),
    "comment": _comment,
}


def decode(kind: str, payload: str) -> CatalogObject:
    return _DECODERS[kind](json.loads(payload))


def _maps(state: CatalogState) -> tuple[Mapping[Any, CatalogObject], ...]:
    return (
        state.databases,
        state.schemas,
        state.roles,
        state.memberships,
        state.clusters,
        state.items,
        state.privileges,
        state.notices,
        state.system_vars,
        state.comments,
    )


def diff(old: CatalogState, new: CatalogState) -> tuple[list[Row], list[tuple[str, str]]]:
    """Rows to upsert and (kind, key) pairs to delete. Builtin objects (never stored) must be excluded by the
    caller's states being built the same way on both sides; they are shared, hence never in the diff."""
    upserts: list[Row] = []
    deletes: list[tuple[str, str]] = []
    for old_map, new_map in zip(_maps(old), _maps(new), strict=True):
        if old_map is new_map:
            continue
        for k, obj in new_map.items():
            before = old_map.get(k)
            if before is not obj and before != obj:
                upserts.append(encode(obj))
        deletes.extend(key_of(obj) for k, obj in old_map.items() if k not in new_map)
    return upserts, deletes
