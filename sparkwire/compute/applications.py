"""Cluster replicas as Spark applications of their own (`sparkwire serve --cluster-applications`).

Contract: `ReplicaApplications(spark)` (one per process, inside the cluster controller); `enabled` is the main
engine's `cluster_applications`. When enabled:
- `sync(replicas)` (pool name → (label, `ReplicaSize`)) after every catalog commit: each replica that appeared gets
  a `SparkEngine` over a `SparkApplication` of its own (engine/spark_application.py), started in the background —
  embedded: a `local[cores]` driver with the size's memory (at most the main engine's driver memory), in its own
  Linux autogroup; on a `spark://` master: an application with `spark.cores.max` = cores and
  `spark.executor.memory` = memory. A replica that went away has its application stopped (in a background thread:
  stopping waits for the JVM). Its files live in `<spark dir>/applications/<pool>/`.
- `engine(pool)`: the replica's engine, or None (disabled, or not a known replica: the main engine runs it);
  `engines()` all of them by pool.
- `health(pool)`, `usage(pool)`: its engine's health, and its JVM's CPU (percent of the size's cores since the
  last look) and resident memory (bytes) from /proc — (0.0, 0) when it does not run.
- `stop()`: every application (server shutdown).
Disabled (the default), every method is a no-op and `engine` is None: replicas are FAIR pools of the one engine.
With Spark Connect (`--spark-remote`) applications are not available: the flag is refused at start (cli.py).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path

from sparkwire.catalog.sizes import ReplicaSize
from sparkwire.engine.spark import SparkEngine
from sparkwire.engine.spark_application import SparkApplication
from sparkwire.engine.spark_config import spark_conf
from sparkwire.engine.spark_sizing import SparkSizing
from sparkwire.engine.spark_watchdog import SparkHealth

log = logging.getLogger(__name__)
_TICKS = os.sysconf("SC_CLK_TCK")
_PAGE = os.sysconf("SC_PAGE_SIZE")


def _proc_usage(pid: int) -> tuple[float, int]:
    """(CPU seconds used so far, resident bytes) of process `pid`; (0.0, 0) if it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        resident = int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return 0.0, 0
    return (int(fields[11]) + int(fields[12])) / _TICKS, resident  # utime, stime


class _Replica:
    def __init__(self, engine: SparkEngine, application: SparkApplication, cores: int) -> None:
        self.engine = engine
        self.application = application
        self.cores = cores
        self.last: tuple[float, float] | None = None  # (monotonic time, CPU seconds) at the last `usage`


class ReplicaApplications:
    def __init__(self, spark: SparkEngine) -> None:
        self._spark = spark
        self.enabled = spark.cluster_applications
        self._lock = threading.Lock()
        self._replicas: dict[str, _Replica] = {}
        self._closing = False

    def sync(self, replicas: dict[str, tuple[str, ReplicaSize]]) -> None:
        if not self.enabled:
            return
        with self._lock:
            if self._closing:
                return
            gone = [self._replicas.pop(p) for p in list(self._replicas) if p not in replicas]
            for pool, (label, size) in replicas.items():
                if pool not in self._replicas:
                    self._replicas[pool] = self._make(pool, label, size)
                    self._replicas[pool].engine.start_background()
        for replica in gone:
            threading.Thread(target=replica.engine.stop, name="spark-application-stop", daemon=True).start()

    def _make(self, pool: str, label: str, size: ReplicaSize) -> _Replica:
        main = self._spark
        directory = main.data_dir / "applications" / pool
        local = main.master.startswith("local")
        cores = min(size.cores, os.cpu_count() or 1) if local else size.cores
        memory = min(size.memory_bytes, main.sizing.driver_memory) if local else size.memory_bytes
        sizing = SparkSizing.for_machine(memory, executor_memory=memory, cores=cores)

        def conf() -> dict[str, str]:  # at each launch: it writes the application's files (a failure is the start's)
            settings = spark_conf(directory, shuffle_partitions=sizing.shuffle_partitions)
            settings.update(sizing.conf(local=local))
            if local:
                settings["spark.driver.extraJavaOptions"] += " -XX:+ExitOnOutOfMemoryError"
            return settings

        application = SparkApplication(label, directory, master=main.master, cores=cores, memory=memory, conf=conf)
        engine = SparkEngine(directory, application=application, sizing=sizing)
        return _Replica(engine, application, cores)

    def engine(self, pool: str) -> SparkEngine | None:
        with self._lock:
            replica = self._replicas.get(pool)
        return None if replica is None else replica.engine

    def engines(self) -> dict[str, SparkEngine]:
        """Every replica's engine by pool (introspection reads their jobs' status)."""
        with self._lock:
            return {pool: replica.engine for pool, replica in self._replicas.items()}

    def health(self, pool: str) -> SparkHealth | None:
        engine = self.engine(pool)
        return None if engine is None else engine.health()

    def usage(self, pool: str) -> tuple[float, int]:
        """(CPU percent of its cores since the last call, resident bytes) of the replica's JVM."""
        with self._lock:
            replica = self._replicas.get(pool)
        pid = None if replica is None else replica.application.pid
        if replica is None or pid is None:
            return 0.0, 0
        now = time.monotonic()
        cpu, resident = _proc_usage(pid)
        last, replica.last = replica.last, (now, cpu)
        if last is None or now <= last[0]:
            return 0.0, resident
        return 100.0 * (cpu - last[1]) / (now - last[0]) / max(replica.cores, 1), resident

    def stop(self) -> None:
        with self._lock:
            self._closing = True
            replicas, self._replicas = list(self._replicas.values()), {}
        for replica in replicas:
            replica.engine.stop()
