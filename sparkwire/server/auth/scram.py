"""`--auth password`: SASL SCRAM-SHA-256 (RFC 7677) on the server side with the `scramp` library.

Contract: the role comes from the StartupMessage (the SCRAM username attribute is ignored, as in PostgreSQL).
A role without a verifier still goes through a complete exchange with a mock verifier (salt derived from the
role name and a per-process secret, random keys) so that a client cannot tell unknown roles from wrong
passwords; the exchange then fails with the same 28P01. Channel binding (SCRAM-SHA-256-PLUS) is not offered.

"""

from __future__ import annotations

import hashlib
import os

from scramp import ScramException, ScramMechanism
from scramp.core import ScramServer
from scramp.utils import ServerError

from sparkwire.errors import ProtocolViolation
from sparkwire.server.auth.method import AuthExchange, auth_failed
from sparkwire.server.auth.passwords import SCRAM_ITERATIONS, PasswordStore, ScramVerifier
from sparkwire.server.backend import auth_sasl, auth_sasl_continue, auth_sasl_final
from sparkwire.server.frontend import decode_sasl_initial

MECHANISM_NAME = "SCRAM-SHA-256"
_MECHANISM = ScramMechanism(MECHANISM_NAME)
_MOCK_SECRET = os.urandom(32)


def _malformed() -> ProtocolViolation:
    return ProtocolViolation("malformed SCRAM message", severity="FATAL")


def mock_verifier(user: str) -> ScramVerifier:
    salt = hashlib.sha256(_MOCK_SECRET + user.encode()).digest()[:16]
    return ScramVerifier(salt, SCRAM_ITERATIONS, os.urandom(32), os.urandom(32))


def _set_client_first(server: ScramServer, client_first: str) -> None:
    """libpq sends an empty username (`n=,`: the role is in the StartupMessage), which scramp rejects. Give
    scramp a placeholder name, then restore the bare message exactly as the client sent it: both sides sign
    that text."""
    gs2_flag, authzid, bare = client_first.split(",", 2)
    if bare.startswith("n=,"):
        server.set_client_first(f"{gs2_flag},{authzid},n=*{bare[2:]}")
        server.client_first_bare = bare
    else:
        server.set_client_first(client_first)


class ScramAuth:
    def __init__(self, store: PasswordStore) -> None:
        self._store = store

    def exchange(self, user: str) -> AuthExchange:
        stored = self._store.scram_verifier(user)
        verifier = stored or mock_verifier(user)
        mechanism, client_first = decode_sasl_initial((yield auth_sasl([MECHANISM_NAME])))
        if mechanism != MECHANISM_NAME:
            raise ProtocolViolation(
                "client selected an invalid SASL authentication mechanism", severity="FATAL"
            )
        server = _MECHANISM.make_server(
            lambda _name: (verifier.salt, verifier.stored_key, verifier.server_key, verifier.iterations)
        )
        try:
            _set_client_first(server, client_first.decode())
            server_first: str = server.get_server_first()
        except (ScramException, UnicodeDecodeError, ValueError):
            raise _malformed() from None
        client_final = yield auth_sasl_continue(server_first.encode())
        try:
            server.set_client_final(client_final.decode())
        except ScramException as exc:
            if exc.server_error is ServerError.INVALID_PROOF:
                raise auth_failed(user) from None
            raise _malformed() from None
        except UnicodeDecodeError:
            raise _malformed() from None
        if stored is None:
            raise auth_failed(user)
        server_final: str = server.get_server_final()
        return auth_sasl_final(server_final.encode())
