"""The catalog queries drivers send on their own, run verbatim on sparkwire and on PostgreSQL 15: same answers.

asyncpg's type introspection (both variants: the one for servers before 14 and the current one) and psycopg's
TypeInfo lookup (what SQLAlchemy's psycopg dialect runs for hstore on connect). Also: the OIDs the store gives
the bootstrap role, database and schema are the ones the durable catalog assigns.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import psycopg
import pytest
from asyncpg import introspection
from psycopg.types import TypeInfo

from sparkwire.catalog.catalog import Catalog
from sparkwire.catalog.relations.pg_oids import BOOTSTRAP_OIDS
from sparkwire.pgtypes.registry import all_types

Conn = psycopg.Connection[tuple[Any, ...]]


def _psycopg_placeholders(sql: str) -> str:
    return re.sub(r"\$(\d+)", "%s", sql)


@pytest.mark.parametrize("query", ["INTRO_LOOKUP_TYPES_13", "INTRO_LOOKUP_TYPES"])
@pytest.mark.parametrize("oids", [[23], [1007, 1009], [1231, 3807, 2287, 19], sorted(t.oid for t in all_types())])
def test_asyncpg_type_introspection_matches(sw: Conn, pg: Conn, query: str, oids: list[int]) -> None:
    sql = _psycopg_placeholders(getattr(introspection, query))
    ours = sorted(sw.execute(sql, (oids,)).fetchall(), key=repr)
    theirs = sorted(pg.execute(sql, (oids,)).fetchall(), key=repr)
    assert len(ours) >= len(oids)
    assert ours == theirs


def test_asyncpg_type_by_name_matches(sw: Conn, pg: Conn) -> None:
    sql = _psycopg_placeholders(introspection.TYPE_BY_NAME)
    for name in ("int4", "_text", "numeric", "hstore"):
        assert sw.execute(sql, (name, "pg_catalog")).fetchall() == pg.execute(sql, (name, "pg_catalog")).fetchall()


@pytest.mark.parametrize(
    "name", ["int4", "text", "numeric", "varchar", "character varying", "timestamptz", "_int8", "jsonb", "hstore"]
)
def test_psycopg_typeinfo_matches(sw: Conn, pg: Conn, name: str) -> None:
    ours, theirs = TypeInfo.fetch(sw, name), TypeInfo.fetch(pg, name)
    if theirs is None:
        assert ours is None
        return
    assert ours is not None
    assert (ours.name, ours.oid, ours.array_oid, ours.regtype, ours.delimiter) == (
        theirs.name,
        theirs.oid,
        theirs.array_oid,
        theirs.regtype,
        theirs.delimiter,
    )


def test_bootstrap_oids_are_the_catalogs(tmp_path: Path) -> None:
    catalog = Catalog.open(tmp_path)
    try:
        state = catalog.state
        role = next(r for r in state.roles.values() if r.name == "materialize")
        database = next(d for d in state.databases.values() if d.name == "materialize")
        schema = next(s for s in state.schemas.values() if s.name == "public")
    finally:
        catalog.close()
    assert {"role": role.oid, "database": database.oid, "schema": schema.oid} == BOOTSTRAP_OIDS
