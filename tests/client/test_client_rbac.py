"""RBAC through a real server and psycopg (issue 5 item 7): roles created over SQL log in, privileges gate every read
path (direct, joins, subqueries, views with their owner's rights, COPY, EXPLAIN) and every write, ownership gates
DROP / ALTER, builtin relations are readable as their sensitivity says, and mz_notices_redacted shows a plain role
only the notices of objects it owns or may SELECT. Logins: an unknown role and a NOLOGIN role are refused at
startup with FATAL 28000; with `--auth password` a role logs in with the password given in CREATE ROLE. The
role × builtin-relation access matrix (superuser, plain role, members of mz_monitor, mz_monitor_redacted and
mz_support × the notice relations, pg_authid and a public relation) on every read path, and ALTER NOTICE's 42501.

These tests need the planner hooks of planner/statements/rbac.py and planner/security/privileges.py wired into the
session and the startup check of the login role (see docs/rbac.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.support.server import SparkwireServer

Conn = psycopg.Connection[Any]
PASSWORD = "superuser-secret"


def connect(server: SparkwireServer, user: str, password: str | None = None) -> Conn:
    dsn = f"host=127.0.0.1 port={server.port} user={user} dbname=materialize"
    return psycopg.connect(dsn, autocommit=True, password=password)


def denied(conn: Conn, sql: str) -> str:
    with pytest.raises(psycopg.errors.InsufficientPrivilege) as info:
        conn.execute(sql)
    return str(info.value.diag.message_primary)


@pytest.fixture(scope="module")
def admin(server: SparkwireServer) -> Iterator[Conn]:
    with connect(server, "materialize") as conn:
        for sql in (
            "CREATE TABLE rbac_t (a int, b text)",
            "INSERT INTO rbac_t VALUES (1, 'one'), (2, 'two')",
            "CREATE TABLE rbac_secret (a int)",
            "CREATE ROLE rbac_alice LOGIN",
            "CREATE ROLE rbac_owner LOGIN",
            "CREATE ROLE rbac_monitor LOGIN",
            "GRANT mz_monitor TO rbac_monitor",
            "CREATE ROLE rbac_nologin",
        ):
            conn.execute(sql)
        yield conn


@pytest.fixture(scope="module")
def alice(server: SparkwireServer, admin: Conn) -> Iterator[Conn]:
    with connect(server, "rbac_alice") as conn:
        yield conn


def test_startup_refuses_unknown_and_nologin_roles(server: SparkwireServer, admin: Conn) -> None:
    for user, message in (
        ("rbac_nobody", 'role "rbac_nobody" does not exist'),
        ("rbac_nologin", 'role "rbac_nologin" is not permitted to log in'),
    ):
        with pytest.raises(psycopg.OperationalError, match=message):
            connect(server, user)


def test_current_user_is_the_login_role(alice: Conn) -> None:
    assert alice.execute("SELECT current_user").fetchone() == ("rbac_alice",)


def test_select_needs_the_privilege(admin: Conn, alice: Conn) -> None:
    table = '"materialize.public.rbac_t"'
    assert denied(alice, "SELECT * FROM rbac_t") == f"permission denied for TABLE {table}"
    assert denied(alice, "SELECT count(*) FROM (SELECT a FROM rbac_t) s") == f"permission denied for TABLE {table}"
    assert denied(alice, "EXPLAIN SELECT * FROM rbac_t") == f"permission denied for TABLE {table}"
    with pytest.raises(psycopg.errors.InsufficientPrivilege), alice.cursor().copy("COPY rbac_t TO STDOUT") as copy:
        copy.read()
    admin.execute("GRANT SELECT ON rbac_t TO rbac_alice")
    assert alice.execute("SELECT a, b FROM rbac_t ORDER BY a").fetchall() == [(1, "one"), (2, "two")]
    assert denied(alice, "SELECT * FROM rbac_t JOIN rbac_secret USING (a)") == (
        'permission denied for TABLE "materialize.public.rbac_secret"'
    )
    assert denied(alice, "SELECT * FROM rbac_t WHERE a IN (SELECT a FROM rbac_secret)").startswith("permission denied")


def test_writes_need_their_privileges(admin: Conn, alice: Conn) -> None:
    assert denied(alice, "INSERT INTO rbac_t VALUES (3, 'three')").startswith("permission denied for TABLE")
    assert denied(alice, "DELETE FROM rbac_t WHERE a = 1").startswith("permission denied for TABLE")
    admin.execute("GRANT INSERT, UPDATE ON rbac_t TO rbac_alice")
    alice.execute("INSERT INTO rbac_t VALUES (3, 'three')")
    alice.execute("UPDATE rbac_t SET b = 'THREE' WHERE a = 3")
    assert denied(alice, "DELETE FROM rbac_t WHERE a = 3").startswith("permission denied for TABLE")
    admin.execute("DELETE FROM rbac_t WHERE a = 3")


def test_ownership_gates_drop_and_alter(admin: Conn, alice: Conn) -> None:
    assert denied(alice, "DROP TABLE rbac_t") == "must be owner of TABLE materialize.public.rbac_t"
    assert denied(alice, "ALTER TABLE rbac_t OWNER TO rbac_alice") == (
        "must be owner of TABLE materialize.public.rbac_t"
    )
    assert denied(alice, "CREATE TABLE rbac_mine (a int)") == 'permission denied for SCHEMA "materialize.public"'
    admin.execute("GRANT CREATE ON SCHEMA public TO rbac_alice")
    alice.execute("CREATE TABLE rbac_mine (a int)")
    alice.execute("DROP TABLE rbac_mine")


def test_views_are_read_with_their_owners_rights(server: SparkwireServer, admin: Conn, alice: Conn) -> None:
    admin.execute("GRANT CREATE ON SCHEMA public TO rbac_owner")
    admin.execute("GRANT SELECT ON rbac_t TO rbac_owner")
    with connect(server, "rbac_owner") as owner:
        owner.execute("CREATE VIEW rbac_v_ok AS SELECT a FROM rbac_t")
        owner.execute("GRANT SELECT ON rbac_v_ok TO rbac_alice")
    admin.execute("REVOKE SELECT ON rbac_t FROM rbac_alice")
    assert alice.execute("SELECT a FROM rbac_v_ok ORDER BY a").fetchall() == [(1,), (2,)]
    admin.execute("REVOKE SELECT ON rbac_t FROM rbac_owner")
    assert denied(alice, "SELECT a FROM rbac_v_ok") == 'permission denied for TABLE "materialize.public.rbac_t"'
    admin.execute("GRANT SELECT ON rbac_t TO rbac_alice")


@pytest.mark.parametrize(
    ("relation", "plain", "monitor"),
    [
        ("mz_catalog.mz_tables", True, True),
        ("pg_catalog.pg_class", True, True),
        ("information_schema.tables", True, True),
        ("mz_internal.mz_optimizer_notices", False, True),
        ("mz_internal.mz_notices", False, True),
        ("mz_internal.mz_notices_redacted", True, True),
    ],
)
def test_builtin_relation_access(
    server: SparkwireServer, alice: Conn, relation: str, plain: bool, monitor: bool
) -> None:
    with connect(server, "rbac_monitor") as monitor_conn:
        for conn, allowed in ((alice, plain), (monitor_conn, monitor)):
            sql = f"SELECT count(*) FROM {relation}"
            if allowed:
                conn.execute(sql).fetchall()
            else:
                assert denied(conn, sql) == f'permission denied for TABLE "{relation}"'


def test_notices_redacted_shows_only_visible_objects(server: SparkwireServer, admin: Conn, alice: Conn) -> None:
    admin.execute("GRANT CREATE ON CLUSTER quickstart TO rbac_alice")
    admin.execute("GRANT CREATE ON SCHEMA public TO rbac_alice")  # also when run on its own
    admin.execute("CREATE TABLE rbac_hidden (a int)")
    admin.execute("CREATE INDEX rbac_hidden_idx ON rbac_hidden ()")  # an IndexKeyEmpty notice
    alice.execute("CREATE TABLE rbac_mine (a int)")
    alice.execute("CREATE INDEX rbac_mine_idx ON rbac_mine ()")
    try:
        ids = dict(admin.execute("SELECT name, id FROM mz_catalog.mz_indexes WHERE name LIKE 'rbac_%'").fetchall())
        seen = {r[0] for r in alice.execute("SELECT object_id FROM mz_internal.mz_notices_redacted").fetchall()}
        assert ids["rbac_mine_idx"] in seen and ids["rbac_hidden_idx"] not in seen
        everything = {r[0] for r in admin.execute("SELECT object_id FROM mz_internal.mz_notices_redacted").fetchall()}
        assert {ids["rbac_mine_idx"], ids["rbac_hidden_idx"]} <= everything
    finally:
        alice.execute("DROP TABLE rbac_mine CASCADE")
        admin.execute("DROP TABLE rbac_hidden CASCADE")


def test_drop_role_that_owns_objects(admin: Conn) -> None:
    admin.execute("CREATE TABLE rbac_owned (a int)")
    admin.execute("ALTER TABLE rbac_owned OWNER TO rbac_owner")
    with pytest.raises(psycopg.errors.DependentObjectsStillExist) as info:
        admin.execute("DROP ROLE rbac_owner")
    assert info.value.diag.message_primary == 'role "rbac_owner" cannot be dropped because some objects depend on it'
    admin.execute("DROP TABLE rbac_owned")


@pytest.fixture(scope="module")
def password_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkwireServer]:
    env = {"SPARKWIRE_SUPERUSER_PASSWORD": PASSWORD}
    srv = SparkwireServer.start(Path(tmp_path_factory.mktemp("rbac-auth")), "--auth", "password", env=env)
    try:
        yield srv
    finally:
        srv.stop()


def test_roles_log_in_with_their_password(password_server: SparkwireServer) -> None:
    with connect(password_server, "materialize", PASSWORD) as admin:
        admin.execute("CREATE ROLE rbac_pw LOGIN PASSWORD 'alice-pw'")
    with connect(password_server, "rbac_pw", "alice-pw") as conn:
        assert conn.execute("SELECT current_user").fetchone() == ("rbac_pw",)
    with pytest.raises(psycopg.OperationalError, match='password authentication failed for user "rbac_pw"'):
        connect(password_server, "rbac_pw", "wrong")
    with connect(password_server, "materialize", PASSWORD) as admin:
        admin.execute("ALTER ROLE rbac_pw PASSWORD NULL")
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        connect(password_server, "rbac_pw", "alice-pw")


# ---- the role × builtin-relation access matrix (issue 5 item 7) ----------------------------------------------

MATRIX_ROLES: dict[str, str | None] = {  # role kind → the builtin role its login is a member of
    "superuser": None,
    "plain": None,
    "monitor": "mz_monitor",
    "monitor_redacted": "mz_monitor_redacted",
    "support": "mz_support",
}
NOTICES = "mz_internal.mz_notices"
OPTIMIZER_NOTICES = "mz_internal.mz_optimizer_notices"
REDACTED = "mz_internal.mz_notices_redacted"
IGNORED = "mz_internal.mz_ignored_optimizer_notices"
AUTHID = "pg_catalog.pg_authid"
PUBLIC_RELATION = "mz_catalog.mz_tables"
# what each role kind reads in full; `ROW_FILTERED` roles also read mz_notices_redacted, only its rows of objects
# they own or may SELECT (directly, not through a view: a view is read with its owner's rights, which must be full)
FULL_ACCESS: dict[str, set[str]] = {
    "superuser": {NOTICES, OPTIMIZER_NOTICES, REDACTED, IGNORED, AUTHID, PUBLIC_RELATION},
    "plain": {PUBLIC_RELATION},
    "monitor": {NOTICES, OPTIMIZER_NOTICES, REDACTED, IGNORED, PUBLIC_RELATION},
    "monitor_redacted": {REDACTED, PUBLIC_RELATION},
    "support": {REDACTED, PUBLIC_RELATION},
}
ROW_FILTERED = {"plain"}
READ_PATHS = {
    "direct": "SELECT count(*) FROM {rel}",
    "join": "SELECT count(*) FROM {rel} AS r JOIN mz_catalog.mz_roles AS o ON true",
    "subquery": "SELECT count(*) FROM mz_catalog.mz_roles WHERE EXISTS (SELECT 1 FROM {rel})",
    "cte": "WITH c AS (SELECT * FROM {rel}) SELECT count(*) FROM c",
    "explain": "EXPLAIN SELECT * FROM {rel}",
}
COPY_PATHS = {
    "copy query": "COPY (SELECT * FROM {rel}) TO STDOUT",
    "copy relation": "COPY {rel} TO STDOUT",
}


def login_of(kind: str) -> str:
    return "materialize" if kind == "superuser" else f"mx_{kind}"


@pytest.fixture(scope="module")
def matrix(server: SparkwireServer, admin: Conn) -> Iterator[dict[str, Conn]]:
    admin.execute("CREATE TABLE mx_t (a int)")
    admin.execute("CREATE INDEX mx_t_idx ON mx_t ()")  # an IndexKeyEmpty notice, so the notice relations have rows
    (fingerprint,) = admin.execute(f"SELECT fingerprint::text FROM {NOTICES}").fetchone() or ("",)
    admin.execute(f"ALTER NOTICE '{fingerprint}' SET STATUS = 'resolved'")  # a row in mz_ignored_optimizer_notices
    for kind, member_of in MATRIX_ROLES.items():
        if kind == "superuser":
            continue
        admin.execute(f"CREATE ROLE {login_of(kind)} LOGIN")
        admin.execute(f"GRANT CREATE ON SCHEMA public TO {login_of(kind)}")
        if member_of is not None:
            admin.execute(f"GRANT {member_of} TO {login_of(kind)}")
    conns = {kind: connect(server, login_of(kind)) for kind in MATRIX_ROLES}
    try:
        yield conns
    finally:
        for conn in conns.values():
            conn.close()


def copy_out(conn: Conn, sql: str) -> bytes:
    with conn.cursor().copy(sql) as copy:
        return b"".join(bytes(block) for block in copy)


@pytest.mark.parametrize("relation", [NOTICES, OPTIMIZER_NOTICES, REDACTED, IGNORED, AUTHID, PUBLIC_RELATION])
@pytest.mark.parametrize("kind", list(MATRIX_ROLES))
def test_access_matrix(matrix: dict[str, Conn], kind: str, relation: str) -> None:
    conn = matrix[kind]
    readable = relation in FULL_ACCESS[kind] or (relation == REDACTED and kind in ROW_FILTERED)
    message = f'permission denied for TABLE "{relation}"'
    for path, template in READ_PATHS.items():
        sql = template.format(rel=relation)
        if readable:
            assert conn.execute(sql).fetchall(), path
        else:
            assert denied(conn, sql) == message, path
    for path, template in COPY_PATHS.items():
        sql = template.format(rel=relation)
        if readable:
            copy_out(conn, sql)
        else:
            with pytest.raises(psycopg.errors.InsufficientPrivilege) as info:
                copy_out(conn, sql)
            assert info.value.diag.message_primary == message, path
    view = f"mx_v_{kind}_{relation.split('.')[1]}"
    conn.execute(f"CREATE VIEW {view} AS SELECT * FROM {relation}")
    try:
        if relation in FULL_ACCESS[kind]:
            assert conn.execute(f"SELECT count(*) FROM {view}").fetchall()
        else:
            assert denied(conn, f"SELECT count(*) FROM {view}") == message
    finally:
        conn.execute(f"DROP VIEW {view}")


def test_pg_authid_is_for_superusers_and_never_shows_a_password(matrix: dict[str, Conn], admin: Conn) -> None:
    """pg_authid is superuser-only (as in PostgreSQL; issue 5), and even they never see a password verifier."""
    admin.execute("CREATE ROLE mx_pw LOGIN PASSWORD 'secret'")
    rows = matrix["superuser"].execute("SELECT rolname, rolpassword FROM pg_catalog.pg_authid").fetchall()
    assert ("mx_pw", None) in rows and {r[1] for r in rows} == {None}
    for kind, conn in matrix.items():
        if kind != "superuser":
            assert denied(conn, "SELECT rolname FROM pg_catalog.pg_authid") == (
                'permission denied for TABLE "pg_catalog.pg_authid"'
            )


def test_a_row_filtered_role_sees_the_notices_of_indexes_on_relations_it_may_select(
    matrix: dict[str, Conn], admin: Conn
) -> None:
    plain = matrix["plain"]
    (index_id,) = admin.execute("SELECT id FROM mz_catalog.mz_indexes WHERE name = 'mx_t_idx'").fetchone() or ("",)
    sql = f"SELECT object_id, notice_type FROM {REDACTED}"
    assert (index_id, "Empty index key") not in plain.execute(sql).fetchall()
    admin.execute("GRANT SELECT ON mx_t TO mx_plain")
    try:
        assert (index_id, "Empty index key") in plain.execute(sql).fetchall()
        assert denied(plain, f"SELECT count(*) FROM {NOTICES}") == f'permission denied for TABLE "{NOTICES}"'
    finally:
        admin.execute("REVOKE SELECT ON mx_t FROM mx_plain")


def test_alter_notice_needs_the_owner_of_the_notices_object(matrix: dict[str, Conn], admin: Conn) -> None:
    (fingerprint,) = admin.execute(
        f"SELECT n.fingerprint::text FROM {NOTICES} n JOIN mz_catalog.mz_indexes i ON i.id = n.object_id "
        "WHERE i.name = 'mx_t_idx'"
    ).fetchone() or ("",)
    admin.execute("GRANT SELECT ON mx_t TO mx_plain, mx_monitor")
    # fingerprints follow the DDL, not the ids: another test's identical objects share this status, so set it here
    admin.execute(f"ALTER NOTICE '{fingerprint}' SET STATUS = 'resolved'")
    try:
        for kind in ("plain", "monitor", "monitor_redacted", "support"):
            sql = f"ALTER NOTICE '{fingerprint}' SET STATUS = 'ignored'"
            assert denied(matrix[kind], sql) == f'must be owner of notice "{fingerprint}"', kind
        status = f"SELECT status FROM {NOTICES} WHERE fingerprint::text = %s"
        assert admin.execute(status, (fingerprint,)).fetchall() == [("resolved",)]
        admin.execute("ALTER TABLE mx_t OWNER TO mx_plain")  # the index's owner follows its relation's
        matrix["plain"].execute(f"ALTER NOTICE '{fingerprint}' SET STATUS = 'ignored'")
        assert admin.execute(status, (fingerprint,)).fetchall() == [("ignored",)]
        matrix["plain"].execute(f"ALTER NOTICE '{fingerprint}' SET STATUS = 'resolved'")
    finally:
        admin.execute("ALTER TABLE mx_t OWNER TO materialize")
        admin.execute("REVOKE SELECT ON mx_t FROM mx_plain, mx_monitor")
