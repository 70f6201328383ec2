"""Helpers for the SUBSCRIBE tests: a COPY (SUBSCRIBE …) TO STDOUT read on a thread, rows as they arrive.

- `CopyReader(dsn, statement)`: starts the COPY on its own connection and thread; `rows` fills as CopyData
  arrives (text values), `wait_rows(n)` waits until there are n, `cancel()` cancels it and `join()` returns the
  error it ended with (None when it ended normally, e.g. at UP TO).
- `now_ms()`: wall-clock milliseconds since the epoch (the timeline's unit).
"""

from __future__ import annotations

import threading
import time
from typing import Any

import psycopg

Conn = psycopg.Connection[tuple[Any, ...]]


def now_ms() -> int:
    return time.time_ns() // 1_000_000


class CopyReader:
    def __init__(self, dsn: str, statement: str) -> None:
        self.conn: Conn = psycopg.connect(dsn, autocommit=True)
        self.statement = statement
        self.rows: list[tuple[Any, ...]] = []
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            with self.conn.cursor().copy(self.statement) as copy:
                for row in copy.rows():
                    self.rows.append(row)
        except BaseException as exc:
            self.error = exc

    def wait_rows(self, n: int, timeout: float = 60.0) -> list[tuple[Any, ...]]:
        deadline = time.monotonic() + timeout
        while len(self.rows) < n and time.monotonic() < deadline and self._thread.is_alive():
            time.sleep(0.02)
        assert len(self.rows) >= n, (self.rows, self.error)
        return self.rows[:n]

    def cancel(self) -> None:
        self.conn.cancel()

    def join(self, timeout: float = 30.0) -> BaseException | None:
        self._thread.join(timeout)
        assert not self._thread.is_alive(), "the subscription did not end"
        return self.error

    def close(self) -> None:
        if self._thread.is_alive():
            self.conn.cancel()
            self._thread.join(10)
        self.conn.close()
