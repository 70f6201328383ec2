"""Writes to storage tables (planner/execute/writes.py, planner/execute/copy_storage.py) against the PostgreSQL oracle.

Each case creates the same table in PostgreSQL and in a real Catalog + Storage (tmp_path), runs the same statement on
both — sparkwire's through `execute_write` on a real DuckDB connection and a storage transaction — and compares the
count, the RETURNING rows, the SQLSTATE of an error and the table's rows afterwards. The `query` callable (the
session's Spark engine in production) reads the storage snapshot through DuckDB here.
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Iterator, Sequence
from decimal import Decimal
from pathlib import Path

import psycopg
import pyarrow as pa
import pytest
from sqlglot import exp

from sparkwire.catalog import Catalog
from sparkwire.catalog.objects import Column, Item, ItemSpec
from sparkwire.catalog.ops import CreateItem
from sparkwire.engine.duckdb import DuckDBConnection, DuckDBEngine
from sparkwire.errors import PgError
from sparkwire.pgtypes.copy.text_in import CopyInParser
from sparkwire.pgtypes.registry import parse_type_name
from sparkwire.planner.bind.resolve import Names, resolve_table, user_relations
from sparkwire.planner.execute.copy_storage import StorageCopyInSink, copy_columns
from sparkwire.planner.execute.writes import execute_write, storage_schema
from sparkwire.planner.translate.duckdb import SessionContext, parse, to_duckdb
from sparkwire.storage import Storage
from tests.support.postgres import PostgresOracle

CTX = SessionContext(session_id=1, user="materialize", backend_pid=1)
NAMES = Names()
PUBLIC = "u3"
Outcome = tuple[str, int | None, list[tuple[object, ...]] | None]  # (sqlstate or "", count, returning rows)


def _normal(value: object) -> object:
    """Python values of both sides in one form: numerics and uuids as text, json as its (jsonb) text."""
    if isinstance(value, Decimal | uuid.UUID):
        return str(value)
    if isinstance(value, dict):
        return json.dumps(value)
    return value


def _rows(rows: Sequence[Sequence[object]]) -> list[tuple[object, ...]]:
    return sorted((tuple(_normal(v) for v in row) for row in rows), key=repr)


class World:
    """The same tables in PostgreSQL and in sparkwire's catalog + storage."""

    def __init__(self, tmp: Path, pg: psycopg.Connection[tuple[object, ...]]) -> None:
        self.catalog = Catalog.open(tmp / "catalog")
        self.storage = Storage.open(tmp / "data")
        self.engine = DuckDBEngine(tmp / "duck.duckdb")
        self.duck: DuckDBConnection = self.engine.connect()
        self.pg = pg

    def close(self) -> None:
        self.duck.close()
        self.engine.close()
        self.storage.close()
        self.catalog.close()

    def table(self, name: str, *columns: str, primary_key: Sequence[str] = ()) -> Item:
        """`columns` like "a int not null" or "b varchar(3) default 'x'"."""
        parsed: list[Column] = []
        for spec in columns:
            head, _, default = spec.partition(" default ")
            words = head.split(" ", 1)
            type_text = words[1].removesuffix(" not null")
            pgtype, typmod = parse_type_name(type_text)
            nullable = not head.endswith(" not null") and words[0] not in primary_key
            parsed.append(Column(words[0], pgtype.oid, typmod, nullable, default or None))
        key = f", PRIMARY KEY ({', '.join(primary_key)})" if primary_key else ""
        ddl = f"CREATE TABLE {name} ({', '.join(columns)}{key})"
        self.pg.execute(f"DROP TABLE IF EXISTS {name}")
        self.pg.execute(ddl)
        item_spec = ItemSpec(
            kind="table",
            schema_id=PUBLIC,
            name=name,
            owner_id="u1",
            create_sql=ddl,
            columns=tuple(parsed),
            primary_key=tuple(primary_key),
        )
        result = self.catalog.transact([CreateItem(item_spec)])
        item = result.state.items[result.created[0].id]
        self.storage.create_table(item.id, storage_schema(item))
        return item

    def query(self, tree: exp.Expression) -> pa.Table:
        """The test's stand-in for Spark: the committed rows of every user relation, through DuckDB."""
        snapshot = self.storage.snapshot()
        work = tree.copy()
        registered = []
        for node, item in user_relations(work, self.catalog.state, NAMES):
            view = f"q_{item.id}"
            self.duck.register_arrow(view, snapshot.read_arrow(item.id))
            registered.append(view)
            node.replace(exp.to_table(view).as_(node.alias_or_name))
        try:
            _, batches = self.duck.query(to_duckdb(work, CTX))
            return pa.Table.from_batches(list(batches))
        finally:
            for view in registered:
                self.duck.unregister(view)

    def sparkwire(self, sql: str, params: Sequence[object], types: Sequence[str]) -> Outcome:
        tree = parse(sql)
        assert isinstance(tree, exp.Insert | exp.Update | exp.Delete)
        node = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
        assert isinstance(node, exp.Table)
        state = self.catalog.state
        target = resolve_table(node, state, NAMES)
        assert target is not None
        txn = self.storage.begin()
        try:
            result = execute_write(tree, target, state, NAMES, txn, self.duck, params, types, self.query, ctx=CTX)
        except PgError as error:
            txn.abort()
            return error.code, None, None
        txn.commit(self.catalog.write_ts)
        table = result.returning
        returning = None if table is None else _rows(list(zip(*(c.to_pylist() for c in table.columns), strict=True)))
        return "", result.count, returning

    def postgres(self, sql: str, params: Sequence[object]) -> Outcome:
        with psycopg.RawCursor(self.pg) as cur:
            try:
                cur.execute(sql, list(params))
            except psycopg.Error as error:
                assert error.sqlstate is not None
                return error.sqlstate, None, None
            returning = _rows(cur.fetchall()) if cur.description is not None else None
            return "", cur.rowcount, returning

    def contents(self, item: Item) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
        ours = self.storage.snapshot().read_arrow(item.id).to_pylist()
        theirs = self.pg.execute(f"SELECT * FROM {item.name}").fetchall()
        return _rows([tuple(r.values()) for r in ours]), _rows(theirs)

    def same(self, item: Item, sql: str, params: Sequence[object] = (), types: Sequence[str] = ()) -> Outcome:
        expected = self.postgres(sql, params)
        got = self.sparkwire(sql, params, types)
        assert got == expected, sql
        ours, theirs = self.contents(item)
        assert ours == theirs, sql
        return got


@pytest.fixture
def world(tmp_path: Path, oracle: PostgresOracle) -> Iterator[World]:
    with psycopg.connect(oracle.dsn, autocommit=True) as pg:
        pg.execute("SET TimeZone = 'UTC'")
        w = World(tmp_path, pg)
        try:
            yield w
        finally:
            w.close()


def test_insert_values_defaults_and_returning(world: World) -> None:
    t = world.table("w_ins", "a int not null", "b text default 'none'", "c numeric(6,2) default 1.5", "d date")
    world.same(t, "INSERT INTO w_ins VALUES (1, 'x', 2.345, '2024-02-29')")
    world.same(t, "INSERT INTO w_ins (a) VALUES (2), (3)")
    world.same(t, "INSERT INTO w_ins (a, c, b) VALUES (4, DEFAULT, DEFAULT) RETURNING *")
    world.same(t, "INSERT INTO w_ins VALUES (5, 'y' || 'z', '7', NULL) RETURNING a + 1, b AS bee, c")
    world.same(t, "INSERT INTO w_ins VALUES (6) RETURNING a, upper(b)")
    world.same(t, "INSERT INTO w_ins (a, d) VALUES (7, date '2020-01-01' + 3), (8.6, NULL)")


def test_insert_typed_constants_without_an_engine(world: World) -> None:
    """Numeric and boolean constants in VALUES are converted in Arrow (values_cells.py), as PostgreSQL assigns them:
    integers, int8-sized integers and decimals of several scales, negated, into every column family."""
    t = world.table(
        "w_const", "i int", "s smallint", "b bigint", "n numeric(6,2)", "u numeric", "f real", "d double precision",
        "t text", "v varchar(5)", "o boolean",
    )
    world.same(t, "INSERT INTO w_const VALUES (1, 2, 3, 4, 5, 6, 7, 8, 9, true)")
    world.same(t, "INSERT INTO w_const VALUES (1.5, -2.5, 3000000000, 1.005, -0.50, .5, 5., 1.50, 007, false)")
    world.same(t, "INSERT INTO w_const VALUES (-1.5, 2.4999, -3000000000, -9999.994, 123456789012345678901234567890, "
               "1e3, -1.5e-3, -0.5, 12.25, NULL), (0, 0, 0, 0, 0, 0, 0, 0, 0, NULL)")
    for bad in [
        "INSERT INTO w_const (s) VALUES (40000)",
        "INSERT INTO w_const (i) VALUES (3000000000)",
        "INSERT INTO w_const (n) VALUES (10000)",
        "INSERT INTO w_const (v) VALUES (123456)",
        "INSERT INTO w_const (o) VALUES (1)",
        "INSERT INTO w_const (i) VALUES (true)",
        "INSERT INTO w_const (i) VALUES (1), (2.5), ('x')",
    ]:
        assert world.same(t, bad)[0] != "", bad


def test_insert_parameters(world: World) -> None:
    t = world.table("w_par", "a bigint", "b varchar(4)", "c double precision")
    world.same(t, "INSERT INTO w_par VALUES ($1, $2, $3)", [10, "abc", 1.25], ["BIGINT", "VARCHAR", "DOUBLE"])
    world.same(t, "INSERT INTO w_par (c, a) VALUES ($2, $1 * 2) RETURNING *", [3, 0.5], ["BIGINT", "DOUBLE"])
    assert world.same(t, "INSERT INTO w_par (b) VALUES ($1)", ["abcde"], ["VARCHAR"])[0] == "22001"


@pytest.mark.parametrize(
    ("sql", "sqlstate"),
    [
        ("INSERT INTO w_err VALUES ('abc', 'x')", "22P02"),
        ("INSERT INTO w_err VALUES ('1.5', 'x')", "22P02"),
        ("INSERT INTO w_err VALUES (3000000000, 'x')", "22003"),
        ("INSERT INTO w_err VALUES ('3000000000', 'x')", "22003"),
        ("INSERT INTO w_err VALUES (1, 'toolong')", "22001"),
        ("INSERT INTO w_err (b) VALUES ('x')", "23502"),
        ("INSERT INTO w_err VALUES (NULL, 'x')", "23502"),
        ("INSERT INTO w_err VALUES (1, 'x'), (1, 'y')", "23505"),
        ("INSERT INTO w_err (nosuch) VALUES (1)", "42703"),
        ("INSERT INTO w_err VALUES (1, 'x', 3)", "42601"),
        ("INSERT INTO w_err (a, b) VALUES (1)", "42601"),
        ("INSERT INTO w_err (a, a) VALUES (1, 2)", "42701"),
        ("INSERT INTO w_err VALUES (1, 'x'), (2)", "42601"),
        ("INSERT INTO w_err VALUES (true, 'x')", "42804"),
        ("INSERT INTO w_err VALUES (1, 'x'), (2, 'long one')", "22001"),
    ],
)
def test_insert_errors(world: World, sql: str, sqlstate: str) -> None:
    t = world.table("w_err", "a int", "b varchar(3)", primary_key=("a",))
    assert world.same(t, sql)[0] == sqlstate


def test_primary_key_against_existing_rows(world: World) -> None:
    t = world.table("w_pk", "a int", "b char(3)", primary_key=("a",))
    world.same(t, "INSERT INTO w_pk VALUES (1, 'ab'), (2, 'c  ')")
    assert world.same(t, "INSERT INTO w_pk VALUES (3, 'x'), (2, 'y')")[0] == "23505"
    assert world.same(t, "UPDATE w_pk SET a = 1 WHERE a = 2")[0] == "23505"
    world.same(t, "UPDATE w_pk SET a = a + 10 RETURNING *")
    world.same(t, "INSERT INTO w_pk VALUES (1, 'new') RETURNING b")


def test_insert_select(world: World) -> None:
    src = world.table("w_src", "k int", "v text")
    dst = world.table("w_dst", "k bigint", "v varchar(5)", "n numeric(4,1) default 0")
    world.same(src, "INSERT INTO w_src VALUES (1, 'one'), (2, 'two'), (3, 'three')")
    world.same(dst, "INSERT INTO w_dst (k, v) SELECT k * 10, v FROM w_src WHERE k > 1 RETURNING *")
    world.same(dst, "INSERT INTO w_dst SELECT 7, 'seven', '2.25'")
    world.same(dst, "INSERT INTO w_dst SELECT g, 'g', g / 4.0 FROM generate_series(1, 3) AS g")
    assert world.same(dst, "INSERT INTO w_dst (k) SELECT k, v FROM w_src")[0] == "42601"
    assert world.same(dst, "INSERT INTO w_dst (v) SELECT v || v FROM w_src")[0] == "22001"


def test_update(world: World) -> None:
    t = world.table("w_upd", "a int", "b text", "c numeric(5,1)", "d boolean default true")
    world.same(t, "INSERT INTO w_upd VALUES (1, 'x', 1.5, false), (2, 'y', 2.5, NULL), (3, NULL, NULL, true)")
    world.same(t, "UPDATE w_upd SET b = b || '!', c = c * 3 WHERE a >= 2")
    world.same(t, "UPDATE w_upd AS u SET d = DEFAULT, c = '9.96' WHERE u.a = 1 RETURNING a, c, d")
    world.same(t, "UPDATE w_upd SET a = a + $1 WHERE b IS NULL RETURNING *", [100], ["INTEGER"])
    world.same(t, "UPDATE w_upd SET b = 'none' WHERE false")
    assert world.same(t, "UPDATE w_upd SET c = 12345.6")[0] == "22003"
    assert world.same(t, "UPDATE w_upd SET nosuch = 1")[0] == "42703"
    assert world.same(t, "UPDATE w_upd SET a = 'z'")[0] == "22P02"


def test_update_from_and_delete_using(world: World) -> None:
    t = world.table("w_main", "id int not null", "price int")
    other = world.table("w_other", "id int", "factor int")
    world.same(t, "INSERT INTO w_main SELECT g, g * 10 FROM generate_series(1, 5) AS g")
    world.same(other, "INSERT INTO w_other VALUES (2, 2), (4, 3)")
    world.same(t, "UPDATE w_main m SET price = m.price * o.factor FROM w_other o WHERE o.id = m.id RETURNING m.id")
    world.same(t, "DELETE FROM w_main m USING w_other o WHERE o.id = m.id AND o.factor = 3 RETURNING *")
    world.same(t, "DELETE FROM w_main WHERE id IN (SELECT id FROM w_other) OR price > 40")
    world.same(t, "DELETE FROM w_main WHERE id = $1 RETURNING price * 2 AS doubled", [1], ["INTEGER"])
    assert world.same(t, "UPDATE w_main SET id = NULL")[0] == "23502"
    world.same(t, "DELETE FROM w_main")


def test_types_round_trip(world: World) -> None:
    t = world.table(
        "w_types",
        "i smallint",
        "f real",
        "n numeric",
        "ts timestamp",
        "tz timestamptz",
        "by bytea",
        "j jsonb",
        "u uuid",
        "arr int[]",
    )
    world.same(
        t,
        "INSERT INTO w_types VALUES ('7', '1.5', '12.340', '2024-01-02 03:04:05.5', '2024-01-02 03:04:05+02', "
        "'\\x0102', '{\"a\": 1}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{1,2,3}')",
    )
    world.same(t, "INSERT INTO w_types (i, n) VALUES (2.5, 1.25), (3.5, 7)")
    assert world.same(t, "INSERT INTO w_types (i) VALUES (40000)")[0] == "22003"
    assert world.same(t, "INSERT INTO w_types (ts) VALUES ('2024-02-30')")[0] == "22008"
    ours = world.storage.snapshot().read_arrow(t.id).to_pylist()
    assert {r["i"] for r in ours} == {7, 3, 4} and any(
        r["ts"] == dt.datetime(2024, 1, 2, 3, 4, 5, 500000) for r in ours
    )


def test_copy_from_stdin(world: World) -> None:
    t = world.table("w_copy", "a int", "b varchar(3) default 'dft'", "c text not null", primary_key=("a",))
    world.same(t, "INSERT INTO w_copy VALUES (1, 'one', 'x')")

    def copy(data: bytes, columns: tuple[str, ...]) -> str:
        targets = copy_columns(t, columns)
        parser = CopyInParser(
            [c.type_oid for c in targets],
            "text",
            table=t.name,
            columns=[c.name for c in targets],
            typmods=[c.typmod for c in targets],
        )
        txn = world.storage.begin()
        sink = StorageCopyInSink(parser, t, targets, lambda: txn, world.duck, CTX)
        try:
            sink.write(data)
            count = sink.finish()
        except PgError as error:
            txn.abort()
            return error.code
        txn.commit(world.catalog.write_ts)
        return str(count)

    def both(data: bytes, columns: tuple[str, ...] = ()) -> str:
        listed = f" ({', '.join(columns)})" if columns else ""
        try:
            with world.pg.cursor() as cur:
                with cur.copy(f"COPY w_copy{listed} FROM STDIN") as pipe:
                    pipe.write(data)
                expected = str(cur.rowcount)
        except psycopg.Error as error:
            expected = str(error.sqlstate)
        got = copy(data, columns)
        assert got == expected
        ours, theirs = world.contents(t)
        assert ours == theirs
        return got

    assert both(b"2\ttwo\ty\n3\t\\N\tz\n") == "2"
    assert both(b"4\tw\n5\tv\n", ("a", "c")) == "2"
    assert both(b"6\ttoolong\tq\n") == "22001"
    assert both(b"7\tok\t\\N\n") == "23502"
    assert both(b"8\tok\tq\n2\tdup\tq\n") == "23505"
    assert both(b"x\tok\tq\n") == "22P02"
    with pytest.raises(PgError) as raised:
        copy_columns(t, ("nosuch",))
    assert raised.value.code == "42703"


def test_unconstrained_numeric_and_self_reference(world: World) -> None:
    t = world.table("w_num", "k int", "n numeric")
    world.same(t, "INSERT INTO w_num VALUES (1, 1.25), (2, '2.50'), (3, 10.75)")
    world.same(t, "UPDATE w_num SET n = n * 2 WHERE n > 2 RETURNING k")
    world.same(t, "DELETE FROM w_num WHERE k = (SELECT max(k) FROM w_num) RETURNING k")
    world.same(t, "INSERT INTO w_num SELECT k + 10, n FROM w_num RETURNING k")


def test_statements_of_one_transaction(world: World) -> None:
    """Later statements see the transaction's own writes; a failing statement leaves the transaction unchanged."""
    t = world.table("w_txn", "a int", "b text", primary_key=("a",))
    txn = world.storage.begin()
    state = world.catalog.state

    def run(sql: str) -> int:
        tree = parse(sql)
        assert isinstance(tree, exp.Insert | exp.Update | exp.Delete)
        return execute_write(tree, t, state, NAMES, txn, world.duck, (), (), world.query, ctx=CTX).count

    assert run("INSERT INTO w_txn VALUES (1, 'a'), (2, 'b')") == 2
    assert run("UPDATE w_txn SET b = b || '!' WHERE a = 2") == 1
    for failing in ("INSERT INTO w_txn VALUES (3, 'c'), (2, 'dup')", "UPDATE w_txn SET a = 1"):
        with pytest.raises(PgError) as raised:
            run(failing)
        assert raised.value.code == "23505"
    assert run("DELETE FROM w_txn WHERE a = 1") == 1
    assert txn.read_arrow(t.id).to_pylist() == [{"a": 2, "b": "b!"}]
    assert world.storage.snapshot().read_arrow(t.id).num_rows == 0
    txn.commit(world.catalog.write_ts)
    assert world.storage.snapshot().read_arrow(t.id).to_pylist() == [{"a": 2, "b": "b!"}]


def test_a_repeated_statement_reuses_its_translation_and_keeps_lookalikes_apart(world: World) -> None:
    """VALUES cells are translated once per text (evaluator.translated); `date_part(…)` and `EXTRACT(…)` print alike
    but differ in type (double precision against numeric), so each keeps a translation of its own."""
    t = world.table("w_rep", "a bigint", "b text")
    for field in ("date_part('epoch', interval '1.5 seconds')", "extract(epoch from interval '1.5 seconds')") * 2:
        for value in (1, 2):
            world.same(t, f"INSERT INTO w_rep VALUES ($1 + 1, ({field})::text)", [value], ["BIGINT"])
    assert sorted({row[1] for row in world.contents(t)[0]}, key=str) == ["1.5", "1.500000"]
