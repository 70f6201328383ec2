"""Console logins: who may log in, and the server-side table of logged-in browsers.

Contract:
- `Authenticator(mode, verifier)`: `mode` is "trust" (any role, no password: offered to loopback clients only, see
  app.py) or "password" (the server's `--auth` is password, md5 or cleartext). `check(role, password)` is True when
  the password matches the role's SCRAM verifier, read through `verifier(role)` — the very password store the
  pgwire server authenticates with (cli.py passes `store.scram_verifier`). An unknown role or a role without a
  verifier costs the same key derivation as a wrong password and fails alike. It blocks (PBKDF2): call it off the
  event loop.
- `Logins(factory, backends, idle_seconds)`: `open(role)` creates the login's `ConsoleSession` (one per login,
  registered with `backends` for a backend pid, so pg_cancel_backend / pg_terminate_backend reach it and
  pg_stat_activity shows it) and returns `(token, Login)`; the token is 256 random bits for the cookie, kept here
  only as its SHA-256. `get(token)` finds a live login (None for an unknown, expired or terminated one);
  `close(token)` logs out. Logins idle for `idle_seconds` expire; past `MAX_LOGINS` the least recently used one is
  closed. Every session the table creates is terminated exactly once (logout, expiry, eviction, `close_all()`).
- `Login.csrf` is the login's CSRF token (compared in constant time by `Login.csrf_ok`); `flash` one message to
  show on the next page.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from sparkwire.api import SessionFactory
from sparkwire.console.sql import ConsoleSession
from sparkwire.scram import ScramVerifier

AuthMode = Literal["trust", "password"]
VerifierLookup = Callable[[str], ScramVerifier | None]
MAX_LOGINS = 200
IDLE_SECONDS = 8 * 3600.0


class Authenticator:
    def __init__(self, mode: AuthMode, verifier: VerifierLookup | None = None) -> None:
        if mode == "password" and verifier is None:
            raise ValueError("password logins need the server's password store")
        self.mode = mode
        self._verifier = verifier
        self._decoy = ScramVerifier.from_password(secrets.token_urlsafe(24))

    def check(self, role: str, password: str) -> bool:
        if self.mode == "trust":
            return True
        assert self._verifier is not None
        stored = self._verifier(role) if role else None
        verifier = stored or self._decoy  # same cost for unknown roles: nothing tells them from wrong passwords
        matches = verifier.verifies(password)
        return stored is not None and bool(password) and matches


class Backend:
    """What the server's cancel registry calls: cancel the running statement, or end the login (57P01)."""

    def __init__(self) -> None:
        self.session: ConsoleSession | None = None

    def cancel(self) -> None:
        if self.session is not None:
            self.session.cancel()

    def shutdown(self) -> None:
        if self.session is not None:
            self.session.close()


class Backends:
    """The server's backend registry (`CancelRegistry.register` / `unregister`), or a local pid counter."""

    def __init__(
        self,
        register: Callable[[Backend], tuple[int, int]] | None = None,
        unregister: Callable[[int], None] | None = None,
    ) -> None:
        self._register = register
        self._unregister = unregister
        self._next = 0
        self._lock = threading.Lock()

    def register(self, backend: Backend) -> int:
        if self._register is not None:
            return self._register(backend)[0]
        with self._lock:
            self._next += 1
            return 1_000_000_000 + self._next

    def unregister(self, pid: int) -> None:
        if self._unregister is not None:
            self._unregister(pid)


@dataclass
class Login:
    role: str
    session: ConsoleSession
    csrf: str
    last_used: float
    flash: str | None = None
    full_notices: bool | None = None  # may the role read mz_internal.mz_notices (else mz_notices_redacted)?

    def csrf_ok(self, token: str | None) -> bool:
        return token is not None and hmac.compare_digest(token.encode(), self.csrf.encode())

    def take_flash(self) -> str | None:
        message, self.flash = self.flash, None
        return message


def _key(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Logins:
    def __init__(
        self, factory: SessionFactory, backends: Backends | None = None, idle_seconds: float = IDLE_SECONDS
    ) -> None:
        self._factory = factory
        self._backends = backends or Backends()
        self._idle = idle_seconds
        self._lock = threading.Lock()
        self._by_key: dict[str, Login] = {}

    def open(self, role: str) -> tuple[str, Login]:
        """Create the login's session (blocks; may raise the session's FATAL PgError)."""
        backend = Backend()
        pid = self._backends.register(backend)
        try:
            session = ConsoleSession(self._factory, role, pid)
        except BaseException:
            self._backends.unregister(pid)
            raise
        backend.session = session
        token = secrets.token_urlsafe(32)
        login = Login(role, session, secrets.token_urlsafe(32), time.monotonic())
        evicted: list[Login] = []
        with self._lock:
            self._by_key[_key(token)] = login
            while len(self._by_key) > MAX_LOGINS:
                oldest = min(self._by_key, key=lambda k: self._by_key[k].last_used)
                evicted.append(self._by_key.pop(oldest))
        for old in evicted:
            self._end(old)
        return token, login

    def get(self, token: str | None) -> Login | None:
        if not token:
            return None
        self.expire()
        with self._lock:
            login = self._by_key.get(_key(token))
            if login is None:
                return None
            if login.session.closed:  # pg_terminate_backend ended it
                del self._by_key[_key(token)]
            else:
                login.last_used = time.monotonic()
                return login
        self._end(login)
        return None

    def close(self, token: str | None) -> None:
        if not token:
            return
        with self._lock:
            login = self._by_key.pop(_key(token), None)
        if login is not None:
            self._end(login)

    def expire(self) -> None:
        deadline = time.monotonic() - self._idle
        with self._lock:
            old = [k for k, login in self._by_key.items() if login.last_used < deadline]
            expired = [self._by_key.pop(k) for k in old]
        for login in expired:
            self._end(login)

    def close_all(self) -> None:
        with self._lock:
            logins = list(self._by_key.values())
            self._by_key.clear()
        for login in logins:
            self._end(login)

    def __len__(self) -> int:
        return len(self._by_key)

    def _end(self, login: Login) -> None:
        login.session.close()
        self._backends.unregister(login.session.pid)
