"""The embedded JVM's task threads run below its driver threads.

The whole JVM runs at `SPARK_NICENESS` (spark_config: below the server's wire, planner and introspection). Inside
it, two kinds of work compete for the same cores: the driver's (analysing, optimizing and planning a statement,
scheduling its jobs, collecting its result — short, and on the path of every statement) and the executor's task
threads (scanning, joining and aggregating — as long as the data makes them). With equal priorities a cluster
whose long tasks fill every core makes each small statement of another cluster wait behind them for the CPU, even
once it has a task slot (compute/preemption.py gives it one): a 100 ms query took 700 ms under such load
(bench/cluster_isolation). So the task threads run at `TASK_NICENESS`: when a driver thread wants the CPU, it gets
it; when it does not, the tasks have every core, as before.

A task thread is one whose Linux thread name (`/proc/<pid>/task/<tid>/comm`, the first 15 bytes of its Java name)
is Spark's `Executor task …`; the driver threads that build broadcast relations (`broadcast-exchange-N`) do a
job's data work too and are lowered with them. Spark keeps those threads in a pool and reuses them, so each is lowered
once; new ones are found by looking every `INTERVAL` seconds (a task that starts on a new thread runs at the JVM's
priority until then). Python workers started by a task thread inherit its priority.

Contract: `TaskThreads(pid).start()` looks until the process `pid` ends (a restarted JVM gets its own). Linux
only (elsewhere nothing happens); failures are logged once, never raised.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path

log = logging.getLogger(__name__)
TASK_NICENESS = 19
INTERVAL = 0.2
# Spark's task threads ("Executor task launch worker-N", renamed for each task it runs, whose first 15 bytes vary)
# and the driver threads that build a broadcast relation out of a job's rows ("broadcast-exchange-N"): data work
_DATA_THREADS = ("Executor task ", "broadcast-excha")
_UNNAMED = "java"  # a thread HotSpot has not named yet: looked at again


class TaskThreads:
    def __init__(self, pid: int) -> None:
        self._pid = pid
        self._tasks = Path(f"/proc/{pid}/task")
        self._seen: set[str] = set()
        self._warned = False

    def start(self) -> TaskThreads:
        if self._tasks.is_dir():
            threading.Thread(target=self._run, name="sparkwire-task-priority", daemon=True).start()
        return self

    def _run(self) -> None:
        while True:
            try:
                tids = os.listdir(self._tasks)
            except OSError:
                return  # the JVM is gone
            for tid in tids:
                if tid not in self._seen:
                    self._look(tid)
            self._seen.intersection_update(tids)
            time.sleep(INTERVAL)

    def _look(self, tid: str) -> None:
        try:
            name = (self._tasks / tid / "comm").read_text().rstrip("\n")
            if name == _UNNAMED:
                return
            self._seen.add(tid)
            if name.startswith(_DATA_THREADS):
                os.setpriority(os.PRIO_PROCESS, int(tid), TASK_NICENESS)
        except (FileNotFoundError, ProcessLookupError):
            return  # the thread ended meanwhile
        except OSError:
            if not self._warned:
                self._warned = True
                log.warning("could not lower the priority of Spark's task thread %s", tid, exc_info=True)
