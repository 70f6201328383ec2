"""Authentication methods, one module each, all reading secrets through `PasswordStore`.

`make_auth_method(name, store)` maps the CLI's `--auth` value to a method: trust, password (SCRAM-SHA-256),
md5 (answered with SCRAM, as PostgreSQL does for SCRAM secrets) and cleartext.

"""

from __future__ import annotations

from sparkwire.server.auth.cleartext import CleartextAuth
from sparkwire.server.auth.md5 import Md5Auth
from sparkwire.server.auth.method import AuthExchange, AuthMethod, auth_failed
from sparkwire.server.auth.passwords import BootstrapPasswords, PasswordStore, ScramVerifier
from sparkwire.server.auth.scram import ScramAuth
from sparkwire.server.auth.trust import TrustAuth

AUTH_METHODS = ("trust", "password", "md5", "cleartext")


def make_auth_method(name: str, store: PasswordStore | None) -> AuthMethod:
    if name == "trust":
        return TrustAuth()
    if store is None:
        raise ValueError(f"--auth {name} needs a password store")
    if name == "password":
        return ScramAuth(store)
    if name == "md5":
        return Md5Auth(store)
    if name == "cleartext":
        return CleartextAuth(store)
    raise ValueError(f"unknown auth method {name!r}")


__all__ = [
    "AUTH_METHODS",
    "AuthExchange",
    "AuthMethod",
    "BootstrapPasswords",
    "PasswordStore",
    "ScramVerifier",
    "auth_failed",
    "make_auth_method",
]
