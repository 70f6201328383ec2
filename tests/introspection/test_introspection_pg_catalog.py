"""pg_catalog relations and catalog functions of the introspection store, compared with PostgreSQL 15.

Every query runs on sparkwire and on the oracle and the answers must be equal. What legitimately differs is
left out and said so: owners (sparkwire's builtins belong to mz_system, PostgreSQL's to its bootstrap
superuser, OID 10), and the objects each server has but the other does not (PostgreSQL's extra namespaces,
ICU collations, plpgsql, the functions no pg_type or pg_am row names). pg_authid is for superusers only.
"""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from sparkwire.catalog.relations.pg import BUILTIN_RELATIONS
from sparkwire.pgtypes.registry import all_types
from tests.support.clients import unique
from tests.support.server import SparkwireServer

Conn = psycopg.Connection[tuple[Any, ...]]

TYPE_OIDS = sorted(t.oid for t in all_types())
OID_LIST = ", ".join(str(oid) for oid in TYPE_OIDS)

PG_TYPE_COLUMNS = (
    "oid, typname, typnamespace, typlen, typbyval, typtype, typcategory, typispreferred, typisdefined, typdelim, "
    "typrelid, typsubscript, typelem, typarray, typinput, typoutput, typreceive, typsend, typmodin, typmodout, "
    "typanalyze, typalign, typstorage, typnotnull, typbasetype, typtypmod, typndims, typcollation, typdefaultbin, "
    "typdefault, typacl"
)


def rows(conn: Conn, sql: str, params: Any = None) -> list[tuple[Any, ...]]:
    return conn.execute(sql, params).fetchall()


def test_pg_type_matches_postgres_for_every_type(sw: Conn, pg: Conn) -> None:
    sql = f"SELECT {PG_TYPE_COLUMNS} FROM pg_catalog.pg_type WHERE oid IN ({OID_LIST}) ORDER BY oid"
    ours, theirs = rows(sw, sql), rows(pg, sql)
    assert len(ours) == len(TYPE_OIDS)
    assert ours == theirs


def test_pg_type_unqualified_with_alias_and_join(sw: Conn, pg: Conn) -> None:
    sql = (
        "SELECT t.typname, n.nspname, e.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace "
        f"LEFT JOIN pg_type e ON e.oid = t.typelem WHERE t.oid IN ({OID_LIST}) ORDER BY t.oid"
    )
    assert rows(sw, sql) == rows(pg, sql)


@pytest.mark.parametrize("relation", [r for r in BUILTIN_RELATIONS], ids=lambda r: r.name)
def test_columns_are_postgres_columns(sw: Conn, pg: Conn, relation: Any) -> None:
    sql = f"SELECT * FROM {relation.schema}.{relation.name} LIMIT 0"
    ours = [d.name for d in sw.execute(sql).description or ()]
    theirs = [d.name for d in pg.execute(sql).description or ()]
    assert ours == theirs


def test_pg_namespace(sw: Conn) -> None:
    names = dict(rows(sw, "SELECT nspname, oid FROM pg_namespace"))
    assert names["pg_catalog"] == 11
    assert {"public", "information_schema", "mz_catalog", "mz_internal"} <= set(names)


def test_pg_am_and_collations_match(sw: Conn, pg: Conn) -> None:
    sql = "SELECT oid, amname, amhandler, amtype FROM pg_am ORDER BY oid"
    assert rows(sw, sql) == rows(pg, sql)
    sql = (
        "SELECT oid, collname, collnamespace, collprovider, collisdeterministic, collencoding, collcollate, "
        "collctype, colliculocale, collversion FROM pg_collation WHERE collname IN ('default', 'C', 'POSIX') "
        "ORDER BY oid"
    )
    assert rows(sw, sql) == rows(pg, sql)


PG_PROC_COLUMNS = (
    "oid, proname, pronamespace, prolang, procost, prorows, provariadic, prosupport, prokind, prosecdef, "
    "proleakproof, proisstrict, proretset, provolatile, proparallel, pronargs, pronargdefaults, prorettype, "
    "proargtypes, proallargtypes, proargmodes, proargnames, proargdefaults, protrftypes, prosrc, probin, prosqlbody, "
    "proconfig, proacl"
)


def test_pg_proc_lists_the_functions_pg_type_and_pg_am_name(sw: Conn, pg: Conn) -> None:
    oids = ", ".join(str(oid) for (oid,) in rows(sw, "SELECT oid FROM pg_catalog.pg_proc"))
    sql = f"SELECT {PG_PROC_COLUMNS} FROM pg_catalog.pg_proc WHERE oid IN ({oids}) ORDER BY oid"
    assert rows(sw, sql) == rows(pg, sql)
    regprocs = ("typinput", "typoutput", "typreceive", "typsend", "typmodin", "typmodout", "typanalyze", "typsubscript")
    for column in regprocs:  # joined by OID, as Npgsql joins pg_proc.oid = pg_type.typreceive
        sql = (
            f"SELECT t.typname, p.proname, t.{column}::oid = p.oid FROM pg_catalog.pg_type t "
            f"LEFT JOIN pg_catalog.pg_proc p ON p.oid = t.{column} WHERE t.oid IN ({OID_LIST}) ORDER BY t.oid"
        )
        ours = rows(sw, sql)
        assert ours == rows(pg, sql), column
        if column in ("typinput", "typoutput", "typreceive", "typsend"):  # every type has these four …
            no_binary_io = {"trigger"} if column in ("typreceive", "typsend") else set()  # … but trigger recv/send
            assert all(name is not None for typname, name, _ in ours if typname not in no_binary_io)
    sql = "SELECT a.amname, p.proname FROM pg_catalog.pg_am a JOIN pg_catalog.pg_proc p ON a.amhandler = p.oid"
    assert sorted(rows(sw, sql)) == sorted(rows(pg, sql))


def test_pg_authid_is_for_superusers_only(server: SparkwireServer, sw: Conn) -> None:
    role = unique("authid")
    sw.execute(f"CREATE ROLE {role} LOGIN")
    assert (role,) in rows(sw, "SELECT rolname FROM pg_catalog.pg_authid")
    with psycopg.connect(server.dsn.replace("user=materialize", f"user={role}"), autocommit=True) as conn:
        assert (role,) in rows(conn, "SELECT rolname FROM pg_catalog.pg_roles")
        for sql in ("SELECT rolname FROM pg_catalog.pg_authid", "SELECT count(*) FROM (SELECT * FROM pg_authid) a"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="pg_authid"):
                conn.execute(sql)


def test_empty_relations(sw: Conn) -> None:
    for name in ("pg_range", "pg_enum", "pg_extension"):
        assert rows(sw, f"SELECT count(*) FROM pg_catalog.{name}") == [(0,)]


def test_roles_and_database(sw: Conn) -> None:
    (oid, superuser, login), *_ = rows(
        sw, "SELECT oid, rolsuper, rolcanlogin FROM pg_roles WHERE rolname = current_user"
    )
    assert superuser and login
    assert rows(sw, "SELECT pg_get_userbyid(%s)", (oid,)) == [("materialize",)]
    assert rows(sw, "SELECT usename, usesuper FROM pg_user WHERE usesysid = %s", (oid,)) == [("materialize", True)]
    # As in Materialize, the builtin role mz_system owns the bootstrap database.
    assert rows(sw, "SELECT datname, pg_encoding_to_char(encoding), pg_get_userbyid(datdba) FROM pg_database") == [
        ("materialize", "UTF8", "mz_system")
    ]


def test_type_names_and_format_type_match(sw: Conn, pg: Conn) -> None:
    sql = (
        "SELECT oid, oid::regtype::text, format_type(oid, NULL), pg_catalog.format_type(oid, -1), "
        f"pg_type_is_visible(oid) FROM pg_type WHERE oid IN ({OID_LIST}) ORDER BY 1"
    )
    assert rows(sw, sql) == rows(pg, sql)
    sql = (
        "SELECT format_type(1700, 655366), format_type(1043, 14), format_type(1015, 14), format_type(1042, 5), "
        "format_type(1184, 3), format_type(1186, 2147418118), format_type(9999, -1), format_type(NULL, 1), "
        "0::regtype::text, 23::regtype::text, pg_encoding_to_char(6), pg_encoding_to_char(9999)"
    )
    assert rows(sw, sql) == rows(pg, sql)


@pytest.mark.parametrize(
    "spelling",
    [
        "int4",
        "integer",
        "character varying",
        "pg_catalog.int4",
        "text[]",
        "_int8",
        "double precision",
        "hstore",
        "timestamp with time zone",
        "no_such_type",
    ],
)
def test_to_regtype_matches(sw: Conn, pg: Conn, spelling: str) -> None:
    sql = "SELECT to_regtype(%s)::oid"
    assert rows(sw, sql, (spelling,)) == rows(pg, sql, (spelling,))


def test_regtype_and_regclass_literals(sw: Conn, pg: Conn) -> None:
    sql = (
        "SELECT 'int4'::regtype::oid, 'varchar'::regtype::text, 'pg_type'::regclass::oid, "
        "'pg_catalog.pg_namespace'::regclass::text, to_regclass('pg_class')::oid, to_regclass('nope')"
    )
    assert rows(sw, sql) == rows(pg, sql)
    with pytest.raises(psycopg.errors.UndefinedObject, match='type "nope" does not exist'):
        sw.execute("SELECT 'nope'::regtype")
    with pytest.raises(psycopg.errors.UndefinedTable, match='relation "nope" does not exist'):
        sw.execute("SELECT 'nope'::regclass")


def test_operator_and_collate_syntax(sw: Conn, pg: Conn) -> None:
    sql = (
        "SELECT n.nspname FROM pg_catalog.pg_namespace n WHERE n.nspname OPERATOR(pg_catalog.~) "
        "'^(pg_catalog)$' COLLATE pg_catalog.default AND n.nspname OPERATOR(pg_catalog.!~) '^x' "
        "ORDER BY n.nspname COLLATE pg_catalog.default"
    )
    assert rows(sw, sql) == rows(pg, sql) == [("pg_catalog",)]


def test_current_schemas(sw: Conn) -> None:
    assert rows(sw, "SELECT current_schemas(false), pg_catalog.current_schemas(true)") == [
        (["public"], ["mz_catalog", "pg_catalog", "public"])
    ]


def test_cte_named_like_a_builtin_shadows_it(sw: Conn, pg: Conn) -> None:
    sql = "WITH pg_type AS (SELECT 1 AS x) SELECT * FROM pg_type"
    assert rows(sw, sql) == rows(pg, sql) == [(1,)]


@pytest.mark.parametrize(
    "statement",
    [
        "INSERT INTO pg_catalog.pg_type (oid, typname) VALUES (1, 'x')",
        "INSERT INTO pg_type SELECT * FROM pg_type",
        "UPDATE pg_namespace SET nspname = 'x'",
        "DELETE FROM pg_catalog.pg_am",
        "DROP TABLE pg_catalog.pg_range",
        "TRUNCATE pg_enum",
        "CREATE TABLE pg_catalog.mine (a int)",
        "CREATE TABLE mz_catalog.mine (a int)",
        "ALTER TABLE pg_type RENAME TO x",
    ],
)
def test_builtin_relations_are_read_only(sw: Conn, statement: str) -> None:
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        sw.execute(statement)
    assert rows(sw, "SELECT count(*) > 0 FROM pg_type") == [(True,)]


def test_the_store_is_not_a_database_clients_can_name(sw: Conn) -> None:
    """The introspection store's own catalog name is no database of ours: a write naming it is refused as one that
    does not exist (it is never translated for the store, where the name would mean something)."""
    with pytest.raises(psycopg.errors.InvalidCatalogName):
        sw.execute("DELETE FROM sw_introspection.pg_catalog_sw.pg_type")
    assert rows(sw, "SELECT count(*) > 0 FROM pg_type") == [(True,)]


def test_fully_qualified_column_references(sw: Conn, pg: Conn) -> None:
    """SQLAlchemy's Inspector writes `pg_catalog.pg_namespace.nspname`."""
    sql = (
        "SELECT pg_catalog.pg_namespace.nspname FROM pg_catalog.pg_namespace "
        "WHERE pg_catalog.pg_namespace.nspname = 'pg_catalog'"
    )
    assert rows(sw, sql) == rows(pg, sql) == [("pg_catalog",)]


def test_pg_settings_shows_this_sessions_values(sw: Conn) -> None:
    sw.execute("SET extra_float_digits = 2")
    assert rows(sw, "SELECT setting, boot_val FROM pg_settings WHERE name = 'extra_float_digits'") == [("2", "1")]
    assert rows(sw, "SELECT s.setting FROM pg_catalog.pg_settings s WHERE s.name = 'standard_conforming_strings'") == [
        ("on",)
    ]
    assert rows(sw, "SELECT count(*) FROM pg_settings WHERE setting IS DISTINCT FROM current_setting(name)") == [(0,)]
