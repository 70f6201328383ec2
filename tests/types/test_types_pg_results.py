"""Numeric, aggregate and time results as PostgreSQL 15 gives them: the same statements on sparkwire and on the
oracle must report the same column type OIDs and send the same bytes, in text and in binary (raw cursors).

Constant queries run on DuckDB; queries over tables run on Spark (an unconstrained numeric column is held as each
value's text, storage/numeric_text.py). Division and avg() follow PostgreSQL's select_div_scale
(pgtypes/numeric_ops.py, also checked here against the oracle value by value).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import time
from decimal import Decimal
from typing import Any

import psycopg
import pytest

from sparkwire.pgtypes.numeric_ops import numeric_div_text
from tests.support.clients import raw_cursor

Conn = psycopg.Connection[tuple[object, ...]]
Answer = tuple[list[int], list[tuple[Any, ...]]] | str


def _answer(conn: Conn, sql: str, binary: bool) -> Answer:
    cur = raw_cursor(conn, binary=binary)
    try:
        cur.execute(sql)
    except psycopg.Error as err:
        return f"error {err.sqlstate}"
    assert cur.description is not None
    return [d.type_code for d in cur.description], cur.fetchall()


def same(sw: Conn, pg: Conn, sql: str) -> None:
    for binary in (False, True):
        assert _answer(sw, sql, binary) == _answer(pg, sql, binary), (sql, "binary" if binary else "text")


@pytest.fixture
def table(sw: Conn, pg: Conn) -> Iterator[str]:
    """A table of the same name and rows on both servers, with mixed-scale unconstrained numerics."""
    name = "tn_" + uuid.uuid4().hex[:8]
    for conn in (sw, pg):
        conn.execute(f"CREATE TABLE {name} (n numeric, i int, b bigint, s smallint, f float8, m numeric(10,2))")
        conn.execute(
            f"INSERT INTO {name} VALUES (1.23456789, 1, 1, 1, 1.5, 1.25), (12345678901234567890.5, 2, 2, 2, 2.5, 3.5), "
            "(0.1, 2, 3, 2, 3, -7.75), (NULL, NULL, NULL, NULL, NULL, NULL)"
        )
    yield name
    for conn in (sw, pg):
        conn.execute(f"DROP TABLE {name}")


CONSTANT_QUERIES = [
    "SELECT 1::numeric / 3",
    "SELECT 10::numeric / 4, 1.5 / 2, 2 / 1.5, -7::numeric / 2, 0::numeric / 5",
    "SELECT 123456789::numeric / 7, 1::numeric / 100000, 0.00012 / 7",
    "SELECT round(1::numeric / 3, 4), round(10::numeric / 4, 2)",
    "SELECT 7 / 2, 7.0::float8 / 2, 1::numeric / 3::float8",
    "SELECT avg(x), sum(x), count(x) FROM (VALUES (1), (2), (2)) AS v(x)",
    "SELECT avg(x::int8), sum(x::int8), avg(x::int2), sum(x::int2) FROM (VALUES (1), (2), (3)) AS v(x)",
    "SELECT avg(x::float8), sum(x::float8) FROM (VALUES (1), (2), (2)) AS v(x)",
    "SELECT avg(x) FROM (VALUES (1.5), (2.25)) AS v(x)",
    "SELECT 1::numeric, 1::numeric + 1, 5::numeric * 2",
    "SELECT length('héllo'), octet_length('héllo'), length('\\x0102ff'::bytea), octet_length('\\x0102'::bytea)",
]


@pytest.mark.parametrize("sql", CONSTANT_QUERIES)
def test_constant_results_as_postgres(sw: Conn, pg: Conn, sql: str) -> None:
    same(sw, pg, sql)


def test_numeric_division_by_zero_is_22012(sw: Conn) -> None:
    with pytest.raises(psycopg.errors.DivisionByZero):
        sw.execute("SELECT 1::numeric / 0")


TABLE_QUERIES = [
    "SELECT n FROM {t} ORDER BY n",
    "SELECT n::text, n AS renamed FROM {t} ORDER BY renamed",
    "SELECT * FROM {t} ORDER BY i, n",
    "SELECT n FROM {t} WHERE n > 1 ORDER BY 1",
    "SELECT sum(n), avg(n), max(n), min(n) AS lo FROM {t}",
    "SELECT sum(i), sum(b), sum(s), avg(i), avg(b), avg(s), avg(f), count(*), count(n) FROM {t}",
    "SELECT i, avg(b) FROM {t} GROUP BY i ORDER BY i",
    "SELECT n / 3 FROM {t} WHERE n < 100 ORDER BY n",
    "SELECT i::numeric / 3, b::numeric / 7 FROM {t} ORDER BY i, b",
    "SELECT m, m * 2, m + 1, m / 3, sum(m) OVER () FROM {t} ORDER BY m",
    "SELECT round(n, 2), trunc(n, 1), trunc(m) FROM {t} ORDER BY n",
    "SELECT round(avg(i), 2), avg(i) * 3 FROM {t}",
]


@pytest.mark.parametrize("sql", TABLE_QUERIES)
def test_table_results_as_postgres(sw: Conn, pg: Conn, table: str, sql: str) -> None:
    same(sw, pg, sql.format(t=table))


def test_numeric_beyond_38_digits_is_kept_and_refused_in_arithmetic(sw: Conn, pg: Conn) -> None:
    """Stored and selected exactly; computing with it needs DECIMAL(38, s) on Spark: 22003, never rounded."""
    name = "tbig_" + uuid.uuid4().hex[:8]
    big = "123456789012345678901234567890.123456789012345"
    for conn in (sw, pg):
        conn.execute(f"CREATE TABLE {name} (n numeric)")
        conn.execute(f"INSERT INTO {name} VALUES ({big})")
    try:
        same(sw, pg, f"SELECT n FROM {name}")
        with pytest.raises(psycopg.errors.NumericValueOutOfRange):
            sw.execute(f"SELECT n + 1 FROM {name}").fetchall()
    finally:
        for conn in (sw, pg):
            conn.execute(f"DROP TABLE {name}")


@pytest.mark.parametrize(
    ("a", "b"),
    [("1", "3"), ("10", "4"), ("12345678901234567891.83456789", "3"), ("1", "100000"), ("0.1", "3"), ("-7", "2"),
     ("0", "5"), ("123456789", "7"), ("1.00", "3.000"), ("0.00012", "7"), ("99999999", "0.0001"), ("1e-20", "3")],
)  # fmt: skip
def test_numeric_div_matches_postgres(pg: Conn, a: str, b: str) -> None:
    row = pg.execute("SELECT (%s::numeric / %s::numeric)::text", (a, b)).fetchone()
    assert row is not None
    assert numeric_div_text(Decimal(a), Decimal(b)) == row[0]


@pytest.fixture
def times(sw: Conn, pg: Conn) -> Iterator[str]:
    name = "tt_" + uuid.uuid4().hex[:8]
    for conn in (sw, pg):
        conn.execute(f"CREATE TABLE {name} (t time, d date, ts timestamp, k int)")
        conn.execute(
            f"INSERT INTO {name} VALUES ('12:34:56.5', '2024-01-31', '2024-01-01 10:00', 1), "
            "('23:59:59.999999', '2024-02-29', '2024-02-29 23:00', 2), ('00:00', '1999-12-31', NULL, 3), "
            "(NULL, NULL, NULL, 4)"
        )
    yield name
    for conn in (sw, pg):
        conn.execute(f"DROP TABLE {name}")


TIME_QUERIES = [
    "SELECT * FROM {t} ORDER BY k",
    "SELECT t FROM {t} WHERE t < time '13:00' ORDER BY t",
    "SELECT t, t::text AS tx FROM {t} WHERE t BETWEEN '00:00' AND '12:35' ORDER BY t DESC",
    "SELECT max(t), min(t), count(t) FROM {t}",
    "SELECT t - interval '30 minutes', extract(minute from t), extract(hour from t) FROM {t} WHERE k = 1",
    "SELECT ts - timestamp '2023-12-31', d + interval '1 month', ts + interval '1 day 2 hours' FROM {t} ORDER BY k",
]


@pytest.mark.parametrize("sql", TIME_QUERIES)
def test_time_columns_as_postgres(sw: Conn, pg: Conn, times: str, sql: str) -> None:
    same(sw, pg, sql.format(t=times))


def test_copy_time_and_numeric_in_text_and_binary(sw: Conn, pg: Conn) -> None:
    """COPY FROM (text, binary) into time and unconstrained numeric columns, COPY TO and SELECT: as PostgreSQL."""
    name = "tc_" + uuid.uuid4().hex[:8]
    rows = "12:00:01.25\t1.500\n23:59:59\t12345678901234567890123456789.123456789\n\\N\t\\N\n"
    copied: list[list[bytes]] = []
    for conn in (sw, pg):
        conn.execute(f"CREATE TABLE {name} (t time, n numeric)")
    try:
        for conn in (sw, pg):
            with conn.cursor().copy(f"COPY {name} FROM STDIN") as copy:
                copy.write(rows)
            with conn.cursor(binary=True).copy(f"COPY {name} (t, n) FROM STDIN (FORMAT BINARY)") as copy:
                copy.set_types(["time", "numeric"])
                copy.write_row((time(1, 2, 3, 4), Decimal("-0.000100")))
            with conn.cursor().copy(f"COPY (SELECT * FROM {name} ORDER BY t) TO STDOUT") as copy:
                copied.append([bytes(row) for row in copy])
        assert copied[0] == copied[1]
        same(sw, pg, f"SELECT t, n FROM {name} ORDER BY t")
    finally:
        for conn in (sw, pg):
            conn.execute(f"DROP TABLE {name}")


def test_views_and_create_table_as_type_averages_and_quotients_as_postgres(sw: Conn, pg: Conn, table: str) -> None:
    """A view's avg() / numeric `/` columns and CREATE TABLE AS's are numeric, as PostgreSQL types them (their
    values are computed further there: DECIMAL(38, 16), see docs/types.md)."""
    view, copy = table + "_v", table + "_c"
    sql = f"SELECT i, avg(m) AS a, max(m) / 3 AS q, avg(b) AS ab FROM {table} GROUP BY i"
    for conn in (sw, pg):
        conn.execute(f"CREATE VIEW {view} AS {sql}")
        conn.execute(f"CREATE TABLE {copy} AS {sql}")
    try:
        for name in (view, copy):
            empty = f"SELECT * FROM {name} LIMIT 0"
            assert _answer(sw, empty, False) == _answer(pg, empty, False)
            same(sw, pg, f"SELECT i, round(a, 10), round(q, 10), round(ab, 10) FROM {name} ORDER BY i")
    finally:
        for conn in (sw, pg):
            conn.execute(f"DROP VIEW IF EXISTS {view}")
            conn.execute(f"DROP TABLE IF EXISTS {copy}")
