"""`HistoryLog`: the statement history's writer — sessions and statements are handed over in microseconds on the
statement's thread and written in batches by one daemon thread.

Contract:
- `session_started(record)`, `began(execution)`, `finished(execution)` never block on I/O and never raise: they
  append to in-memory queues (bounded: past `MAX_PENDING` records new ones are dropped and counted). A statement is
  therefore never slowed or failed by its own logging.
- The writer thread wakes every `interval` seconds (0.25: a batch's fixed cost is spread over many statements),
  renders the queued records (SHA-256, kept and redacted text: sqltext.py) and writes them in one transaction
  (database.py), handing the GIL over between its steps and every `ROWS_PER_TURN` rows (`give_way`: a connection
  thread that wakes meanwhile does not wait out Python's switch interval); statements still in flight are rewritten
  (with `finished_at` NULL) each time the set changes, so a statement that never finishes is visible. Every
  `RETENTION_CHECK` seconds it deletes what is older than the retention. A failed batch is logged, counted
  (`failed_batches`) and dropped: the history is best effort, user statements are not.
- `settings()` returns the current `HistorySettings` (the system's max sample rate, retention and data rate, from
  ALTER SYSTEM, through the callable given at construction); sessions read it at each statement, so it must be cheap.
- `admit(cost, settings)`: whether a sampled statement is logged under the data rate (throttle.py) — the number of
  statements throttled before it, or None.
- `flush()` writes everything queued now, on the caller's thread, and returns when it is durable; `close()` flushes
  and stops the thread.
- `recent` (recent.py) holds the activity log's newest rows as the writer's connection reads them back after each
  batch or expiry it committed (and at start); if that read fails it holds nothing and readers use the store."""

from __future__ import annotations

import datetime
import functools
import logging
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sparkwire.engine.duckdb import DuckDBEngine
from sparkwire.introspection.history.database import ROWS_PER_TURN, HistoryDatabase, HistoryRow, give_way
from sparkwire.introspection.history.recent import CAPACITY, RecentActivity
from sparkwire.introspection.history.records import Execution, SessionRecord, now
from sparkwire.introspection.history.sqltext import keep
from sparkwire.introspection.history.throttle import DEFAULT_MAX_DATA_CREDIT, DEFAULT_TARGET_DATA_RATE, LoggingThrottle

log = logging.getLogger(__name__)

MAX_PENDING = 100_000
RETENTION_CHECK = 60.0


@dataclass(frozen=True, slots=True)
class HistorySettings:
    max_sample_rate: float = 1.0
    retention: datetime.timedelta = datetime.timedelta(days=30)
    target_data_rate: int | None = DEFAULT_TARGET_DATA_RATE  # bytes per second; None: unlimited
    max_data_credit: int | None = DEFAULT_MAX_DATA_CREDIT  # bytes; None: unlimited


class HistoryLog:
    def __init__(
        self,
        engine: DuckDBEngine,
        path: Path,
        settings: Callable[[], HistorySettings] = HistorySettings,
        *,
        interval: float = 0.25,
    ) -> None:
        self._db = HistoryDatabase(engine, path)
        self.recent = RecentActivity()
        self._throttle = LoggingThrottle()
        self._settings = settings
        self._interval = interval
        self._sessions: deque[SessionRecord] = deque()
        self._finished: deque[Execution] = deque()
        self._inflight: dict[uuid.UUID, Execution] = {}
        self._inflight_lock = threading.Lock()
        self._running_shown: frozenset[uuid.UUID] = frozenset()
        self._write_lock = threading.Lock()  # one batch at a time (the thread, flush(), close())
        self._wake = threading.Event()
        self._stop = False
        self._next_expiry = 0.0
        self.dropped = 0
        self.failed_batches = 0
        self.written = 0
        self.read_back()
        self._thread = threading.Thread(target=self._run, name="history-writer", daemon=True)
        self._thread.start()

    # ---- the statement's side: cheap, never raising ------------------------------------------------------------

    def settings(self) -> HistorySettings:
        return self._settings()

    def admit(self, cost: int, settings: HistorySettings) -> int | None:
        """Whether a sampled statement whose row takes about `cost` bytes is logged (throttle.py): the number of
        statements throttled before it, or None when it is throttled itself."""
        return self._throttle.admit(cost, settings.target_data_rate, settings.max_data_credit)

    def session_started(self, record: SessionRecord) -> None:
        if len(self._sessions) < MAX_PENDING:
            self._sessions.append(record)
        else:
            self.dropped += 1

    def began(self, execution: Execution) -> None:
        with self._inflight_lock:
            self._inflight[execution.execution_id] = execution

    def finished(self, execution: Execution) -> None:
        with self._inflight_lock:
            self._inflight.pop(execution.execution_id, None)
        if len(self._finished) < MAX_PENDING:
            self._finished.append(execution)
        else:
            self.dropped += 1


    # ---- the writer ----------------------------------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop:
            self._wake.wait(self._interval)
            self._wake.clear()
            self.flush()

    def flush(self) -> None:
        with self._write_lock:
            changed = False
            try:
                changed = self._write_batch()
                if time.monotonic() >= self._next_expiry:
                    self._next_expiry = time.monotonic() + RETENTION_CHECK
                    self._db.expire(now() - self._settings().retention)
                    changed = True
            except Exception:
                changed = True  # part of it may have been committed
                self.failed_batches += 1
                log.exception("writing the statement history failed; this batch is dropped")
            if changed:
                give_way()
                self.read_back()

    def read_back(self) -> None:
        """The newest rows as committed now, for `recent` (one query on the writer's connection). The writer calls
        it after each change; whoever writes the history's tables another way (a test) calls it afterwards."""
        try:
            columns, table = self._db.newest(CAPACITY + 1)
        except Exception:
            self.recent.clear()
            log.exception("reading the newest statements back failed; the store answers for them")
            return
        self.recent.set(columns, table.slice(0, CAPACITY), table.num_rows <= CAPACITY)

    def _write_batch(self) -> bool:
        """Write what is queued; False when there was nothing to write."""
        sessions = [self._sessions.popleft().row() for _ in range(len(self._sessions))]
        done = [self._finished.popleft() for _ in range(len(self._finished))]
        with self._inflight_lock:
            inflight = list(self._inflight.values())
        executions: list[HistoryRow] = []
        for start in range(0, len(done), ROWS_PER_TURN):
            executions.extend(_row(execution) for execution in done[start : start + ROWS_PER_TURN])
            give_way()
        running_ids = frozenset(x.execution_id for x in inflight)
        running = [_row(x) for x in inflight] if running_ids != self._running_shown else None
        if not (sessions or executions or running is not None):
            return False
        self._db.write(sessions, executions, running)
        self._running_shown = running_ids
        self.written += len(executions)
        return bool(executions or running is not None)

    def close(self) -> None:
        self._stop = True
        self._wake.set()
        self._thread.join(timeout=5)
        self.flush()
        self._db.close()


_kept = functools.lru_cache(maxsize=2048)(keep)
_CACHED_TEXT = 4096  # shorter texts (the repeated ones) are hashed and redacted once


def _row(execution: Execution) -> HistoryRow:
    text = execution.sql
    return execution.row(*(_kept(text) if len(text) <= _CACHED_TEXT else keep(text)))
