"""The dataflow's invariant, on a real storage directory and without a server: after any sequence of writes,
the contents a dataflow reached by stepping through the changes (storage/deltas.py) equal those of a fresh dataflow
hydrated from the whole inputs at the same snapshot. Hypothesis draws the writes (inserts, deletes, updates of
join keys and values, NULLs), for a join + GROUP BY with every aggregate, a filter + projection, DISTINCT and a
UNION ALL (plans built as planner/planning/dataflow.py builds them)."""

from __future__ import annotations

import itertools
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import sqlglot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlglot import exp

from sparkwire.compute.dataflow.dataflow import Dataflow
from sparkwire.compute.dataflow.plan import Aggregate, Branch, DataflowPlan, Input, Reduce
from sparkwire.storage import Storage

FACT = pa.schema([("id", pa.int64()), ("k", pa.int32()), ("v", pa.int32()), ("tag", pa.string())])
DIM = pa.schema([("k", pa.int32()), ("name", pa.string())])
TYPES = {
    "i0_id": 20, "i0_k": 23, "i0_v": 23, "i0_tag": 25, "i1_k": 23, "i1_name": 25, "i2_k": 23, "i2_name": 25,
    "i3_id": 20, "i3_k": 23, "i3_v": 23, "i3_tag": 25,
}  # fmt: skip


def _e(sql: str) -> exp.Expr:
    return sqlglot.parse_one(sql, read="postgres")


FACT_IN = Input("fact", ("id", "k", "v", "tag"), 0, "fact")
DIM_IN = Input("dim", ("k", "name"), 1, "dim")
PLANS = {
    "join_reduce": (
        DataflowPlan(
            (Branch((FACT_IN, DIM_IN), (("i0_k", "i1_k"),), None, (_e("i1_name"), _e("i0_v"), _e("i0_tag"))),),
            Reduce(
                1,
                (
                    Aggregate("count", None, 0),
                    Aggregate("count", 0, 0),
                    Aggregate("sum", 0, 23),
                    Aggregate("avg", 0, 23),
                    Aggregate("min", 0, 23),
                    Aggregate("max", 1, 25),
                ),
                (("key", 0), *(("aggregate", j) for j in range(6))),
                grouped=True,
            ),
            TYPES,
        ),
        pa.schema(
            [
                ("name", pa.string()),
                ("n", pa.int64()),
                ("nv", pa.int64()),
                ("s", pa.int64()),
                ("a", pa.string()),
                ("lo", pa.int32()),
                ("hi", pa.string()),
            ]
        ),
    ),
    "filter": (
        DataflowPlan(
            (
                Branch(
                    (FACT_IN,),
                    (),
                    _e("i0_v > 2 AND (i0_tag IS NULL OR i0_tag <> 'c')"),
                    (_e("i0_id"), _e("i0_v * 2 + 1")),
                ),
            ),
            None,
            TYPES,
        ),
        pa.schema([("id", pa.int64()), ("w", pa.int32())]),
    ),
    "distinct": (
        DataflowPlan(
            (Branch((FACT_IN,), (), None, (_e("i0_k"), _e("i0_tag"))),),
            Reduce(2, (), (("key", 0), ("key", 1)), grouped=True),
            TYPES,
        ),
        pa.schema([("k", pa.int32()), ("tag", pa.string())]),
    ),
    "union_total": (
        DataflowPlan(
            (
                Branch((FACT_IN,), (), _e("i0_v < 4"), (_e("i0_k"), _e("i0_v"))),
                Branch((Input("dim", ("k", "name"), 2, "dim"),), (), None, (_e("i2_k"), _e("i2_k"))),
            ),
            None,
            TYPES,
        ),
        pa.schema([("k", pa.int32()), ("v", pa.int32())]),
    ),
}

SELF = Input("fact", ("id", "k", "v", "tag"), 3, "fact")
PLANS["self_join"] = (
    DataflowPlan(
        (Branch((FACT_IN, SELF), (("i0_k", "i3_k"),), _e("i0_id < i3_id"), (_e("i0_id"), _e("i3_id"), _e("i3_v"))),),
        None,
        TYPES,
    ),
    pa.schema([("a", pa.int64()), ("b", pa.int64()), ("v", pa.int32())]),
)
PLANS["three_way"] = (
    DataflowPlan(
        (
            Branch(
                (FACT_IN, DIM_IN, SELF),
                (("i0_k", "i1_k"), ("i1_k", "i3_k")),
                None,
                (_e("i1_name"), _e("i3_v")),
            ),
        ),
        Reduce(
            1,
            (Aggregate("count", None, 0), Aggregate("max", 0, 23)),
            (("key", 0), ("aggregate", 0), ("aggregate", 1)),
            grouped=True,
        ),
        TYPES,
    ),
    pa.schema([("name", pa.string()), ("n", pa.int64()), ("hi", pa.int32())]),
)

KEYS = st.integers(1, 4)
VALUES = st.one_of(st.none(), st.integers(0, 6))
TAGS = st.sampled_from([None, "a", "b", "c"])
WRITE = st.one_of(
    st.tuples(st.just("insert"), st.lists(st.tuples(KEYS, VALUES, TAGS), min_size=1, max_size=4)),
    st.tuples(st.just("delete"), st.integers(0, 3)),
    st.tuples(st.just("update"), st.integers(0, 2), KEYS, VALUES),
    st.tuples(st.just("dim"), KEYS, st.sampled_from(["d1", "d2", "d3"])),
)


class _World:
    def __init__(self, root: Path) -> None:
        self.storage = Storage.open(root)
        self.storage.create_table("fact", FACT)
        self.storage.create_table("dim", DIM)
        self._ts = itertools.count(1000)
        self._ids = itertools.count(1)
        self.commit(
            lambda txn: txn.append(
                "dim", pa.table({"k": pa.array([1, 2, 3], pa.int32()), "name": ["d1", "d2", "d1"]}, schema=DIM)
            )
        )

    def commit(self, change: object) -> None:
        txn = self.storage.begin()
        change(txn)  # type: ignore[operator]
        txn.commit(lambda: next(self._ts))

    def apply(self, write: tuple[object, ...]) -> None:
        kind = write[0]
        if kind == "insert":
            rows = write[1]
            assert isinstance(rows, list)
            ids = [next(self._ids) for _ in rows]
            table = pa.table(
                {"id": ids, "k": [r[0] for r in rows], "v": [r[1] for r in rows], "tag": [r[2] for r in rows]},
                schema=FACT,
            )
            self.commit(lambda txn: txn.append("fact", table))
        elif kind == "delete":
            rest = write[1]
            self.commit(lambda txn: txn.delete_where("fact", lambda t: pc.equal(pc.bit_wise_and(t["id"], 3), rest)))
        elif kind == "update":
            _, rest, k, v = write
            snapshot = self.storage.snapshot()
            old = snapshot.read_arrow("fact")
            hit = old.filter(pc.equal(pc.bit_wise_and(old["id"], 3), rest))
            new = hit.set_column(1, "k", pa.array([k] * hit.num_rows, pa.int32()))
            new = new.set_column(2, "v", pa.array([v] * hit.num_rows, pa.int32()))

            def update(txn: object) -> None:
                txn.delete_where("fact", lambda t: pc.equal(pc.bit_wise_and(t["id"], 3), rest))  # type: ignore[attr-defined]
                if new.num_rows:
                    txn.append("fact", new)  # type: ignore[attr-defined]

            self.commit(update)
        else:
            _, k, name = write

            def replace(txn: object) -> None:
                txn.delete_where("dim", lambda t: pc.equal(t["k"], k))  # type: ignore[attr-defined]
                txn.append("dim", pa.table({"k": pa.array([k], pa.int32()), "name": [name]}, schema=DIM))  # type: ignore[attr-defined]

            self.commit(replace)


def _rows(table: pa.Table) -> list[tuple[object, ...]]:
    return sorted((tuple(r.values()) for r in table.to_pylist()), key=repr)


@given(writes=st.lists(WRITE, min_size=1, max_size=12), every=st.integers(1, 3))
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_stepping_through_changes_equals_hydrating(writes: list[tuple[object, ...]], every: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        world = _World(Path(tmp))
        try:
            flows = {name: Dataflow(plan, schema) for name, (plan, schema) in PLANS.items()}
            for flow in flows.values():
                flow.hydrate(world.storage.snapshot())
            for n, write in enumerate(writes, 1):
                world.apply(write)
                if n % every == 0 or n == len(writes):  # steps over one commit or several
                    snapshot = world.storage.snapshot()
                    for name, flow in flows.items():
                        flow.step(snapshot)
                        plan, schema = PLANS[name]
                        fresh = Dataflow(plan, schema)
                        fresh.hydrate(snapshot)
                        assert _rows(flow.table()) == _rows(fresh.table()), (name, writes[:n])
        finally:
            world.storage.close()


def test_an_aggregate_without_group_by_has_one_row_even_when_empty() -> None:
    plan = DataflowPlan(
        (Branch((FACT_IN,), (), None, (_e("i0_v"),)),),
        Reduce(
            0,
            (Aggregate("count", None, 0), Aggregate("sum", 0, 23), Aggregate("max", 0, 23)),
            (("aggregate", 0), ("aggregate", 1), ("aggregate", 2)),
            grouped=False,
        ),
        TYPES,
    )
    schema = pa.schema([("n", pa.int64()), ("s", pa.int64()), ("hi", pa.int32())])
    with tempfile.TemporaryDirectory() as tmp:
        world = _World(Path(tmp))
        try:
            flow = Dataflow(plan, schema)
            flow.hydrate(world.storage.snapshot())
            assert _rows(flow.table()) == [(0, None, None)]
            world.apply(("insert", [(1, 5, "a"), (2, None, "b")]))
            flow.step(world.storage.snapshot())
            assert _rows(flow.table()) == [(2, 5, 5)]
            world.apply(("delete", 1))
            world.apply(("delete", 2))
            flow.step(world.storage.snapshot())
            assert _rows(flow.table()) == [(0, None, None)]
        finally:
            world.storage.close()
