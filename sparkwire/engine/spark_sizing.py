"""How big Spark may be: memory, result size, broadcast threshold and shuffle partitions, from the machine.

Contract: `SparkSizing.for_machine(memory=None, ...)` gives the settings for this machine, each overridable
(`sparkwire serve --spark-memory 4g --spark-max-result-size 1g --spark-broadcast-threshold 32m
--spark-shuffle-partitions 8 --spark-executor-memory 8g`); `conf(local=...)` the Spark settings, which must reach
the builder before the JVM starts (PySpark passes builder settings to spark-submit as `--conf`, and the launcher
turns `spark.driver.memory` into the JVM's `-Xmx`); `describe()` one log line. Sizes are bytes; `parse_size`
reads `512m`, `4g`, `1.5GiB`, `1048576`.

Defaults (why):
- driver memory: a quarter of the machine's physical memory, between 1 GiB and 32 GiB. The embedded driver is
  also the executor (`local[*]`), so this is all the memory queries get; Spark's own 1 GiB default let a 50-way
  join of 10-row tables thrash the heap (GCLocker retries, broadcast blocks spilled to disk and re-read: 40 s).
  The JVM only takes what it uses, so the cap is a limit, not a reservation; the rest is left to the server
  process (resident relations, results in flight), DuckDB and whatever else runs on the machine.
- executor memory: the driver's unless given (it only matters on a cluster: `local[*]` runs in the driver).
- max result size (`spark.driver.maxResultSize`): a quarter of the driver memory, so collecting a huge result
  fails with 54000 before it can fill the heap.
- broadcast threshold: driver memory / 128, between 4 MiB and 64 MiB: small relations are broadcast (a hash join
  without a shuffle), a large one never is.
- page size (`spark.buffer.pageSize`): 2 MiB. Spark sizes its memory pages from the heap (up to 64 MiB) and every
  broadcast hash relation takes at least one; with dozens of small broadcast relations in one plan the pages, not
  the rows, filled the storage memory.
- shuffle partitions: twice the cores, at least 2 (AQE coalesces small shuffles anyway).
- a fatal error in a task (a StackOverflowError, Spark's own SparkOutOfMemoryError) fails the task and its
  statement instead of exiting the JVM (`spark.executor.killOnFatalError.depth=0`: in `local[*]` the executor is
  the driver, so Spark's default would take every session's Spark down with one query). A heap that really runs
  out is another matter: `SparkEngine` cancels the statement first when live data fills the heap (53200), and
  runs the embedded JVM with `-XX:+ExitOnOutOfMemoryError`, since threads that die of an OutOfMemoryError leave
  the JVM half-working (statements that wait forever); the watchdog then restarts it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB
_UNITS = {"": 1, "b": 1, "k": KIB, "kb": KIB, "kib": KIB, "m": MIB, "mb": MIB, "mib": MIB, "g": GIB, "gb": GIB,
          "gib": GIB, "t": 1024 * GIB, "tb": 1024 * GIB, "tib": 1024 * GIB}
PAGE_SIZE = 2 * MIB


def parse_size(text: str) -> int:
    """`512m`, `4g`, `1.5GiB`, `1048576` -> bytes (binary units); ValueError otherwise."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", text)
    if match is None or match.group(2).lower() not in _UNITS:
        raise ValueError(f"not a size: {text!r} (e.g. 512m, 4g)")
    size = int(float(match.group(1)) * _UNITS[match.group(2).lower()])
    if size <= 0:
        raise ValueError(f"not a positive size: {text!r}")
    return size


def describe_size(size: int) -> str:
    for unit, factor in (("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if size >= factor:
            return f"{size / factor:.3g} {unit}"
    return f"{size} B"


def machine_memory() -> int:
    """Physical memory in bytes (8 GiB if the system does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 * GIB


def _clamp(value: int, low: int, high: int) -> int:
    return max(low, min(high, value))


def _jvm_size(size: int) -> str:
    """A size as the JVM and Spark read it (whole mebibytes)."""
    return f"{max(1, size // MIB)}m"


@dataclass(frozen=True)
class SparkSizing:
    driver_memory: int
    executor_memory: int
    max_result_size: int
    broadcast_threshold: int
    shuffle_partitions: int
    page_size: int = PAGE_SIZE

    @classmethod
    def for_machine(
        cls,
        memory: int | None = None,
        *,
        executor_memory: int | None = None,
        max_result_size: int | None = None,
        broadcast_threshold: int | None = None,
        shuffle_partitions: int | None = None,
        machine_bytes: int | None = None,
        cores: int | None = None,
    ) -> SparkSizing:
        """The defaults of the module docstring, with any of them given explicitly."""
        total = machine_bytes if machine_bytes is not None else machine_memory()
        driver = memory if memory is not None else _clamp(total // 4, GIB, 32 * GIB)
        cpus = cores if cores is not None else (os.cpu_count() or 2)
        return cls(
            driver_memory=driver,
            executor_memory=executor_memory if executor_memory is not None else driver,
            max_result_size=max_result_size if max_result_size is not None else driver // 4,
            broadcast_threshold=(
                broadcast_threshold if broadcast_threshold is not None else _clamp(driver // 128, 4 * MIB, 64 * MIB)
            ),
            shuffle_partitions=shuffle_partitions if shuffle_partitions is not None else max(2, 2 * cpus),
        )

    def with_shuffle_partitions(self, partitions: int) -> SparkSizing:
        return replace(self, shuffle_partitions=partitions)

    def conf(self, *, local: bool) -> dict[str, str]:
        """The Spark settings (`local`: the embedded `local[...]` master, where the driver runs the tasks)."""
        conf = {
            "spark.driver.memory": _jvm_size(self.driver_memory),
            "spark.driver.maxResultSize": _jvm_size(self.max_result_size),
            "spark.sql.autoBroadcastJoinThreshold": str(self.broadcast_threshold),
            "spark.buffer.pageSize": _jvm_size(self.page_size),
            "spark.sql.shuffle.partitions": str(self.shuffle_partitions),
            "spark.default.parallelism": str(self.shuffle_partitions),
        }
        if local:
            conf["spark.executor.killOnFatalError.depth"] = "0"
        else:
            conf["spark.executor.memory"] = _jvm_size(self.executor_memory)
        return conf

    def describe(self) -> str:
        return (
            f"driver memory {describe_size(self.driver_memory)}, executor memory "
            f"{describe_size(self.executor_memory)}, max result {describe_size(self.max_result_size)}, broadcast "
            f"≤ {describe_size(self.broadcast_threshold)}, page {describe_size(self.page_size)}, "
            f"{self.shuffle_partitions} shuffle partitions"
        )
