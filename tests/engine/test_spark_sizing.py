"""Spark sized from the machine (engine/spark_sizing.py), the resource errors Spark's failures become
(engine/spark_errors.py) and the health record of an engine (engine/spark.py): unit tests, no Spark."""

from __future__ import annotations

from pathlib import Path

import pytest

from sparkwire import errors
from sparkwire.engine.spark import SparkEngine
from sparkwire.engine.spark_errors import to_pg_error
from sparkwire.engine.spark_sizing import GIB, MIB, SparkSizing, parse_size


def test_sizes_parse_in_binary_units() -> None:
    assert parse_size("512m") == 512 * MIB
    assert parse_size("4g") == 4 * GIB
    assert parse_size("1.5GiB") == 3 * GIB // 2
    assert parse_size("1048576") == MIB
    for bad in ("", "lots", "4x", "-1g", "0"):
        with pytest.raises(ValueError):
            parse_size(bad)


def test_defaults_come_from_the_machine() -> None:
    sizing = SparkSizing.for_machine(machine_bytes=24 * GIB, cores=2)
    assert sizing.driver_memory == 6 * GIB  # a quarter of the machine
    assert sizing.max_result_size == 6 * GIB // 4
    assert sizing.broadcast_threshold == 48 * MIB
    assert sizing.shuffle_partitions == 4
    small = SparkSizing.for_machine(machine_bytes=2 * GIB, cores=1)
    assert small.driver_memory == GIB  # never below 1 GiB
    assert small.broadcast_threshold == 8 * MIB and small.shuffle_partitions == 2
    assert SparkSizing.for_machine(machine_bytes=512 * GIB, cores=64).driver_memory == 32 * GIB


def test_flags_override_the_defaults() -> None:
    sizing = SparkSizing.for_machine(2 * GIB, max_result_size=100 * MIB, broadcast_threshold=MIB, shuffle_partitions=9)
    conf = sizing.conf(local=True)
    assert conf["spark.driver.memory"] == "2048m"
    assert conf["spark.driver.maxResultSize"] == "100m"
    assert conf["spark.sql.autoBroadcastJoinThreshold"] == str(MIB)
    assert conf["spark.sql.shuffle.partitions"] == "9"
    assert conf["spark.buffer.pageSize"] == "2m"
    assert conf["spark.executor.killOnFatalError.depth"] == "0"  # local: an OOM fails the task, not the JVM
    assert "spark.executor.memory" not in conf
    cluster = SparkSizing.for_machine(2 * GIB, executor_memory=8 * GIB).conf(local=False)
    assert cluster["spark.executor.memory"] == "8192m" and "spark.executor.killOnFatalError.depth" not in cluster


@pytest.mark.parametrize(
    "text",
    [
        "An error occurred while calling o163.getResult.\n: org.apache.spark.SparkException: Job aborted\n"
        "Caused by: java.lang.OutOfMemoryError: Java heap space",
        "org.apache.spark.memory.SparkOutOfMemoryError: [UNABLE_TO_ACQUIRE_MEMORY] Unable to acquire 65536 bytes",
        "Not enough memory to build and broadcast the table to all worker nodes.",
        "java.lang.OutOfMemoryError: Retried waiting for GCLocker too often allocating 1024 words",
    ],
)
def test_running_out_of_memory_is_53200(text: str) -> None:
    error = to_pg_error(RuntimeError(text))
    assert isinstance(error, errors.OutOfMemory)
    assert (error.code, error.message) == ("53200", "out of memory")
    assert error.hint and "--spark-memory" in error.hint
    assert error.detail and "\n" not in error.detail and "java" not in error.detail.lower()


def test_result_over_the_driver_limit_is_54000() -> None:
    error = to_pg_error(RuntimeError("Total size of serialized results is bigger than spark.driver.maxResultSize"))
    assert error.code == "54000" and error.hint


def test_a_new_engine_reports_that_it_is_starting(tmp_path: Path) -> None:
    engine = SparkEngine(tmp_path, sizing=SparkSizing.for_machine(GIB))
    health = engine.health()
    assert (health.state, health.restarts, health.last_failure, health.failed_statements) == ("starting", 0, None, 0)
    with pytest.raises(errors.ObjectNotInPrerequisiteState):
        engine.session  # noqa: B018
