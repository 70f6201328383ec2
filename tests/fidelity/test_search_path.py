"""search_path decides where CREATE puts an object and what every bare name means (issue 13, item 3), as in
PostgreSQL: each script runs on sparkwire and on the PostgreSQL 15 oracle and must give the same rows, command
statuses and SQLSTATEs statement by statement. Only what Materialize does differently is checked on sparkwire alone:
mz_catalog is searched implicitly (current_schemas(true) lists it) and the default search_path is `public`."""

from __future__ import annotations

import uuid

import psycopg
import pytest

from tests.fidelity.outcomes import outcome, outcomes
from tests.support.clients import as_role

Conn = psycopg.Connection[tuple[object, ...]]


def _names() -> dict[str, str]:
    tag = uuid.uuid4().hex[:8]
    return {"a": f"sp_a_{tag}", "b": f"sp_b_{tag}", "t": f"t_{tag}", "u": f"u_{tag}"}


def _agree(sw: Conn, pg: Conn, script: list[str], names: dict[str, str]) -> None:
    statements = [sql.format(**names) for sql in script]
    cleanup = [f"DROP SCHEMA IF EXISTS {names[k]} CASCADE" for k in ("a", "b")] + [
        f"DROP TABLE IF EXISTS public.{names['t']}"
    ]
    try:
        assert outcomes(sw, statements) == outcomes(pg, statements)
    finally:
        for conn in (sw, pg):
            conn.execute("RESET search_path")
            for sql in cleanup:
                conn.execute(sql)


CREATE_AND_RESOLVE = [
    "CREATE SCHEMA {a}",
    "CREATE SCHEMA {b}",
    "CREATE TABLE public.{t} (x int)",
    "INSERT INTO {t} VALUES (1)",
    "SET search_path = {a}, public",
    "SHOW search_path",
    "SELECT current_schema(), current_schemas(false)",
    "CREATE TABLE {t} (y text)",  # goes to {a}, the first schema of the path
    "SELECT table_schema FROM information_schema.tables WHERE table_name = '{t}' ORDER BY 1",
    "INSERT INTO {t} VALUES ('in a')",
    "SELECT * FROM {t}",
    "SELECT * FROM public.{t}",
    "UPDATE {t} SET y = 'updated'",
    "SELECT y, (SELECT count(*) FROM {t} AS inner_t) FROM {t}",
    "DELETE FROM {t} WHERE y = 'nothing'",
    "SELECT '{t}'::regclass = '{a}.{t}'::regclass",
    "SELECT '{t}'::regclass::text, 'public.{t}'::regclass::text, to_regclass('{t}') = '{a}.{t}'::regclass",
    # psql's \dt lists what pg_table_is_visible finds: the first {t} of the path
    "SELECT n.nspname, c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
    " WHERE c.relname = '{t}' AND pg_catalog.pg_table_is_visible(c.oid)",
    "SET search_path = {b}, {a}",
    "SELECT * FROM {t}",  # found in {a}
    "SELECT '{t}'::regclass::text, to_regclass('{t}') = '{a}.{t}'::regclass",
    "CREATE TABLE {u} (z int)",  # goes to {b}
    "SELECT table_schema FROM information_schema.tables WHERE table_name = '{u}'",
    "SET search_path = public",
    "SELECT * FROM {t}",
    "SELECT * FROM {u}",  # 42P01: {b} is not searched
    "SET search_path = nosuch, {b}",
    "SELECT current_schema(), current_schemas(false)",
    "CREATE TABLE {t} (w int)",  # the first *existing* schema: {b}
    "SELECT table_schema FROM information_schema.tables WHERE table_name = '{t}' ORDER BY 1",
    "SET search_path = nosuch",
    "SELECT current_schema(), current_schemas(false)",
    "CREATE TABLE {u} (z int)",  # 3F000: no schema has been selected to create in
    "SELECT * FROM {u}",
    "SET search_path = ''",
    "SHOW search_path",
    "SET search_path = pg_catalog, {a}",
    "SELECT current_schema(), current_schemas(false)",
    "CREATE TABLE {u} (z int)",  # pg_catalog comes first: 42501
    "SELECT count(*) FROM pg_class WHERE relname = '{t}'",
    "SET search_path TO DEFAULT",
]


def test_create_and_bare_names_follow_search_path(sw: Conn, pg: Conn) -> None:
    _agree(sw, pg, CREATE_AND_RESOLVE, _names())


DDL_UNDER_PATH = [
    "CREATE SCHEMA {a}",
    "CREATE SCHEMA {b}",
    "SET search_path = {b}, {a}",
    "CREATE TABLE {a}.{t} (x int)",
    "INSERT INTO {t} VALUES (1), (2)",
    "CREATE VIEW {u} AS SELECT x FROM {t}",  # the view (in {b}) reads {a}.{t}
    "SELECT table_schema FROM information_schema.views WHERE table_name = '{u}'",
    "CREATE TABLE {b}.{t} (x int)",  # now {t} means {b}.{t}, but the view keeps {a}.{t}
    "INSERT INTO {t} VALUES (10)",
    "SELECT x FROM {u} ORDER BY x",
    "SELECT x FROM {t} ORDER BY x",
    "SET search_path = public",
    "SELECT x FROM {b}.{u} ORDER BY x",
    "SET search_path = {a}",
    "CREATE INDEX {u}_idx ON {t} (x)",
    "SELECT schemaname, tablename FROM pg_indexes WHERE indexname = '{u}_idx'",
    "DROP INDEX {u}_idx",
    "SET search_path = {b}",
    "DROP VIEW {u}",
    "DROP TABLE {t}",
    "SELECT count(*) FROM information_schema.tables WHERE table_schema = '{b}'",
    "DROP TABLE {t}",
    "SET search_path = {a}",
    "SELECT count(*) FROM {t}",
]


def test_ddl_and_views_resolve_through_search_path(sw: Conn, pg: Conn) -> None:
    _agree(sw, pg, DDL_UNDER_PATH, _names())


def test_copy_and_parameters_use_search_path(sw: Conn, pg: Conn) -> None:
    names = _names()
    for conn in (sw, pg):
        conn.execute(f"CREATE SCHEMA {names['a']}")
        conn.execute(f"SET search_path = {names['a']}")
        conn.execute(f"CREATE TABLE {names['t']} (x int, y text)")
        with conn.cursor().copy(f"COPY {names['t']} FROM STDIN") as copy:
            copy.write_row((1, "one"))
            copy.write_row((2, "two"))
    try:
        for conn in (sw, pg):
            with conn.cursor() as cur:  # the extended protocol: Parse/Describe resolve through the path too
                cur.execute(f"SELECT y FROM {names['t']} WHERE x = %s", (2,))
                assert cur.fetchall() == [("two",)]
            lines = []
            with conn.cursor().copy(f"COPY {names['t']} TO STDOUT") as copy:
                lines = [bytes(row) for row in copy]
            assert b"".join(lines) == b"1\tone\n2\ttwo\n"
            conn.execute("RESET search_path")
            assert outcome(conn, f"SELECT * FROM {names['t']}") == ("error", "42P01")
    finally:
        for conn in (sw, pg):
            conn.execute("RESET search_path")
            conn.execute(f"DROP SCHEMA {names['a']} CASCADE")


def test_set_config_and_invalid_lists(sw: Conn, pg: Conn) -> None:
    script = [
        "SELECT set_config('search_path', 'S1, \"My\"', false)",
        "SHOW search_path",
        "SELECT current_schemas(false)",
        "SELECT set_config('search_path', 'a,,b', false)",  # 22023: List syntax is invalid
        "SHOW search_path",
        'SET search_path = S1, "My S", \'x, y\', "$user"',
        "SHOW search_path",
        "SET search_path = $user",  # 42601
        "SET SCHEMA 'Mixed Case'",  # PostgreSQL's SET SCHEMA: search_path of that one schema
        "SHOW search_path",
        "SELECT 1",
    ]
    try:
        assert outcomes(sw, script) == outcomes(pg, script)
    finally:
        for conn in (sw, pg):
            conn.execute("RESET search_path")


def test_search_path_within_a_block_rolls_back(sw: Conn, pg: Conn) -> None:
    names = _names()
    script = [
        "CREATE SCHEMA {a}",
        "BEGIN",
        "SET LOCAL search_path = {a}",
        "SELECT current_schema()",
        "COMMIT",
        "SELECT current_schema()",
        "BEGIN",
        "SET search_path = {a}",
        "ROLLBACK",
        "SELECT current_schema()",
    ]
    _agree(sw, pg, script, names)


def test_implicit_schemas_are_materializes(sw: Conn) -> None:
    """Materialize searches mz_catalog and pg_catalog before the path, and its default path is `public`."""
    assert outcome(sw, "SHOW search_path") == ("rows", [("public",)])
    assert outcome(sw, "SELECT current_schemas(true)") == ("rows", [(["mz_catalog", "pg_catalog", "public"],)])
    sw.execute("SET search_path = pg_catalog, public")
    try:
        assert outcome(sw, "SELECT current_schemas(true)") == ("rows", [(["mz_catalog", "pg_catalog", "public"],)])
        assert outcome(sw, "SELECT current_schema()") == ("rows", [("pg_catalog",)])
    finally:
        sw.execute("RESET search_path")


def test_user_entry_is_the_current_role(sw: Conn, role: str) -> None:
    """`"$user"` searches the schema named after the current role, when it exists."""
    sw.execute(f"CREATE SCHEMA {role}")
    sw.execute(f"GRANT USAGE, CREATE ON SCHEMA {role} TO {role}")
    try:
        with psycopg.connect(as_role(sw.info.dsn, role), autocommit=True) as conn:
            conn.execute('SET search_path = "$user", public')
            assert outcome(conn, "SHOW search_path") == ("rows", [('"$user", public',)])
            assert outcome(conn, "SELECT current_schema()") == ("rows", [(role,)])
            conn.execute("CREATE TABLE mine (x int)")
            assert outcome(conn, "SELECT * FROM mine") == ("rows", [])
        found = sw.execute("SELECT table_schema FROM information_schema.tables WHERE table_name = 'mine'").fetchall()
        assert found == [(role,)]
    finally:
        sw.execute(f"DROP SCHEMA {role} CASCADE")


@pytest.mark.parametrize("statement", ["CREATE VIEW", "CREATE MATERIALIZED VIEW"])
def test_views_keep_what_they_resolved(sw: Conn, statement: str) -> None:
    """A view created under one search_path reads the same relations under any other (sparkwire stores its query
    with qualified names; materialized views are Materialize's)."""
    names = _names()
    a, b, t, u = names["a"], names["b"], names["t"], names["u"]
    for sql in (
        f"CREATE SCHEMA {a}",
        f"CREATE SCHEMA {b}",
        f"CREATE TABLE {a}.{t} (x int)",
        f"CREATE TABLE {b}.{t} (x int)",
        f"INSERT INTO {a}.{t} VALUES (1)",
        f"INSERT INTO {b}.{t} VALUES (2)",
    ):
        sw.execute(sql)
    try:
        sw.execute(f"SET search_path = {a}")
        sw.execute(f"{statement} {u} AS SELECT x FROM {t}")
        sw.execute(f"SET search_path = {b}, {a}")
        assert outcome(sw, f"SELECT x FROM {a}.{u}") == ("rows", [(1,)])
        assert outcome(sw, f"SELECT x FROM {u}") == ("rows", [(1,)])  # {u} is found in {a}
        assert outcome(sw, f"SELECT x FROM {t}") == ("rows", [(2,)])
    finally:
        sw.execute("RESET search_path")
        sw.execute(f"DROP SCHEMA {a} CASCADE")
        sw.execute(f"DROP SCHEMA {b} CASCADE")


PREPARED = [
    "CREATE SCHEMA {a}",
    "CREATE SCHEMA {b}",
    "CREATE TABLE {a}.{t} (x int)",
    "INSERT INTO {a}.{t} VALUES (1)",
    "CREATE TABLE {b}.{t} (x int)",
    "INSERT INTO {b}.{t} VALUES (2)",
    "SET search_path = {a}",
    "PREPARE p_{t} AS SELECT x FROM {t}",
    "EXECUTE p_{t}",
    "SET search_path = {b}",
    "EXECUTE p_{t}",  # re-planned under the new search_path, as PostgreSQL re-parses it
    "DEALLOCATE p_{t}",
]


def test_prepared_statements_follow_search_path(sw: Conn, pg: Conn) -> None:
    names = _names()
    _agree(sw, pg, PREPARED, names)


def test_protocol_prepared_statements_follow_search_path(sw: Conn, pg: Conn) -> None:
    names = _names()
    a, b, t = names["a"], names["b"], names["t"]
    try:
        for conn in (sw, pg):
            for sql in PREPARED[:6]:
                conn.execute(sql.format(**names))
            seen = []
            for schema in (a, b, a):
                conn.execute(f"SET search_path = {schema}")
                seen.append(conn.execute(f"SELECT x FROM {t}", prepare=True).fetchall())
            assert seen == [[(1,)], [(2,)], [(1,)]]
    finally:
        for conn in (sw, pg):
            conn.execute("RESET search_path")
            conn.execute(f"DROP SCHEMA IF EXISTS {a} CASCADE")
            conn.execute(f"DROP SCHEMA IF EXISTS {b} CASCADE")
