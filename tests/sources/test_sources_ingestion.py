"""Ingestion's failure handling on storage alone (sources/ingestion.py): a transient error stalls the source and
`run` is called again from the durable offset (no gap, no duplicate); a SourceError fails it; a subsource's
SourceError fails that subsource only while the others keep flowing; a reader that cannot be opened is retried;
deletes retract one equal row each."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pyarrow as pa
import pytest

from sparkwire.catalog import Catalog
from sparkwire.compute.controller import ClusterController
from sparkwire.engine.spark import SparkEngine
from sparkwire.sources.generators.counter import COUNTER
from sparkwire.sources.ingestion import Ingestion, IngestionPlan, delete_rows
from sparkwire.sources.reader import Batch, Changes, Sink, SourceError, SubsourceSpec, UpstreamReader
from sparkwire.sources.status import SourceHealth
from sparkwire.storage import Storage

SCHEMA = pa.schema([("v", pa.int64())])
PROGRESS = pa.schema([("offset", pa.int64())])
Controlled = tuple[ClusterController, str]  # the controller and the id of the cluster the source runs on


@pytest.fixture
def controller(tmp_path: Path) -> Iterator[Controlled]:
    """The real cluster controller over a real catalog (its quickstart cluster), with a Spark engine that is never
    started: ingestion records its work there and needs no Spark."""
    catalog = Catalog.open(tmp_path / "catalog")
    try:
        cluster = next(c for c in catalog.state.clusters.values() if c.name == "quickstart")
        yield ClusterController(SparkEngine(tmp_path / "spark"), catalog.state), cluster.id
    finally:
        catalog.close()


class _Reader:
    """Emits v = offset + 1 into `a` and `b`; `script` says what to raise at given offsets (once each)."""

    def __init__(self, script: dict[int, BaseException]) -> None:
        self.script = script
        self.resumes: list[str | None] = []
        self.closed = False

    def subsources(self) -> list[SubsourceSpec]:
        return []

    def run(self, resume: str | None, sink: Sink, stop: threading.Event) -> None:
        self.resumes.append(resume)
        offset = int(resume or 0)
        while not stop.is_set() and offset < 10:
            if (error := self.script.pop(offset, None)) is not None:
                raise error
            row = pa.table({"v": [offset + 1]}, schema=SCHEMA)
            sink.emit(Batch(str(offset + 1), {"a": Changes(row), "b": Changes(row)}, messages=1, bytes=8))
            offset += 1
        stop.wait(0.05)

    def close(self) -> None:
        self.closed = True


def _ingest(
    tmp_path: Path, open_reader: Callable[[], UpstreamReader], controller: Controlled
) -> tuple[Ingestion, Storage, SourceHealth]:
    storage = Storage.open(tmp_path)
    for table_id in ("a", "b"):
        storage.create_table(table_id, SCHEMA)
    storage.create_table("p", PROGRESS)
    health = SourceHealth()
    for member in ("s", "a", "b", "p"):
        health.register(member, member, "subsource")
    ticks = iter(range(1, 1_000_000))
    plan = IngestionPlan(
        "s", "s", controller[1], COUNTER, open_reader, {"a": "a", "b": "b"}, "p", PROGRESS, ("s", "a", "b", "p"),
        {"a": SCHEMA, "b": SCHEMA},
    )  # fmt: skip
    ingestion = Ingestion(plan, storage, lambda: next(ticks), controller[0], health)
    return ingestion, storage, health


def _wait(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _values(storage: Storage, table_id: str) -> list[int]:
    return sorted(storage.snapshot().read_arrow(table_id).column(0).to_pylist())


def test_transient_error_stalls_then_resumes_without_gap(tmp_path: Path, controller: Controlled) -> None:
    reader = _Reader({4: ConnectionError("upstream went away")})
    ingestion, storage, health = _ingest(tmp_path, lambda: reader, controller)
    ingestion.start()
    try:
        _wait(lambda: _values(storage, "p") == [10])
        assert _values(storage, "a") == _values(storage, "b") == list(range(1, 11))
        assert reader.resumes == [None, "4"]
        statuses = [row["status"] for row in health.history() if row["source_id"] == "s"]
        assert statuses == ["starting", "running", "stalled", "starting", "running"]
        stalled = next(row for row in health.history() if row["status"] == "stalled")
        assert stalled["error"] == "upstream went away"
        stats = {row["id"]: row for row in health.statistics_rows()}
        assert [(stats[t]["updates_committed"], stats[t]["records_indexed"]) for t in "sab"] == [
            (20, 20),
            (10, 10),
            (10, 10),
        ]
        assert stats["s"]["messages_received"] == 10 and stats["a"]["offset_committed"] == 10
    finally:
        ingestion.stop(close_reader=True)
        storage.close()
    assert reader.closed


def test_source_error_fails_and_subsource_error_isolates(tmp_path: Path, controller: Controlled) -> None:
    reader = _Reader({3: SourceError("table b was altered", subsource="b"), 6: SourceError("publication dropped")})
    ingestion, storage, health = _ingest(tmp_path, lambda: reader, controller)
    ingestion.start()
    try:
        _wait(lambda: health.status_of("s") == ("failed", "publication dropped"))
        assert health.status_of("b") == ("failed", "table b was altered")
        assert _values(storage, "a") == list(range(1, 7))
        assert _values(storage, "b") == [1, 2, 3]  # nothing after its failure
        assert _values(storage, "p") == [6]
    finally:
        ingestion.stop(close_reader=False)
        storage.close()
    assert not reader.closed


def test_open_failure_is_retried(tmp_path: Path, controller: Controlled) -> None:
    attempts: list[int] = []
    reader = _Reader({})

    def open_reader() -> UpstreamReader:
        attempts.append(1)
        if len(attempts) < 2:
            raise OSError("connection refused")
        return reader

    ingestion, storage, health = _ingest(tmp_path, open_reader, controller)
    ingestion.start()
    try:
        _wait(lambda: _values(storage, "p") == [10])
        assert len(attempts) == 2
        assert ("stalled", "connection refused") in [(r["status"], r["error"]) for r in health.history()]
    finally:
        ingestion.stop(close_reader=True)
        storage.close()


@pytest.mark.parametrize(
    ("present", "deleted", "left"),
    [([1, 1, 2], [1], [1, 2]), ([1, 2], [3, 2], [1]), ([None, 1, None], [None], [None, 1])],
)
def test_deletes_retract_one_equal_row_each(
    tmp_path: Path, present: list[int | None], deleted: list[int | None], left: list[int | None]
) -> None:
    storage = Storage.open(tmp_path)
    try:
        storage.create_table("t", SCHEMA)
        txn = storage.begin()
        txn.append("t", pa.table({"v": present}, schema=SCHEMA))
        txn.commit(1)
        txn = storage.begin()
        assert delete_rows(txn, "t", pa.table({"v": deleted}, schema=SCHEMA)) == len(present) - len(left)
        txn.commit(2)
        assert sorted(storage.snapshot().read_arrow("t").column(0).to_pylist(), key=str) == sorted(left, key=str)
    finally:
        storage.close()
