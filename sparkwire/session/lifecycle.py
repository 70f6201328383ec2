"""A statement's life on the engine: start, run, cancel, time out, fail — and the engine made ready before it runs.

Contract: `start_statement()` begins a statement: the previous one's timer and pending cancel no longer apply,
statement_timeout (if set) arms a timer, and `statement_at` is its start (statement_timestamp(); now() outside a
block). All engine work runs inside `running()`: it marks the session active (so
`cancel()` from another thread and the timer interrupt only a statement that is actually running — a cancel arriving
while idle does nothing, a timeout that fires while idle cancels the next statement's work), rewords interrupts as
57014 "canceling statement due to user request | statement timeout", bounds waits on other sessions by lock_timeout
(lock_waits.py, 55P03), re-raises the PgError a session function (current_setting, …) raised inside the engine
(`remember_error`), and moves the transaction to its failed state. `stop_timer()` disarms. While `live` (a streaming
SUBSCRIBE: it runs between its batches too) a cancel is kept for its next read. `prepare_engine()` runs before any
statement uses the engine connection: the connection serves one open result at a time, so a still-streaming portal or
cursor (`streaming`) is read into memory first (past max_query_result_size it stops reading, and the portal's next
read fails with 54000), and the connection's TimeZone follows the session's. `notify(message)` sends a NOTICE/WARNING
the client's client_min_messages lets through.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from sparkwire import errors as e
from sparkwire.api import Notice
from sparkwire.planner.execute.lock_waits import lock_timeout_of
from sparkwire.planner.execute.streams import RowSource
from sparkwire.planner.statements.byte_sizes import byte_size, describe_byte_size
from sparkwire.planner.statements.variables import duration_ms
from sparkwire.session.state import SessionState

_MESSAGE_RANK = {
    "debug5": 0,
    "debug4": 0,
    "debug3": 0,
    "debug2": 0,
    "debug1": 0,
    "debug": 0,
    "log": 1,
    "info": 2,
    "notice": 2,
    "warning": 3,
    "error": 4,
}


class Lifecycle:
    def __init__(self, state: SessionState) -> None:
        self._s = state
        self.streaming: RowSource | None = None  # the result still open on the engine connection
        self._lock = threading.Lock()
        self._active = False
        self._cancel_reason: str | None = None
        self._timeout_pending = False
        self._udf_error: e.PgError | None = None
        self._timer: threading.Timer | None = None
        self._timeout_ms = (-1, 0)  # (variables version, statement_timeout in ms)
        self._lock_timeout_s = 0.0  # lock_timeout at that version
        self._engine_zone = "UTC"  # the TimeZone the engine connection was last given
        self.live = False  # the statement streams a SUBSCRIBE: a cancel between its batches still counts
        self.statement_at = dt.datetime.now(dt.UTC)  # when the statement began: statement_timestamp()

    @property
    def engine_zone(self) -> str:
        return self._engine_zone

    # ---- the statement ------------------------------------------------------------------------------------

    def start_statement(self) -> None:
        """A new statement begins: the previous statement's timer and pending cancel no longer apply."""
        self.stop_timer()
        self._cancel_reason = None
        self._udf_error = None
        self.live = False
        self.statement_at = dt.datetime.now(dt.UTC)
        variables = self._s.vars
        if self._timeout_ms[0] != variables.version:
            self._timeout_ms = (variables.version, duration_ms(variables.get("statement_timeout")))
            self._lock_timeout_s = duration_ms(variables.get("lock_timeout")) / 1000
        ms = self._timeout_ms[1]
        if ms > 0:
            self._timer = threading.Timer(ms / 1000, self._on_timeout)
            self._timer.daemon = True
            self._timer.start()

    def stop_timer(self) -> None:
        timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
        elif not self._timeout_pending:
            return  # nothing armed and nothing pending (the common case): no lock needed
        with self._lock:
            self._timeout_pending = False

    @contextmanager
    def running(self) -> Iterator[None]:
        with self._lock:
            self._active = True
            if self._timeout_pending:
                self._timeout_pending = False
                self._cancel_reason = "statement timeout"
        try:
            if self._cancel_reason is not None:
                raise e.QueryCanceled("canceling statement")
            with lock_timeout_of(self._lock_timeout_s):
                yield
        except e.PgError as err:
            raise self._failure(err) from None
        finally:
            with self._lock:
                self._active = False

    def _failure(self, err: e.PgError) -> e.PgError:
        reason, self._cancel_reason = self._cancel_reason, None
        udf_error, self._udf_error = self._udf_error, None
        if reason is not None:
            err = e.QueryCanceled(f"canceling statement due to {reason}")
        elif udf_error is not None:
            err = udf_error
        self._s.tx.fail()
        return err

    # ---- from other threads and from inside the engine ---------------------------------------------------

    def cancel(self) -> None:
        with self._lock:
            if not self._active and not self.live:
                return
            self._cancel_reason = "user request"
        self._interrupt()

    def cancelled(self) -> bool:
        return self._cancel_reason is not None

    def remember_error(self, error: e.PgError) -> None:
        self._udf_error = error

    def _on_timeout(self) -> None:
        with self._lock:
            if not self._active:
                self._timeout_pending = True
                return
            self._cancel_reason = "statement timeout"
        self._interrupt()

    def _interrupt(self) -> None:
        if not self._s.user.cancel():
            self._s.engine.interrupt()

    # ---- the engine connection and the client -------------------------------------------------------------

    def prepare_engine(self) -> None:
        """Before a statement runs on the engine: free the connection, bring its TimeZone and search_path up to date."""
        streaming, self.streaming = self.streaming, None
        if streaming is not None and not streaming.exhausted:
            limit = self.max_result_bytes()
            streaming.materialize(limit, e.result_too_large(describe_byte_size(limit)))
        zone = self._s.vars.get("TimeZone")
        if zone != self._engine_zone:
            self._s.engine.set_time_zone(zone)
            self._engine_zone = zone
        self._s.sync_engine_search_path()

    def max_result_bytes(self) -> int:
        """max_query_result_size: the most a result may hold in memory (a Spark result, a portal read ahead)."""
        return byte_size(self._s.vars.get("max_query_result_size")) or 0

    def notify(self, message: str, severity: str = "WARNING", sqlstate: str = "01000") -> None:
        wanted = _MESSAGE_RANK.get(self._s.vars.get("client_min_messages"), 2)
        if _MESSAGE_RANK.get(severity.lower(), 2) >= wanted:
            self._s.notices(Notice(message=message, severity=severity, sqlstate=sqlstate))
