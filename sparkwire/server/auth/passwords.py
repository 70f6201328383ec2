"""Where authentication reads secrets: `PasswordStore` maps a role to its SCRAM-SHA-256 verifier (or None).

Contract: plaintext passwords are never stored. `ScramVerifier.from_password` derives (salt, iterations,
StoredKey, ServerKey) as PostgreSQL stores them in pg_authid; `verifies(password)` re-derives and compares in
constant time. `BootstrapPasswords` is the store for the one bootstrap superuser whose password comes from the
environment.

"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Protocol

from scramp import ScramMechanism

SCRAM_ITERATIONS = 4096  # PostgreSQL's scram_iterations default
_MECHANISM = ScramMechanism("SCRAM-SHA-256")


@dataclass(frozen=True, slots=True)
class ScramVerifier:
    salt: bytes
    iterations: int
    stored_key: bytes
    server_key: bytes

    @classmethod
    def from_password(cls, password: str, *, salt: bytes | None = None) -> ScramVerifier:
        salt_out, stored_key, server_key, iterations = _MECHANISM.make_auth_info(
            password, iteration_count=SCRAM_ITERATIONS, salt=salt
        )
        return cls(salt_out, iterations, stored_key, server_key)

    def verifies(self, password: str) -> bool:
        _, stored_key, server_key, _ = _MECHANISM.make_auth_info(
            password, iteration_count=self.iterations, salt=self.salt
        )
        return hmac.compare_digest(stored_key, self.stored_key) and hmac.compare_digest(
            server_key, self.server_key
        )


class PasswordStore(Protocol):
    def scram_verifier(self, role: str) -> ScramVerifier | None: ...


class BootstrapPasswords:
    """A store that knows exactly one role."""

    def __init__(self, role: str, password: str) -> None:
        self._role = role
        self._verifier = ScramVerifier.from_password(password)

    def scram_verifier(self, role: str) -> ScramVerifier | None:
        return self._verifier if role == self._role else None
