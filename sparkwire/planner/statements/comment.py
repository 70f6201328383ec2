"""COMMENT ON planning: a parsed `grammar/comment.py` statement → the catalog op that sets or removes the comment.

Contract: `plan_comment(stmt, state, names) -> tuple[Op, ...]` resolves the object as PostgreSQL does and raises its
errors in its wording: 42P01 `relation "x" does not exist` (relations and columns; 42704 `type "x" does not exist`,
`secret "x" does not exist`, … for the other items), 42809 `"x" is not a view` when the kind written is not the
object's, 42703 `column "c" of relation "t" does not exist`, 3F000 / 3D000 / 42704 for a missing schema, database,
cluster or role. Builtin relations and schemas are the server's own: commenting on them is 42501. Privileges follow
PostgreSQL: the object's owner (or a superuser); for a role, CREATEROLE (Materialize's system privilege) or
superuser (42501 `must have CREATEROLE privilege`). The comment lands on column number `position + 1`, as
pg_description's objsubid and mz_comments' object_sub_id.
"""

from __future__ import annotations

from sparkwire import errors as e
from sparkwire.catalog import CatalogState
from sparkwire.catalog import ops as o
from sparkwire.catalog.objects import SYSTEM_OBJECT, Item, ObjectRef
from sparkwire.catalog.wording import noun, with_article
from sparkwire.planner.bind.resolve import BUILTIN_SCHEMAS, Names, is_builtin_relation
from sparkwire.planner.grammar.comment import CommentOn
from sparkwire.planner.grammar.ddl_parser import Name
from sparkwire.planner.security.privileges import check_owner, is_superuser, permission_denied
from sparkwire.planner.statements.rbac import schema_ref

_RELATION_KINDS = frozenset({"table", "view", "materialized-view", "index", "source", "sink"})
_COLUMN_KINDS = frozenset({"table", "view", "materialized-view", "source"})


def _item(state: CatalogState, names: Names, name: Name, kind: str) -> Item:
    relation_like = kind in _RELATION_KINDS or kind == "column"
    if name.schema in BUILTIN_SCHEMAS or (name.schema is None and is_builtin_relation(None, name.name)):
        raise permission_denied("TABLE" if relation_like else kind.upper(), name.written)
    item = state.lookup_item(
        name.name,
        current_database=names.database,
        search_path=names.search_path,
        schema=name.schema,
        database=name.database,
    )
    if item is None:
        if relation_like:
            raise e.UndefinedTable(f'relation "{name.written}" does not exist')
        raise e.UndefinedObject(f'{kind} "{name.written}" does not exist')
    wanted = _COLUMN_KINDS if kind == "column" else {kind}
    if item.kind not in wanted:
        if kind == "column":
            raise e.WrongObjectType(f'"{name.name}" is not a table, view or materialized view')
        raise e.WrongObjectType(f'"{name.name}" is not {with_article(noun(kind))}')
    return item


def _target(stmt: CommentOn, state: CatalogState, names: Names) -> tuple[ObjectRef, int]:
    match stmt.kind:
        case "schema":
            return schema_ref(state, names, stmt.name), 0
        case "database":
            return ObjectRef("database", state.resolve_database(stmt.name.written).id), 0
        case "cluster":
            return ObjectRef("cluster", state.resolve_cluster(stmt.name.written).id), 0
        case "role":
            return ObjectRef("role", state.resolve_role(stmt.name.written).id), 0
    item = _item(state, names, stmt.name, stmt.kind)
    if stmt.column is None:
        return ObjectRef("item", item.id), 0
    for position, column in enumerate(item.columns, start=1):
        if column.name == stmt.column:
            return ObjectRef("item", item.id), position
    raise e.UndefinedColumn(f'column "{stmt.column}" of relation "{stmt.name.name}" does not exist')


def plan_comment(stmt: CommentOn, state: CatalogState, names: Names) -> tuple[o.Op, ...]:
    obj, sub_id = _target(stmt, state, names)
    role_id = names.role_id
    if obj.kind == "role":
        if not is_superuser(state, role_id) and not state.has_privilege(role_id, SYSTEM_OBJECT, "R"):
            raise e.InsufficientPrivilege("must have CREATEROLE privilege")
    else:
        check_owner(obj, state, role_id)
    return (o.SetComment(obj, sub_id, stmt.text),)
