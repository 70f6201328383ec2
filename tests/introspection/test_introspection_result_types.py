"""Result types and values of catalog queries as PostgreSQL 15 describes them, compared with the oracle on the same
DDL: builtin columns of type name / "char" / regproc and information_schema domains (sent as their base types),
the name-typed session functions, `::regclass` / `::regtype` / `::regnamespace` projections printed as names
(ordered by OID), to_regclass / to_regtype, int4 array functions and generate_series, PostgreSQL's column names
(`indkey[0]` is `indkey`, `unnest`, `generate_series`, `array_length`), and a table's primary key as pg_index,
pg_constraint, pg_class, pg_get_indexdef / pg_get_constraintdef and information_schema show it; an expression
index's attributes named and typed as PostgreSQL names and types them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from tests.support.clients import same_schema
from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer

Conn = psycopg.Connection[tuple[Any, ...]]

DDL = (
    "CREATE SCHEMA {s}",
    "CREATE TABLE {s}.k (a integer, b text, c integer NOT NULL, PRIMARY KEY (b, a))",
    "CREATE TABLE {s}.t (id bigint PRIMARY KEY, note text)",
    "CREATE INDEX k_c_idx ON {s}.k (c)",
    "CREATE INDEX k_expr_idx ON {s}.k ((a + 1), lower(b), c, (a * 2))",
)

SAME = [
    "SELECT relname, relkind, relnamespace::regnamespace, relam FROM pg_class WHERE relname IN ('k', 't', 'k_pkey', "
    "'t_pkey', 'k_c_idx') AND relnamespace = '{s}'::regnamespace ORDER BY relname",
    "SELECT n.nspname, c.relname FROM pg_namespace n JOIN pg_class c ON c.relnamespace = n.oid "
    "WHERE n.nspname = '{s}' ORDER BY 2",
    "SELECT typname, typinput, typoutput, typcategory, typtype FROM pg_type WHERE oid IN (16, 23, 25, 1700) "
    "ORDER BY oid",
    "SELECT current_schema, current_schema(), pg_encoding_to_char(6), session_user = current_user",
    "SELECT current_schemas(false), pg_catalog.current_schemas(false)",
    "SELECT table_schema, table_name, table_type, is_insertable_into FROM information_schema.tables "
    "WHERE table_schema = '{s}' ORDER BY table_name",
    "SELECT column_name, data_type, is_nullable, character_maximum_length FROM information_schema.columns "
    "WHERE table_schema = '{s}' AND table_name = 'k' ORDER BY ordinal_position",
    "SELECT 'pg_class'::regclass, 'int4'::regtype, 'pg_catalog'::regnamespace::text, 'pg_class'::regclass::oid",
    "SELECT 23::regtype, 1259::regclass, 'varchar'::regtype, 0::regclass",
    "SELECT '{s}.k'::regclass, '{s}.k_pkey'::regclass::text, to_regclass('{s}.t'), to_regclass('{s}.nope')",
    "SELECT to_regtype('integer'), to_regtype('int4')::oid, to_regtype('nope')",
    "SELECT a.attrelid::regclass, a.attname, a.atttypid::regtype FROM pg_attribute a "
    "WHERE a.attrelid = '{s}.k'::regclass AND a.attnum > 0 ORDER BY 1, a.attnum",
    "SELECT * FROM pg_get_keywords() WHERE word IN ('select', 'abort') ORDER BY word",
    "SELECT k.word, k.catcode FROM pg_catalog.pg_get_keywords() k WHERE k.word = 'left'",
    "SELECT string_agg(word, ',') FROM (SELECT word FROM pg_get_keywords() WHERE word < 'ad' ORDER BY 1) s",
    "SELECT oid, relname, relkind, relnamespace, relam, relnatts FROM pg_class WHERE oid IN (1259, 2601, 12000, 13296)"
    " ORDER BY oid",
    "SELECT attname, atttypid::regtype, attnum FROM pg_attribute WHERE attrelid = 'pg_am'::regclass AND attnum > 0 "
    "ORDER BY attnum",
    "SELECT array_lower(ARRAY[1,2,3], 1), array_upper(ARRAY[1,2,3], 1), array_length(ARRAY[1,2], 1)",
    "SELECT generate_series(1, 5, 2)",
    "SELECT generate_series(1, 3000000000, 1000000000)",
    "SELECT unnest(ARRAY[1,2])",
    "SELECT i.indkey[0], i.indisprimary, i.indisunique, i.indnatts, i.indkey::text FROM pg_index i "
    "WHERE i.indrelid = '{s}.k'::regclass ORDER BY i.indisprimary DESC",
    "SELECT pg_get_indexdef(indexrelid), pg_get_indexdef(indexrelid, 0, true), pg_get_indexdef(indexrelid, 2, true) "
    "FROM pg_index WHERE indrelid = '{s}.k'::regclass ORDER BY 1",
    "SELECT conname, contype, conkey, condeferrable, convalidated, conislocal, connoinherit, "
    "pg_get_constraintdef(oid), pg_get_constraintdef(oid, true), conindid::regclass FROM pg_constraint "
    "WHERE conrelid IN ('{s}.k'::regclass, '{s}.t'::regclass) ORDER BY conname",
    "SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = '{s}' ORDER BY indexname",
    "SELECT attname, atttypid::regtype, atttypmod, attnum FROM pg_attribute "
    "WHERE attrelid = '{s}.k_expr_idx'::regclass ORDER BY attnum",
    "SELECT pg_get_indexdef('{s}.k_expr_idx'::regclass, k, true) FROM generate_series(0, 4) k ORDER BY k",
    "SELECT tablename, hasindexes FROM pg_tables WHERE schemaname = '{s}' ORDER BY 1",
    "SELECT constraint_name, table_name, constraint_type, is_deferrable, initially_deferred, enforced, nulls_distinct "
    "FROM information_schema.table_constraints WHERE table_schema = '{s}' AND constraint_type <> 'CHECK' "
    "ORDER BY constraint_name",
    "SELECT count(*) FROM information_schema.table_constraints WHERE table_schema = '{s}' "
    "AND constraint_type = 'CHECK' AND constraint_name LIKE '%_not_null'",
    "SELECT constraint_name, table_name, column_name, ordinal_position, position_in_unique_constraint "
    "FROM information_schema.key_column_usage WHERE table_schema = '{s}' ORDER BY constraint_name, ordinal_position",
]


@pytest.fixture(scope="module")
def schema(server: SparkwireServer, oracle: PostgresOracle) -> Iterator[str]:
    yield same_schema((server.dsn, oracle.dsn), "rtypes", DDL)


def _answer(conn: Conn, sql: str) -> tuple[list[tuple[str, int]], list[tuple[Any, ...]]]:
    cur = conn.execute(sql)
    assert cur.description is not None
    return [(c.name, c.type_code) for c in cur.description], cur.fetchall()


@pytest.mark.parametrize("query", SAME)
def test_same_types_and_values_as_postgres(sw: Conn, pg: Conn, schema: str, query: str) -> None:
    sql = query.format(s=schema)
    assert _answer(sw, sql) == _answer(pg, sql)


ACLITEM_ARRAY, TEXT_ARRAY, ANYARRAY, TEXT = 1034, 1009, 2277, 25
NO_SUCH_TYPE = {ACLITEM_ARRAY: TEXT_ARRAY, ANYARRAY: TEXT}
STARS = ["pg_class c", "pg_namespace", "pg_type", "pg_attribute", "pg_proc", "pg_index", "pg_constraint",
         "pg_database", "pg_roles", "pg_am", "pg_attrdef", "pg_collation", "pg_description"]


@pytest.mark.parametrize("relation", STARS)
def test_star_columns_have_postgres_types(sw: Conn, pg: Conn, relation: str) -> None:
    """Every column of `*` has PostgreSQL's type, except aclitem[] and anyarray (no such types here: text[] and
    text, with the same text)."""
    alias = relation.split()[-1]
    got, _ = _answer(sw, f"SELECT {alias}.* FROM pg_catalog.{relation} WHERE false")
    want, _ = _answer(pg, f"SELECT {alias}.* FROM pg_catalog.{relation} WHERE false")
    assert got == [(name, NO_SUCH_TYPE.get(oid, oid)) for name, oid in want]


@pytest.mark.parametrize("order", ["r", "1 DESC"])
def test_regclass_columns_print_names_and_order_by_oid(sw: Conn, pg: Conn, schema: str, order: str) -> None:
    """OIDs are allocated differently (a key's index OID derives from its table's): same rows, each in OID order."""
    sql = (f"SELECT c.oid::regclass AS r, c.relname, c.oid FROM pg_class c "
           f"WHERE relnamespace = '{schema}'::regnamespace ORDER BY {order}")
    (got_types, got), (want_types, want) = _answer(sw, sql), _answer(pg, sql)
    assert got_types == want_types == [("r", 2205), ("relname", 19), ("oid", 26)]
    assert [row[2] for row in got] == sorted((row[2] for row in got), reverse=order != "r")
    assert sorted(row[:2] for row in got) == sorted(row[:2] for row in want)
    assert {row[0] for row in got} >= {f"{schema}.k", f"{schema}.k_pkey"}


def test_user_and_database_functions_are_names(sw: Conn) -> None:
    types, rows = _answer(sw, "SELECT current_user, session_user, user, current_database(), current_catalog")
    assert [t for _, t in types] == [19] * 5
    assert rows == [("materialize", "materialize", "materialize", "materialize", "materialize")]


def test_unknown_schema_and_role_names_fail_as_in_postgres(sw: Conn) -> None:
    with pytest.raises(psycopg.errors.InvalidSchemaName, match='schema "nope" does not exist'):
        sw.execute("SELECT 'nope'::regnamespace")
    with pytest.raises(psycopg.errors.UndefinedObject, match='role "nope" does not exist'):
        sw.execute("SELECT 'nope'::regrole")
    assert sw.execute("SELECT 'materialize'::regrole::text, 'public'::regnamespace::oid > 0").fetchall() == [
        ("materialize", True)
    ]


def test_regtype_and_regproc_names_go_out_as_oids_in_binary(sw: Conn, pg: Conn) -> None:
    sql = "SELECT 'varchar'::regtype, typinput, typname FROM pg_type WHERE oid = 23"
    got, want = sw.cursor(binary=True).execute(sql), pg.cursor(binary=True).execute(sql)
    assert [d.type_code for d in got.description or ()] == [d.type_code for d in want.description or ()]
    assert got.fetchall() == want.fetchall()
    with pytest.raises(psycopg.errors.FeatureNotSupported, match="regclass"):
        sw.cursor(binary=True).execute("SELECT 'pg_class'::regclass")
    assert sw.execute("SELECT 1").fetchone() == (1,)
