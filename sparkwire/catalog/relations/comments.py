"""The relations that show COMMENT ON: pg_catalog.pg_description, pg_catalog.pg_shdescription and
mz_internal.mz_comments, and the lookups behind obj_description / col_description / shobj_description.

Contract: rows are functions of a `CatalogState`'s `comments`, in PostgreSQL 15's and Materialize's columns.
- pg_description (objoid, classoid, objsubid, description): comments on relations (classoid pg_class, objsubid the
  column number or 0), on types (pg_type), on functions (pg_proc) and on schemas (pg_namespace).
- pg_shdescription (objoid, classoid, description): the shared objects, databases (pg_database) and roles
  (pg_authid), as PostgreSQL keeps them apart.
- mz_internal.mz_comments (id, object_type, object_sub_id, comment): every comment, by Materialize id and type
  (`table`, `materialized-view`, …, `database`, `schema`, `cluster`, `role`); object_sub_id NULL for the object
  itself, else the column number. Clusters, secrets and connections have no PostgreSQL counterpart and appear here
  only.
`descriptions(state)` maps (classoid, objoid, objsubid) to the text, for the functions (memoized per state).
"""

from __future__ import annotations

from sparkwire.catalog.objects import Comment
from sparkwire.catalog.relations.relation import BuiltinRelation, Row, parse_columns
from sparkwire.catalog.state import CatalogState

PG_CLASS, PG_TYPE, PG_PROC, PG_NAMESPACE, PG_DATABASE, PG_AUTHID = 1259, 1247, 1255, 2615, 1262, 1260
_ITEM_CLASSES = {
    "table": PG_CLASS,
    "view": PG_CLASS,
    "materialized-view": PG_CLASS,
    "index": PG_CLASS,
    "source": PG_CLASS,
    "sink": PG_CLASS,
    "type": PG_TYPE,
    "func": PG_PROC,
}
_SHARED = (PG_DATABASE, PG_AUTHID)


def _pg_address(state: CatalogState, comment: Comment) -> tuple[int, int] | None:
    """(classoid, objoid) of the commented object in PostgreSQL's catalogs; None when it has no counterpart."""
    obj = comment.object
    match obj.kind:
        case "item":
            item = state.items.get(obj.id)
            if item is None or item.kind not in _ITEM_CLASSES:
                return None
            return _ITEM_CLASSES[item.kind], item.oid
        case "schema":
            schema = state.schemas.get(obj.id)
            return None if schema is None else (PG_NAMESPACE, schema.oid)
        case "database":
            database = state.databases.get(obj.id)
            return None if database is None else (PG_DATABASE, database.oid)
        case "role":
            role = state.roles.get(obj.id)
            return None if role is None else (PG_AUTHID, role.oid)
    return None


def descriptions(state: CatalogState) -> dict[tuple[int, int, int], str]:
    """(classoid, objoid, objsubid) → comment, for every comment with a PostgreSQL address."""
    cached = _MEMO.get(id(state))
    if cached is not None and cached[0] is state:
        return cached[1]
    out: dict[tuple[int, int, int], str] = {}
    for comment in state.comments.values():
        address = _pg_address(state, comment)
        if address is not None:
            out[(address[0], address[1], comment.sub_id)] = comment.text
    _MEMO.clear()
    _MEMO[id(state)] = (state, out)
    return out


_MEMO: dict[int, tuple[CatalogState, dict[tuple[int, int, int], str]]] = {}


def _pg_description_rows(state: CatalogState) -> list[Row]:
    return [
        (objoid, classoid, subid, text)
        for (classoid, objoid, subid), text in sorted(descriptions(state).items())
        if classoid not in _SHARED
    ]


def _pg_shdescription_rows(state: CatalogState) -> list[Row]:
    return [
        (objoid, classoid, text)
        for (classoid, objoid, _), text in sorted(descriptions(state).items())
        if classoid in _SHARED
    ]


def _object_type(state: CatalogState, comment: Comment) -> str:
    if comment.object.kind == "item":
        item = state.items.get(comment.object.id)
        return "" if item is None else item.kind
    return comment.object.kind


def _mz_comments_rows(state: CatalogState) -> list[Row]:
    return [
        (c.object.id, _object_type(state, c), c.sub_id or None, c.text)
        for c in sorted(state.comments.values(), key=lambda c: (c.object.kind, c.object.id, c.sub_id))
    ]


COMMENT_RELATIONS: tuple[BuiltinRelation, ...] = (
    BuiltinRelation(
        "pg_catalog",
        "pg_description",
        2609,
        parse_columns("objoid oid, classoid oid, objsubid integer, description text"),
        _pg_description_rows,
    ),
    BuiltinRelation(
        "pg_catalog",
        "pg_shdescription",
        2396,
        parse_columns("objoid oid, classoid oid, description text"),
        _pg_shdescription_rows,
    ),
    BuiltinRelation(
        "mz_internal",
        "mz_comments",
        16715,
        parse_columns("id text, object_type text, object_sub_id integer, comment text"),
        _mz_comments_rows,
    ),
)
