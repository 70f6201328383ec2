"""Preemption between cluster pools: a replica's guaranteed task slots, enforced on the one embedded SparkContext.

Spark's FAIR scheduler gives a free task slot to the pool furthest below its minShare, but it never takes a slot
back: a cluster whose long tasks hold every slot makes another cluster's small query wait until one of them ends,
which can be seconds or minutes (bench/cluster_isolation). So, as YARN's fair scheduler does, sparkwire preempts:
while replicas of two or more clusters run work, a watcher looks at the pools every `INTERVAL` seconds and, when a
pool has tasks waiting, holds fewer running tasks than it is guaranteed and no slot is free, it kills the most
recently launched task of a pool that holds more than its guarantee. Spark's `killTaskAttempt` re-queues a killed
task (it does not count as a failure) and FAIR hands the freed slot to the starved pool, which is now the furthest
below its minShare. Only the killed task's progress is lost, the youngest task's: the least work.

A pool's guarantee while pools P1…Pn have work: its share of the task slots by minShare (the size's cores),
`floor(slots × minShare / Σ minShare)`, at least one slot. A pool that holds no more than its guarantee is never a
victim; work of one cluster is never preempted for work of the same cluster.

Contract: `Preemptor(pools, busy)` (`busy()`: the pools that have work now); `watch()` is called whenever work
starts (ClusterController.running): it starts the watcher thread if it is not running; the thread ends by itself
once fewer than two pools have work. Each kill is in the server log (INFO) and in
`mz_internal.mz_spark_stages.num_killed_tasks`. Never raises: a failed look or kill is logged and the watcher goes
on. Only an embedded SparkContext can be preempted (Spark Connect has none in this process: the watcher does
nothing).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

from sparkwire.compute.pools import SparkPools

log = logging.getLogger(__name__)
INTERVAL = 0.02  # seconds between two looks while pools compete: the most a starved pool waits before a kill
REASON = "preempted: another cluster's replica needs its guaranteed task slots"


@dataclass(slots=True)
class PoolLoad:
    """One pool's tasks: running now, waiting for a slot, and the ids of the running ones (youngest last)."""

    name: str
    min_share: int
    running: int
    waiting: int
    task_ids: list[int]


def guarantees(loads: list[PoolLoad], slots: int) -> dict[str, int]:
    """Each pool's guaranteed slots: its minShare's part of the slots, at least one (see the module docstring)."""
    total = sum(max(1, p.min_share) for p in loads) or 1
    return {p.name: max(1, slots * max(1, p.min_share) // total) for p in loads}


def victims(loads: list[PoolLoad], slots: int, killed: AbstractSet[int] = frozenset()) -> list[int]:
    """The task ids to kill so that every starved pool gets its guarantee, taken from the pools above theirs
    (youngest task first, from the pool furthest above its guarantee)."""
    if sum(p.running for p in loads) < slots:
        return []  # a slot is free: FAIR gives it to the pool that needs it
    share = guarantees(loads, slots)
    wanted = sum(min(p.waiting, share[p.name] - p.running) for p in loads if p.waiting and p.running < share[p.name])
    dying = sum(1 for p in loads for t in p.task_ids if t in killed)
    wanted -= dying  # their slots are about to be free
    spare = {p.name: p.running - share[p.name] - sum(1 for t in p.task_ids if t in killed) for p in loads}
    tasks = {p.name: [t for t in p.task_ids if t not in killed] for p in loads}
    out: list[int] = []
    while wanted > 0:
        donor = max(spare, key=lambda n: (spare[n], len(tasks[n])))
        if spare[donor] <= 0 or not tasks[donor]:
            break
        out.append(tasks[donor].pop())
        spare[donor] -= 1
        wanted -= 1
    return out


class Preemptor:
    def __init__(self, pools: SparkPools, busy: Callable[[], set[str]]) -> None:
        self._pools = pools
        self._busy = busy
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._killed: set[int] = set()  # killed and maybe still running until it notices: not killed twice

    def watch(self) -> None:
        if len(self._busy()) < 2:
            return
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._thread = threading.Thread(target=self._run, name="sparkwire-preemption", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while True:
            busy = self._busy()
            if len(busy) < 2:
                return
            try:
                self._look(busy)
            except Exception:
                log.warning("could not look at the Spark pools for preemption", exc_info=True)
            time.sleep(INTERVAL)

    def _look(self, busy: set[str]) -> None:
        sc = self._pools.context()
        if sc is None:
            return
        jsc = sc._jsc.sc()
        slots = self._pools.slots()
        loads = [load for name in sorted(busy) if (load := _load(jsc, name, self._pools.min_share(name)))]
        self._killed &= {t for p in loads for t in p.task_ids}  # those that ended are gone
        for task_id in victims(loads, slots, self._killed):
            if jsc.killTaskAttempt(task_id, True, REASON):
                self._killed.add(task_id)
                log.info("preempted Spark task %d for a starved cluster replica", task_id)


def _load(jsc: Any, name: str, min_share: int) -> PoolLoad | None:
    found = jsc.getPoolForName(name)
    if not found.isDefined():
        return None
    pool = found.get()
    running, waiting, ids = 0, 0, []
    queue = pool.schedulableQueue().toArray()
    for tsm in queue:
        if tsm.isZombie():
            continue
        active = int(tsm.runningTasks())
        running += active
        waiting += max(0, int(tsm.numTasks()) - int(tsm.tasksSuccessful()) - active)
        listed = str(tsm.runningTasksSet().mkString(","))
        ids += [int(i) for i in listed.split(",") if i]
    ids.sort()
    return PoolLoad(name, min_share, running, waiting, ids)
