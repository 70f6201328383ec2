"""PostgreSQL semantics on Spark: every case runs on the real PostgreSQL oracle and on a real local Spark through
`translate_spark` + `SparkEngine`; results (values, NULLs, order where the query orders, column names, and the
PostgreSQL type each Arrow column maps to) and error SQLSTATEs must agree. Also: the engine's cancel / timeout /
schema / parameter paths and the Spark guard.

One Spark session (local[2]) serves the whole file: the `spark` fixture below, scope="session".
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Iterator
from decimal import Decimal
from typing import Any, NamedTuple

import psycopg
import pyarrow as pa
import pytest
import sqlglot
from sqlglot import exp

from sparkwire import errors
from sparkwire.engine.spark import SparkEngine
from sparkwire.pgtypes.mapping import pg_type_for_arrow
from sparkwire.planner.bind.output_types import NUMERIC_QUOTIENT, declared_types
from sparkwire.planner.translate.spark import forbidden_in_spark, postgres_column_names, translate
from tests.support.postgres import PostgresOracle
from tests.support.spark import shared_spark

UTC = dt.UTC

T_ROWS: list[tuple[Any, ...]] = [
    (1, 10, 1.5, "apple", dt.datetime(2024, 1, 15, 10, 30, tzinfo=UTC), dt.date(2024, 1, 15)),
    (2, 10, -2.25, "Banana split", dt.datetime(2024, 2, 29, 23, 59, 59, 500000, tzinfo=UTC), dt.date(2024, 2, 29)),
    (-7, 20, 1e20, "cherry-pie", dt.datetime(2023, 12, 31, 0, 0, tzinfo=UTC), dt.date(2023, 12, 31)),
    (7, 20, 0.0001, None, None, None),
    (None, 30, None, "a_b%c", dt.datetime(2024, 3, 3, 3, 3, 3, tzinfo=UTC), dt.date(2024, 3, 3)),
    (3, None, 123456789.125, "apple", dt.datetime(2024, 1, 1, tzinfo=UTC), dt.date(2024, 1, 1)),
]
U_ROWS: list[tuple[Any, ...]] = [(1, "one"), (2, "two"), (2, "deux"), (9, "nine"), (None, "null")]

SCHEMA = {
    "t": {"a": "int", "b": "int", "x": "double precision", "s": "text", "ts": "timestamptz", "d": "date"},
    "u": {"a": "int", "y": "text"},
}
ARROW = {
    "t": pa.schema(
        [
            ("a", pa.int32()),
            ("b", pa.int32()),
            ("x", pa.float64()),
            ("s", pa.string()),
            ("ts", pa.timestamp("us", tz="UTC")),
            ("d", pa.date32()),
        ]
    ),
    "u": pa.schema([("a", pa.int32()), ("y", pa.string())]),
}
PG_DDL = [
    "CREATE TABLE t (a int, b int, x double precision, s text, ts timestamptz, d date)",
    "CREATE TABLE u (a int, y text)",
]

# (PostgreSQL query, whether its row order is defined by ORDER BY)
CASES: list[tuple[str, bool]] = [
    # arithmetic: integer division / modulo sign rules
    ("SELECT 7 / 2, -7 / 2, 7 % 3, -7 % 3, 7 % -3, 7.0 / 2, 1 + 7 / 2 * 3", True),
    ("SELECT a, b, a / 2, a % 3, b / a FROM t WHERE a <> 0 ORDER BY a", True),
    ("SELECT a / 2.0 FROM t WHERE a IS NOT NULL ORDER BY 1", True),
    # ordering: PostgreSQL puts NULLs last ascending, first descending
    ("SELECT a FROM t ORDER BY a", True),
    ("SELECT a FROM t ORDER BY a DESC", True),
    ("SELECT b, a FROM t ORDER BY b DESC, a", True),
    ("SELECT s FROM t ORDER BY s NULLS FIRST", True),
    # strings
    ("SELECT s || '!', 'x' || NULL, concat(s, NULL, 'z'), concat_ws('-', s, NULL, 'z') FROM t ORDER BY a", True),
    (
        "SELECT length(s), lower(s), upper(s), substring(s from 2 for 3), substring(s, 3), position('p' in s), "
        "strpos(s, 'e') AS sp FROM t ORDER BY a",
        True,
    ),
    (
        "SELECT trim(both 'a' from s), btrim('  x  '), ltrim('  x'), rtrim('x  '), replace(s, 'p', 'P') "
        "FROM t ORDER BY a",
        True,
    ),
    ("SELECT split_part(s, '-', 2), left(s, 3), right(s, 2), lpad(s, 8, '*'), rpad(s, 3) FROM t ORDER BY a", True),
    (
        "SELECT regexp_replace(s, 'p', 'P'), regexp_replace(s, 'p', 'P', 'g'), regexp_replace(s, '(a)(p)', '\\2\\1'), "
        "regexp_replace(s, 'A', '#', 'gi') FROM t ORDER BY a",
        True,
    ),
    ("SELECT initcap('hello world')", True),
    # LIKE / ILIKE / ESCAPE
    ("SELECT s FROM t WHERE s LIKE 'a%' ORDER BY a", True),
    ("SELECT s FROM t WHERE s ILIKE 'BAN%' OR s NOT ILIKE '%e%' ORDER BY a", True),
    ("SELECT s FROM t WHERE s LIKE 'a!_b%' ESCAPE '!'", False),
    ("SELECT s FROM t WHERE s LIKE 'a\\_b%'", False),
    # CASE / COALESCE / NULLIF / GREATEST
    (
        "SELECT CASE WHEN a > 2 THEN 'big' WHEN a IS NULL THEN 'none' ELSE 'small' END, coalesce(a, b, 0), "
        "nullif(b, 10), greatest(a, b), least(a, b) FROM t ORDER BY x",
        True,
    ),
    # casts and text output
    (
        "SELECT CAST(1 AS int), 1::bigint, '42'::int + 1, 2.5::numeric(5, 2), '2024-01-02'::date, true::text, "
        "1.5::text",
        True,
    ),
    ("SELECT x::text FROM t ORDER BY x", True),
    (
        "SELECT 1e20::float8::text, 0.0001::float8::text, 3.0::float8::text, 123456789012345.0::float8::text, "
        "1e15::float8::text, 1.25e-5::float8::text, (-0.5)::float8::text",
        True,
    ),
    ("SELECT ts::text, d::text FROM t ORDER BY a", True),
    ("SELECT '2024-05-06 07:08:09'::timestamp::text, '2024-05-06 07:08:09.25+00'::timestamptz::text", True),
    # date / time
    (
        "SELECT date_trunc('month', ts), date_trunc('day', ts), extract(year FROM ts), extract(month FROM d), "
        "extract(dow FROM ts), extract(isodow FROM ts), extract(doy FROM ts) FROM t ORDER BY a",
        True,
    ),
    ("SELECT extract(epoch FROM ts), extract(hour FROM ts), extract(second FROM ts) FROM t ORDER BY a", True),
    ("SELECT ts + interval '1 day', d + 1, ts - interval '2 hours' FROM t ORDER BY a", True),
    ("SELECT to_char(ts, 'YYYY-MM-DD') FROM t ORDER BY a", True),
    ("SELECT current_date = current_date, now() IS NOT NULL", True),
    # ANY / ALL
    ("SELECT a FROM t WHERE a = ANY(ARRAY[1, 7, NULL]) ORDER BY a", True),
    ("SELECT a, a = ANY(ARRAY[1, 2]), a <> ALL(ARRAY[1, 2]), a > ANY(ARRAY[2, 5]) FROM t ORDER BY a", True),
    ("SELECT a FROM t WHERE a = ANY(SELECT a FROM u) ORDER BY a", True),
    # aggregates
    ("SELECT count(*), count(a), count(DISTINCT b), sum(a), min(s), max(x), avg(b) FROM t", True),
    ("SELECT b, count(*), sum(a) FROM t GROUP BY b HAVING count(*) > 1 ORDER BY b", True),
    ("SELECT array_agg(a ORDER BY a DESC) FROM t", True),
    ("SELECT array_agg(a ORDER BY x NULLS FIRST), array_agg(s ORDER BY s) FROM t", True),
    ("SELECT b, array_agg(a ORDER BY a) FROM t GROUP BY b ORDER BY b", True),
    ("SELECT array_agg(a) FROM t WHERE false", True),
    ("SELECT string_agg(s, ', ' ORDER BY s DESC) FROM t", True),
    ("SELECT b, string_agg(s, '|' ORDER BY s) FROM t GROUP BY b ORDER BY b", True),
    # DISTINCT / DISTINCT ON / LIMIT / OFFSET
    ("SELECT DISTINCT b FROM t ORDER BY b", True),
    ("SELECT DISTINCT ON (b) b, a, s FROM t ORDER BY b, a DESC", True),
    ("SELECT DISTINCT ON (b) b, a FROM t ORDER BY b DESC, a LIMIT 2", True),
    ("SELECT a FROM t ORDER BY a LIMIT 2 OFFSET 1", True),
    ("SELECT a FROM t ORDER BY a OFFSET 4", True),
    # windows
    (
        "SELECT a, b, row_number() OVER (PARTITION BY b ORDER BY a), sum(a) OVER (ORDER BY a), "
        "rank() OVER (ORDER BY b DESC), lag(a) OVER (ORDER BY a) FROM t ORDER BY a",
        True,
    ),
    # CTEs, set operations, subqueries
    ("WITH c AS (SELECT a, b FROM t WHERE b = 10) SELECT a FROM c ORDER BY a", True),
    ("SELECT a FROM t UNION SELECT a FROM u", False),
    ("SELECT a FROM t UNION ALL SELECT a FROM u", False),
    ("SELECT a FROM t INTERSECT SELECT a FROM u", False),
    ("SELECT a FROM u EXCEPT SELECT a FROM t", False),
    ("SELECT a FROM u EXCEPT ALL SELECT a FROM t", False),
    ("SELECT a FROM t WHERE a IN (SELECT a FROM u) ORDER BY a", True),
    ("SELECT a FROM t WHERE a NOT IN (SELECT a FROM u WHERE a IS NOT NULL) ORDER BY a", True),
    ("SELECT a FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = t.a) ORDER BY a", True),
    ("SELECT a, (SELECT max(y) FROM u WHERE u.a = t.a) FROM t ORDER BY a", True),
    ("SELECT t.a, u.y FROM t JOIN u ON t.a = u.a ORDER BY u.y", True),
    ("SELECT t.a, u.y FROM t LEFT JOIN u ON t.a = u.a ORDER BY t.a, u.y", True),
    # generate_series
    ("SELECT * FROM generate_series(1, 5)", True),
    ("SELECT * FROM generate_series(1, 10, 3) AS g(n)", True),
    ("SELECT * FROM generate_series(5, 1)", True),
    ("SELECT * FROM generate_series(5, 1, -2) g", True),
    ("SELECT generate_series(1, 3)", True),
    ("SELECT n * 2 FROM generate_series(1, 3) AS g(n) ORDER BY n DESC", True),
    ("SELECT * FROM generate_series('2024-01-01'::timestamp, '2024-01-03'::timestamp, interval '1 day')", True),
    # mixed
    (
        "SELECT substring('hello', -1, 3), substring('hello', 0), substring('hello' from 4), "
        "substr('hello', 2, 2) AS s2",
        True,
    ),
    ("SELECT concat(a, '-', NULL, x), a || '/' || b FROM t ORDER BY a", True),
    ("SELECT a FROM t ORDER BY a LIMIT ALL", True),
    ("SELECT a FROM t ORDER BY a DESC FETCH FIRST 2 ROWS ONLY", True),
    (
        "SELECT a IS DISTINCT FROM b, a IS NOT DISTINCT FROM 1, CASE a WHEN 1 THEN 'one' ELSE 'other' END "
        "FROM t ORDER BY a",
        True,
    ),
    ("SELECT b, count(*) FROM t GROUP BY 1 ORDER BY 2 DESC, 1", True),
    ("SELECT d - '2024-01-01'::date, ts - '2024-01-01 00:00:00+00'::timestamptz FROM t ORDER BY a", True),
    (
        "SELECT to_char(ts, 'YYYY-MM-DD HH24:MI:SS'), date_trunc('week', ts), extract(quarter FROM ts), "
        "extract(week FROM d) FROM t ORDER BY a",
        True,
    ),
    ("SELECT (ARRAY[10, 20])[2], (ARRAY[10, 20])[5], (ARRAY[10, 20])[0]", True),
    ("SELECT 1.5::real::text, 0.1::real::text, 12345.5::real::text", True),
    ("SELECT a::text || 'x', b::float8 / 4, coalesce(s, 'none') || '-' || a FROM t ORDER BY a", True),
    ("SELECT ts - interval '1 day 2 hours', d - 7, ts > now() - interval '10 years' FROM t ORDER BY a", True),
    ("SELECT count(*) FILTER (WHERE a > 1), sum(a) FILTER (WHERE b = 20) FROM t", True),
    (
        "SELECT a, sum(b) OVER (PARTITION BY a % 2 ORDER BY a ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) "
        "FROM t ORDER BY a",
        True,
    ),
    ("SELECT q.n FROM (SELECT a + 1 AS n FROM t) q WHERE q.n > 2 ORDER BY 1", True),
    ("SELECT s FROM t ORDER BY lower(s) DESC LIMIT 3", True),
    ("SELECT 2 ^ 10 AS p, abs(-3), round(2.567, 2), ceil(1.2), floor(-1.2), -7 / 2 * 1.0", True),
    ("SELECT DISTINCT ON (s) s, a FROM t ORDER BY s, a", True),
    ("SELECT x FROM t WHERE x BETWEEN -3 AND 2 ORDER BY x", True),
    ("SELECT b, count(*) FROM t GROUP BY b ORDER BY count(*) DESC, b", True),
]

# (PostgreSQL query, SQLSTATE both must raise)
ERROR_CASES: list[tuple[str, str]] = [
    ("SELECT * FROM no_such_table", "42P01"),
    ("SELECT no_such_column FROM t", "42703"),
    ("SELECT 1 / 0", "22012"),
    ("SELECT a / 0 FROM t", "22012"),
    ("SELECT '1.5'::int", "22P02"),
    ("SELECT 'abc'::int", "22P02"),
    ("SELECT 'not a date'::date", "22007"),
    ("SELECT 2147483647::int + 1", "22003"),
    ("SELECT 3000000000::bigint::int", "22003"),
    ("SELECT a, count(*) FROM t", "42803"),
    ("SELECT no_such_function(1)", "42883"),
    ("SELECT a FROM t, u", "42702"),
    ("SELECT 'x' + 1", "22P02"),
]


# ---- fixtures -----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def spark() -> Iterator[SparkEngine]:
    engine = shared_spark()
    for name, rows in (("t", T_ROWS), ("u", U_ROWS)):
        columns = list(zip(*rows, strict=True))
        engine.register_arrow(name, pa.table(columns, schema=ARROW[name]))
    yield engine


@pytest.fixture(scope="module")
def pg(oracle: PostgresOracle) -> Iterator[psycopg.Connection[tuple[Any, ...]]]:
    with psycopg.connect(oracle.dsn, autocommit=True) as conn:
        for ddl in PG_DDL:
            conn.execute(ddl.replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS"))
        conn.execute("TRUNCATE t, u")
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO t VALUES (%s, %s, %s, %s, %s, %s)", T_ROWS)
            cur.executemany("INSERT INTO u VALUES (%s, %s)", U_ROWS)
        conn.execute("SET TimeZone = 'UTC'")
        yield conn


# ---- helpers ------------------------------------------------------------------------------------------------------


def _norm(value: Any) -> Any:
    """Comparable form: numbers as Decimal (int 3, 3.0 and Decimal('3.000') agree), lists element-wise."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float, Decimal)):
        return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    if isinstance(value, list):
        return [_norm(v) for v in value]
    return value


def _normalized(rows: list[tuple[Any, ...]], ordered: bool) -> list[tuple[Any, ...]]:
    out = [tuple(_norm(v) for v in row) for row in rows]
    return out if ordered else sorted(out, key=repr)


class Result(NamedTuple):
    names: list[str]
    type_oids: list[int]
    rows: list[tuple[Any, ...]]


def run_pg(conn: psycopg.Connection[tuple[Any, ...]], sql: str) -> Result:
    with conn.cursor() as cur:
        cur.execute(sql)
        assert cur.description is not None
        return Result([c.name for c in cur.description], [c.type_code for c in cur.description], cur.fetchall())


def run_spark(engine: SparkEngine, sql: str, tag: str) -> Result:
    result = engine.execute_arrow(translate(sql, SCHEMA, results_as_text=True), job_tag=tag)
    table = pa.Table.from_batches(list(result), schema=result.schema)
    oids = [pg_type_for_arrow(f.type)[0] for f in table.schema]
    rows = [tuple(row) for row in _rows(table)]
    # a numeric quotient or avg() leaves Spark as PostgreSQL's exact text, which the planner types numeric
    # (bind/fields.py, as the client sees it): read it as such here too
    parsed = sqlglot.parse_one(sql, read="postgres")
    assert isinstance(parsed, exp.Expression)
    declared = declared_types(parsed) or ()
    quotients = [
        i for i, f in enumerate(table.schema)
        if i < len(declared) and declared[i] == NUMERIC_QUOTIENT and pa.types.is_string(f.type)
    ]  # fmt: skip
    for i in quotients:
        oids[i] = 1700
        rows = [(*row[:i], None if row[i] is None else Decimal(row[i]), *row[i + 1 :]) for row in rows]
    return Result(table.column_names, oids, rows)


def _rows(table: pa.Table) -> list[list[Any]]:
    columns = [col.to_pylist() for col in table.columns]
    return [list(values) for values in zip(*columns, strict=True)] if columns else []


# ---- result equivalence -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("sql", "ordered"), CASES, ids=[c[0][:60] for c in CASES])
def test_same_result_as_postgres(
    spark: SparkEngine, pg: psycopg.Connection[tuple[Any, ...]], sql: str, ordered: bool
) -> None:
    expected = run_pg(pg, sql)
    got = run_spark(spark, sql, f"case-{abs(hash(sql))}")
    assert got.names == expected.names
    assert got.type_oids == expected.type_oids  # the PostgreSQL type the Arrow result is reported as
    assert _normalized(got.rows, ordered) == _normalized(expected.rows, ordered)


@pytest.mark.parametrize(("sql", "sqlstate"), ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_same_error_as_postgres(
    spark: SparkEngine, pg: psycopg.Connection[tuple[Any, ...]], sql: str, sqlstate: str
) -> None:
    with pytest.raises(psycopg.Error) as pg_error:
        run_pg(pg, sql)
    assert pg_error.value.sqlstate == sqlstate
    with pytest.raises(errors.PgError) as spark_error:
        run_spark(spark, sql, "error-case")
    assert spark_error.value.code == sqlstate
    assert "\n" not in spark_error.value.message and "at org.apache" not in spark_error.value.message


def test_syntax_error_is_42601(spark: SparkEngine) -> None:
    with pytest.raises(errors.SyntaxError) as caught:
        spark.execute_arrow("SELEC 1", job_tag="syntax")
    assert caught.value.message == 'syntax error at or near "SELEC"'


def test_parameters_are_bound_not_spliced(spark: SparkEngine) -> None:
    sql = translate("SELECT a, s FROM t WHERE a > $1 AND s <> $2 ORDER BY a", SCHEMA)
    assert ":p1" in sql and ":p2" in sql
    injection = "x' OR '1'='1"
    result = spark.execute_arrow(sql, [1, injection], job_tag="params")
    rows = pa.Table.from_batches(list(result), schema=result.schema).to_pylist()
    expected = sorted(
        ({"a": r[0], "s": r[3]} for r in T_ROWS if r[0] is not None and r[0] > 1 and r[3] not in (None, injection)),
        key=lambda row: row["a"],
    )
    assert rows == expected and len(expected) == 2


def test_unsupported_function_is_0A000() -> None:
    """age() is computed on Spark as a result column's text only (functions/intervals/interval_results.py)."""
    with pytest.raises(errors.FeatureNotSupported):
        translate("SELECT a FROM t WHERE age(ts) > interval '1 day'", SCHEMA)


def test_interval_sums_read_by_another_select_are_0A000() -> None:
    """sum/avg of intervals are PostgreSQL's text as the query's result columns; projected by a derived table, a set
    operation or a scalar subquery Spark's justified duration would differ from PostgreSQL's value: 0A000."""
    assert "ELEMENT_AT" in translate("SELECT sum(ts - d) FROM t", SCHEMA)
    translate("SELECT a FROM t GROUP BY a HAVING avg(ts - d) > interval '1 hour' ORDER BY sum(ts - d)", SCHEMA)
    for nested in (
        "SELECT s FROM (SELECT sum(ts - d) AS s FROM t) x",
        "SELECT sum(ts - d) FROM t UNION ALL SELECT sum(d - ts) FROM t",
        "SELECT (SELECT avg(ts - d) FROM t)",
    ):
        with pytest.raises(errors.FeatureNotSupported):
            translate(nested, SCHEMA)


def test_postgres_column_names() -> None:
    query = sqlglot.parse_one(
        "SELECT a, t.b, a + 1, count(*), CAST(1 AS int), 'x'::text, s::text, now(), CASE WHEN true THEN 1 END, "
        "coalesce(a, 1), EXISTS (SELECT 1), (SELECT max(a) FROM t), ARRAY[1], 1 AS one, * FROM t",
        read="postgres",
    )
    assert postgres_column_names(query) == [
        "a",
        "b",
        "?column?",
        "count",
        "int4",
        "text",
        "s",
        "now",
        "case",
        "coalesce",
        "exists",
        "max",
        "array",
        "one",
        "*",
    ]


# ---- engine: schema, cancel, timeout, FAIR ------------------------------------------------------------------------

# many short tasks: Spark does not stop a running task mid-partition, so a cancelled job drains one task per core
LONG_QUERY = "SELECT max(sha2(CAST(id AS STRING), 256)) FROM range(0, 2000000000, 1, 4000)"


def test_schema_runs_no_job(spark: SparkEngine) -> None:
    tracker = spark.session.sparkContext.statusTracker()
    before = len(tracker.getJobIdsForGroup(None))
    schema = spark.schema("SELECT a, s, a / 2 AS half FROM t")
    assert schema.names == ["a", "s", "half"]
    assert schema.field("a").type == pa.int32()
    assert len(tracker.getJobIdsForGroup(None)) == before


def test_statement_timeout_interrupts_the_job(spark: SparkEngine) -> None:
    with pytest.raises(errors.QueryCanceled) as caught:
        spark.execute_arrow(LONG_QUERY, job_tag="timeout", timeout=1.0)
    assert caught.value.message == "canceling statement due to statement timeout"


def test_cancel_from_another_thread(spark: SparkEngine) -> None:
    outcome: dict[str, BaseException] = {}

    def run() -> None:
        try:
            spark.execute_arrow(LONG_QUERY, job_tag="cancel-me")
        except errors.PgError as exc:
            outcome["error"] = exc

    worker = threading.Thread(target=run)
    worker.start()
    # cancel as soon as the statement is registered; the engine keeps interrupting until it ends
    while worker.is_alive() and not spark.is_running("cancel-me"):
        worker.join(0.01)
    spark.cancel("cancel-me")
    worker.join(120)
    assert not worker.is_alive()
    assert isinstance(outcome.get("error"), errors.QueryCanceled)
    assert outcome["error"].args[0] == "canceling statement due to user request"


def test_engine_usable_after_cancel(spark: SparkEngine) -> None:
    result = run_spark(spark, "SELECT count(*) FROM t", "after-cancel")
    assert (result.names, result.rows) == (["count"], [(len(T_ROWS),)])


# ---- guard ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "dialect"),
    [
        ("SELECT * FROM parquet.`/etc/passwd`", "spark"),
        ("SELECT * FROM csv.`file:///tmp/x`", "spark"),
        ("SELECT reflect('java.lang.System', 'exit', '0')", "spark"),
        ("SELECT java_method('java.lang.Runtime', 'getRuntime')", "spark"),
        ("ADD JAR /tmp/evil.jar", "spark"),
        ("LOAD DATA LOCAL INPATH '/tmp/x' INTO TABLE t", "spark"),
        ("CREATE TABLE x (a INT) USING parquet LOCATION '/tmp/x'", "spark"),
        ("SET spark.sql.ansi.enabled = false", "spark"),
        ("INSERT OVERWRITE DIRECTORY '/tmp/out' SELECT 1", "spark"),
        ("SET spark.sql.ansi.enabled = false", "postgres"),
        ('SELECT * FROM parquet."/etc/passwd"', "postgres"),
        ("SELECT reflect('java.lang.Thread', 'sleep', 1000)", "postgres"),
    ],
)
def test_forbidden_in_spark(sql: str, dialect: str) -> None:
    assert forbidden_in_spark(sqlglot.parse_one(sql, read=dialect)) is not None


def test_ordinary_queries_are_allowed() -> None:
    for sql, _ in CASES:
        assert forbidden_in_spark(sqlglot.parse_one(sql, read="postgres")) is None
