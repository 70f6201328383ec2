"""One console login's SQL session: an `api.Session` driven only through the extended query protocol.

Contract: `ConsoleSession(factory, role, pid)` creates a `Session` with the same factory the pgwire server uses
(`PlannerService.new_session`), as `role`, database `materialize`, application_name `sparkwire console` and the
backend pid the server's cancel registry gave it, so the console's statements are that role's statements: RBAC,
redaction, row filters and the statement history are exactly what the role gets in psql. Creating it may raise the
session's FATAL `PgError` (28000 for a role that does not exist or may not log in).

- `query(sql, params)` runs one statement with Parse / Bind / Execute / Sync (unnamed statement and portal). Every
  parameter goes as a text value in Bind, typed by `param_oids` (text by default): values are never spliced into
  the SQL text. It returns a `Table` (column names from the result's fields, rows as tuples of Python values from
  the Arrow batches), at most `MAX_ROWS` rows (`truncated` says whether there were more). A statement that returns
  no rows gives an empty table whose `tag` is its command tag.
- Errors: a `PgError` from the session propagates after the unnamed statement's implicit transaction was ended
  with Sync, so the session stays usable; any other exception is logged and becomes `InternalError` (XX000).
- Every call may block (the engine runs the statement): call it from a worker thread, never the event loop. Calls
  are serialized by a lock (a `Session` is never driven concurrently). `cancel()` may be called from any thread.
- `close()` terminates the session exactly once (also when it is called while a statement runs: the running call
  terminates it when it returns). `closed` tells whether it was closed (logout, expiry, pg_terminate_backend).
- Notices the session sends (e.g. the connect banner, optimizer notices) are kept, the last `MAX_NOTICES` only.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from sparkwire.api import CommandComplete, Notice, Rows, Session, SessionFactory, StartupInfo
from sparkwire.errors import InternalError, PgError

log = logging.getLogger(__name__)

APPLICATION_NAME = "sparkwire console"
DATABASE = "materialize"
TEXT_OID = 25
MAX_ROWS = 10_000
MAX_NOTICES = 20


@dataclass(frozen=True, slots=True)
class Table:
    columns: tuple[str, ...]
    rows: list[tuple[object, ...]]
    truncated: bool = False
    tag: str = ""

    def dicts(self) -> list[dict[str, object]]:
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]


class ConsoleSession:
    def __init__(self, factory: SessionFactory, role: str, pid: int) -> None:
        self.role = role
        self.pid = pid
        self._lock = threading.Lock()
        self._state_lock = threading.Lock()
        self._notices: deque[Notice] = deque(maxlen=MAX_NOTICES)
        self._closed = False
        self._terminated = False
        startup = StartupInfo(user=role, database=DATABASE, application_name=APPLICATION_NAME, backend_pid=pid)
        self._session: Session = factory(startup, self._notices.append, lambda _name, _value: None)

    @property
    def closed(self) -> bool:
        return self._closed

    def notices(self) -> list[Notice]:
        return list(self._notices)

    def query(self, sql: str, params: Sequence[str | None] = (), param_oids: Sequence[int] | None = None) -> Table:
        with self._lock:
            if self._closed:
                raise _gone()
            try:
                return self._run(sql, params, param_oids)
            finally:
                if self.closed:  # closed while it ran (logout, pg_terminate_backend): terminate it now
                    self._terminate()

    def _run(self, sql: str, params: Sequence[str | None], param_oids: Sequence[int] | None) -> Table:
        """What the pgwire server does for Parse, Bind, Execute, Sync: an error of a session call is followed by
        Sync only; an error while the rows are read also tells the session (`fail`), as the server's encoder does."""
        session = self._session
        oids = list(param_oids) if param_oids is not None else [TEXT_OID] * len(params)
        values = [None if p is None else p.encode() for p in params]
        try:
            try:
                session.parse("", sql, oids)
                session.bind("", "", [0] * len(values), values, [])
                result = session.execute("", 0)
            except Exception:
                self._sync_after_error(failed=False)
                raise
            try:
                table = _table(result)
            except Exception:
                self._sync_after_error(failed=True)
                raise
        except PgError:
            raise
        except Exception as exc:
            log.exception("console statement failed: %s", sql)
            raise InternalError("internal error") from exc
        try:
            session.sync()
        except PgError:
            self._sync_after_error(failed=False)
            raise
        return table

    def _sync_after_error(self, failed: bool) -> None:
        try:
            if failed:
                self._session.fail()
            self._session.sync()
        except Exception:  # the session could not recover: it is closed, the login must log in again
            log.exception("console session could not sync after an error")
            self._closed = True

    def cancel(self) -> None:
        self._session.cancel()

    def close(self) -> None:
        """Terminate the session (any thread). A statement running now is cancelled and terminates it itself."""
        with self._state_lock:
            if self._closed:
                return
            self._closed = True
        if self._lock.acquire(blocking=False):
            try:
                self._terminate()
            finally:
                self._lock.release()
        else:
            self._session.cancel()

    def _terminate(self) -> None:
        with self._state_lock:
            if self._terminated:
                return
            self._terminated = True
        try:
            self._session.terminate()
        except Exception:
            log.exception("terminating a console session failed")


def _table(result: object) -> Table:
    if isinstance(result, CommandComplete):
        return Table((), [], tag=result.tag)
    if not isinstance(result, Rows):
        return Table((), [])
    columns = tuple(f.name for f in result.fields)
    rows: list[tuple[object, ...]] = []
    truncated = False
    try:
        for batch in result.stream:
            values = [column.to_pylist() for column in batch.columns]
            rows.extend(zip(*values, strict=True))
            if len(rows) > MAX_ROWS:
                truncated = True
                del rows[MAX_ROWS:]
                break
    finally:
        result.stream.close()
    return Table(columns, rows, truncated, result.tag or result.tag_prefix)


def _gone() -> PgError:
    return PgError("terminating connection due to administrator command", sqlstate="57P01", severity="FATAL")
