"""User queries on Spark through `SparkExecutor`: a real Catalog and Storage in tmp_path, a real local Spark, and
the PostgreSQL oracle holding the same tables and views. Also: snapshot isolation, a transaction's own writes,
deletes, reuse of registrations, eviction, builtin relations read through DuckDB, materialized views read through
`resident`, parameters, EXPLAIN and cancel.

One Spark session (local[2]) serves the whole file: the `spark` fixture below, scope="session".
"""

from __future__ import annotations

import datetime as dt
import re
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import psycopg
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from sqlglot import exp

from sparkwire import errors
from sparkwire.catalog import Catalog
from sparkwire.catalog.objects import Column, Item, ItemKind, ItemSpec
from sparkwire.catalog.ops import CreateItem
from sparkwire.engine.duckdb import DuckDBEngine
from sparkwire.engine.spark import SparkEngine
from sparkwire.introspection import store as introspection
from sparkwire.pgtypes.mapping import arrow_type_for_pg, pg_type_for_arrow
from sparkwire.pgtypes.registry import parse_type_name
from sparkwire.planner.bind.resolve import Names
from sparkwire.planner.execute.shadow import definition_query
from sparkwire.planner.execute.spark.spark_exec import ReadContext, SparkExecutor
from sparkwire.planner.execute.spark.spark_relations import DEFAULT_CAPACITY
from sparkwire.planner.translate.duckdb import SessionContext, parse, to_duckdb
from sparkwire.storage import Storage
from tests.support.postgres import PostgresOracle

PUBLIC = "u3"
PG_SCHEMA = "spark_exec"

T_COLUMNS = [("a", "integer"), ("b", "integer"), ("s", "text"), ("n", "numeric(10,2)")]
T_ROWS: list[tuple[Any, ...]] = [
    (1, 10, "apple", Decimal("1.50")),
    (2, 10, "banana", Decimal("-2.25")),
    (-7, 20, "cherry", Decimal("100.00")),
    (7, 20, None, Decimal("0.01")),
    (None, 30, "date", None),
    (3, None, "apple", Decimal("5.00")),
]
U_COLUMNS = [("a", "integer"), ("y", "character varying(10)")]
U_ROWS: list[tuple[Any, ...]] = [(1, "one"), (2, "two"), (2, "deux"), (9, "nine"), (None, "null")]
E_COLUMNS = [
    ("id", "bigint"),
    ("at", "timestamp with time zone"),
    ("day", "date"),
    ("local", "timestamp"),
    ("ok", "boolean"),
    ("x", "double precision"),
]
E_ROWS: list[tuple[Any, ...]] = [
    (
        1,
        dt.datetime(2024, 1, 15, 10, 30, tzinfo=dt.UTC),
        dt.date(2024, 1, 15),
        dt.datetime(2024, 1, 15, 10, 30),
        True,
        1.5,
    ),
    (2, dt.datetime(2024, 2, 29, 23, 59, 59, 500000, tzinfo=dt.UTC), dt.date(2024, 2, 29), None, False, -0.25),
    (3, None, None, dt.datetime(2023, 12, 31), None, None),
]
TABLES = (("t", T_COLUMNS, T_ROWS), ("u", U_COLUMNS, U_ROWS), ("e", E_COLUMNS, E_ROWS))

# (name, kind, definition, columns); created in this order
VIEWS: list[tuple[str, ItemKind, str, list[tuple[str, str]]]] = [
    (
        "v1",
        "view",
        "SELECT a, b, a / 2 AS half FROM t WHERE b IS NOT NULL",
        [("a", "integer"), ("b", "integer"), ("half", "integer")],
    ),
    ("v2", "view", "SELECT a, half FROM v1 WHERE a > 0", [("x", "integer"), ("h", "integer")]),
    ("v3", "view", "SELECT v2.x, u.y FROM v2 JOIN u ON u.a = v2.x", [("x", "integer"), ("y", "character varying(10)")]),
    ("mv", "materialized-view", "SELECT b, count(*) AS c FROM t GROUP BY b", [("b", "integer"), ("c", "bigint")]),
]
COLUMN_LISTS = {"v2": "(x, h)"}

# (PostgreSQL query, whether its row order is defined by ORDER BY)
CASES: list[tuple[str, bool]] = [
    ("SELECT * FROM t", False),
    ("SELECT a, b, a / 2, a % 3, b / a FROM t WHERE a <> 0 ORDER BY a", True),
    ("SELECT a FROM t ORDER BY a", True),
    ("SELECT b, a FROM t ORDER BY b DESC, a", True),
    ("SELECT a, s FROM t ORDER BY a LIMIT 2 OFFSET 1", True),
    ("SELECT b, count(*), sum(a), avg(n), min(s) FROM t GROUP BY b ORDER BY b", True),
    ("SELECT t.a, u.y FROM t JOIN u ON t.a = u.a ORDER BY t.a, u.y", True),
    ("SELECT x.a, z.y FROM t AS x LEFT JOIN u z ON x.a = z.a ORDER BY x.a, z.y", True),
    ("SELECT q.c1, q.c2 FROM t AS q(c1, c2) ORDER BY 1, 2", True),
    ("SELECT count(*) FROM t WHERE a IN (SELECT a FROM u)", False),
    ("WITH w AS (SELECT a FROM u WHERE a > 1) SELECT t.s FROM t JOIN w ON w.a = t.a ORDER BY 1", True),
    ("SELECT * FROM v1 ORDER BY a", True),
    ("SELECT x, h FROM v2 ORDER BY x", True),
    ("SELECT v2.x * 10 FROM v2 WHERE v2.h > 0 ORDER BY 1", True),
    ("SELECT * FROM v3 ORDER BY x, y", True),
    ("SELECT p.x, p.y FROM public.v3 AS p ORDER BY 1, 2", True),
    ("SELECT * FROM mv ORDER BY b", True),
    ("SELECT mv.c, t.a FROM mv JOIN t ON mv.b = t.b ORDER BY 2", True),
    ("SELECT s || '!', upper(y) FROM t JOIN u USING (a) ORDER BY 1, 2", True),
    ("SELECT * FROM v2 AS w(p) ORDER BY p", True),
    ("SELECT * FROM e ORDER BY id", True),
    (
        "SELECT id, date_trunc('month', at), day + 1, extract(year FROM local), at::text, day::text FROM e ORDER BY id",
        True,
    ),
    ("SELECT count(*) FILTER (WHERE ok), sum(x), max(at), min(day) FROM e", True),
    ("SELECT e.id, t.s FROM e JOIN t ON t.a = e.id WHERE e.at < '2024-02-01' ORDER BY 1", True),
]


@dataclass
class World:
    catalog: Catalog
    storage: Storage
    items: dict[str, Item]

    def read(self) -> ReadContext:
        return ReadContext(self.storage.snapshot())


def _columns(columns: list[tuple[str, str]]) -> tuple[Column, ...]:
    result = []
    for name, type_name in columns:
        pg_type, typmod = parse_type_name(type_name)
        result.append(Column(name, pg_type.oid, typmod))
    return tuple(result)


def _arrow_schema(item: Item) -> pa.Schema:
    return pa.schema([(c.name, arrow_type_for_pg(c.type_oid, c.typmod)) for c in item.columns])


def _create(catalog: Catalog, spec: ItemSpec) -> Item:
    result = catalog.transact([CreateItem(spec)])
    return catalog.state.items[result.created[0].id]


def _rows(item: Item, rows: list[tuple[Any, ...]]) -> pa.Table:
    return pa.table(list(zip(*rows, strict=True)), schema=_arrow_schema(item))


def make_world(root: Path) -> World:
    catalog = Catalog.open(root)
    storage = Storage.open(root)
    items: dict[str, Item] = {}
    for name, columns, rows in TABLES:
        ddl = f"CREATE TABLE {name} ({', '.join(f'{c} {t}' for c, t in columns)})"
        spec = ItemSpec(
            kind="table", schema_id=PUBLIC, name=name, owner_id="u1", create_sql=ddl, columns=_columns(columns)
        )
        item = items[name] = _create(catalog, spec)
        storage.create_table(item.id, _arrow_schema(item))
        txn = storage.begin()
        txn.append(item.id, _rows(item, rows))
        txn.commit(catalog.write_ts)
    for name, kind, body, columns in VIEWS:
        keyword = "MATERIALIZED VIEW" if kind == "materialized-view" else "VIEW"
        ddl = f"CREATE {keyword} {name} {COLUMN_LISTS.get(name, '')} AS {body}"
        spec = ItemSpec(
            kind=kind,
            schema_id=PUBLIC,
            name=name,
            owner_id="u1",
            create_sql=ddl,
            columns=_columns(columns),
            dependencies=tuple(items[n].id for n in items if re.search(rf"\b{n}\b", body)),
            cluster_id="u1" if kind == "materialized-view" else None,
        )
        items[name] = _create(catalog, spec)
    return World(catalog, storage, items)


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkEngine]:
    engine = SparkEngine(Path(tmp_path_factory.mktemp("spark")), master="local[2]", shuffle_partitions=2)
    engine.start_background()
    try:
        assert engine.wait_ready(180), "Spark did not start"
        yield engine
    finally:
        engine.stop()


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    made = make_world(tmp_path)
    yield made
    made.storage.close()
    made.catalog.close()


@pytest.fixture(scope="module")
def pg(oracle: PostgresOracle) -> Iterator[psycopg.Connection[tuple[Any, ...]]]:
    with psycopg.connect(oracle.dsn, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {PG_SCHEMA} CASCADE")
        conn.execute(f"CREATE SCHEMA {PG_SCHEMA}")
        conn.execute(f"SET search_path = {PG_SCHEMA}")
        for name, columns, rows in TABLES:
            conn.execute(f"CREATE TABLE {name} ({', '.join(f'{c} {t}' for c, t in columns)})")
            with conn.cursor() as cur:
                marks = ", ".join(["%s"] * len(columns))
                cur.executemany(f"INSERT INTO {name} VALUES ({marks})", rows)
        for name, kind, body, _ in VIEWS:
            keyword = "MATERIALIZED VIEW" if kind == "materialized-view" else "VIEW"
            conn.execute(f"CREATE {keyword} {name} {COLUMN_LISTS.get(name, '')} AS {body}")
        yield conn


class Resident:
    """A `resident` reader like the resident cache: a materialized view's contents computed on Spark (through the
    executor it is attached to) once per snapshot timestamp; `calls` lists the computations."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.calls: list[str] = []
        self._cache: dict[tuple[str, int], pa.Table] = {}
        self._executor: SparkExecutor | None = None

    def attach(self, spark: SparkEngine, capacity: int = DEFAULT_CAPACITY) -> SparkExecutor:
        self._executor = SparkExecutor(spark, resident=self, capacity=capacity)
        return self._executor

    def __call__(self, item: Item, read: ReadContext) -> pa.Table:
        key = (item.id, read.snapshot.ts)
        if key not in self._cache:
            assert self._executor is not None
            self.calls.append(item.id)
            body = definition_query(item)
            table = self._executor.run_arrow(body, self.world.catalog.state, Names(), ReadContext(read.snapshot))
            self._cache[key] = table.rename_columns([c.name for c in item.columns])
        return self._cache[key]


def _executor(spark: SparkEngine, world: World, capacity: int = DEFAULT_CAPACITY) -> SparkExecutor:
    return Resident(world).attach(spark, capacity)


def _query(
    executor: SparkExecutor,
    world: World,
    sql: str,
    params: Sequence[object] = (),
    types: Sequence[str] = (),
    read: ReadContext | None = None,
) -> pa.Table:
    tree = parse(sql)
    return executor.run_arrow(tree, world.catalog.state, Names(), read or world.read(), params, types)


def _normalize(value: Any) -> Any:
    if isinstance(value, Decimal):
        return value.normalize()
    if isinstance(value, float):
        return round(value, 9)
    return value


def _as_rows(table: pa.Table) -> list[tuple[Any, ...]]:
    columns = [column.to_pylist() for column in table.columns]
    return [tuple(_normalize(column[i]) for column in columns) for i in range(table.num_rows)]


def _pg_rows(
    pg: psycopg.Connection[tuple[Any, ...]], sql: str, params: Sequence[object] = ()
) -> tuple[list[str], list[tuple[Any, ...]]]:
    with pg.cursor() as cur:
        sql = sql.replace("public.", f"{PG_SCHEMA}.")
        if params:
            cur.execute(re.sub(r"\$\d+", "%s", sql), params)
        else:
            cur.execute(sql)
        names = [d.name for d in cur.description or []]
        return names, [tuple(_normalize(v) for v in row) for row in cur.fetchall()]


def _pg_types(pg: psycopg.Connection[tuple[Any, ...]], sql: str) -> list[int]:
    """The result's type OIDs, varchar reported as text (Spark has only one string type)."""
    with pg.cursor() as cur:
        cur.execute(sql.replace("public.", f"{PG_SCHEMA}."))
        return [25 if d.type_code == 1043 else d.type_code for d in cur.description or []]


@pytest.mark.parametrize(("sql", "ordered"), CASES)
def test_queries_match_postgres(
    spark: SparkEngine, world: World, pg: psycopg.Connection[tuple[Any, ...]], sql: str, ordered: bool
) -> None:
    executor = _executor(spark, world)
    result = _query(executor, world, sql)
    names, expected = _pg_rows(pg, sql)
    got = _as_rows(result)
    assert result.column_names == names
    assert [pg_type_for_arrow(f.type)[0] for f in result.schema] == _pg_types(pg, sql)
    if not ordered:
        got, expected = sorted(got, key=repr), sorted(expected, key=repr)
    assert got == expected


@pytest.mark.parametrize(
    ("sql", "params", "types"),
    [
        ("SELECT a, s FROM t WHERE a > $1 ORDER BY a", (1,), ("INTEGER",)),
        ("SELECT a / $1, s FROM t WHERE s = $2 ORDER BY a", (2, "apple"), ("INTEGER", "VARCHAR")),
        ("SELECT y FROM u WHERE a = $1 ORDER BY y LIMIT $2", (2, 1), ("INTEGER", "BIGINT")),
        ("SELECT sum(n) + $1 FROM t", (Decimal("0.5"),), ("DECIMAL(10,2)",)),
        (
            "SELECT id FROM e WHERE day >= $1 AND at < $2 AND ok = $3 AND x > $4 ORDER BY id",
            (dt.date(2024, 1, 1), dt.datetime(2024, 2, 1, tzinfo=dt.UTC), True, 0.5),
            ("DATE", "TIMESTAMP WITH TIME ZONE", "BOOLEAN", "DOUBLE"),
        ),
        ("SELECT $1 || s, $2 / 2 FROM t WHERE a = 1", ("x-", 7), ("VARCHAR", "INTEGER")),
    ],
)
def test_parameters_match_postgres(
    spark: SparkEngine,
    world: World,
    pg: psycopg.Connection[tuple[Any, ...]],
    sql: str,
    params: tuple[object, ...],
    types: tuple[str, ...],
) -> None:
    executor = _executor(spark, world)
    _, expected = _pg_rows(pg, sql, params)
    assert _as_rows(_query(executor, world, sql, params, types)) == expected


def test_schema_is_analysis_only_and_named_as_postgres(spark: SparkEngine, world: World) -> None:
    executor = _executor(spark, world)
    query = executor.prepare(
        parse("SELECT a / 2, s AS label, count(*) FROM t GROUP BY 1, 2"), world.catalog.state, Names(), world.read(), ()
    )
    schema = executor.schema(query, ())
    assert schema.names == ["?column?", "label", "count"]
    assert pa.types.is_integer(schema.field(0).type)


def test_a_prepared_query_reads_its_snapshot(spark: SparkEngine, world: World) -> None:
    executor = _executor(spark, world)
    t = world.items["t"]
    query = executor.prepare(parse("SELECT count(*) FROM t"), world.catalog.state, Names(), world.read(), ())
    txn = world.storage.begin()
    txn.append(t.id, _rows(t, [(100, 1, "new", None)]))
    txn.commit(world.catalog.write_ts)
    assert executor.run(query, (), "snap-1", None).__next__().column(0).to_pylist() == [len(T_ROWS)]
    assert _query(executor, world, "SELECT count(*) FROM t").column(0).to_pylist() == [len(T_ROWS) + 1]
    # the older prepared query still reads its own files after the newer one was registered
    assert pa.Table.from_batches(list(executor.run(query, (), "snap-2", None))).column(0).to_pylist() == [6]


def test_own_uncommitted_writes_are_visible_through_the_transaction(spark: SparkEngine, world: World) -> None:
    executor = _executor(spark, world)
    t, u = world.items["t"], world.items["u"]
    txn = world.storage.begin()
    txn.append(t.id, _rows(t, [(50, 10, "mine", None)]))
    txn.delete_where(t.id, lambda rows: pc.equal(rows["s"], "apple"))
    sql = "SELECT t.a, u.y FROM t LEFT JOIN u ON t.a = u.a WHERE t.b = 10 ORDER BY t.a, u.y"
    mine = _query(executor, world, sql, read=ReadContext(world.storage.snapshot(), txn))
    assert _as_rows(mine) == [(2, "deux"), (2, "two"), (50, None)]
    others = _query(executor, world, sql)
    assert _as_rows(others) == [(1, "one"), (2, "deux"), (2, "two")]
    assert txn.written_tables() == frozenset({t.id}) and u.id not in txn.written_tables()
    txn.abort()


def test_committed_deletes_are_visible(spark: SparkEngine, world: World) -> None:
    executor = _executor(spark, world)
    t = world.items["t"]
    before = _query(executor, world, "SELECT count(*) FROM t").column(0).to_pylist()
    txn = world.storage.begin()
    assert txn.delete_where(t.id, lambda rows: pc.greater(rows["b"], 10)) == 3
    txn.commit(world.catalog.write_ts)
    assert before == [6]
    assert _as_rows(_query(executor, world, "SELECT a FROM t ORDER BY a")) == [(1,), (2,), (3,)]


def test_registrations_are_reused_until_the_contents_change(spark: SparkEngine, world: World) -> None:
    executor = _executor(spark, world)
    sql = "SELECT count(*) FROM t JOIN u ON t.a = u.a"
    _query(executor, world, sql)
    assert executor.relations.registrations == 2
    _query(executor, world, sql)
    _query(executor, world, "SELECT * FROM v3")  # the same t and u
    assert executor.relations.registrations == 2
    u = world.items["u"]
    txn = world.storage.begin()
    txn.append(u.id, _rows(u, [(3, "three")]))
    txn.commit(world.catalog.write_ts)
    assert _query(executor, world, sql).column(0).to_pylist() == [4]
    assert executor.relations.registrations == 3  # only u is registered again


def test_eviction_never_drops_what_a_query_needs(spark: SparkEngine, world: World) -> None:
    executor = _executor(spark, world, 1)
    query = executor.prepare(
        parse("SELECT count(*) FROM t JOIN u ON t.a = u.a"), world.catalog.state, Names(), world.read(), ()
    )
    assert executor.schema(query, ()).names == ["count"]  # both stay registered while pinned, despite capacity 1
    _query(executor, world, "SELECT count(*) FROM v1")  # reads t only: u is evicted
    names = [source.name for source in query.sources]
    assert [executor.relations.is_registered(name) for name in names] == [True, False]
    assert pa.Table.from_batches(list(executor.run(query, (), "evicted", None))).column(0).to_pylist() == [3]
    assert executor.relations.registrations == 3  # u registered again for the run


def test_materialized_views_are_read_through_resident(spark: SparkEngine, world: World) -> None:
    resident = Resident(world)
    executor = resident.attach(spark)
    _query(executor, world, "SELECT * FROM mv")
    registered = executor.relations.registrations
    _query(executor, world, "SELECT c FROM mv WHERE b = 10")
    assert resident.calls == [world.items["mv"].id]  # the same contents object: no new registration
    assert executor.relations.registrations == registered
    first = executor.prepare(parse("SELECT * FROM mv"), world.catalog.state, Names(), world.read(), ()).sources[0]
    t = world.items["t"]
    txn = world.storage.begin()
    txn.append(t.id, _rows(t, [(8, 10, "fig", None)]))
    txn.commit(world.catalog.write_ts)
    assert _as_rows(_query(executor, world, "SELECT c FROM mv WHERE b = 10")) == [(3,)]
    assert not executor.relations.is_registered(first.name)  # superseded contents are dropped from Spark


def test_builtin_relations_are_read_through_duckdb(spark: SparkEngine, world: World) -> None:
    duck = DuckDBEngine(None)
    introspection.install(duck, [], world.catalog.state)
    con = duck.connect()
    seen: list[str] = []

    def builtin(tree: exp.Expression) -> pa.Table:
        sql = to_duckdb(tree, SessionContext(0, "materialize", 0), [])
        seen.append(tree.sql(dialect="postgres"))
        _, batches = con.query(sql)
        return pa.Table.from_batches(list(batches))

    executor = SparkExecutor(spark, builtin=builtin)
    sql = (
        "SELECT c.relname, c.relkind, c.oid, count(*) FROM t JOIN pg_catalog.pg_class AS c "
        "ON c.relname IN ('t', 'u', 'v1') GROUP BY 1, 2, 3 ORDER BY 1"
    )
    items = world.items
    expected = [("t", "r", items["t"].oid, 6), ("u", "r", items["u"].oid, 6), ("v1", "v", items["v1"].oid, 6)]
    assert _as_rows(_query(executor, world, sql)) == expected
    assert seen == ["SELECT * FROM pg_catalog.pg_class"]
    registered = executor.relations.registrations
    _query(executor, world, sql)
    assert executor.relations.registrations == registered  # same contents, same registration


def test_unknown_relations_and_unsupported_reads(spark: SparkEngine, world: World) -> None:
    executor = SparkExecutor(spark)
    with pytest.raises(errors.UndefinedTable, match='relation "nope" does not exist'):
        _query(executor, world, "SELECT * FROM t JOIN nope ON true")
    with pytest.raises(errors.FeatureNotSupported, match="builtin relation"):
        _query(executor, world, "SELECT * FROM t, mz_internal.anything")
    with pytest.raises(errors.PgError) as info:
        _query(executor, world, "SELECT * FROM u AS q(c1, c2, c3)")
    assert info.value.code == "42P10"
    with pytest.raises(errors.UndefinedColumn):
        _query(executor, world, "SELECT missing FROM t")


def test_without_resident_a_materialized_view_is_recomputed(
    spark: SparkEngine, world: World, pg: psycopg.Connection[tuple[Any, ...]]
) -> None:
    executor = SparkExecutor(spark)
    sql = "SELECT * FROM mv ORDER BY b"
    assert _as_rows(_query(executor, world, sql)) == _pg_rows(pg, sql)[1]


def test_explain_shows_spark_physical_plan(spark: SparkEngine, world: World) -> None:
    executor = _executor(spark, world)
    query = executor.prepare(
        parse("SELECT b, count(*) FROM t GROUP BY b"), world.catalog.state, Names(), world.read(), ()
    )
    plan = executor.explain(query, ())
    assert "Physical Plan" in plan and "HashAggregate" in plan


def test_cancel_through_the_job_tag(spark: SparkEngine, world: World) -> None:
    executor = _executor(spark, world)
    big = world.items["t"]
    txn = world.storage.begin()
    txn.append(big.id, _rows(big, [(i, i % 7, None, None) for i in range(3000)]))
    txn.commit(world.catalog.write_ts)
    query = executor.prepare(
        parse("SELECT count(*) FROM t AS x, t AS y, t AS z WHERE x.a + y.a + z.a > 1"),
        world.catalog.state,
        Names(),
        world.read(),
        (),
    )
    outcome: list[BaseException] = []

    def run() -> None:
        try:
            executor.run(query, (), "cancel-me", None)
        except BaseException as exc:
            outcome.append(exc)

    runner = threading.Thread(target=run)
    runner.start()
    started = threading.Event()
    while not spark.is_running("cancel-me") and runner.is_alive():
        started.wait(0.01)
    spark.cancel("cancel-me")
    runner.join()
    assert len(outcome) == 1 and isinstance(outcome[0], errors.QueryCanceled)
    assert outcome[0].code == "57014"


def test_concurrent_sessions_share_one_registration(spark: SparkEngine, world: World) -> None:
    executor = _executor(spark, world)
    results: list[object] = []

    def session() -> None:
        try:
            for _ in range(3):
                table = _query(executor, world, "SELECT count(*) FROM t JOIN u ON t.a = u.a")
                results.append(table.column(0).to_pylist())
        except BaseException as exc:
            results.append(exc)

    threads = [threading.Thread(target=session) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [[3]] * 12
    assert executor.relations.registrations == 2


def test_transaction_data_files(world: World) -> None:
    t, u = world.items["t"], world.items["u"]
    txn = world.storage.begin()
    committed = world.storage.snapshot().files(t.id)
    assert [f.path for f in txn.data_files(t.id)] == [f.path for f in committed]
    txn.append(t.id, _rows(t, [(60, 1, "x", None)]))
    txn.delete_where(t.id, lambda rows: pc.equal(rows["a"], 1))
    files = txn.data_files(t.id)
    assert [f.path for f in files[:-1]] == [f.path for f in committed] and files[-1].rows == 1
    assert files[0].deleted.tolist() == [0]
    assert [f.path for f in txn.data_files(u.id)] == [f.path for f in world.storage.snapshot().files(u.id)]
    assert txn.written_tables() == frozenset({t.id})
    txn.abort()
    with pytest.raises(errors.InvalidTransactionState):
        txn.data_files(t.id)


def test_a_table_created_after_the_snapshot_is_empty(spark: SparkEngine, world: World) -> None:
    executor = _executor(spark, world)
    read = world.read()
    columns = _columns([("k", "integer"), ("label", "text")])
    spec = ItemSpec(
        kind="table",
        schema_id=PUBLIC,
        name="late",
        owner_id="u1",
        create_sql="CREATE TABLE late (k int, label text)",
        columns=columns,
    )
    late = _create(world.catalog, spec)
    world.storage.create_table(late.id, _arrow_schema(late))
    result = _query(executor, world, "SELECT k, label FROM late JOIN t ON t.a = late.k", read=read)
    assert result.num_rows == 0 and result.column_names == ["k", "label"]
