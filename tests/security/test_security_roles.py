"""Role facts per role (issue 12 item 3): is_superuser, session_authorization, current_user and session_user
follow the role that logged in, as PostgreSQL reports them (the oracle answers the same queries for a role of the
same name); SET ROLE / SET SESSION AUTHORIZATION keep the login role or are refused with 0A000."""

from __future__ import annotations

import psycopg
import pytest

from tests.security.conftest import PLAIN, Conn

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
