"""The embedded engine's guard against a full heap: shed the statement that has run longest before the JVM thrashes.

Contract: `SparkEngine` inherits `HeapShedding`; its watchdog calls `_check(spark, gauge)` every second, which
returns why the JVM is unusable (spark_process.probe) or None, and when live data passes `HEAP_PRESSURE` of the heap
after collection cancels the longest-running statement with 53200. One at a time: while a shed statement runs, and
for `SETTLE_SECONDS` after it (or a statement Spark itself failed out of memory, `_ran_out_of_memory`) ended, no one
else is shed — its cancelled tasks may still be winding down and holding memory, and the after-collection figure
counts that memory until the next collection — instead the heap is collected every `COLLECT_SECONDS` while it reads
full; the settling ends as soon as the heap reads below the mark. `Running` is one statement in flight. See
engine/spark.py (Memory) for the whole story.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any

from pyspark.sql import SparkSession

from sparkwire import errors
from sparkwire.engine.spark_process import HeapGauge, probe
from sparkwire.engine.spark_watchdog import SparkHealth

log = logging.getLogger(__name__)
HEAP_PRESSURE = 0.85  # live data over this fraction of the heap after GC: shed the longest-running statement
SETTLE_SECONDS = 30.0  # after a statement shed or failed out of memory ended: its tasks may still hold memory
COLLECT_SECONDS = 2.0  # while settling and the heap reads full: a full collection at most this often


@dataclass
class Running:
    """A statement in flight under one tag; `reason` is set once it is cancelled."""

    reason: str | None = None
    failure: errors.PgError | None = None  # set when the engine failed under the statement, or shed it
    done: threading.Event = field(default_factory=threading.Event)
    started: float = field(default_factory=time.monotonic)
    session: Any = None  # the Spark session running its job (Spark Connect cancels through it)


class HeapShedding:
    """The shedding half of `SparkEngine` (the attributes are the engine's)."""

    _lock: threading.Lock
    _running: dict[str, Running]
    _health: SparkHealth
    _settle_until: float  # monotonic time until which no one is shed (0.0: not settling)
    _shed_seen: bool  # a shed statement was running at the last check
    _last_collect: float

    def _interrupt(self, job_tag: str, reason: str) -> None:
        raise NotImplementedError

    def _check(self, spark: SparkSession, gauge: list[HeapGauge]) -> str | None:
        """The watchdog's probe: is the JVM usable, and is its heap about to run out (then shed a statement)?"""
        reason = probe(spark)
        if reason is not None:
            return reason
        if not gauge:
            gauge.append(HeapGauge(spark))
        pressure = gauge[0].fraction()
        now = time.monotonic()
        below = pressure < HEAP_PRESSURE
        settling = self._settling(now, below)
        if below:
            return None
        if not settling:
            self._shed(pressure)
        elif self._settle_until > now and now - self._last_collect >= COLLECT_SECONDS:
            # the statement shed last has ended, but its tasks may still be winding down, and its memory is garbage
            # that the after-collection figure counts until the old generation is collected: collect, shed no one
            self._last_collect = now
            gauge[0].collect()
        return None

    def _ran_out_of_memory(self) -> None:
        """A statement failed because Spark itself ran out of memory: settle as after a shed."""
        with self._lock:
            self._settle_until = time.monotonic() + SETTLE_SECONDS

    def _settling(self, now: float, below: bool) -> bool:
        """Is a shed statement still running, or did one (or an out-of-memory failure) end moments ago?"""
        with self._lock:
            shedding = any(isinstance(r.failure, errors.OutOfMemory) for r in self._running.values())
            if self._shed_seen and not shedding:
                self._settle_until = now + SETTLE_SECONDS  # the shed statement has just ended
            self._shed_seen = shedding
            if below and not shedding:
                self._settle_until = 0.0  # the heap has room again: the next full heap is a new statement's doing
            return shedding or self._settle_until > now

    def _shed(self, pressure: float) -> None:
        """Live data fills the heap: cancel the statement that has run longest with 53200 before the JVM thrashes
        (a wedged JVM takes every statement down; this takes one)."""
        with self._lock:
            candidates = [(r.started, t) for t, r in self._running.items() if r.reason is None and r.failure is None]
            if not candidates:
                return
            tag = min(candidates)[1]
            self._running[tag].failure = errors.out_of_memory(
                f"Spark's heap was {pressure:.0%} full of live data; the statement that had run longest was "
                "cancelled to keep Spark up"
            )
            self._shed_seen = True
            self._health = replace(self._health, memory_cancels=self._health.memory_cancels + 1)
        log.warning("Spark's heap is %.0f%% full after GC: cancelling %s with 53200", pressure * 100, tag)
        self._interrupt(tag, "canceling statement: out of memory")
