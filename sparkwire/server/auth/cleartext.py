"""`--auth cleartext`: AuthenticationCleartextPassword; the password is checked against the role's SCRAM
verifier (PostgreSQL's scram_verify_plain_password). Unknown role, missing verifier and wrong password fail
alike."""

from __future__ import annotations

from sparkwire.server.auth.method import AuthExchange, auth_failed
from sparkwire.server.auth.passwords import PasswordStore
from sparkwire.server.backend import AUTH_CLEARTEXT
from sparkwire.server.frontend import decode_password


class CleartextAuth:
    def __init__(self, store: PasswordStore) -> None:
        self._store = store

    def exchange(self, user: str) -> AuthExchange:
        password = decode_password((yield AUTH_CLEARTEXT))
        verifier = self._store.scram_verifier(user)
        if not password or verifier is None or not verifier.verifies(password):
            raise auth_failed(user)
        return b""
