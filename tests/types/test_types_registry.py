"""The type registry and typmod helpers agree with PostgreSQL's pg_type, format_type and regtype parsing."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from sparkwire.errors import UndefinedObject
from sparkwire.pgtypes import all_types, format_type, parse_type_name, type_by_name, type_by_oid
from sparkwire.pgtypes.registry import PgType
from tests.support.postgres import PostgresOracle


@pytest.fixture(scope="module")
def pg(oracle: PostgresOracle) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    with psycopg.connect(oracle.dsn, autocommit=True) as conn:
        yield conn


def test_every_type_matches_pg_type(pg: psycopg.Connection[tuple[object, ...]]) -> None:
    for t in all_types():
        row = pg.execute(
            "SELECT oid::int, typname::text, typlen::int, typarray::int, typelem::int, typcategory::text,"
            " format_type(oid, NULL), typstorage = 'p' FROM pg_type WHERE oid = %s",
            [t.oid],
        ).fetchone()
        assert row is not None, t
        oid, name, typlen, array_oid, element_oid, category, display, plain = (
            int(str(row[0])),
            str(row[1]),
            int(str(row[2])),
            int(str(row[3])),
            int(str(row[4])),
            str(row[5]),
            str(row[6]),
            row[7] is True,
        )
        element = element_oid if category == "A" else 0
        vector = category == "A" and plain  # int2vector, oidvector: an element type, but not varlena arrays
        expected_display = display if t.oid != 1042 else "character"  # format_type(1042, NULL) is "bpchar"
        assert t == PgType(oid, name, typlen, array_oid, element, category, expected_display, vector=vector), t


@pytest.mark.parametrize(
    "spelling",
    [
        "int",
        "integer",
        "int4",
        "INT8",
        "bigint",
        "smallint",
        "double precision",
        "float8",
        "float",
        "real",
        "float(10)",
        "float(30)",
        "character varying(10)",
        "varchar",
        "timestamp with time zone",
        "timestamptz",
        "timestamp(3) without time zone",
        "time with time zone",
        "text[]",
        "int4[]",
        "_int4",
        "integer[][]",
        "numeric(10,2)",
        "numeric(5)",
        "decimal(12, 4)",
        "char",
        "character(3)",
        "bpchar",
        '"char"',
        "bool",
        "boolean",
        "jsonb",
        "json[]",
        "uuid",
        "interval",
        "interval(3)",
        "bytea",
        "name",
        "oid",
        "regclass",
        "time(2)",
        "varchar(5)[]",
        "date[]",
    ],
)
def test_spellings_match_postgres(pg: psycopg.Connection[tuple[object, ...]], spelling: str) -> None:
    row = pg.execute(
        "SELECT t.oid::int, format_type(t.oid, a.atttypmod), a.atttypmod FROM pg_attribute a"
        " JOIN pg_type t ON t.oid = a.atttypid WHERE a.attrelid = %s::regclass AND a.attname = 'c'",
        [_make_table(pg, spelling)],
    ).fetchone()
    assert row is not None
    oid, formatted, typmod = row
    found, our_typmod = parse_type_name(spelling)
    assert (found.oid, our_typmod) == (oid, typmod)
    assert format_type(found.oid, our_typmod) == formatted
    assert type_by_name(spelling) is found


def _make_table(pg: psycopg.Connection[tuple[object, ...]], spelling: str) -> str:
    name = "t_" + "".join(ch if ch.isalnum() else "_" for ch in spelling.lower())
    pg.execute(f"DROP TABLE IF EXISTS {name}")
    pg.execute(f"CREATE TABLE {name} (c {spelling})")
    return name


def test_unknown_names_and_oids() -> None:
    with pytest.raises(UndefinedObject, match='type "nosuchtype" does not exist'):
        type_by_name("nosuchtype")
    with pytest.raises(UndefinedObject):
        type_by_oid(999999)
    assert type_by_oid(1007).element_oid == 23
    assert type_by_oid(23).array_oid == 1007
