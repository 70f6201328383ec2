"""PostgreSQL's comment functions over the catalog's comments (catalog/relations/comments.py), as state UDFs.

Contract, as PostgreSQL 15: `obj_description(oid, catalog)` is the comment of the object with that OID in the named
catalog (`'pg_class'`, `'pg_type'`, `'pg_proc'`, `'pg_namespace'`, also schema-qualified), column 0;
`obj_description(oid)` (deprecated) the first comment on that OID in any catalog; `col_description(table_oid,
column_number)` a relation column's comment; `shobj_description(oid, catalog)` a database's (`'pg_database'`) or
role's (`'pg_authid'`) comment. NULL when there is none or an argument is NULL.
"""

from __future__ import annotations

from sparkwire.catalog import CatalogState
from sparkwire.catalog.relations.comments import (
    PG_AUTHID,
    PG_CLASS,
    PG_DATABASE,
    PG_NAMESPACE,
    PG_PROC,
    PG_TYPE,
    descriptions,
)

_CATALOGS = {
    "pg_class": PG_CLASS,
    "pg_type": PG_TYPE,
    "pg_proc": PG_PROC,
    "pg_namespace": PG_NAMESPACE,
    "pg_database": PG_DATABASE,
    "pg_authid": PG_AUTHID,
}


def _catalog_oid(name: str) -> int | None:
    text = name.strip().lower()
    if text.startswith("pg_catalog."):
        text = text[len("pg_catalog.") :]
    return _CATALOGS.get(text)


def obj_description(state: CatalogState, oid: int | None, catalog: str | None) -> str | None:
    if oid is None:
        return None
    found = descriptions(state)
    if catalog is None:  # the one-argument form
        return next((text for (_, objoid, sub), text in found.items() if objoid == oid and sub == 0), None)
    classoid = _catalog_oid(catalog)
    return None if classoid is None else found.get((classoid, oid, 0))


def col_description(state: CatalogState, oid: int | None, column: int | None) -> str | None:
    if oid is None or column is None:
        return None
    return descriptions(state).get((PG_CLASS, oid, column))


def shobj_description(state: CatalogState, oid: int | None, catalog: str | None) -> str | None:
    if oid is None or catalog is None:
        return None
    classoid = _catalog_oid(catalog)
    return None if classoid is None else descriptions(state).get((classoid, oid, 0))
