"""COMMENT ON in the catalog: setting and removing comments, and dropping the comments of dropped objects.

Contract: `set_comment(state, op)` stores `op.text` on the object (sub_id 0) or on its column `sub_id` (1-based),
replacing any earlier comment; a None or empty text removes it, as PostgreSQL's `IS NULL` / `IS ''`. The object
must exist (and the column, for a relation's column), else 42704 / 42703 — the planner checks names and privileges
first, so these only guard against a concurrent drop. `without_orphans(state)` removes the comments whose object
(or column) no longer exists: `apply_ops` calls it after every transaction that dropped or replaced something, so a
comment never outlives its object (PostgreSQL deletes pg_description rows with the object; CREATE OR REPLACE gives a
new id, as Materialize, and starts without comments).
"""

from __future__ import annotations

from sparkwire.catalog.objects import Comment, ObjectRef
from sparkwire.catalog.ops import SetComment
from sparkwire.catalog.state import CatalogState
from sparkwire.errors import UndefinedColumn, UndefinedObject


def _exists(state: CatalogState, obj: ObjectRef, sub_id: int) -> bool:
    match obj.kind:
        case "database":
            return obj.id in state.databases
        case "schema":
            return obj.id in state.schemas
        case "cluster":
            return obj.id in state.clusters
        case "role":
            return obj.id in state.roles
        case "item":
            item = state.items.get(obj.id)
            return item is not None and sub_id <= len(item.columns)
    return False


def set_comment(state: CatalogState, op: SetComment) -> CatalogState:
    if not _exists(state, op.object, 0):
        raise UndefinedObject(f"{op.object.kind} with id {op.object.id} does not exist")
    if op.sub_id < 0 or not _exists(state, op.object, op.sub_id):
        raise UndefinedColumn(f"column number {op.sub_id} does not exist")
    key = (op.object, op.sub_id)
    comments = dict(state.comments)
    if op.text:
        comments[key] = Comment(op.object, op.sub_id, op.text)
    elif comments.pop(key, None) is None:
        return state
    return state.evolve(comments=comments)


def without_orphans(state: CatalogState) -> CatalogState:
    kept = {key: c for key, c in state.comments.items() if _exists(state, c.object, c.sub_id)}
    return state if len(kept) == len(state.comments) else state.evolve(comments=kept)
