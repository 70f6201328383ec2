"""The Spark watchdog (engine/spark_watchdog.py) with fake probes: a reason or a probe that stops answering calls
`on_failure` once; a healthy probe never does."""

from __future__ import annotations

import threading
import time

from sparkwire.engine.spark_watchdog import SparkWatchdog


def _watch(probe_result: list[str | None], block: threading.Event | None = None) -> tuple[SparkWatchdog, list[str]]:
    failures: list[str] = []

    def probe() -> str | None:
        if block is not None:
            block.wait()
        return probe_result[0]

    return SparkWatchdog(probe, failures.append, interval=0.02, wedged_after=0.3).start(), failures


def _wait_for(condition: list[str], seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition and time.monotonic() < deadline:
        time.sleep(0.01)


def test_a_dead_engine_is_reported_once() -> None:
    state: list[str | None] = [None]
    watchdog, failures = _watch(state)
    time.sleep(0.1)
    assert failures == [] and watchdog.checked_at is not None
    state[0] = "the Spark JVM exited with status 137"
    _wait_for(failures)
    time.sleep(0.1)
    assert failures == ["the Spark JVM exited with status 137"]


def test_an_engine_that_stops_answering_is_wedged() -> None:
    block = threading.Event()
    watchdog, failures = _watch([None], block)
    _wait_for(failures)
    block.set()
    assert len(failures) == 1 and "wedged" in failures[0]
    watchdog.stop()


def test_a_stopped_watchdog_reports_nothing() -> None:
    state: list[str | None] = [None]
    watchdog, failures = _watch(state)
    watchdog.stop()
    state[0] = "gone"
    time.sleep(0.2)
    assert failures == []
