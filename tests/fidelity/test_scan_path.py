"""The storage scan path (planner/execute/scan_path.py) through psycopg: `SELECT <columns> FROM <table> [LIMIT n]`
and `COPY t TO STDOUT` read storage's files without Spark and answer exactly what PostgreSQL answers for the same
table and what the Spark path answers for the same rows; anything more (a WHERE, a view, a write of the open
transaction) keeps to the other paths."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest

Conn = psycopg.Connection[tuple[object, ...]]

DDL = (
    "CREATE TABLE {t} (a integer, b text, c numeric(10,2), n numeric, f double precision, d date, "
    "ts timestamp with time zone, flag boolean, v character varying(10))"
)
ROWS = (
    "(1, 'x', 2.50, 1.5, 0.1, '2024-02-29', '2024-01-01 00:00:00+00', true, 'hello'), "
    "(2, NULL, -1.25, 100, 1e300, '1999-12-31', '2024-06-01 12:30:00.5+00', false, NULL), "
    "(3, 'tab\there', NULL, 0.000001, -0.0, NULL, NULL, NULL, 'back\\slash'), "
    "(4, 'ünïcode', 0, NULL, NULL, '2000-01-01', '1970-01-01 00:00:00+00', true, '')"
)


@pytest.fixture
def table(sw: Conn, pg: Conn) -> Iterator[str]:
    name = "scan_" + uuid.uuid4().hex[:8]
    for conn in (sw, pg):
        conn.execute(DDL.format(t=name))
        conn.execute(f"INSERT INTO {name} VALUES {ROWS}")
    yield name
    for conn in (sw, pg):
        conn.execute(f"DROP TABLE {name}")


def _strategy(sw: Conn, sql: str) -> object:
    row = sw.execute(
        "SELECT execution_strategy FROM mz_internal.mz_recent_activity_log WHERE sql = %s ORDER BY began_at DESC "
        "LIMIT 1",
        (sql,),
    ).fetchone()
    return row[0] if row else None


def test_whole_table_agrees_with_postgres_and_with_spark(sw: Conn, pg: Conn, table: str) -> None:
    scanned = _sorted(sw.execute(f"SELECT * FROM {table}").fetchall())
    assert scanned == _sorted(pg.execute(f"SELECT * FROM {table}").fetchall())
    spark = sw.execute(f"SELECT * FROM {table} WHERE a IS NOT NULL ORDER BY a").fetchall()
    assert scanned == spark
    assert _lines(sw, f"EXPLAIN SELECT * FROM {table}") == [f"Storage scan: materialize.public.{table}"]


def test_projection_aliases_and_limit(sw: Conn, pg: Conn, table: str) -> None:
    sql = f"SELECT v AS label, a, a AS again FROM {table} t"
    cur = sw.execute(sql)
    assert [d.name for d in cur.description or ()] == ["label", "a", "again"]
    assert _sorted(cur.fetchall(), 1) == _sorted(pg.execute(sql).fetchall(), 1)
    assert len(sw.execute(f"SELECT t.* FROM {table} AS t LIMIT 2").fetchall()) == 2
    assert sw.execute(f"SELECT a FROM {table} LIMIT 0").fetchall() == []


def test_deleted_and_updated_rows_as_of_the_latest_commit(sw: Conn, table: str) -> None:
    sw.execute(f"DELETE FROM {table} WHERE a = 2")
    sw.execute(f"UPDATE {table} SET b = 'changed' WHERE a = 1")
    rows = _sorted(sw.execute(f"SELECT a, b FROM {table}").fetchall())
    assert rows == [(1, "changed"), (3, "tab\there"), (4, "ünïcode")]


def test_copy_to_stdout_matches_postgres_byte_for_byte(sw: Conn, pg: Conn, table: str) -> None:
    def copy(conn: Conn, options: str) -> list[bytes]:
        with conn.cursor() as cur, cur.copy(f"COPY (SELECT * FROM {table} ORDER BY a) TO STDOUT {options}") as c:
            ordered = b"".join(bytes(chunk) for chunk in c)
        with conn.cursor() as cur, cur.copy(f"COPY {table} TO STDOUT {options}") as c:
            whole = b"".join(bytes(chunk) for chunk in c)
        assert sorted(whole.splitlines()) == sorted(ordered.splitlines())
        return ordered.splitlines()

    for options in ("", "(FORMAT csv)", "(FORMAT csv, HEADER)", "(DELIMITER '|', NULL 'nil')"):
        assert copy(sw, options) == copy(pg, options), options


def test_other_shapes_and_open_writes_keep_their_paths(sw: Conn, table: str) -> None:
    assert _lines(sw, f"EXPLAIN SELECT a FROM {table} WHERE a > 1")[0].startswith("Spark: ")
    assert _lines(sw, f"EXPLAIN SELECT a FROM {table} ORDER BY a")[0].startswith("Spark: ")
    assert _lines(sw, f"EXPLAIN SELECT a FROM {table} OFFSET 1")[0].startswith("Spark: ")
    assert _lines(sw, f"EXPLAIN SELECT a + 1 FROM {table}")[0].startswith("Spark: ")
    view = f"{table}_v"
    sw.execute(f"CREATE VIEW {view} AS SELECT a FROM {table}")
    try:
        assert _lines(sw, f"EXPLAIN SELECT * FROM {view}")[0].startswith("Spark: ")
    finally:
        sw.execute(f"DROP VIEW {view}")
    with sw.transaction():
        sw.execute(f"INSERT INTO {table} (a) VALUES (99)")
        assert (99,) in sw.execute(f"SELECT a FROM {table}").fetchall()  # its own write, through Spark
    assert (99,) in sw.execute(f"SELECT a FROM {table}").fetchall()


def test_history_names_the_strategy(sw: Conn, table: str) -> None:
    sql = f"SELECT b FROM {table} LIMIT 1"
    sw.execute(sql).fetchall()
    for _ in range(50):
        if _strategy(sw, sql) is not None:
            break
        sw.execute("SELECT pg_sleep(0.1)")
    assert _strategy(sw, sql) == "persist-fast-path"


def _sorted(rows: list[tuple[object, ...]], column: int = 0) -> list[tuple[object, ...]]:
    return sorted(rows, key=lambda row: str(row[column]))


def _lines(sw: Conn, sql: str) -> list[str]:
    return [str(row[0]) for row in sw.execute(sql).fetchall()]
