"""The fast path on a real catalog and storage: which statement shapes match (and which fall back), lookups of
every supported key type answered exactly as the PostgreSQL oracle answers the same SELECT, literal coercion errors
with PostgreSQL's SQLSTATE and wording, parameters, a materialized view kept current through the fast path, and
EXPLAIN's lines for each route."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import numpy as np
import psycopg
import pyarrow as pa
import pytest

from sparkwire.catalog.objects import Item
from sparkwire.errors import PgError, UndefinedTable
from sparkwire.planner.bind.resolve import Names
from sparkwire.planner.execute.explain import DuckDBRoute, FastPathRoute, SparkRoute, explain_table, explain_text
from sparkwire.planner.execute.fast_path import FastPathPlan, fast_path, run_fast_path
from sparkwire.planner.execute.resident import ResidentRelations
from sparkwire.planner.translate.duckdb import parse
from tests.planner.test_planner_resident import Row, World
from tests.support.postgres import PostgresOracle

PgConn = psycopg.Connection[tuple[object, ...]]

COLUMNS = [
    ("a", "integer"),
    ("b", "text"),
    ("k", "bigint"),
    ("c", "numeric(10,2)"),
    ("n", "numeric"),
    ("f", "double precision"),
    ("ch", "character(4)"),
    ("d", "date"),
    ("ts", "timestamp with time zone"),
    ("flag", "boolean"),
    ("v", "character varying(10)"),
    ("r", "real"),
]
UTC = dt.UTC
ROWS: list[Row] = [
    (
        1,
        "x",
        10,
        Decimal("2.50"),
        "1.5",
        0.1,
        "ab  ",
        dt.date(2024, 2, 29),
        dt.datetime(2024, 1, 1, tzinfo=UTC),
        True,
        "hello",
        1.1,
    ),
    (2, "x", 20, Decimal("3.00"), "NaN", float("nan"), "x   ", dt.date(2024, 3, 1), None, False, "world", 0.5),
    (2, "y", 10, None, "-7", -0.0, None, None, dt.datetime(2024, 6, 1, 12, tzinfo=UTC), None, "hello", None),
    (3, "y", 20, Decimal("-1.25"), "100", 1e300, "ab  ", dt.date(2024, 2, 29), None, True, None, 1.1),
    (-1, None, None, Decimal("0.00"), None, None, "zz  ", None, None, False, "x", float("inf")),
    (
        None,
        "z",
        30,
        None,
        "0.10",
        2.5,
        None,
        dt.date(2023, 1, 1),
        dt.datetime(2024, 1, 1, tzinfo=UTC),
        None,
        None,
        None,
    ),
]
SINGLE_KEYS = ("a", "k", "c", "n", "f", "ch", "d", "ts", "flag", "v", "r")
NAMES = Names()


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[World, dict[str, Item]]]:
    world = World(tmp_path_factory.mktemp("fast_path"))
    t = world.table("t", COLUMNS)
    items = {"t": t}
    for column in SINGLE_KEYS:
        items[f"t_{column}"] = world.index(f"t_{column}_idx", t, (column,))
    items["t_bk"] = world.index("t_bk_idx", t, ("b", "k"))
    items["t_expr"] = world.index("t_expr_idx", t, ("a + 1",))
    items["mv"] = world.view("CREATE MATERIALIZED VIEW mv AS SELECT a FROM t", [("a", "integer")])
    world.insert(t, ROWS)
    u = world.table("u", [("id", "integer"), ("label", "text")])
    items["u"] = u
    items["u_all"] = world.index("u_all_idx", u, ())
    world.insert(u, [(1, "one"), (2, "two")])
    yield world, items
    world.close()


@pytest.fixture(scope="module")
def oracle_conn(oracle: PostgresOracle) -> Iterator[PgConn]:
    with psycopg.connect(oracle.dsn, autocommit=True) as conn:
        conn.execute("SET TimeZone = 'UTC'")
        conn.execute("DROP TABLE IF EXISTS t")
        conn.execute(f"CREATE TABLE t ({', '.join(f'{n} {t}' for n, t in COLUMNS)})")
        with conn.cursor() as cur:
            cur.executemany(f"INSERT INTO t VALUES ({', '.join(['%s'] * len(COLUMNS))})", ROWS)
        yield conn
        conn.execute("DROP TABLE t")


def plan_of(world: World, sql: str) -> FastPathPlan | None:
    return fast_path(parse(sql), world.state, NAMES)


def answer(world: World, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    plan = plan_of(world, sql)
    assert plan is not None, sql
    resident = ResidentRelations(world.compute)
    table = run_fast_path(plan, resident, world.state, world.snapshot(), params)
    columns = [_as_shown(table.column(i).to_pylist(), table.schema.field(i).type) for i in range(table.num_columns)]
    return sorted((tuple(_norm(v) for v in row) for row in zip(*columns, strict=True)), key=repr)


def _as_shown(values: list[object], arrow_type: pa.DataType) -> list[object]:
    """A real as PostgreSQL prints it (and psycopg reads it back): its shortest float32 spelling."""
    if arrow_type != pa.float32():
        return values
    return [float(str(np.float32(v))) if isinstance(v, float) else v for v in values]


def oracle_answer(conn: PgConn, sql: str) -> list[tuple[object, ...]]:
    rows = conn.execute(sql).fetchall()
    return sorted((tuple(_norm(v) for v in row) for row in rows), key=repr)


def _norm(value: object) -> object:
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, Decimal):
        return "NaN" if value.is_nan() else value.normalize()
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value.astimezone(UTC)
    return value


def normalized_numeric(rows: list[tuple[object, ...]], position: int) -> list[tuple[object, ...]]:
    """The unconstrained numeric column is stored as its text: compare it by value."""
    return sorted(
        (
            tuple(_norm(Decimal(str(v))) if i == position and v is not None else v for i, v in enumerate(row))
            for row in rows
        ),
        key=repr,
    )


# ---- matching ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "index", "lookups"),
    [
        ("SELECT * FROM t WHERE a = 2", "t_a_idx", 1),
        ("SELECT a, b FROM t WHERE 2 = a", "t_a_idx", 1),
        ("SELECT b AS name FROM t WHERE a IN (1, 3, 3)", "t_a_idx", 2),
        ("SELECT q.a, q.* FROM public.t AS q WHERE (q.a = $1)", "t_a_idx", 1),
        ("SELECT * FROM materialize.public.t WHERE a = 1 LIMIT 5", "t_a_idx", 1),
        ("SELECT * FROM T WHERE B = 'x' AND K = 10", "t_bk_idx", 1),
        ("SELECT * FROM t WHERE k IN (10, 20) AND b IN ('x', 'y')", "t_bk_idx", 4),
        ("SELECT * FROM t WHERE (b, k) IN (('x', 10), ('y', 20))", "t_bk_idx", 2),
        ("SELECT * FROM t WHERE d = DATE '2024-02-29'", "t_d_idx", 1),
        ("SELECT * FROM t WHERE a = '7'::int8", "t_a_idx", 1),
        ("SELECT * FROM t WHERE a = $1::int", "t_a_idx", 1),
        ("SELECT * FROM t WHERE flag = true", "t_flag_idx", 1),
        ("SELECT * FROM t WHERE a = NULL", "t_a_idx", 1),
        ("SELECT * FROM u", "u_all_idx", 1),
        ("SELECT label FROM u LIMIT 1", "u_all_idx", 1),
    ],
)
def test_matching_shapes(data: tuple[World, dict[str, Item]], sql: str, index: str, lookups: int) -> None:
    world, _ = data
    plan = plan_of(world, sql)
    assert plan is not None
    assert world.state.items[plan.index_id].name == index
    assert len(plan.rows) == lookups


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM t WHERE a > 2",
        "SELECT * FROM t WHERE a = 2 AND b = 'x'",  # a predicate beyond the key
        "SELECT * FROM t WHERE b = 'x'",  # part of a key
        "SELECT * FROM t",  # t has no index with the empty key
        "SELECT * FROM t WHERE a = 2 ORDER BY b",
        "SELECT * FROM t WHERE a = 2 ORDER BY b LIMIT 1",
        "SELECT * FROM t WHERE a = 2 OFFSET 1",
        "SELECT * FROM t WHERE a = 2 LIMIT $1",
        "SELECT DISTINCT a FROM t WHERE a = 2",
        "SELECT count(*) FROM t WHERE a = 2",
        "SELECT a, count(*) FROM t WHERE a = 2 GROUP BY a",
        "SELECT a + 1 FROM t WHERE a = 2",
        "SELECT nope FROM t WHERE a = 2",
        "SELECT * FROM t WHERE a = 2 OR a = 3",
        "SELECT * FROM t WHERE a = 1 AND a = 2",
        "SELECT * FROM t WHERE a = k",
        "SELECT * FROM t WHERE a = abs(-2)",
        "SELECT * FROM t WHERE a = (SELECT 1)",
        "SELECT * FROM t WHERE a IN (SELECT 1)",
        "SELECT * FROM t WHERE a + 1 = 3",
        "SELECT * FROM t WHERE a = 'x'::text",  # integer = text: PostgreSQL refuses, the normal path says so
        "SELECT * FROM t WHERE b = 5",
        "SELECT * FROM t WHERE flag = 1",
        "SELECT * FROM t JOIN u ON a = id WHERE a = 1",
        "SELECT * FROM t, u WHERE a = 1",
        "SELECT * FROM t AS q(x) WHERE x = 1",
        "WITH w AS (SELECT 1) SELECT * FROM t WHERE a = 1",
        "SELECT * FROM t WHERE a = 1 UNION ALL SELECT * FROM t WHERE a = 2",
        "SELECT * FROM (SELECT * FROM t) s WHERE a = 1",
        "SELECT * FROM generate_series(1, 3) WHERE generate_series = 1",
        "SELECT * FROM pg_class WHERE oid = 1",
        "SELECT 1",
        "SELECT * FROM t WHERE other.a = 1",
        "SELECT * FROM t WHERE a IN (1, 2) AND k IN (1, 2)",  # no index on (a, k)
    ],
)
def test_other_shapes_take_the_normal_path(data: tuple[World, dict[str, Item]], sql: str) -> None:
    world, _ = data
    assert plan_of(world, sql) is None


def test_an_unknown_relation_raises_what_the_normal_path_raises(data: tuple[World, dict[str, Item]]) -> None:
    world, _ = data
    with pytest.raises(UndefinedTable, match='relation "nope" does not exist'):
        plan_of(world, "SELECT * FROM nope WHERE a = 1")


# ---- answers against PostgreSQL ---------------------------------------------------------------------------


ORACLE_QUERIES = [
    "SELECT a, b FROM t WHERE 2 = a",
    "SELECT b AS name, a FROM t WHERE a IN (1, 3, 3, 99)",
    "SELECT a FROM t WHERE a = 2.0",
    "SELECT a FROM t WHERE a = 2.5",
    "SELECT a FROM t WHERE a = '2'",
    "SELECT a FROM t WHERE a = ' 3 '",
    "SELECT a FROM t WHERE a = -1",
    "SELECT a FROM t WHERE a = 99999999999",
    "SELECT a FROM t WHERE a = NULL",
    "SELECT a FROM t WHERE a IN (NULL, 1)",
    "SELECT a, b, k FROM t WHERE b = 'x' AND k = 10",
    "SELECT a, b, k FROM t WHERE k = 20 AND b = 'y'",
    "SELECT a, b, k FROM t WHERE (b, k) IN (('x', 10), ('y', 20), ('x', 99))",
    "SELECT a, b, k FROM t WHERE b IN ('x', 'y') AND k IN (10, 20)",
    "SELECT a FROM t WHERE k = 10",
    "SELECT a FROM t WHERE k = '20'",
    "SELECT a, c FROM t WHERE c = 2.5",
    "SELECT a, c FROM t WHERE c = '-1.250'",
    "SELECT a, c FROM t WHERE c = 0",
    "SELECT a, c FROM t WHERE c = 3",
    "SELECT a FROM t WHERE n = 1.50",
    "SELECT a FROM t WHERE n = 'NaN'",
    "SELECT a FROM t WHERE n = -7",
    "SELECT a FROM t WHERE n = 0.1",
    "SELECT a FROM t WHERE n IN (100, 1e2, 0.100)",
    "SELECT a FROM t WHERE f = 0.1",
    "SELECT a FROM t WHERE f = 'NaN'",
    "SELECT a FROM t WHERE f = 0",
    "SELECT a FROM t WHERE f = '-0'",
    "SELECT a FROM t WHERE f = 1e300",
    "SELECT a FROM t WHERE f = 2.5",
    "SELECT a, ch FROM t WHERE ch = 'ab'",
    "SELECT a, ch FROM t WHERE ch = 'ab   '",
    "SELECT a, ch FROM t WHERE ch = 'x'",
    "SELECT a, d FROM t WHERE d = '2024-02-29'",
    "SELECT a, d FROM t WHERE d = DATE '2024-02-29'",
    "SELECT a, ts FROM t WHERE ts = '2024-01-01 02:00:00+02'",
    "SELECT a, ts FROM t WHERE ts = '2024-06-01 12:00:00'",
    "SELECT a FROM t WHERE flag = true",
    "SELECT a FROM t WHERE flag = 'f'",
    "SELECT a FROM t WHERE flag IN (false)",
    "SELECT a, v FROM t WHERE v = 'hello'",
    "SELECT a, v FROM t WHERE v = 'hello '",
    "SELECT a, v FROM t WHERE v IN ('x', 'world', 'nope')",
    "SELECT a, r FROM t WHERE r = 1.1",
    "SELECT a, r FROM t WHERE r = '1.1'",
    "SELECT a, r FROM t WHERE r = 0.5",
    "SELECT a, r FROM t WHERE r = 'Infinity'",
]


@pytest.mark.parametrize("sql", ORACLE_QUERIES)
def test_lookup_answers_match_postgresql(data: tuple[World, dict[str, Item]], oracle_conn: PgConn, sql: str) -> None:
    world, _ = data
    assert answer(world, sql) == oracle_answer(oracle_conn, sql)


def test_star_with_every_type_matches_postgresql(data: tuple[World, dict[str, Item]], oracle_conn: PgConn) -> None:
    world, _ = data
    for sql in ("SELECT * FROM t WHERE a = 2", "SELECT * FROM t WHERE v = 'hello'"):
        ours = normalized_numeric(answer(world, sql), 4)
        assert ours == oracle_answer(oracle_conn, sql)


def _pg_error(conn: PgConn, sql: str) -> tuple[str | None, str | None]:
    with pytest.raises(psycopg.Error) as info:
        conn.execute(sql)
    return info.value.diag.sqlstate, info.value.diag.message_primary


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM t WHERE a = 'abc'",
        "SELECT * FROM t WHERE a = '1.5'",
        "SELECT * FROM t WHERE a = '99999999999'",
        "SELECT * FROM t WHERE a IN (1, 'x')",
        "SELECT * FROM t WHERE k = '1e3'",
        "SELECT * FROM t WHERE c = 'two'",
        "SELECT * FROM t WHERE f = 'one'",
        "SELECT * FROM t WHERE flag = 'maybe'",
        "SELECT * FROM t WHERE a = '99999'::int2",
        "SELECT * FROM t WHERE d = '2024-02-30'",
    ],
)
def test_bad_literals_fail_as_in_postgresql(data: tuple[World, dict[str, Item]], oracle_conn: PgConn, sql: str) -> None:
    world, _ = data
    expected = _pg_error(oracle_conn, sql)
    with pytest.raises(PgError) as info:
        plan_of(world, sql)
    assert (info.value.code, info.value.message) == expected


def test_parameters_are_coerced_at_run_time(data: tuple[World, dict[str, Item]], oracle_conn: PgConn) -> None:
    world, _ = data
    expected = oracle_answer(oracle_conn, "SELECT a, b FROM t WHERE a = 2")
    assert answer(world, "SELECT a, b FROM t WHERE a = $1", (2,)) == expected
    assert answer(world, "SELECT a, b FROM t WHERE a = $1", ("2",)) == expected
    assert answer(world, "SELECT a, b FROM t WHERE a = $1", (Decimal("2.0"),)) == expected
    assert answer(world, "SELECT a, b FROM t WHERE a = $1", (None,)) == []
    assert answer(world, "SELECT a FROM t WHERE c = $1", (2.5,)) == [(1,)]
    assert answer(world, "SELECT a FROM t WHERE n = $1", (0.1,)) == [(None,)]  # numeric '0.10' = 0.1::float8
    assert answer(world, "SELECT a FROM t WHERE n = $1", (float("nan"),)) == [(2,)]
    assert answer(world, "SELECT a FROM t WHERE f = $1", (Decimal("2.5"),)) == [(None,)]
    assert answer(world, "SELECT a FROM t WHERE b = $1 AND k = $2", ("y", 10)) == [(2,)]
    assert answer(
        world, "SELECT a FROM t WHERE ts = $1", (dt.datetime(2024, 1, 1, 1, tzinfo=dt.timezone(dt.timedelta(hours=1))),)
    ) == [(1,), (None,)]
    with pytest.raises(PgError) as info:
        answer(world, "SELECT a FROM t WHERE a = $1", ("two",))
    assert (info.value.code, info.value.message) == ("22P02", 'invalid input syntax for type integer: "two"')
    with pytest.raises(PgError) as info:
        answer(world, "SELECT a FROM t WHERE b = $1 AND k = $2", (5, 10))
    assert (info.value.code, info.value.message) == ("42883", "operator does not exist: text = bigint")
    with pytest.raises(PgError) as info:
        answer(world, "SELECT a FROM t WHERE a = $2")
    assert info.value.code == "42P02"


def test_limit_without_order_and_the_empty_key(data: tuple[World, dict[str, Item]]) -> None:
    world, _ = data
    assert len(answer(world, "SELECT a FROM t WHERE a = 2 LIMIT 1")) == 1
    assert len(answer(world, "SELECT a FROM t WHERE a = 2 LIMIT 0")) == 0
    assert answer(world, "SELECT * FROM u") == [(1, "one"), (2, "two")]
    assert answer(world, "SELECT label AS l FROM u LIMIT 5") == [("one",), ("two",)]


def test_a_materialized_view_stays_current_through_the_fast_path(tmp_path: Path) -> None:
    world = World(tmp_path)
    try:
        t = world.table("t", [("a", "integer"), ("b", "text")])
        mv = world.view(
            "CREATE MATERIALIZED VIEW mv AS SELECT b, count(*) AS n FROM t GROUP BY b",
            [("b", "text"), ("n", "bigint")],
        )
        world.index("mv_b_idx", mv, ("b",))
        resident = ResidentRelations(world.compute)
        plan = plan_of(world, "SELECT n FROM mv WHERE b = 'x'")
        assert plan is not None

        def n() -> list[Row]:
            table = run_fast_path(plan, resident, world.state, world.snapshot())
            return [tuple(r.values()) for r in table.to_pylist()]

        assert n() == []
        world.insert(t, [(1, "x"), (2, "x"), (3, "y")])
        assert n() == [(2,)]
        assert n() == [(2,)]
        world.delete(t, "a", 1)
        assert n() == [(1,)]
        stats = resident.stats()
        assert (stats["computes"], stats["index_builds"], stats["index_hits"]) == (3, 3, 1)
    finally:
        world.close()


# ---- EXPLAIN ----------------------------------------------------------------------------------------------


def test_explain_lines_for_each_route(data: tuple[World, dict[str, Item]]) -> None:
    world, items = data
    plan = plan_of(world, "SELECT b AS name FROM t WHERE a IN (1, $1) LIMIT 3")
    assert plan is not None
    assert explain_text(FastPathRoute(plan), world.state) == [
        "Fast path: lookup in index materialize.public.t_a_idx on t(a)",
        "  Lookup values: (1), ($1)",
        "  Project: b AS name",
        "  Limit: 3",
        "Used Indexes:",
        "  - materialize.public.t_a_idx (lookup)",
    ]
    multi = plan_of(world, "SELECT * FROM t WHERE k = 10 AND b = 'x'")
    assert multi is not None
    assert explain_text(FastPathRoute(multi), world.state)[:2] == [
        "Fast path: lookup in index materialize.public.t_bk_idx on t(b, k)",
        "  Lookup values: ('x', 10)",
    ]
    whole = plan_of(world, "SELECT * FROM u")
    assert whole is not None
    assert explain_text(FastPathRoute(whole), world.state) == [
        "Fast path: lookup in index materialize.public.u_all_idx on u()",
        "Used Indexes:",
        "  - materialize.public.u_all_idx (lookup)",
    ]
    spark = SparkRoute("SELECT a\n  FROM mv", "== Physical Plan ==\n*(1) Scan mv\n", (items["mv"].id,))
    assert explain_text(spark, world.state) == [
        "Spark: SELECT a FROM mv",
        "Reads materialized view materialize.public.mv from memory, maintained incrementally:",
        "  Changes of t (i0)",
        "Spark plan:",
        "  == Physical Plan ==",
        "  *(1) Scan mv",
    ]
    assert explain_text(DuckDBRoute(), world.state) == ["DuckDB (introspection store)"]
    table = explain_table(explain_text(DuckDBRoute("SELECT 1"), world.state))
    assert table.column_names == ["QUERY PLAN"]
    assert table.column(0).to_pylist() == ["DuckDB (introspection store)", "  SELECT 1"]
