"""Where authentication reads secrets: `PasswordStore` maps a role to its SCRAM-SHA-256 verifier (or None).

Contract: plaintext passwords are never stored (verifiers: sparkwire/scram.py). `BootstrapPasswords` is the store
for the one bootstrap superuser whose password comes from the environment; `CatalogPasswords` reads the verifiers of
the catalog's roles (CREATE ROLE … PASSWORD) from its current state at each login, falling back to another store.

"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from sparkwire.catalog import CatalogState
from sparkwire.scram import SCRAM_ITERATIONS, ScramVerifier, parse_secret

__all__ = ["SCRAM_ITERATIONS", "BootstrapPasswords", "CatalogPasswords", "PasswordStore", "ScramVerifier"]

class PasswordStore(Protocol):
    def scram_verifier(self, role: str) -> ScramVerifier | None: ...


class BootstrapPasswords:
    """A store that knows exactly one role."""

    def __init__(self, role: str, password: str) -> None:
        self._role = role
        self._verifier = ScramVerifier.from_password(password)

    def scram_verifier(self, role: str) -> ScramVerifier | None:
        return self._verifier if role == self._role else None


class CatalogPasswords:
    """Passwords of the catalog's roles, read from the current state at each login."""

    def __init__(self, state: Callable[[], CatalogState], fallback: PasswordStore | None = None) -> None:
        self._state = state
        self._fallback = fallback

    def scram_verifier(self, role: str) -> ScramVerifier | None:
        found = self._state().role_by_name(role)
        if found is not None and found.password_verifier is not None:
            return parse_secret(found.password_verifier)
        return None if self._fallback is None else self._fallback.scram_verifier(role)
