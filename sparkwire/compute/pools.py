"""Cluster replicas as Spark FAIR scheduler pools.

Contract: `pool_name(cluster_id, replica_id)` is the pool of a replica. `SparkPools(spark)`:
- `declare(pools)` (name → `ReplicaSize`) writes them to `<spark dir>/cluster-pools.json`, which
  `engine/spark_config.py` turns into fairscheduler.xml pools at every Spark (re)start — Spark reads that file once,
  when its SparkContext starts;
- `ensure(name)` makes sure the running SparkContext has the pool with its size's weight and minShare before a job
  is submitted to it. Spark would create a pool it does not know with weight 1 and minShare 0 (FIFO inside), so a
  pool created after the start is added through the JVM (`new Pool(name, FAIR, minShare, weight)` added to the
  root pool, what FairSchedulableBuilder does for the file's pools). Pools are never changed in place (their
  weight and minShare are fixed at creation): a replica with another size is a new replica, hence a new pool.
  Idempotent and cheap after the first call per pool and SparkContext;
- `min_share(name)`: a declared pool's minShare (0 for another);
- `running_tasks()`: running tasks per pool of the live SparkContext (`Pool.runningTasks`), `slots()` its task
  slots (`local[N]`: N task threads; on a cluster the executors' cores). Both empty / 0 when Spark is not up or
  is Spark Connect (no SparkContext here).
Failures are logged, never raised: a job in a pool that could not be created runs in Spark's default-made pool.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from typing import Any

from sparkwire.catalog.sizes import ReplicaSize
from sparkwire.engine.spark import SparkEngine
from sparkwire.engine.spark_config import POOLS_FILE

log = logging.getLogger(__name__)


def pool_name(cluster_id: str, replica_id: str) -> str:
    return f"{cluster_id}.{replica_id}"


class SparkPools:
    def __init__(self, spark: SparkEngine) -> None:
        self._spark = spark
        self._lock = threading.Lock()
        self._sizes: dict[str, ReplicaSize] = {}
        self._created: tuple[int, set[str]] = (0, set())  # (id of the SparkContext, pools made in it)
        self._slots: tuple[int, int] = (0, 0)  # (id of the SparkContext, its task slots)

    def declare(self, pools: dict[str, ReplicaSize]) -> None:
        with self._lock:
            self._sizes = dict(pools)
        body = {name: [s.weight, s.min_share] for name, s in sorted(pools.items())}
        try:
            directory = self._spark.data_dir.resolve()
            directory.mkdir(parents=True, exist_ok=True)
            tmp = directory / (POOLS_FILE + ".tmp")
            tmp.write_text(json.dumps(body, indent=1))
            tmp.replace(directory / POOLS_FILE)
        except OSError:
            log.warning("could not write the cluster pools for Spark's next start", exc_info=True)

    def context(self) -> Any:
        if not self._spark.is_ready:
            return None
        try:
            return self._spark.session.sparkContext
        except Exception:  # Spark Connect: no SparkContext in this process
            return None

    def ensure(self, name: str) -> None:
        sc = self.context()
        if sc is None:
            return
        with self._lock:
            size = self._sizes.get(name)
            if self._created[0] != id(sc):
                self._created = (id(sc), set())
            made = self._created[1]
            if size is None or name in made:
                return
            try:
                jsc = sc._jsc.sc()
                if not jsc.getPoolForName(name).isDefined():
                    jvm = sc._jvm
                    mode = jvm.org.apache.spark.scheduler.SchedulingMode.FAIR()
                    pool = jvm.org.apache.spark.scheduler.Pool(name, mode, size.min_share, size.weight)
                    jsc.taskScheduler().rootPool().addSchedulable(pool)
                made.add(name)
            except Exception:
                log.warning("could not create Spark pool %s", name, exc_info=True)

    def min_share(self, name: str) -> int:
        with self._lock:
            size = self._sizes.get(name)
        return size.min_share if size is not None else 0

    def running_tasks(self) -> dict[str, int]:
        sc = self.context()
        if sc is None:
            return {}
        try:
            pools = sc._jsc.sc().getAllPools()
            out: dict[str, int] = {}
            for i in range(pools.size()):
                pool = pools.apply(i)
                out[str(pool.name())] = int(pool.runningTasks())
            return out
        except Exception:
            log.debug("could not read the Spark pools", exc_info=True)
            return {}

    def slots(self) -> int:
        sc = self.context()
        if sc is None:
            return 0
        if self._slots[0] == id(sc):
            return self._slots[1]  # fixed for a SparkContext: asked once (the preemption watcher asks every 20 ms)
        try:
            slots = _task_slots(sc)
        except Exception:
            return 0
        self._slots = (id(sc), slots)
        return slots


_LOCAL = re.compile(r"local(?:\[(\*|\d+)(?:,\s*\d+)?\])?$")


def _task_slots(sc: Any) -> int:
    """Task slots: `local[N]` runs N tasks at once (`local[*]`: the JVM's processors, `local`: one); on a cluster
    Spark's default parallelism (the executors' cores). Not `defaultParallelism` in local mode: sparkwire sets
    spark.default.parallelism (twice the cores, spark_config), which is not the number of task threads."""
    local = _LOCAL.match(str(sc.master))
    if local is None:
        return int(sc.defaultParallelism)
    if local.group(1) is None:
        return 1
    if local.group(1) == "*":
        return int(sc._jvm.java.lang.Runtime.getRuntime().availableProcessors())
    return int(local.group(1))
