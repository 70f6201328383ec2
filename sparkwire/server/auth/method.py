"""The interface every authentication method implements, and the one failure every method reports.

Contract: `AuthMethod.exchange(user)` is a generator with no I/O. Each value it yields is an authentication
request message to send to the client; the connection sends it and resumes the generator with the raw body of
the client's next 'p' message. When authentication succeeds the generator returns the bytes to send just
before AuthenticationOk (SASL final data, or b""). On failure it raises `auth_failed(user)` — the same FATAL
28P01 whether the role exists or not — or `ProtocolViolation` for a malformed exchange.

"""

from __future__ import annotations

from collections.abc import Generator
from typing import Protocol

from sparkwire.errors import InvalidPassword

AuthExchange = Generator[bytes, bytes, bytes]


class AuthMethod(Protocol):
    def exchange(self, user: str) -> AuthExchange: ...


def auth_failed(user: str) -> InvalidPassword:
    return InvalidPassword(f'password authentication failed for user "{user}"', severity="FATAL")
