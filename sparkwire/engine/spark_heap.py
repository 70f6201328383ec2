"""The embedded engine's guard against a full heap: shed the statement that has run longest before the JVM thrashes.

Contract: `SparkEngine` inherits `HeapShedding`; its watchdog calls `_check(spark, gauge)` every second, which
returns why the JVM is unusable (spark_process.probe) or None, and when live data passes `HEAP_PRESSURE` of the heap
after collection cancels the longest-running statement with 53200 (one at a time, `SHED_COOLDOWN_SECONDS` apart, after
one full collection once the last one shed ended: its memory may still count). `Running` is one statement in flight.
See engine/spark.py (Memory) for the whole story.
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
SHED_COOLDOWN_SECONDS = 5.0  # after a shed statement ended: the heap figure changes only at the next collection


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
    _last_shed: float
    _collected_since_shed: bool

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
        if pressure >= HEAP_PRESSURE and self._stale_after_shed():
            # the statement shed last has ended, but its memory is garbage that the after-collection figure still
            # counts until the old generation is collected: collect once before shedding anyone else
            gauge[0].collect()
            pressure = gauge[0].fraction()
        if pressure >= HEAP_PRESSURE:
            self._shed(pressure)
        return None

    def _stale_after_shed(self) -> bool:
        """A statement was shed, none is being shed now, the cooldown is over and the heap was not collected since."""
        with self._lock:
            shedding = any(isinstance(r.failure, errors.OutOfMemory) for r in self._running.values())
            cooling = time.monotonic() - self._last_shed < SHED_COOLDOWN_SECONDS
            if self._last_shed == 0.0 or self._collected_since_shed or shedding or cooling:
                return False
            self._collected_since_shed = True
            return True

    def _shed(self, pressure: float) -> None:
        """Live data fills the heap: cancel the statement that has run longest with 53200 before the JVM thrashes
        (a wedged JVM takes every statement down; this takes one)."""
        now = time.monotonic()
        with self._lock:
            shedding = any(isinstance(r.failure, errors.OutOfMemory) for r in self._running.values())
            if shedding or now - self._last_shed < SHED_COOLDOWN_SECONDS:
                return  # one at a time: the last one shed frees its memory only when its tasks end
            candidates = [(r.started, t) for t, r in self._running.items() if r.reason is None and r.failure is None]
            if not candidates:
                return
            tag = min(candidates)[1]
            self._running[tag].failure = errors.out_of_memory(
                f"Spark's heap was {pressure:.0%} full of live data; the statement that had run longest was "
                "cancelled to keep Spark up"
            )
            self._last_shed = now
            self._collected_since_shed = False
            self._health = replace(self._health, memory_cancels=self._health.memory_cancels + 1)
        log.warning("Spark's heap is %.0f%% full after GC: cancelling %s with 53200", pressure * 100, tag)
        self._interrupt(tag, "canceling statement: out of memory")
