"""Warming a new Spark session up off the connection path: the first queries a fresh JVM runs are slow.

A new driver JVM interprets Catalyst's code (parser, analyzer, optimizer, planner, the interpreted expressions of
the small-input session) until the JIT compiles it, and starts Spark's Python worker at the first Python UDF; so
the first queries of each kind took ~1 s here instead of tens of milliseconds, and the first file of SQLite's
corpus ran at 5 records/s where the others ran at 20-45. `SparkEngine` runs `warm_up(small, main)` on its start
thread once the session is ready (statements are served meanwhile: it only competes for the CPU, at the start
thread's lower priority).

Contract: `warm_up(small, main)` runs, on rows of its own registered as temporary views (dropped afterwards), the
shapes sparkwire sends: a filter of rows in memory (spark_local_result's path, no job), an aggregate with GROUP BY,
a join, an IN subquery, ORDER BY with LIMIT, a window, and sparkwire's numeric division UDF (which starts the
Python worker), in the small-input session, and an aggregate in the main one; `rounds` times. Best effort: a
failure is logged and ends the warm-up, never the engine.
"""

from __future__ import annotations

import logging

import pyarrow as pa
from pyspark.sql import SparkSession

from sparkwire.engine.pg_functions import NUMERIC_DIV
from sparkwire.engine.spark_local_result import local_result

log = logging.getLogger(__name__)

_ROWS = "sw_warmup_rows"
_PARTITION = "sw_warmup_one"
_SHAPES = (
    "SELECT pk FROM {rows} WHERE (col0 > {n} OR col1 < {n}.5) AND col2 IS NOT NULL OR col0 IN (1, {n})",
    "SELECT col0, count(*), sum(col1), min(col2) FROM {one} WHERE col0 > {n} GROUP BY col0",
    "SELECT a.pk FROM {one} a JOIN {one} b ON a.col0 = b.col0 WHERE b.col1 > {n}",
    "SELECT pk FROM {one} WHERE col0 IN (SELECT col0 FROM {one} WHERE col1 > {n})",
    "SELECT pk, col0 FROM {one} WHERE col0 > {n} ORDER BY col1 DESC, pk LIMIT 5",
    "SELECT pk, rank() OVER (PARTITION BY col0 ORDER BY col1) FROM {one}",
    "SELECT " + NUMERIC_DIV + "(CAST(sum(col0) AS STRING), CAST(count(*) AS STRING)) FROM {one} WHERE col0 > {n}",
)


def _table(rows: int) -> pa.Table:
    return pa.table({
        "pk": list(range(rows)),
        "col0": [i % 7 for i in range(rows)],
        "col1": [i * 1.5 for i in range(rows)],
        "col2": [f"é{i}" for i in range(rows)],
    })  # fmt: skip


def warm_up(small: SparkSession, main: SparkSession, rounds: int = 3) -> None:
    try:
        frame = small.createDataFrame(_table(10))
        frame.createOrReplaceTempView(_ROWS)
        frame.coalesce(1).createOrReplaceTempView(_PARTITION)
        main.createDataFrame(_table(100)).createOrReplaceTempView(_ROWS)
        for n in range(rounds):  # other literals each round: distinct statements, as clients send them
            for shape in _SHAPES:
                result = small.sql(shape.format(rows=_ROWS, one=_PARTITION, n=n))
                if local_result(result) is None:
                    result.toArrow()
            main.sql(f"SELECT col0, count(*) FROM {_ROWS} WHERE col1 > {n} GROUP BY col0").toArrow()
    except Exception:
        log.warning("warming Spark up failed (the engine is not affected)", exc_info=True)
    finally:
        for session, views in ((small, (_ROWS, _PARTITION)), (main, (_ROWS,))):
            for view in views:
                try:
                    session.catalog.dropTempView(view)
                except Exception:
                    log.debug("dropping a warm-up view failed", exc_info=True)
