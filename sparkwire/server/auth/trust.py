"""`--auth trust`: every role is accepted without a password (the default, like Materialize's local mode)."""

from __future__ import annotations

from sparkwire.server.auth.method import AuthExchange


class TrustAuth:
    def exchange(self, user: str) -> AuthExchange:
        yield from ()
        return b""
