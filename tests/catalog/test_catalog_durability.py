"""Durability: state survives reopen, ids and OIDs are never reused, listeners run in the catalog transaction
(a failing listener rolls it back), the timeline never goes backwards, concurrent writers serialize, and a
writer killed with SIGKILL at random instants leaves a prefix of its committed transactions, never a partial
one."""

from __future__ import annotations

import random
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from sparkwire.catalog import Catalog, CatalogChange, CatalogState, TransactResult
from sparkwire.catalog.codec import CatalogObject, encode
from sparkwire.catalog.objects import ObjectRef
from sparkwire.catalog.ops import (
    AdvanceTimestamp,
    CreateItem,
    CreateRole,
    DropItems,
    GrantPrivileges,
    GrantRole,
    SetNoticeStatus,
)
from sparkwire.errors import DuplicateTable, ObjectNotInPrerequisiteState
from tests.catalog.test_catalog_ops import MATERIALIZE_ROLE, create, spec


def rows(state: CatalogState) -> set[tuple[str, str, str]]:
    objs: list[CatalogObject] = [
        *state.databases.values(),
        *state.schemas.values(),
        *state.roles.values(),
        *state.memberships.values(),
        *state.clusters.values(),
        *state.items.values(),
        *state.privileges.values(),
        *state.notices.values(),
    ]
    return {encode(o) for o in objs}


def test_state_survives_reopen(tmp_path: Path) -> None:
    cat = Catalog.open(tmp_path)
    (t,) = create(cat, spec("table", "t"))
    (r,) = [ref.id for ref in cat.transact([CreateRole("r")]).created]
    cat.transact(
        [
            CreateItem(spec("view", "v", deps=(t,))),
            GrantRole("g1", r, MATERIALIZE_ROLE),
            GrantPrivileges(ObjectRef("item", t), r, MATERIALIZE_ROLE, "ra"),
            SetNoticeStatus("fp", "ignored", r),
        ]
    )
    before, revision = cat.state, cat.revision
    cat.close()
    reopened = Catalog.open(tmp_path)
    try:
        assert rows(reopened.state) == rows(before)
        assert reopened.state.counters == before.counters
        assert reopened.revision == revision
        assert reopened.state.dependents(t) == before.dependents(t)
    finally:
        reopened.close()


def test_ids_and_oids_are_never_reused(tmp_path: Path) -> None:
    cat = Catalog.open(tmp_path)
    (t,) = create(cat, spec("table", "t"))
    first = cat.state.items[t]
    cat.transact([DropItems((t,))])
    cat.close()
    cat = Catalog.open(tmp_path)
    try:
        (t2,) = create(cat, spec("table", "t"))
        second = cat.state.items[t2]
        assert (first.id, second.id) == ("u1", "u2")
        assert second.oid > first.oid
    finally:
        cat.close()


def test_a_second_process_cannot_open_the_same_catalog(tmp_path: Path) -> None:
    cat = Catalog.open(tmp_path)
    try:
        with pytest.raises(ObjectNotInPrerequisiteState):
            Catalog.open(tmp_path)
    finally:
        cat.close()


class Recorder:
    """A listener that records its calls, checks the revision it is shown, and can be told to fail."""

    def __init__(self, fail: bool = False) -> None:
        self.calls: list[tuple[str, int]] = []
        self.fail = fail

    def prepare(self, change: CatalogChange) -> None:
        self.calls.append(("prepare", change.new.revision))
        assert change.new.revision == change.old.revision + 1
        if self.fail:
            raise DuplicateTable("listener refused")

    def commit(self, change: CatalogChange) -> None:
        self.calls.append(("commit", change.new.revision))

    def abort(self, change: CatalogChange) -> None:
        self.calls.append(("abort", change.new.revision))


def test_listeners_run_inside_the_transaction_and_a_failure_rolls_back(tmp_path: Path) -> None:
    cat = Catalog.open(tmp_path)
    good, bad = Recorder(), Recorder(fail=True)
    cat.add_listener(good)
    create(cat, spec("table", "t"))
    assert good.calls == [("prepare", 2), ("commit", 2)]
    cat.add_listener(bad)
    before = cat.state
    with pytest.raises(DuplicateTable, match="listener refused"):
        cat.transact([CreateItem(spec("table", "u"))])
    assert cat.state is before and cat.revision == 2
    assert good.calls[2:] == [("prepare", 3), ("abort", 3)]
    assert bad.calls == [("prepare", 3), ("abort", 3)]  # it may have done part of its work
    cat.remove_listener(bad)
    seen: list[TransactResult] = []
    result = cat.transact([CreateItem(spec("table", "w"))], on_commit=seen.append)
    assert seen == [result] and cat.state is result.state and result.revision == 3
    cat.close()
    cat = Catalog.open(tmp_path)
    try:
        names = {i.name for i in cat.state.items.values()}
        assert names == {"t", "w"} and cat.revision == 3
    finally:
        cat.close()


def test_timeline_never_goes_backwards(tmp_path: Path) -> None:
    now = [1_000_000]
    cat = Catalog.open(tmp_path, clock=lambda: now[0])
    stamps = [cat.write_ts() for _ in range(5)]
    assert stamps == sorted(set(stamps)) and stamps[0] >= 1_000_000
    result = cat.transact([CreateItem(spec("table", "t"))])
    assert result.timestamp > stamps[-1] and cat.read_ts() == result.timestamp
    cat.transact([AdvanceTimestamp(5_000_000)])
    assert cat.write_ts() > 5_000_000
    last = cat.write_ts()
    cat.close()
    now[0] = 10  # the clock went backwards across the restart
    cat = Catalog.open(tmp_path, clock=lambda: now[0])
    try:
        assert cat.read_ts() >= last
        assert cat.write_ts() > last
    finally:
        cat.close()


def test_concurrent_writers_serialize(tmp_path: Path) -> None:
    cat = Catalog.open(tmp_path)
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            for i in range(10):
                cat.transact([CreateItem(spec("table", f"t{n}_{i}"))])
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    try:
        assert errors == []
        assert len(cat.state.items) == 40
        assert sorted(int(i[1:]) for i in cat.state.items) == list(range(1, 41))
        assert cat.revision == 41
    finally:
        cat.close()


# ---- crash safety ---------------------------------------------------------------------------------------

CHILD = """
import sys
from pathlib import Path
from sparkwire.catalog import Catalog
from sparkwire.catalog.objects import Column, ItemSpec
from sparkwire.catalog.ops import CreateItem, DropItems

def item(kind, name, deps=(), on=None):
    return ItemSpec(kind=kind, schema_id="u3", name=name, owner_id="u1", create_sql=name,
                    columns=(Column("a", 23),) if kind != "index" else (), dependencies=deps, on_id=on,
                    keys=("a",) if kind == "index" else (), cluster_id="u1" if kind == "index" else None)

cat = Catalog.open(Path(sys.argv[1]))
i = sum(1 for it in cat.state.items.values() if it.kind == "view")  # resume an interrupted round
while True:
    table = cat.state.find_item("u3", f"t{i}")
    if table is None:
        ops = [CreateItem(item("table", f"t{i}"))]
        previous_index = cat.state.find_item("u3", f"i{i - 1}")
        if previous_index is not None:
            ops.append(DropItems((previous_index.id,)))
        t = cat.transact(ops).created[0].id
    else:
        t = table.id
    cat.transact([CreateItem(item("view", f"v{i}", deps=(t,))), CreateItem(item("index", f"i{i}", on=t))])
    print(i, flush=True)
    i += 1
"""


def check_prefix(data_dir: Path, min_done: int) -> int:
    """The reopened catalog holds exactly transactions 0..k of the child (k >= min_done); return k's count."""
    with sqlite3.connect(data_dir / "catalog" / "catalog.db") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    cat = Catalog.open(data_dir)
    try:
        items = cat.state.items
        by_name = {i.name: i for i in items.values()}
        tables = sorted(int(i.name[1:]) for i in items.values() if i.kind == "table")
        n = len(tables)
        assert tables == list(range(n)) and n >= min_done
        views = sorted(int(i.name[1:]) for i in items.values() if i.kind == "view")
        indexes = sorted(int(i.name[1:]) for i in items.values() if i.kind == "index")
        # the second transaction of round k (view + index) is all or nothing
        assert views in (list(range(n)), list(range(n - 1)))
        # round k's first transaction drops index k-1, its second creates index k
        assert indexes == ([n - 1] if n and len(views) == n else [])
        for k in range(len(views)):
            assert by_name[f"v{k}"].dependencies == (by_name[f"t{k}"].id,)
        ids = sorted(int(i.id[1:]) for i in items.values())
        assert ids[-1] == cat.state.counters.item - 1  # the counter committed with the last item
        assert len({i.oid for i in items.values()}) == len(items)
        return n
    finally:
        cat.close()


def test_sigkill_at_random_points_leaves_a_committed_prefix(tmp_path: Path) -> None:
    rng = random.Random(20261122)
    done = 0
    for _ in range(6):
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(tmp_path)], stdout=subprocess.PIPE, text=True, cwd=Path.cwd()
        )
        assert child.stdout is not None
        printed = -1
        for _ in range(rng.randint(1, 15)):
            line = child.stdout.readline()
            assert line, "the child died"
            printed = int(line)
        # kill at a random instant within the next few transactions
        threading.Event().wait(rng.random() * 0.02)
        child.send_signal(signal.SIGKILL)
        child.wait()
        done = check_prefix(tmp_path, max(done, printed + 1))
    assert done >= 6
