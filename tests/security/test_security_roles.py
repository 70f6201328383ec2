"""Role facts per role (issue 12 item 3): is_superuser, session_authorization, current_user and session_user
follow the role that logged in, as PostgreSQL reports them (the oracle answers the same queries for a role of the
same name); SET ROLE / SET SESSION AUTHORIZATION keep the login role or are refused with 0A000; a session idle in
a transaction block past idle_in_transaction_session_timeout ends with FATAL 25P03 (issue 12 item 6, limits)."""

from __future__ import annotations

import time

import psycopg
import pytest

from tests.security.conftest import PLAIN, Conn, login
from tests.support.server import SparkwireServer

FACTS = (
    "SELECT current_setting('is_superuser'), current_setting('session_authorization'), current_user, "
    "session_user, current_role"
)


def test_plain_role_facts_match_postgres(plain: Conn, pg_plain: Conn) -> None:
    assert plain.execute(FACTS).fetchone() == pg_plain.execute(FACTS).fetchone() == ("off", PLAIN, PLAIN, PLAIN, PLAIN)
    for conn in (plain, pg_plain):
        assert conn.execute("SHOW is_superuser").fetchone() == ("off",)
        assert conn.info.parameter_status("is_superuser") == "off"
        assert conn.info.parameter_status("session_authorization") == PLAIN


def test_superuser_facts(admin: Conn) -> None:
    row = admin.execute(FACTS).fetchone()
    assert row == ("on", "materialize", "materialize", "materialize", "materialize")
    assert admin.info.parameter_status("is_superuser") == "on"


@pytest.mark.parametrize(
    "sql",
    ["SET ROLE NONE", "RESET ROLE", f"SET ROLE {PLAIN}", "SET SESSION AUTHORIZATION DEFAULT",
     "RESET SESSION AUTHORIZATION", f"SET SESSION AUTHORIZATION {PLAIN}"],
)
def test_keeping_the_login_role_is_accepted(plain: Conn, pg_plain: Conn, sql: str) -> None:
    for conn in (plain, pg_plain):
        conn.execute(sql)
        assert conn.execute("SELECT current_user").fetchone() == (PLAIN,)
    assert plain.execute("SHOW role").fetchone() == pg_plain.execute("SHOW role").fetchone()


@pytest.mark.parametrize("sql", ["SET ROLE materialize", "SET SESSION AUTHORIZATION materialize"])
def test_changing_role_is_refused(plain: Conn, admin: Conn, sql: str) -> None:
    for conn in (plain, admin):
        with pytest.raises(psycopg.errors.FeatureNotSupported):
            conn.execute(sql.replace("materialize", PLAIN) if conn is admin else sql)
        assert conn.execute("SELECT 1").fetchone() == (1,)  # the session stays usable
    assert plain.execute("SELECT current_setting('is_superuser')").fetchone() == ("off",)
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        plain.execute("SELECT * FROM sec_secret")


def test_idle_in_transaction_timeout_ends_the_session(server: SparkwireServer, admin: Conn) -> None:
    """idle_in_transaction_session_timeout: idle in a block past it, the client gets FATAL 25P03, the block's
    writes are rolled back, and other sessions never notice; outside a block it does not apply."""
    admin.execute("CREATE TABLE sec_idle (a int)")
    with login(("127.0.0.1", server.port), "materialize") as conn:
        conn.execute("SET idle_in_transaction_session_timeout = '300ms'")
        time.sleep(0.6)  # idle outside a block: nothing happens
        assert conn.execute("SELECT 1").fetchone() == (1,)
        conn.execute("BEGIN")
        conn.execute("INSERT INTO sec_idle VALUES (1)")
        time.sleep(1.0)
        with pytest.raises(psycopg.errors.IdleInTransactionSessionTimeout, match="idle-in-transaction timeout"):
            conn.execute("COMMIT")
    assert admin.execute("SELECT count(*) FROM sec_idle").fetchone() == (0,)
    admin.execute("DROP TABLE sec_idle")
