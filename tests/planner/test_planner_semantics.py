"""PostgreSQL semantics on DuckDB: values, result column names and error SQLSTATEs, checked against a real
PostgreSQL 15 (the `oracle` fixture) through a real PlannerService session (no server)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg.pq import DiagnosticField

from tests.planner.test_planner_helpers import Client, new_service, oracle_run
from tests.support.postgres import PostgresOracle

SETUP_SQL = (
    "CREATE TABLE IF NOT EXISTS sem (a int, b text, c double precision);"
    "DELETE FROM sem;"
    "INSERT INTO sem VALUES (1, 'x', 1.5), (2, NULL, -2.25), (NULL, 'z', NULL), (3, 'y', 0);"
)

SAME_AS_POSTGRES = [
    "SELECT 1",
    "SELECT 7/2, -7/2, 7 % 2, -7 % 2, 7.0 / 2",
    "SELECT 'a' || NULL, 'a' || 'b'",
    "SELECT 1 + 2 AS three, 1::int, CAST(1 AS int), CAST('x' AS text), true, NULL::int",
    "SELECT count(*), sum(a), max(b) FROM sem",
    "SELECT a + 1, a::bigint, b FROM sem ORDER BY a",
    "SELECT a, b FROM sem ORDER BY a DESC",
    "SELECT b FROM sem ORDER BY b NULLS FIRST",
    "SELECT a FROM sem WHERE b IS NULL",
    "SELECT a, CASE WHEN a > 1 THEN 'big' ELSE 'small' END FROM sem ORDER BY 1",
    "SELECT coalesce(b, 'none') FROM sem ORDER BY 1",
    "SELECT lower('ABC'), upper('abc'), length('abcd')",
    "SELECT * FROM (VALUES (1, 'one'), (2, 'two')) AS v(n, s) ORDER BY n",
    "SELECT (SELECT max(a) FROM sem) AS m, EXISTS (SELECT 1 FROM sem)",
    "SELECT a FROM sem WHERE a IN (1, 3) ORDER BY a",
    "SELECT 1 UNION ALL SELECT 2 ORDER BY 1",
    "WITH t AS (SELECT a FROM sem WHERE a IS NOT NULL) SELECT count(*) AS n FROM t",
    "SELECT a, b FROM sem ORDER BY a LIMIT 2 OFFSET 1",
    r"SELECT '\x00ff'::bytea, octet_length('\x00ff'::bytea), 'a\\000b'::bytea, CAST('abc' AS bytea)",
    # LIKE escapes with a backslash unless ESCAPE names another character (translate/like_escape.py)
    r"SELECT s, s LIKE 'a\_%', s NOT LIKE 'a\_%', s ILIKE 'A\_B', s LIKE 'a\%', s LIKE 'a\\b', s ~~ 'a\_b', "
    r"s !~~* 'A\_B', s LIKE 'a#_b' ESCAPE '#', s LIKE 'a_b' ESCAPE '' "
    r"FROM (VALUES ('a_b'), ('axb'), ('a%'), ('ab'), ('a\b')) v(s) ORDER BY s",
]

ERRORS_AS_POSTGRES = [
    "SELECT 1/0",
    "SELECT a / 0 FROM sem",
    "SELECT 5 % 0",
    "SELECT 'abc'::int",
    "SELECT * FROM no_such_table",
    "SELECT no_such_column FROM sem",
    "SELECT 2147483647::int + 1",
    "SELECT no_such_function(1)",
    "SELECT 1 +",
    "SELEC 1",
    "SELECT 'x'::date",
    r"SELECT '\xzz'::bytea",
]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Client]:
    service = new_service(Path(tmp_path_factory.mktemp("semantics")))
    c = Client(service)
    for statement in SETUP_SQL.split(";"):
        if statement.strip():
            c.run(statement)
    yield c
    c.close()
    service.close()


@pytest.mark.parametrize("sql", SAME_AS_POSTGRES)
def test_values_and_names_match_postgres(client: Client, oracle: PostgresOracle, sql: str) -> None:
    expected = oracle_run(oracle.dsn, sql, SETUP_SQL)
    assert expected.sqlstate is None
    got = client.one(sql)
    assert got.names == expected.names
    assert got.rows == expected.rows


@pytest.mark.parametrize("sql", ERRORS_AS_POSTGRES)
def test_errors_match_postgres(client: Client, oracle: PostgresOracle, sql: str) -> None:
    expected = oracle_run(oracle.dsn, sql, SETUP_SQL)
    err = client.error(sql)
    assert err.code == expected.sqlstate
    assert "Error" not in err.message and "\n" not in err.message  # no engine internals


def test_error_messages_read_like_postgres(client: Client) -> None:
    assert client.error("SELECT 1/0").message == "division by zero"
    assert client.error("SELECT 'abc'::int").message == 'invalid input syntax for type integer: "abc"'
    assert client.error("SELECT * FROM nope").message == 'relation "nope" does not exist'
    assert client.error("SELECT nope FROM sem").message == 'column "nope" does not exist'
    err = client.error("SELEC 1")
    assert (err.message, err.position) == ('syntax error at or near "SELEC"', 1)


def test_constraint_errors(client: Client) -> None:
    client.run("CREATE TABLE uniq (k int PRIMARY KEY, v text NOT NULL)")
    client.run("INSERT INTO uniq VALUES (1, 'a')")
    assert client.error("INSERT INTO uniq VALUES (1, 'b')").code == "23505"
    assert client.error("INSERT INTO uniq VALUES (2, NULL)").code == "23502"
    assert client.rows("SELECT count(*) FROM uniq") == [(1,)]


def test_command_tags(client: Client) -> None:
    tags = [
        o.tag
        for o in client.run(
            "CREATE TABLE tags (a int); INSERT INTO tags VALUES (1), (2), (3); UPDATE tags SET a = a + 1 "
            "WHERE a > 1; DELETE FROM tags WHERE a = 4; SELECT * FROM tags; CREATE VIEW tv AS SELECT * FROM tags; "
            "DROP VIEW tv; CREATE TABLE tags2 AS SELECT * FROM tags; DROP TABLE tags2; DROP TABLE tags"
        )
    ]
    assert tags == [
        "CREATE TABLE", "INSERT 0 3", "UPDATE 2", "DELETE 1", "SELECT 2", "CREATE VIEW", "DROP VIEW",
        "SELECT 2", "DROP TABLE", "DROP TABLE",
    ]  # fmt: skip


def test_returning_tag_and_rows(client: Client) -> None:
    client.run("CREATE TABLE ret (a int, b text)")
    out = client.one("INSERT INTO ret VALUES (1, 'x'), (2, 'y') RETURNING a, b AS bee")
    assert (out.tag, out.names, out.rows) == ("INSERT 0 2", ["a", "bee"], [(1, "x"), (2, "y")])
    out = client.one("DELETE FROM ret WHERE a = 1 RETURNING *")
    assert (out.tag, out.rows) == ("DELETE 1", [(1, "x")])


def test_empty_statements(client: Client) -> None:
    assert [o.tag for o in client.run("")] == [""]
    assert [o.tag for o in client.run("  ;  ; -- nothing\n")] == [""]
    assert [o.tag for o in client.run("SELECT 1; ; SELECT 2")] == ["SELECT 1", "SELECT 1"]


def test_session_information_functions(client: Client) -> None:
    row = client.rows(
        "SELECT current_user, session_user, current_database(), current_schema, version(), pg_backend_pid()"
    )[0]
    assert row[:4] == ("materialize", "materialize", "materialize", "public")
    assert str(row[4]).startswith("PostgreSQL 15")
    assert row[5] == 0


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM (SELECT 1 AS a) s WHERE",
        "SELECT 1 +",
        "SELECT 1 2",
        "SELECT (1",
        "SELECT 1 FROM sem WHERE a = = 1",
        "  SELEC 1",
        "SELECT 1; SELECT 2 +",
    ],
)
def test_syntax_error_positions_match_postgres(client: Client, oracle: PostgresOracle, sql: str) -> None:
    with psycopg.connect(oracle.dsn, autocommit=True) as conn:
        res = conn.pgconn.exec_(sql.encode())  # the simple query protocol, like Client.run
        want = [
            res.error_field(f)
            for f in (DiagnosticField.SQLSTATE, DiagnosticField.MESSAGE_PRIMARY, DiagnosticField.STATEMENT_POSITION)
        ]
    err = client.error(sql)
    assert [err.code.encode(), err.message.encode(), str(err.position).encode()] == want


def test_builtins_qualified_with_pg_catalog(client: Client, oracle: PostgresOracle) -> None:
    sql = "SELECT pg_catalog.current_database() IS NOT NULL AS db, pg_catalog.version() LIKE 'PostgreSQL %' AS v"
    got = client.one(sql)
    assert (got.names, got.rows) == (["db", "v"], [(True, True)])
    assert got.names == oracle_run(oracle.dsn, sql).names


def test_numeric_literals_keep_their_digits(client: Client, oracle: PostgresOracle) -> None:
    sql = "SELECT '1.50'::numeric AS a, 'NaN'::numeric AS b, 1.50 AS c, '2.5'::numeric(5,2) AS d"
    got = client.one(sql)
    assert got.oids == [1700, 1700, 1700, 1700]
    assert [str(v) for v in got.rows[0]] == [str(v) for v in oracle_run(oracle.dsn, sql).rows[0]]
    assert client.error("SELECT 'abc'::numeric").code == "22P02"


def test_numeric_literals_keep_their_digits_inside_expressions(client: Client, oracle: PostgresOracle) -> None:
    """Not only as a result column: DuckDB's plain DECIMAL is (18,3), which answered 2.123 and 1.500 here."""
    sql = (
        "SELECT numeric '1.50'::text AS a, '1.123456'::numeric + 1 AS b, '1.5'::numeric * 2 AS c, "
        "-'2.50'::numeric AS d, '1e3'::numeric + 0.5 AS e, '12345678901234567890.25'::numeric * 2 AS f"
    )
    got = client.one(sql)
    assert [str(v) for v in got.rows[0]] == [str(v) for v in oracle_run(oracle.dsn, sql).rows[0]]
    assert [str(v) for v in got.rows[0]] == ["1.50", "2.123456", "3.0", "-2.50", "1000.5", "24691357802469135780.50"]


def test_like_escapes_in_writes(client: Client) -> None:
    """A DELETE's predicate runs on DuckDB (planner/execute/writes.py): an escaped % is a literal one there too."""
    client.run("CREATE TABLE likes (s text)")
    client.run("INSERT INTO likes VALUES ('a_b'), ('axb'), ('a%'), ('A_B')")
    assert client.one(r"DELETE FROM likes WHERE s LIKE 'a\%' RETURNING s").rows == [("a%",)]
    assert client.rows(r"SELECT s FROM likes WHERE s ILIKE 'a\_b' ORDER BY s") == [("A_B",), ("a_b",)]
