"""The query shapes pgcli, pgspecial and node-postgres send that sparkwire answered differently from PostgreSQL 15,
each compared with the oracle (values and result types): untyped arrays in `= ANY(…)` (pgspecial formats
`relkind = ANY('{r,p}')`, pgcli binds `ANY(%s)` to a list), `$1::pg_catalog.regclass`, the `trigger` pseudo-type,
`regtype[]` printed through `::text[]`, PostgreSQL's names for the columns of CTEs and subqueries (pgcli's casing
query orders by `count`), pg_table_is_visible, length(bytea), numeric literals, multi-part interval literals and
generate_series(int4, int4) in FROM."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from tests.support.clients import same_schema

Conn = psycopg.Connection[tuple[Any, ...]]


def answer(conn: Conn, sql: str, params: Any = None) -> tuple[list[tuple[Any, ...]], list[tuple[str, int]]]:
    cur = conn.execute(sql, params)
    return cur.fetchall(), [(d.name, d.type_code) for d in cur.description or ()]


@pytest.mark.parametrize(
    ("sql", "params"),
    [
        ("""SELECT 'r'::"char" = ANY('{r,p,""}'), 1 = ANY('{1,2}'), 3 = ANY('{1,2}'), 1 = ANY('{}')""", None),
        ("""SELECT 'v'::"char" = ANY(%s), 'x'::text = ANY(%s)""", (["r", "v"], ["a"])),
        ("SELECT count(*) > 0 FROM pg_catalog.pg_class c WHERE c.relkind = ANY(%s)", (["r", "v", "m"],)),
        ("SELECT %s::pg_catalog.regclass::pg_catalog.oid = 'pg_class'::regclass::oid", ("pg_catalog.pg_class",)),
        ("SELECT 'trigger'::regtype::oid, 'pg_catalog.trigger'::regtype::text, 'void'::regtype::oid", None),
        (
            "SELECT typname, typlen, typbyval, typtype, typcategory, typinput, typoutput, typreceive, typsend, "
            "typalign, typstorage, typarray FROM pg_catalog.pg_type WHERE typname = 'trigger'",
            None,
        ),
        ("SELECT proname, prorettype, proargtypes FROM pg_proc WHERE proname IN ('trigger_in', 'trigger_out')", None),
        ("SELECT count(*) > 0 FROM pg_proc p WHERE p.prorettype::regtype != 'trigger'::regtype", None),
        ("SELECT '{int4,text,varchar}'::regtype[]::text[]", None),
        ("SELECT COALESCE(NULL::oid[]::regtype[], '{23,1043}'::oid[]::regtype[])::text[]", None),
        (
            "SELECT proname, COALESCE(proallargtypes::regtype[], proargtypes::regtype[])::text[] "
            "FROM pg_catalog.pg_proc WHERE proname IN ('int4out', 'boolout', 'textout', 'varcharout') ORDER BY proname",
            None,
        ),
        (
            "WITH w AS (SELECT typname::text, count(1), row_number() OVER (PARTITION BY typcategory ORDER BY typname) "
            "FROM pg_type WHERE typname IN ('int4', 'text') GROUP BY typname, typcategory) "
            "SELECT typname, count, row_number FROM w ORDER BY typname",
            None,
        ),
        ("SELECT * FROM (SELECT upper('a'), lower('B'), 'x'::text, 1 + 1 AS two) s", None),
        ("SELECT length('\\x0102'::bytea), length(%s::bytea), length('abc')", (b"\x00\x01\xfe",)),
        ("SELECT 1.50::numeric, 12345678901234567890.123456789::numeric AS big, 7::numeric", None),
        ("SELECT INTERVAL '1 day 02:03:04', INTERVAL '-1 day 02:03:04.25', INTERVAL '1 day 25:00', INTERVAL '2 hours'",
         None),
        ("SELECT i, i * 2 AS twice FROM generate_series(1, 3) AS i ORDER BY i", None),
        ("SELECT x FROM generate_series(2, 3) AS t(x)", None),
        ("SELECT * FROM generate_series(1, 2)", None),
    ],
)
def test_same_as_postgres(sw: Conn, pg: Conn, sql: str, params: Any) -> None:
    assert answer(sw, sql, params) == answer(pg, sql, params)


def test_regtype_array_result_prints_names(sw: Conn, pg: Conn) -> None:
    sql = "SELECT '{int4,text}'::regtype[] AS direct, proargtypes::regtype[] FROM pg_proc WHERE proname = 'int4out'"
    (ours, ours_types), (theirs, _) = answer(sw, sql), answer(pg, sql)
    assert ours == theirs == [(["integer", "text"], ["integer"])]
    assert ours_types == [("direct", 1009), ("proargtypes", 1009)]  # PostgreSQL: regtype[] (2211); see introspection.md


def test_pg_table_is_visible(sw: Conn, pg: Conn) -> None:
    schema = same_schema(
        (sw.info.dsn, pg.info.dsn),
        "visible",
        ["CREATE SCHEMA {s}", "CREATE TABLE {s}.hidden (a int4 PRIMARY KEY)", "CREATE TABLE {s}_shown (a int4)"],
    )
    sql = (
        "SELECT n.nspname = %(s)s, c.relname, pg_catalog.pg_table_is_visible(c.oid) FROM pg_catalog.pg_class c "
        "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
        "WHERE (n.nspname = %(s)s OR c.relname = %(shown)s) ORDER BY 2"
    )
    params = {"s": schema, "shown": f"{schema}_shown"}
    ours = answer(sw, sql, params)
    assert ours == answer(pg, sql, params)
    assert [row[1:] for row in ours[0]] == [("hidden", False), ("hidden_pkey", False), (f"{schema}_shown", True)]
    builtin = (
        "SELECT pg_table_is_visible('pg_catalog.pg_class'::regclass), pg_table_is_visible(0), "
        "pg_table_is_visible(NULL)"
    )
    assert answer(sw, builtin) == answer(pg, builtin)
    for conn in (sw, pg):
        conn.execute(f"DROP SCHEMA {schema} CASCADE")
        conn.execute(f"DROP TABLE {schema}_shown")
