"""The Spark watchdog and the engine's health record.

Contract:
- `SparkHealth` is a frozen snapshot (what `SparkEngine.health()` returns): `state` (`starting`, `ready`,
  `restarting`, `failed`), `restarts` (completed restarts since the server started), `last_failure` (one line,
  or None) and `last_failure_at` (UTC), `failed_statements` (statements in flight that a failure ended) and
  `memory_cancels` (statements cancelled with 53200 because live data filled the JVM's heap) and `checked_at` (the
  watchdog's last look, UTC, or None).
- `SparkWatchdog(probe, on_failure, interval=1.0, wedged_after=20.0)` runs a daemon thread that, every `interval`
  seconds, asks `probe()` (in a helper thread it can abandon) whether the engine is usable: `probe` returns None
  when it is, else the reason. A reason, or a probe still unanswered after `wedged_after` seconds (a JVM stuck in
  garbage collection or deadlocked), calls `on_failure(reason)` once; the watchdog then stops, and the engine
  starts a new one with its new session. `stop()` ends it. The probe must be cheap: checking whether the JVM
  process still runs is a `poll()`, and one py4j round trip asks whether the SparkContext is stopped.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

log = logging.getLogger(__name__)

State = Literal["starting", "ready", "restarting", "failed"]


@dataclass(frozen=True)
class SparkHealth:
    state: State
    restarts: int = 0
    last_failure: str | None = None
    last_failure_at: datetime | None = None
    failed_statements: int = 0
    memory_cancels: int = 0
    checked_at: datetime | None = None


class SparkWatchdog:
    """Calls `on_failure` once when the engine dies or stops answering (see the module docstring)."""

    def __init__(
        self,
        probe: Callable[[], str | None],
        on_failure: Callable[[str], None],
        *,
        interval: float = 1.0,
        wedged_after: float = 20.0,
    ) -> None:
        self._probe = probe
        self._on_failure = on_failure
        self._interval = interval
        self._wedged_after = wedged_after
        self._stopped = threading.Event()
        self._ask = threading.Event()
        self._answered = threading.Event()
        self._answer: str | None = None
        self.checked_at: datetime | None = None
        self._thread = threading.Thread(target=self._run, name="spark-watchdog", daemon=True)
        # one long-lived thread asks (py4j pins a JVM thread and a connection to each Python thread: a thread per
        # probe would open and close a connection every second)
        self._prober = threading.Thread(target=self._probing, name="spark-probe", daemon=True)

    def start(self) -> SparkWatchdog:
        self._prober.start()
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopped.set()
        self._ask.set()

    def _probing(self) -> None:
        while True:
            self._ask.wait()
            self._ask.clear()
            if self._stopped.is_set():
                return
            try:
                self._answer = self._probe()
            except Exception as exc:  # a probe that fails is an answer too
                self._answer = f"the Spark health probe failed: {exc}"
            self._answered.set()

    def _run(self) -> None:
        while not self._stopped.wait(self._interval):
            reason = self._check()
            if self._stopped.is_set():
                return
            if reason is not None:
                self._stopped.set()
                self._ask.set()
                log.error("Spark watchdog: %s", reason)
                self._on_failure(reason)
                return

    def _check(self) -> str | None:
        self._answered.clear()
        self._ask.set()
        started = time.monotonic()
        while not self._answered.wait(self._interval):
            if self._stopped.is_set():
                return None
            if time.monotonic() - started >= self._wedged_after:
                return f"the Spark JVM has not answered for {self._wedged_after:.0f} s (wedged)"
        self.checked_at = datetime.now(UTC)
        return self._answer
