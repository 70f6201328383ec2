"""User data through a real server and psycopg (issue 3): tables in storage, queries on Spark, materialized views,
indexes and the fast path, EXPLAIN, cancel and statement_timeout of Spark jobs, errors and the SQL escape hatches.

Results are compared with the PostgreSQL 15 oracle on the same data wherever PostgreSQL has the same statement.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer

Conn = psycopg.Connection[Any]

SETUP = [
    "CREATE TABLE ud_emp (id int NOT NULL, name text, dept int, salary numeric(10,2), hired date, note text)",
    "INSERT INTO ud_emp VALUES (1, 'Ada', 10, 5200.50, '2020-01-15', NULL), (2, 'bob', 10, 4100, '2021-06-01', 'x'),"
    " (3, 'Cy', 20, NULL, '2019-03-30', 'note'), (4, NULL, NULL, 3000.25, NULL, ''),"
    " (5, 'Dee', 20, 6100, '2022-12-31', 'y')",
    "CREATE TABLE ud_dept (dept int, title text)",
    "INSERT INTO ud_dept VALUES (10, 'Eng'), (20, 'Ops'), (30, 'Empty')",
]

QUERIES = [
    "SELECT id, name FROM ud_emp ORDER BY name",
    "SELECT id, name FROM ud_emp ORDER BY name DESC",
    "SELECT id / 2, id % 3, 7 / 2, -7 / 2, -7 % 3 FROM ud_emp ORDER BY id",
    "SELECT dept, count(*), sum(salary), min(hired), max(name) FROM ud_emp GROUP BY dept ORDER BY dept",
    "SELECT e.name, d.title FROM ud_emp e JOIN ud_dept d ON e.dept = d.dept ORDER BY e.id",
    "SELECT d.title, count(e.id) FROM ud_dept d LEFT JOIN ud_emp e ON e.dept = d.dept GROUP BY d.title ORDER BY 1",
    "SELECT name || '-' || note, coalesce(note, 'none'), CASE WHEN salary > 5000 THEN 'hi' ELSE 'lo' END "
    "FROM ud_emp ORDER BY id",
    "SELECT name FROM ud_emp WHERE name LIKE 'A%' OR name ILIKE 'b%' ORDER BY 1",
    "SELECT upper(name), length(name), substr(name, 1, 2), trim(' ' || name || ' ') FROM ud_emp ORDER BY id",
    "SELECT id, hired + 1, extract(year FROM hired)::int, date_trunc('month', hired)::date FROM ud_emp ORDER BY id",
    "SELECT id FROM ud_emp ORDER BY id LIMIT 2 OFFSET 1",
    "SELECT salary::int, id::text, CAST(hired AS text) FROM ud_emp ORDER BY id",
    "SELECT count(*) FROM ud_emp WHERE dept IN (SELECT dept FROM ud_dept WHERE title <> 'Ops')",
]


@pytest.fixture(scope="module")
def conns(server: SparkwireServer, oracle: PostgresOracle) -> Iterator[tuple[Conn, Conn]]:
    with psycopg.connect(server.dsn, autocommit=True) as sw, psycopg.connect(oracle.dsn, autocommit=True) as pg:
        for conn in (sw, pg):
            conn.execute("DROP VIEW IF EXISTS ud_v")
            conn.execute("DROP TABLE IF EXISTS ud_emp, ud_dept")
            for sql in SETUP:
                conn.execute(sql)
        yield sw, pg


def _outcome(conn: Conn, sql: str) -> tuple[list[str], list[int], list[tuple[Any, ...]]]:
    cur = conn.execute(sql)
    assert cur.description is not None
    return [c.name for c in cur.description], [c.type_code for c in cur.description], cur.fetchall()


@pytest.mark.parametrize("sql", QUERIES)
def test_queries_on_spark_match_postgres(conns: tuple[Conn, Conn], sql: str) -> None:
    sw, pg = conns
    assert _outcome(sw, sql) == _outcome(pg, sql)


def test_queries_over_user_tables_run_on_spark_and_say_so(conns: tuple[Conn, Conn]) -> None:
    sw, _ = conns
    plan = [r[0] for r in sw.execute("EXPLAIN SELECT name FROM ud_emp WHERE dept = 10").fetchall()]
    assert plan[0].startswith("Spark: ")
    plan = [r[0] for r in sw.execute("EXPLAIN SELECT relname FROM pg_catalog.pg_class").fetchall()]
    assert plan[0] == "DuckDB (introspection store)"


def test_views_see_writes_and_materialized_views_stay_current(conns: tuple[Conn, Conn]) -> None:
    sw, _ = conns
    sw.execute("CREATE TABLE ud_mv_src (k int, v int)")
    sw.execute("CREATE VIEW ud_mv_view AS SELECT k, sum(v) AS s FROM ud_mv_src GROUP BY k")
    sw.execute("CREATE MATERIALIZED VIEW ud_mv AS SELECT k, sum(v) AS s FROM ud_mv_src GROUP BY k")
    try:
        assert sw.execute("SELECT * FROM ud_mv").fetchall() == []
        sw.execute("INSERT INTO ud_mv_src VALUES (1, 10), (1, 5), (2, 7)")
        assert sw.execute("SELECT k, s FROM ud_mv ORDER BY k").fetchall() == [(1, 15), (2, 7)]
        sw.execute("UPDATE ud_mv_src SET v = v * 2 WHERE k = 2")
        sw.execute("DELETE FROM ud_mv_src WHERE v = 5")
        expected = [(1, 10), (2, 14)]
        assert sw.execute("SELECT k, s FROM ud_mv ORDER BY k").fetchall() == expected
        assert sw.execute("SELECT k, s FROM ud_mv_view ORDER BY k").fetchall() == expected
    finally:
        sw.execute("DROP TABLE ud_mv_src CASCADE")


def test_view_columns_are_named_as_in_postgres(conns: tuple[Conn, Conn]) -> None:
    """Unaliased projections of a view or materialized view take PostgreSQL's names (`sum`, `count`, `length`),
    readable by those names on Spark and in the catalog."""
    sql = "SELECT dept, sum(salary), count(*), length(max(name)), dept + 1 FROM ud_emp GROUP BY dept"
    for conn in conns:
        conn.execute(f"CREATE VIEW ud_named AS {sql}")
    sw, pg = conns
    sw.execute(f"CREATE MATERIALIZED VIEW ud_named_mv AS {sql}")
    try:
        columns = "SELECT attname FROM pg_attribute WHERE attrelid = '{}'::regclass AND attnum > 0 ORDER BY attnum"
        assert sw.execute(columns.format("ud_named")).fetchall() == pg.execute(columns.format("ud_named")).fetchall()
        assert sw.execute(columns.format("ud_named_mv")).fetchall() == pg.execute(columns.format("ud_named")).fetchall()
        query = "SELECT dept, sum, count, length, \"?column?\" FROM {} ORDER BY dept"
        assert _outcome(sw, query.format("ud_named")) == _outcome(pg, query.format("ud_named"))
        assert sw.execute(query.format("ud_named_mv")).fetchall() == pg.execute(query.format("ud_named")).fetchall()
    finally:
        sw.execute("DROP MATERIALIZED VIEW ud_named_mv")
        for conn in conns:
            conn.execute("DROP VIEW ud_named")


def test_index_fast_path_answers_literal_lookups(conns: tuple[Conn, Conn]) -> None:
    sw, pg = conns
    sw.execute("CREATE INDEX ud_emp_id_idx ON ud_emp (id)")
    try:
        sql = "SELECT id, name, salary FROM ud_emp WHERE id = 3"
        plan = [r[0] for r in sw.execute(f"EXPLAIN {sql}").fetchall()]
        assert plan[0].startswith("Fast path: lookup in index materialize.public.ud_emp_id_idx")
        assert _outcome(sw, sql) == _outcome(pg, sql)
        assert sw.execute("SELECT name FROM ud_emp WHERE id = %s", [5]).fetchall() == [("Dee",)]
        sw.execute("INSERT INTO ud_emp VALUES (6, 'Eve', 30, 1, '2023-01-01', NULL)")
        assert sw.execute("SELECT name FROM ud_emp WHERE id = 6").fetchall() == [("Eve",)]
        sw.execute("DELETE FROM ud_emp WHERE id = 6")
        assert sw.execute("SELECT name FROM ud_emp WHERE id = 6").fetchall() == []
        not_fast = [r[0] for r in sw.execute("EXPLAIN SELECT name FROM ud_emp WHERE id > 3").fetchall()]
        assert not_fast[0].startswith("Spark: ")
    finally:
        sw.execute("DROP INDEX ud_emp_id_idx")


def test_ddl_catalog_behaviour(conns: tuple[Conn, Conn]) -> None:
    sw, pg = conns
    for conn in (sw, pg):
        conn.execute("CREATE VIEW ud_v AS SELECT id, name FROM ud_emp")
    errors = []
    for conn in (sw, pg):
        with pytest.raises(psycopg.Error) as err:
            conn.execute("DROP TABLE ud_emp")
        errors.append((err.value.sqlstate, err.value.diag.message_primary, err.value.diag.message_detail))
    assert errors[0] == errors[1]
    assert errors[0][0] == "2BP01"
    tables = [r[0] for r in sw.execute("SHOW TABLES").fetchall()]
    assert {"ud_emp", "ud_dept"} <= set(tables)
    assert sw.execute("SELECT id FROM mz_catalog.mz_tables WHERE name = 'ud_emp'").fetchone() is not None
    for conn in (sw, pg):
        conn.execute("DROP VIEW ud_v")


@pytest.mark.parametrize(
    ("sql", "sqlstate"),
    [
        ("SELECT id / 0 FROM ud_emp", "22012"),
        ("SELECT nope FROM ud_emp", "42703"),
        ("SELECT * FROM ud_nope", "42P01"),
        ("SELECT name::int FROM ud_emp WHERE id = 1", "22P02"),
        ("SELEC id FROM ud_emp", "42601"),
        ("INSERT INTO ud_emp (id) VALUES ('x')", "22P02"),
        ("INSERT INTO ud_emp (name) VALUES ('no id')", "23502"),
        ("UPDATE ud_emp SET id = 'a' || id", "42804"),
    ],
)
def test_errors_match_postgres(conns: tuple[Conn, Conn], sql: str, sqlstate: str) -> None:
    sw, pg = conns
    for conn in (sw, pg):
        with pytest.raises(psycopg.Error) as err:
            conn.execute(sql)
        assert err.value.sqlstate == sqlstate, (conn, err.value)
        assert "\n" not in (err.value.diag.message_primary or "")
    assert sw.execute("SELECT count(*) FROM ud_emp").fetchone() == (5,)


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM parquet.`/etc`",
        "SELECT reflect('java.lang.System', 'getenv', 'HOME') FROM ud_emp",
        "SELECT java_method('java.lang.System', 'exit', 1) FROM ud_emp",
        "SELECT * FROM read_csv('/etc/passwd')",
        "COPY ud_emp TO '/tmp/ud_emp.csv'",
        "ATTACH '/tmp/x.duckdb' AS x",
        "SET spark.sql.ansi.enabled = false",
        "CREATE TABLE ud_loc (a int) LOCATION '/tmp/x'",
    ],
)
def test_no_escape_from_sql(conns: tuple[Conn, Conn], sql: str) -> None:
    sw, _ = conns
    with pytest.raises(psycopg.Error) as err:
        sw.execute(sql)
    assert err.value.sqlstate in ("42501", "42601", "0A000", "42883"), err.value
    if "(" in sql and "LOCATION" not in sql:
        assert err.value.sqlstate == "42883", err.value  # not a PostgreSQL function: it does not exist
    else:
        assert err.value.sqlstate == "42501" or "LOCATION" in sql or "parquet.`" in sql, err.value


# 5^13 ≈ 1.2e9 combinations: minutes of Spark work on two cores, so only a cancel ends it within the test
SLOW = "SELECT count(*) FROM " + ", ".join(f"ud_emp t{i}" for i in range(13)) + " WHERE " + " + ".join(
    f"t{i}.id" for i in range(13)
) + " > 0"


def test_cancel_and_statement_timeout_stop_the_spark_job(server: SparkwireServer, conns: tuple[Conn, Conn]) -> None:
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        timer = threading.Timer(3.0, conn.cancel)
        timer.start()
        with pytest.raises(psycopg.errors.QueryCanceled) as err:
            conn.execute(SLOW)
        timer.join()
        assert "user request" in str(err.value)
        assert conn.execute("SELECT count(*) FROM ud_emp").fetchone() == (5,)
        conn.execute("SET statement_timeout = '2s'")
        with pytest.raises(psycopg.errors.QueryCanceled) as err:
            conn.execute(SLOW)
        assert "statement timeout" in str(err.value)
        conn.execute("RESET statement_timeout")
        assert conn.execute("SELECT count(*) FROM ud_emp").fetchone() == (5,)


@pytest.mark.parametrize("column_type", ["interval", "interval[]"])
def test_column_types_storage_cannot_hold_are_refused_up_front(conns: tuple[Conn, Conn], column_type: str) -> None:
    sw, _ = conns
    with pytest.raises(psycopg.errors.FeatureNotSupported) as err:
        sw.execute(f"CREATE TABLE ud_unstorable (a int, b {column_type})")
    assert "are not supported yet" in str(err.value)
    assert sw.execute("SELECT count(*) FROM mz_catalog.mz_tables WHERE name = 'ud_unstorable'").fetchone() == (0,)
