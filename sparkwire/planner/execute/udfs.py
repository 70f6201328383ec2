"""The session-aware SQL functions: current_setting, set_config, pg_sleep, pg_cancel_backend / pg_terminate_backend
(`signal_backend`), as engine UDFs keyed by session id.

Contract: DuckDB Python functions are database-wide, so each takes the calling session's id first (the
translator inserts it, see translate/duckdb.py) and `SessionFunctions` finds the live session in a registry. A
session registers a `SessionHooks` implementation at start and unregisters at terminate. A PgError raised
inside a UDF cannot cross DuckDB intact, so the hook records it with `remember_error` and the session
re-raises that error when the engine reports the UDF failure. `pg_sleep` sleeps in short slices and stops as
soon as the session is cancelled.
"""

from __future__ import annotations

import threading
import time
from typing import Protocol

from sparkwire import errors as e
from sparkwire.engine.duckdb import DuckDBEngine
from sparkwire.planner.translate.duckdb import UDF_CURRENT_SETTING, UDF_PG_SIGNAL, UDF_PG_SLEEP, UDF_SET_CONFIG

SLEEP_SLICE = 0.01


class SessionHooks(Protocol):
    def current_setting(self, name: str, missing_ok: bool) -> str | None: ...

    def set_config(self, name: str, value: str, is_local: bool) -> str: ...

    def cancelled(self) -> bool: ...

    def remember_error(self, error: e.PgError) -> None: ...

    def signal_backend(self, pid: int, terminate: bool) -> bool: ...


class SessionFunctions:
    def __init__(self) -> None:
        self._sessions: dict[int, SessionHooks] = {}
        self._lock = threading.Lock()
        self._next_id = 1

    def register(self, hooks: SessionHooks) -> int:
        with self._lock:
            sid = self._next_id
            self._next_id += 1
            self._sessions[sid] = hooks
        return sid

    def unregister(self, sid: int) -> None:
        with self._lock:
            self._sessions.pop(sid, None)

    def _session(self, sid: int) -> SessionHooks:
        with self._lock:
            hooks = self._sessions.get(sid)
        if hooks is None:
            raise RuntimeError("session-aware function called outside its session")
        return hooks

    def install(self, engine: DuckDBEngine) -> None:
        engine.register_function(
            UDF_CURRENT_SETTING,
            self._current_setting,
            ["BIGINT", "VARCHAR", "BOOLEAN"],
            "VARCHAR",
            null_handling=True,
        )
        engine.register_function(
            UDF_SET_CONFIG,
            self._set_config,
            ["BIGINT", "VARCHAR", "VARCHAR", "BOOLEAN"],
            "VARCHAR",
            null_handling=True,
        )
        engine.register_function(UDF_PG_SLEEP, self._pg_sleep, ["BIGINT", "DOUBLE"], "VARCHAR", null_handling=True)
        engine.register_function(
            UDF_PG_SIGNAL, self._pg_signal, ["BIGINT", "BIGINT", "BOOLEAN"], "BOOLEAN", null_handling=True
        )

    def _guarded(self, sid: int, call: str, *args: object) -> str | None:
        hooks = self._session(sid)
        try:
            if call == "current_setting":
                name, missing_ok = args
                if name is None:
                    return None
                return hooks.current_setting(str(name), bool(missing_ok))
            name, value, is_local = args
            if name is None:
                raise e.InvalidParameterValue("SET requires parameter name")
            return hooks.set_config(str(name), "" if value is None else str(value), bool(is_local))
        except e.PgError as err:
            hooks.remember_error(err)
            raise

    def _current_setting(self, sid: int, name: str | None, missing_ok: bool | None) -> str | None:
        return self._guarded(sid, "current_setting", name, missing_ok)

    def _set_config(self, sid: int, name: str | None, value: str | None, is_local: bool | None) -> str | None:
        return self._guarded(sid, "set_config", name, value, is_local)

    def _pg_signal(self, sid: int, pid: int | None, terminate: bool | None) -> bool | None:
        if pid is None:
            return None
        hooks = self._session(sid)
        try:
            return hooks.signal_backend(int(pid), bool(terminate))
        except e.PgError as err:
            hooks.remember_error(err)
            raise

    def _pg_sleep(self, sid: int, seconds: float | None) -> str | None:
        hooks = self._session(sid)
        deadline = time.monotonic() + max(seconds or 0.0, 0.0)
        while True:
            if hooks.cancelled():
                err = e.QueryCanceled("canceling statement due to user request")
                hooks.remember_error(err)
                raise err
            left = deadline - time.monotonic()
            if left <= 0:
                return ""  # void: PostgreSQL sends an empty value
            time.sleep(min(left, SLEEP_SLICE))
