"""How many bytes of statement history the server writes per second: Materialize's statement logging throttle.

Contract: one `LoggingThrottle` per server (the history log holds it), shared by every session. `admit(cost,
target_rate, max_credit)` is asked for each sampled statement before it is handed to the history: `cost` is the
estimated size of its history row in bytes (`row_cost`), `target_rate` the sustained bytes per second the history may
take (`statement_logging_target_data_rate`; None: unlimited) and `max_credit` the most bytes that may be spent in one
burst (`statement_logging_max_data_credit`; None: unlimited). The bucket gains `target_rate` bytes every second, up to
`max_credit`; a statement whose cost it holds spends it and is logged, carrying the number of statements throttled
since the last one logged (its `throttled_count`, which is then reset); one it does not hold is not logged (None) and
counted. A microsecond under one lock: it runs on the statement's thread.

Like Materialize (`ThrottlingState`), the bucket fills continuously while little is logged and drains under a flood
of statements, so a monitor that polls in a tight loop, or a benchmark, stops growing the history (and costing the
writer's CPU) at the sustained rate, while interactive use is logged whole. Unlike Materialize, whose bucket starts
empty, a new server's bucket starts full (at `max_credit`, or one second's worth when the credit is unlimited): the
first statements after a start are logged rather than throttled.
"""

from __future__ import annotations

import threading
import time

DEFAULT_TARGET_DATA_RATE = 2071  # bytes per second: Materialize's statement_logging_target_data_rate
DEFAULT_MAX_DATA_CREDIT = 50 * 1024 * 1024  # bytes: Materialize's statement_logging_max_data_credit
ROW_BYTES = 300
"""A history row's size without its text: the ids, timestamps, session facts and counters (an estimate)."""


def row_cost(sql_bytes: int, params: tuple[str | None, ...]) -> int:
    """The estimated bytes a statement's history row takes: the fixed part, its kept text, its parameters."""
    return ROW_BYTES + sql_bytes + sum(len(p) for p in params if p is not None)


class LoggingThrottle:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tokens: float | None = None  # None: not asked yet (the bucket starts full)
        self._last = time.monotonic()
        self._throttled = 0  # since the last statement logged

    def admit(self, cost: int, target_rate: int | None, max_credit: int | None) -> int | None:
        """The throttled count the statement carries when it may be logged, None when it may not."""
        if target_rate is None:
            with self._lock:
                return self._passed()
        now = time.monotonic()
        with self._lock:
            tokens = self._tokens
            if tokens is None:
                tokens = float(max_credit) if max_credit is not None else float(target_rate)
            else:
                tokens += target_rate * max(0.0, now - self._last)
            if max_credit is not None:
                tokens = min(tokens, float(max_credit))
            self._last = now
            if tokens < cost:
                self._tokens = tokens
                self._throttled += 1
                return None
            self._tokens = tokens - cost
            return self._passed()

    def _passed(self) -> int:
        count, self._throttled = self._throttled, 0
        return count
