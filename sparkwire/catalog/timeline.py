"""The timeline: strictly increasing write timestamps (ms since the epoch) that never go backwards, even
across a restart with a clock that went backwards.

Contract: `Timeline` is pure bookkeeping; the catalog persists it. A write timestamp is `max(now, last + 1)`.
Before a timestamp at or above the persisted `upper` is handed out, the caller must durably store a new upper
(`Reservation.upper`, the timestamp plus `WINDOW_MS`) and only then `commit` the reservation — so after a
crash the timeline restarts at the stored upper, above every timestamp ever handed out, while most writes need
no durable write at all. `read_ts()` is the latest write timestamp handed out: this engine applies writes
synchronously, so a read at that timestamp sees every completed write.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

WINDOW_MS = 1000


def wall_clock_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(frozen=True, slots=True)
class Reservation:
    """A write timestamp and the upper to persist first (None if the stored upper already covers it)."""

    timestamp: int
    upper: int | None


class Timeline:
    """Not thread-safe on its own: the catalog calls it under its writer lock."""

    def __init__(self, upper: int, clock: Callable[[], int] = wall_clock_ms) -> None:
        self._last = upper  # after a restart everything handed out so far was below the stored upper
        self._upper = upper
        self._clock = clock

    @property
    def upper(self) -> int:
        return self._upper

    def read_ts(self) -> int:
        return self._last

    def reserve(self, at_least: int = 0) -> Reservation:
        """The next write timestamp (> every previous one and >= `at_least`), not yet handed out."""
        ts = max(self._clock(), self._last + 1, at_least)
        return Reservation(ts, ts + WINDOW_MS if ts >= self._upper else None)

    def commit(self, reservation: Reservation) -> None:
        """Hand out a reservation whose upper (if any) is now durable."""
        self._last = max(self._last, reservation.timestamp)
        if reservation.upper is not None:
            self._upper = max(self._upper, reservation.upper)
