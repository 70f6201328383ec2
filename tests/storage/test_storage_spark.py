"""Spark reads a storage snapshot (files minus deletion vectors) and sees exactly what pyarrow sees, at the
latest and at an older timestamp, with no Spark job to build the DataFrame."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from pyspark.errors import PySparkRuntimeError
from pyspark.sql import SparkSession

from sparkwire.storage import Storage
from sparkwire.storage.spark_reader import spark_dataframe

SCHEMA = pa.schema(
    [
        ("id", pa.int64()),
        ("name", pa.string()),
        ("price", pa.decimal128(10, 2)),
        ("day", pa.date32()),
        ("at", pa.timestamp("us", tz="UTC")),
        ("ok", pa.bool_()),
    ]
)


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    """A local session, or the one another test module already runs in this process (one per JVM)."""
    try:
        existing: SparkSession | None = SparkSession.active()  # the active or the global default, any thread
    except PySparkRuntimeError:
        existing = None
    if existing is not None:
        yield existing
        return
    session = (
        SparkSession.builder.master("local[1]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    yield session
    session.stop()  # so a later module's builder does not inherit this one's settings


@pytest.fixture
def storage(tmp_path: Path) -> Iterator[Storage]:
    opened = Storage.open(tmp_path)
    opened.create_table("u1", SCHEMA)
    yield opened
    opened.close()


def rows(ids: list[int]) -> pa.Table:
    return pa.table(
        {
            "id": ids,
            "name": [None if i % 4 == 0 else f"n{i}" for i in ids],
            "price": [Decimal(i) / 4 for i in ids],
            "day": [dt.date(2026, 1, 1) + dt.timedelta(days=i) for i in ids],
            "at": [dt.datetime(2026, 1, 1, tzinfo=dt.UTC) + dt.timedelta(seconds=i) for i in ids],
            "ok": [i % 2 == 0 for i in ids],
        },
        schema=SCHEMA,
    )


def spark_rows(spark: SparkSession, storage: Storage, ts: int) -> list[dict[str, object]]:
    frame = spark_dataframe(spark, storage.snapshot(ts), "u1")
    assert frame.columns == SCHEMA.names
    table: pa.Table = frame.toArrow()
    result: list[dict[str, object]] = table.cast(SCHEMA).sort_by("id").to_pylist()
    return result


def arrow_rows(storage: Storage, ts: int) -> list[dict[str, object]]:
    result: list[dict[str, object]] = storage.snapshot(ts).read_arrow("u1").sort_by("id").to_pylist()
    return result


def test_spark_sees_the_snapshot_pyarrow_sees(spark: SparkSession, storage: Storage) -> None:
    assert spark_rows(spark, storage, 0) == []
    txn = storage.begin()
    txn.append("u1", rows(list(range(10))))
    txn.commit(1)
    txn = storage.begin()
    txn.append("u1", rows(list(range(10, 15))))
    txn.delete_where("u1", lambda t: pc.equal(pc.bit_wise_and(t["id"], 1), 1))  # deletes in both files
    txn.commit(2)
    txn = storage.begin()
    txn.delete_where("u1", lambda t: pc.less(t["id"], 4))
    txn.commit(3)

    for ts in (1, 2, 3):
        assert spark_rows(spark, storage, ts) == arrow_rows(storage, ts)

    tracker = spark.sparkContext.statusTracker()
    jobs = tracker.getJobIdsForGroup()
    assert jobs  # the reads above ran jobs, and the tracker sees them
    spark_dataframe(spark, storage.snapshot(2), "u1")
    assert tracker.getJobIdsForGroup() == jobs  # building a DataFrame runs none
    assert [r["id"] for r in arrow_rows(storage, 3)] == [4, 6, 8, 10, 12, 14]
