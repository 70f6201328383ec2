"""Resident relations on a real catalog and storage: versions, materialized views recomputed when stale (and only
then), indexes built lazily, rebuilt after writes, shared by concurrent readers, dropped with their items; key
equality with PostgreSQL's semantics. Views and materialized views are evaluated by DuckDB here (`World.compute`);
production passes a Spark-backed compute. `World` is shared with tests/planner/test_planner_fast_path.py."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from decimal import Decimal
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pytest
import sqlglot

from sparkwire.catalog import Catalog, CatalogState, plan_drop
from sparkwire.catalog.objects import Column, Item, ItemKind, ItemSpec
from sparkwire.catalog.ops import CreateItem, DropItems
from sparkwire.pgtypes.mapping import arrow_type_for_pg
from sparkwire.pgtypes.registry import parse_type_name
from sparkwire.planner.execute.resident import (
    NAN,
    ResidentRelations,
    base_tables,
    index_key_columns,
    relation_version,
    table_version,
)
from sparkwire.storage import Snapshot, Storage

PUBLIC, ROLE, QUICKSTART = "u3", "u1", "u1"
Row = tuple[object, ...]


class World:
    """A catalog and a storage in one data directory, with builders for tables, views and indexes."""

    def __init__(self, data_dir: Path) -> None:
        self.catalog = Catalog.open(data_dir)
        self.storage = Storage.open(data_dir)

    def close(self) -> None:
        self.storage.close()
        self.catalog.close()

    @property
    def state(self) -> CatalogState:
        return self.catalog.state

    def snapshot(self) -> Snapshot:
        return self.storage.snapshot()

    def _create(self, spec: ItemSpec) -> Item:
        result = self.catalog.transact([CreateItem(spec)])
        return result.state.items[result.created[0].id]

    def table(self, name: str, columns: Sequence[tuple[str, str]]) -> Item:
        cols = tuple(Column(n, parse_type_name(t)[0].oid, parse_type_name(t)[1]) for n, t in columns)
        sql = f"CREATE TABLE {name} ({', '.join(f'{n} {t}' for n, t in columns)})"
        item = self._create(
            ItemSpec(kind="table", schema_id=PUBLIC, name=name, owner_id=ROLE, create_sql=sql, columns=cols)
        )
        self.storage.create_table(item.id, pa.schema([(c.name, arrow_type_for_pg(c.type_oid, c.typmod)) for c in cols]))
        return item

    def view(self, create_sql: str, columns: Sequence[tuple[str, str]]) -> Item:
        tree = sqlglot.parse_one(create_sql, read="postgres")
        materialized = "MATERIALIZED" in create_sql.upper().split(" AS ")[0]
        deps = tuple(
            dict.fromkeys(
                found.id
                for t in tree.expression.find_all(sqlglot.exp.Table)
                if (found := self.state.lookup_item(t.name, current_database="materialize", search_path=("public",)))
            )
        )
        kind: ItemKind = "materialized-view" if materialized else "view"
        cols = tuple(Column(n, parse_type_name(t)[0].oid, parse_type_name(t)[1]) for n, t in columns)
        spec = ItemSpec(
            kind=kind,
            schema_id=PUBLIC,
            name=tree.this.name,
            owner_id=ROLE,
            create_sql=create_sql,
            columns=cols,
            dependencies=deps,
            cluster_id=QUICKSTART if materialized else None,
        )
        return self._create(spec)

    def index(self, name: str, on: Item, keys: Sequence[str] = (), *, default: bool = False) -> Item:
        sql = f"CREATE INDEX {name} IN CLUSTER quickstart ON {on.name} ({', '.join(keys)})"
        spec = ItemSpec(
            kind="index",
            schema_id=PUBLIC,
            name=name,
            owner_id=ROLE,
            create_sql=sql if not default else f"CREATE DEFAULT INDEX {name} IN CLUSTER quickstart ON {on.name}",
            on_id=on.id,
            keys=tuple(keys),
            is_default_index=default,
            cluster_id=QUICKSTART,
        )
        return self._create(spec)

    def drop(self, item: Item) -> None:
        self.catalog.transact([DropItems(plan_drop(self.state, [item.id], cascade=True).order)])

    def insert(self, table: Item, rows: Sequence[Row]) -> None:
        arrays = [
            pa.array([row[i] for row in rows], arrow_type_for_pg(c.type_oid, c.typmod))
            for i, c in enumerate(table.columns)
        ]
        txn = self.storage.begin()
        txn.append(table.id, pa.table(arrays, names=[c.name for c in table.columns]))
        txn.commit(self.catalog.write_ts)

    def delete(self, table: Item, column: str, value: object) -> None:
        txn = self.storage.begin()
        txn.delete_where(table.id, lambda t: pc.fill_null(pc.equal(t[column], value), False))
        txn.commit(self.catalog.write_ts)

    def compute(self, item: Item, state: CatalogState, snapshot: Snapshot) -> pa.Table:
        """Tables from storage; views and materialized views evaluated by DuckDB over their inputs."""
        if item.kind == "table":
            return snapshot.read_arrow(item.id)
        query = sqlglot.parse_one(item.create_sql, read="postgres").expression
        con = duckdb.connect()
        for dep in item.dependencies:
            con.register(state.items[dep].name, self.compute(state.items[dep], state, snapshot))
        return con.sql(query.sql(dialect="duckdb")).to_arrow_table()


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    opened = World(tmp_path)
    yield opened
    opened.close()


def counting(compute: Callable[[Item, CatalogState, Snapshot], pa.Table]) -> tuple[ResidentRelations, list[str]]:
    calls: list[str] = []

    def wrapped(item: Item, state: CatalogState, snapshot: Snapshot) -> pa.Table:
        calls.append(item.name)
        return compute(item, state, snapshot)

    return ResidentRelations(wrapped), calls


def rows(table: pa.Table) -> list[Row]:
    return sorted((tuple(r.values()) for r in table.to_pylist()), key=repr)


# ---- versions ---------------------------------------------------------------------------------------------


def test_table_version_moves_with_every_write_and_only_then(world: World) -> None:
    t = world.table("t", [("a", "integer")])
    empty = table_version(world.snapshot(), t.id)
    assert empty == ()
    world.insert(t, [(1,), (2,)])
    one = table_version(world.snapshot(), t.id)
    assert one != empty
    assert table_version(world.snapshot(), t.id) == one
    world.delete(t, "a", 1)
    deleted = table_version(world.snapshot(), t.id)
    assert deleted != one and len(deleted) == 1
    world.delete(t, "a", 5)  # deletes nothing: contents and version unchanged
    assert table_version(world.snapshot(), t.id) == deleted


def test_relation_version_follows_views_to_their_tables(world: World) -> None:
    t = world.table("t", [("a", "integer")])
    u = world.table("u", [("b", "integer")])
    v = world.view("CREATE VIEW v AS SELECT a FROM t", [("a", "integer")])
    mv = world.view("CREATE MATERIALIZED VIEW mv AS SELECT a FROM v JOIN u ON a = b", [("a", "integer")])
    const = world.view("CREATE MATERIALIZED VIEW c AS SELECT 1 AS one", [("one", "integer")])
    assert base_tables(v, world.state) == (t.id,)
    assert base_tables(mv, world.state) == tuple(sorted((t.id, u.id)))
    assert relation_version(const, world.state, world.snapshot()) == ()
    before = relation_version(mv, world.state, world.snapshot())
    world.insert(u, [(1,)])
    after = relation_version(mv, world.state, world.snapshot())
    assert before != after and dict(after)[t.id] == dict(before)[t.id]


# ---- materialized views -----------------------------------------------------------------------------------


def test_materialized_view_is_recomputed_after_a_write_and_reused_otherwise(world: World) -> None:
    t = world.table("t", [("a", "integer"), ("b", "text")])
    other = world.table("other", [("x", "integer")])
    mv = world.view(
        "CREATE MATERIALIZED VIEW mv AS SELECT b, count(*) AS n FROM t GROUP BY b", [("b", "text"), ("n", "bigint")]
    )
    world.insert(t, [(1, "x"), (2, "x"), (3, "y")])
    resident, calls = counting(world.compute)
    assert rows(resident.contents(mv, world.state, world.snapshot())) == [("x", 2), ("y", 1)]
    assert rows(resident.contents(mv, world.state, world.snapshot())) == [("x", 2), ("y", 1)]
    world.insert(other, [(1,)])  # not an input of mv
    resident.contents(mv, world.state, world.snapshot())
    assert calls == ["mv"] and resident.stats()["hits"] == 2

    world.insert(t, [(4, "y")])
    assert rows(resident.contents(mv, world.state, world.snapshot())) == [("x", 2), ("y", 2)]
    world.delete(t, "b", "x")
    assert rows(resident.contents(mv, world.state, world.snapshot())) == [("y", 2)]
    assert calls == ["mv", "mv", "mv"]


def test_materialized_view_over_a_view_over_a_table(world: World) -> None:
    t = world.table("t", [("a", "integer")])
    world.view("CREATE VIEW v AS SELECT a * 10 AS a10 FROM t", [("a10", "integer")])
    mv = world.view("CREATE MATERIALIZED VIEW mv AS SELECT sum(a10) AS s FROM v", [("s", "bigint")])
    resident = ResidentRelations(world.compute)
    world.insert(t, [(1,), (2,)])
    assert rows(resident.contents(mv, world.state, world.snapshot())) == [(30,)]
    world.insert(t, [(3,)])
    assert rows(resident.contents(mv, world.state, world.snapshot())) == [(60,)]


def test_an_older_snapshot_reads_its_own_contents_without_evicting_newer_ones(world: World) -> None:
    t = world.table("t", [("a", "integer")])
    mv = world.view("CREATE MATERIALIZED VIEW mv AS SELECT count(*) AS n FROM t", [("n", "bigint")])
    world.insert(t, [(1,)])
    old = world.snapshot()
    world.insert(t, [(2,)])
    resident, calls = counting(world.compute)
    assert rows(resident.contents(mv, world.state, world.snapshot())) == [(2,)]
    assert rows(resident.contents(mv, world.state, old)) == [(1,)]
    assert rows(resident.contents(mv, world.state, world.snapshot())) == [(2,)]
    assert calls == ["mv", "mv"]


def test_concurrent_readers_of_one_version_share_one_computation(world: World) -> None:
    t = world.table("t", [("a", "integer")])
    mv = world.view("CREATE MATERIALIZED VIEW mv AS SELECT max(a) AS m FROM t", [("m", "integer")])
    index = world.index("mv_idx", mv, ("m",))
    world.insert(t, [(1,), (7,)])
    resident = ResidentRelations(world.compute)
    snapshot, state = world.snapshot(), world.state
    barrier = threading.Barrier(8)
    results: list[pa.Table] = []

    def reader(n: int) -> None:
        barrier.wait()
        if n % 2:
            results.append(resident.contents(mv, state, snapshot))
        else:
            results.append(resident.index(index, state, snapshot).lookup((7,)))

    threads = [threading.Thread(target=reader, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(rows(r) == [(7,)] for r in results)
    stats = resident.stats()
    assert (stats["computes"], stats["index_builds"]) == (1, 1)


# ---- indexes ----------------------------------------------------------------------------------------------


def test_index_is_built_lazily_and_rebuilt_when_its_relation_moves(world: World) -> None:
    t = world.table("t", [("a", "integer"), ("b", "text")])
    index = world.index("t_a_idx", t, ("a",))
    world.insert(t, [(1, "one"), (2, "two"), (2, "deux"), (None, "null")])
    resident = ResidentRelations(world.compute)
    assert resident.stats()["index_builds"] == 0
    found = resident.index(index, world.state, world.snapshot())
    assert rows(found.lookup((2,))) == [(2, "deux"), (2, "two")]
    assert rows(found.lookup((1,))) == [(1, "one")]
    assert rows(found.lookup((3,))) == []
    assert rows(found.lookup((None,))) == []  # NULL never matches, not even a NULL key
    assert rows(found.lookup_many([(1,), (2,), (1,)])) == [(1, "one"), (2, "deux"), (2, "two")]
    assert resident.index(index, world.state, world.snapshot()) is found
    world.delete(t, "b", "two")
    world.insert(t, [(3, "three")])
    rebuilt = resident.index(index, world.state, world.snapshot())
    assert rows(rebuilt.lookup((2,))) == [(2, "deux")]
    assert rows(rebuilt.lookup((3,))) == [(3, "three")]
    stats = resident.stats()
    assert (stats["index_builds"], stats["index_hits"], stats["computes"]) == (2, 1, 2)


def test_keys_compare_as_postgresql_compares_them(world: World) -> None:
    t = world.table("t", [("n", "numeric"), ("f", "double precision"), ("c", "character(4)"), ("d", "numeric(10,2)")])
    index_n = world.index("t_n", t, ("n",))
    index_f = world.index("t_f", t, ("f",))
    index_c = world.index("t_c", t, ("c",))
    index_d = world.index("t_d", t, ("d",))
    world.insert(
        t,
        [
            ("1.0", 1.5, "ab", Decimal("2.50")),
            ("NaN", float("nan"), "ab  ", Decimal("3")),
            ("2", -0.0, "x", None),
        ],
    )
    resident = ResidentRelations(world.compute)
    state, snapshot = world.state, world.snapshot()

    def count(index: Item, key: object) -> int:
        return int(resident.index(index, state, snapshot).lookup((key,)).num_rows)

    assert count(index_n, Decimal("1.00")) == 1 and count(index_n, 1) == 1 and count(index_n, 2) == 1
    assert count(index_n, NAN) == 1 and count(index_n, Decimal("NaN")) == 1
    assert count(index_f, float("nan")) == 1 and count(index_f, 0.0) == 1 and count(index_f, 1.5) == 1
    assert count(index_c, "ab") == 2 and count(index_c, "ab ") == 2 and count(index_c, "x") == 1
    assert count(index_d, Decimal("2.5")) == 1 and count(index_d, 3) == 1 and count(index_d, None) == 0
    assert count(index_d, 2.5) == 1 and count(index_d, Decimal("2.501")) == 0  # numeric(10,2) holds no 2.501
    assert count(index_d, Decimal("1e40")) == 0 and count(index_d, Decimal("Infinity")) == 0


def test_multi_column_empty_and_default_keys(world: World) -> None:
    t = world.table("t", [("a", "integer"), ("b", "text")])
    ab = world.index("t_ab", t, ("a", "b"))
    empty = world.index("t_empty", t, ())
    default = world.index("t_default", t, default=True)
    expression = world.index("t_expr", t, ("a + 1",))
    world.insert(t, [(1, "x"), (1, "y"), (2, "x"), (1, None)])
    resident = ResidentRelations(world.compute)
    state, snapshot = world.state, world.snapshot()
    assert index_key_columns(default, t) == ("a", "b")
    assert index_key_columns(expression, t) is None
    assert rows(resident.index(ab, state, snapshot).lookup((1, "x"))) == [(1, "x")]
    assert rows(resident.index(ab, state, snapshot).lookup((1, None))) == []
    assert resident.index(empty, state, snapshot).lookup(()).num_rows == 4
    assert rows(resident.index(default, state, snapshot).lookup((2, "x"))) == [(2, "x")]
    assert resident.index(expression, state, snapshot).contents.num_rows == 4
    assert resident.stats()["computes"] == 1  # four indexes on t share its resident contents


def test_drop_releases_memory_but_keeps_what_others_use(world: World) -> None:
    t = world.table("t", [("a", "integer")])
    mv = world.view("CREATE MATERIALIZED VIEW mv AS SELECT a FROM t", [("a", "integer")])
    t_idx, t_idx2 = world.index("t_idx", t, ("a",)), world.index("t_idx2", t, ("a",))
    mv_idx = world.index("mv_idx", mv, ("a",))
    world.insert(t, [(1,)])
    resident = ResidentRelations(world.compute)
    state, snapshot = world.state, world.snapshot()
    for index in (t_idx, t_idx2, mv_idx):
        resident.index(index, state, snapshot)
    assert (resident.stats()["relations"], resident.stats()["indexes"]) == (2, 3)
    resident.drop(t_idx.id)
    assert (resident.stats()["relations"], resident.stats()["indexes"]) == (2, 2)  # t_idx2 still reads t
    resident.drop(t_idx2.id)
    resident.drop(mv_idx.id)
    assert (resident.stats()["relations"], resident.stats()["indexes"]) == (1, 0)  # the materialized view stays
    world.drop(mv)
    resident.prune(world.state)
    assert resident.stats()["relations"] == 0 and resident.stats()["bytes"] == 0
