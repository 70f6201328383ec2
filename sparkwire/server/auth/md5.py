"""`--auth md5`, as PostgreSQL does it when the stored secret is a SCRAM verifier: the client is asked for
SCRAM.

Contract: an MD5 challenge can only be verified against an MD5 hash of the password, and sparkwire stores only
SCRAM-SHA-256 verifiers (see passwords.py). PostgreSQL (auth.c, CheckPWChallengeAuth) then answers an `md5`
pg_hba entry with a SCRAM exchange — also for unknown roles — and so does this method. md5-capable clients
(libpq, psycopg, JDBC, asyncpg, pg8000) all speak SCRAM.

"""

from __future__ import annotations

from sparkwire.server.auth.method import AuthExchange
from sparkwire.server.auth.passwords import PasswordStore
from sparkwire.server.auth.scram import ScramAuth


class Md5Auth:
    def __init__(self, store: PasswordStore) -> None:
        self._scram = ScramAuth(store)

    def exchange(self, user: str) -> AuthExchange:
        return (yield from self._scram.exchange(user))
