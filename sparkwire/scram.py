"""SCRAM-SHA-256 verifiers, as PostgreSQL keeps them in pg_authid.rolpassword; never a plaintext password.

Contract: `ScramVerifier.from_password` derives (salt, iterations, StoredKey, ServerKey); `verifies(password)`
re-derives and compares in constant time. `secret_text(verifier)` is the text PostgreSQL stores
(`SCRAM-SHA-256$<iter>:<salt>$<StoredKey>:<ServerKey>`, base64 parts) and `parse_secret(text)` its inverse. Shared by
the catalog's roles (planner/statements/rbac.py writes them) and authentication (server/auth reads them), so it sits
below both.
"""

from __future__ import annotations

import base64
import hmac
from dataclasses import dataclass

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


def secret_text(verifier: ScramVerifier) -> str:
    b64 = base64.b64encode
    v = verifier
    return (
        f"SCRAM-SHA-256${v.iterations}:{b64(v.salt).decode()}${b64(v.stored_key).decode()}:{b64(v.server_key).decode()}"
    )


def parse_secret(secret: str) -> ScramVerifier:
    mechanism, iterations_salt, keys = secret.split("$")
    if mechanism != "SCRAM-SHA-256":
        raise ValueError(f"not a SCRAM-SHA-256 secret: {mechanism}")
    iterations, salt = iterations_salt.split(":")
    stored_key, server_key = keys.split(":")
    b64 = base64.b64decode
    return ScramVerifier(b64(salt), int(iterations), b64(stored_key), b64(server_key))
