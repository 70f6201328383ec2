"""Rows Spark's optimizer already computed (a filter or projection of rows held in memory) collected without a job
(engine/spark_local_result.py): the same Arrow table as `toArrow()`'s job gives, type for type and value for value;
None for a plan that needs a job; an optimizer error surfaces as the statement's error. On the real shared Spark."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal
from typing import Any

import psycopg
import pyarrow as pa
import pytest
import sqlglot
from pyspark.sql import DataFrame
from sqlglot import exp

from sparkwire import errors
from sparkwire.engine.spark import SparkEngine
from sparkwire.engine.spark_local_result import local_result
from sparkwire.planner.execute.spark.row_scans import over_row_views, rows_view, scans_only
from tests.support.spark import shared_spark

Conn = psycopg.Connection[tuple[Any, ...]]

ROWS = pa.table(
    {
        "i16": pa.array([1, None, -3], pa.int16()),
        "i32": pa.array([10, 20, None], pa.int32()),
        "i64": pa.array([None, 2**40, -(2**40)], pa.int64()),
        "f32": pa.array([1.5, None, float("inf")], pa.float32()),
        "f64": pa.array([0.1, -0.0, None], pa.float64()),
        "num": pa.array([Decimal("1.250"), None, Decimal("-99999.999")], pa.decimal128(10, 3)),
        "txt": pa.array(["é", "", None], pa.string()),
        "flag": pa.array([True, None, False], pa.bool_()),
        "day": pa.array([dt.date(2024, 1, 15), None, dt.date(1, 1, 1)], pa.date32()),
        "at": pa.array(
            [dt.datetime(2024, 1, 15, 10, 30, 0, 500000), None, dt.datetime(1970, 1, 1)], pa.timestamp("us")
        ),
        "atz": pa.array(
            [dt.datetime(2024, 1, 15, 10, 30, tzinfo=dt.UTC), None, dt.datetime(2000, 2, 29, tzinfo=dt.UTC)],
            pa.timestamp("us", tz="UTC"),
        ),
        "span": pa.array([dt.timedelta(days=1, hours=3), None, dt.timedelta(microseconds=-1)], pa.duration("us")),
        "raw": pa.array([b"\x00\xff", None, b""], pa.binary()),
    }
)


@pytest.fixture(scope="module")
def engine() -> SparkEngine:
    return shared_spark()


@pytest.fixture(scope="module")
def view(engine: SparkEngine) -> str:
    name = f"local_rows_{uuid.uuid4().hex[:8]}"
    engine.session_for(True).createDataFrame(ROWS).createOrReplaceTempView(name)
    return name


def _frame(engine: SparkEngine, sql: str) -> DataFrame:
    return engine.session_for(True).sql(sql)


@pytest.mark.parametrize(
    "query",
    [
        "SELECT * FROM {v}",
        "SELECT * FROM {v} WHERE i32 IS NOT NULL OR txt = 'é'",
        "SELECT i64 * 2 AS twice, upper(txt) AS up, num + 1 AS more, day, at, atz FROM {v} WHERE flag OR flag IS NULL",
        "SELECT * FROM {v} LIMIT 1",
        "SELECT * FROM {v} WHERE false",  # no rows: the schema still comes
        "SELECT txt, span, raw FROM {v} WHERE i16 IS NULL",
    ],
)
def test_same_table_as_a_job(engine: SparkEngine, view: str, query: str) -> None:
    sql = query.format(v=view)
    local = local_result(_frame(engine, sql))
    assert local is not None, "the optimizer folds a filter / projection / limit of rows in memory"
    by_job = _frame(engine, sql).toArrow()
    assert local.schema == by_job.schema
    assert local.to_pylist() == by_job.to_pylist()


@pytest.mark.parametrize(
    "query",
    [
        "SELECT count(*) FROM {v}",
        "SELECT * FROM {v} ORDER BY i32",
        "SELECT a.i16 FROM {v} a JOIN {v} b ON a.i32 = b.i32",
    ],
)
def test_plans_that_need_a_job_are_left_to_it(engine: SparkEngine, view: str, query: str) -> None:
    assert local_result(_frame(engine, query.format(v=view))) is None


def test_an_error_of_a_folded_expression_is_the_statements(engine: SparkEngine, view: str) -> None:
    with pytest.raises(errors.PgError) as raised:
        engine.execute_arrow(f"SELECT i32 / 0 FROM {view}", job_tag=f"local-{uuid.uuid4().hex[:8]}", small=True)
    assert raised.value.sqlstate == "22012"


def test_a_filter_over_a_small_table_runs_no_job_and_answers_as_postgresql(sw: Conn, pg: Conn) -> None:
    name = f"local_{uuid.uuid4().hex[:8]}"
    for conn in (sw, pg):
        conn.execute(f"CREATE TABLE {name} (a int, b text, c numeric(6, 2))")
        conn.execute(f"INSERT INTO {name} VALUES (1, 'x', 1.50), (2, NULL, NULL), (3, 'é', -2.25)")
    try:
        query = f"SELECT a, b, c * 2 FROM {name} WHERE a > 1 OR b = 'x'"
        assert sorted(sw.execute(query).fetchall()) == sorted(pg.execute(query).fetchall())
        row = sw.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {query}").fetchone()
        assert row is not None
        plan = row[0][0] if isinstance(row[0], list) else row[0]
        assert plan["Spark Jobs"] == [], plan
        with pytest.raises(psycopg.errors.DivisionByZero):
            sw.execute(f"SELECT a / 0 FROM {name}")
        assert sw.execute(f"SELECT count(*) FROM {name} WHERE a = 3").fetchone() == (1,)
    finally:
        for conn in (sw, pg):
            conn.execute(f"DROP TABLE {name}")


@pytest.mark.parametrize(
    ("query", "folds"),
    [
        ("SELECT t.a AS a FROM sw_u1_x AS t WHERE t.a > 1 LIMIT 3", True),
        ("SELECT t.a + 1 AS b FROM sw_u1_x AS t", True),
        ("SELECT a FROM t ORDER BY a", False),
        ("SELECT count(*) FROM t", False),
        ("SELECT a FROM t, u", False),
        ("SELECT a FROM t JOIN u ON true", False),
        ("SELECT a FROM t WHERE a IN (SELECT b FROM u)", False),
        ("SELECT DISTINCT a FROM t", False),
        ("SELECT a FROM (SELECT a FROM t) AS s", False),
        ("SELECT a FROM t UNION SELECT 1", False),
        ("SELECT a, row_number() OVER () FROM t", False),
        ("SELECT a FROM t OFFSET 2", False),
    ],
)
def test_queries_that_only_scan_read_the_rows_view(query: str, folds: bool) -> None:
    tree = sqlglot.parse_one(query, read="postgres")
    assert isinstance(tree, exp.Expression)
    assert scans_only(tree) is folds
    if folds:
        sql = over_row_views(tree, {"sw_u1_x"}).sql("postgres")
        assert f"FROM {rows_view('sw_u1_x')} AS t" in sql and "t.a" in sql
