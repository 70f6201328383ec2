"""Small-input queries (engine.session_for(small=True), spark_config.SMALL_INPUT_CONF): a query whose every input is a
few thousand rows in memory runs interpreted as one Spark job of single-task stages, and answers as PostgreSQL does; a
query over a larger table stays in the main session (code generation, adaptive execution, exchanges between stages).

Through the real test server and the PostgreSQL oracle; the job and stage counts come from EXPLAIN (ANALYZE,
FORMAT JSON), which reads them from Spark's status store."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from sparkwire.planner.execute.spark.spark_relations import SMALL_TABLE_ROWS

Conn = psycopg.Connection[tuple[Any, ...]]
BIG_ROWS = SMALL_TABLE_ROWS + 2_000

# query shapes over {t}; each totally ordered so the two servers' rows compare in order
SHAPES = [
    "SELECT c0, count(*), sum(c1), min(c2), max(c2) FROM {t} GROUP BY c0 ORDER BY c0",
    "SELECT count(*), count(c1), sum(c2) FROM {t}",
    "SELECT a.c0, count(*) FROM {t} a JOIN {t} b ON a.c1 = b.c1 GROUP BY a.c0 ORDER BY a.c0",
    "SELECT DISTINCT c1 FROM {t} ORDER BY c1",
    "SELECT c2, rank() OVER (PARTITION BY c1 ORDER BY c2) FROM {t} ORDER BY c2",
    "SELECT * FROM {t} ORDER BY c2 DESC LIMIT 3",
    "SELECT a.c2, b.c2 FROM {t} a, {t} b WHERE a.c2 < b.c2 AND b.c2 < 4 ORDER BY 1, 2",
    "SELECT c0 FROM {t} UNION SELECT c1 FROM {t} ORDER BY 1",
    "SELECT c0, c1 FROM {t} a LEFT JOIN (SELECT c1 AS k FROM {t} WHERE c1 < 3) s ON a.c0 = s.k ORDER BY 1, 2 LIMIT 20",
]


@pytest.fixture
def tables(sw: Conn, pg: Conn) -> Iterator[tuple[str, str]]:
    """A small table (40 rows) and one just past SMALL_TABLE_ROWS, with the same columns, on both servers."""
    small, big = f"small_{uuid.uuid4().hex[:8]}", f"big_{uuid.uuid4().hex[:8]}"
    for conn in (sw, pg):
        for name, rows in ((small, 40), (big, BIG_ROWS)):
            conn.execute(f"CREATE TABLE {name} (c0 int, c1 int, c2 int)")
            conn.execute(f"INSERT INTO {name} SELECT g % 7, g % 5, g FROM generate_series(1, {rows}) g")
    yield small, big
    for conn in (sw, pg):
        conn.execute(f"DROP TABLE {small}, {big}")


def _spark_run(sw: Conn, query: str) -> tuple[int, list[int], str]:
    """The Spark jobs EXPLAIN ANALYZE saw for `query`, the task count of each of their stages, and the plan text."""
    row = sw.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {query}").fetchone()
    assert row is not None
    plan = row[0][0] if isinstance(row[0], list) else row[0]
    jobs = plan["Spark Jobs"]
    return len(jobs), [stage["Tasks"] for job in jobs for stage in job["Stages"]], str(plan)


@pytest.mark.parametrize("shape", SHAPES)
def test_small_inputs_run_as_one_interpreted_job(sw: Conn, pg: Conn, tables: tuple[str, str], shape: str) -> None:
    small, _ = tables
    query = shape.format(t=small)
    assert sw.execute(query).fetchall() == pg.execute(query).fetchall()
    jobs, stage_tasks, plan = _spark_run(sw, query)
    assert jobs == 1 and set(stage_tasks) == {1}, plan  # one job; one partition, so one task a stage
    assert "codegen id" not in plan and "AdaptiveSparkPlan" not in plan  # interpreted; no re-planning


def test_larger_inputs_stay_in_the_main_session(sw: Conn, pg: Conn, tables: tuple[str, str]) -> None:
    _, big = tables
    for shape in SHAPES[:3]:
        query = shape.format(t=big)
        assert sw.execute(query).fetchall() == pg.execute(query).fetchall(), query
    _, stage_tasks, plan = _spark_run(sw, SHAPES[0].format(t=big))
    assert len(stage_tasks) > 1 and "AdaptiveSparkPlan" in plan  # a shuffle between stages; adaptive execution


def test_a_query_mixing_small_and_large_inputs_is_not_small(sw: Conn, pg: Conn, tables: tuple[str, str]) -> None:
    small, big = tables
    query = f"SELECT s.c0, count(*) FROM {small} s JOIN {big} b ON s.c2 = b.c2 GROUP BY s.c0 ORDER BY s.c0"
    assert sw.execute(query).fetchall() == pg.execute(query).fetchall()
    _, _, plan = _spark_run(sw, query)
    assert "AdaptiveSparkPlan" in plan


def test_a_large_cross_product_of_small_inputs_is_not_small(sw: Conn, pg: Conn, tables: tuple[str, str]) -> None:
    """40 rows four times over is 2.56M combinations, past SMALL_INPUT_WORK: one interpreted task would be slow."""
    small, _ = tables
    three = f"SELECT count(*) FROM {small} a, {small} b, {small} c WHERE a.c2 + b.c2 = c.c2"
    four = f"SELECT count(*) FROM {small} a, {small} b, {small} c, {small} d WHERE a.c2 + b.c2 + c.c2 = d.c2"
    for query in (three, four):
        assert sw.execute(query).fetchall() == pg.execute(query).fetchall()
    assert "AdaptiveSparkPlan" not in _spark_run(sw, three)[2]  # 64,000 combinations: small
    assert "AdaptiveSparkPlan" in _spark_run(sw, four)[2]
