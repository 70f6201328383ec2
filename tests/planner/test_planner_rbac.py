"""RBAC planning against a real durable catalog: the grammar (rbac_grammar), role and privilege plans (rbac.plan_rbac)
applied with `catalog.transact`, role-management errors and notices compared with the PostgreSQL 15 oracle, and the
privilege checks (privileges.py): the role × builtin-relation access matrix over every builtin relation, views read
with their owner's rights, writes, DDL ops and the row filter of mz_notices_redacted (run on a real DuckDB)."""

from __future__ import annotations

from collections.abc import Iterator

import duckdb
import psycopg
import pytest
from sqlglot import exp

from sparkwire.catalog import Catalog, CatalogState
from sparkwire.catalog.objects import ItemSpec, ObjectRef
from sparkwire.catalog.ops import CreateItem, CreateSchema, DropItems, Op
from sparkwire.errors import PgError
from sparkwire.introspection.relations import RELATIONS
from sparkwire.planner.bind.resolve import Names
from sparkwire.planner.grammar import rbac as g
from sparkwire.planner.grammar.ddl_parser import Name
from sparkwire.planner.security.privileges import check_dml, check_ops, check_read, visible_objects
from sparkwire.planner.statements.rbac import RbacPlan, login_role, plan_rbac, scram_secret
from sparkwire.planner.translate.duckdb import parse
from sparkwire.scram import parse_secret
from sparkwire.server.auth import BootstrapPasswords
from sparkwire.server.auth.passwords import CatalogPasswords
from tests.support.postgres import PostgresOracle

SUPERUSER = "u1"  # the bootstrap role `materialize`
PUBLIC_SCHEMA = "u3"
MZ_SUPPORT, MZ_MONITOR, MZ_MONITOR_REDACTED, MZ_SYSTEM = "s2", "g1", "g2", "s1"
NOTICE_RELATIONS = ("mz_optimizer_notices", "mz_notices", "mz_notices_redacted", "mz_ignored_optimizer_notices")
Outcome = tuple[object, ...]


def as_role(catalog: Catalog, role: str) -> Names:
    found = catalog.state.role_by_name(role)
    assert found is not None, role
    return Names(role_id=found.id)


def plan(catalog: Catalog, sql: str, role: str = "materialize") -> RbacPlan:
    stmt = g.parse_rbac(sql)
    assert stmt is not None, sql
    return plan_rbac(stmt, catalog.state, as_role(catalog, role))


def run(catalog: Catalog, sql: str, role: str = "materialize") -> RbacPlan:
    planned = plan(catalog, sql, role)
    if planned.ops:
        catalog.transact(list(planned.ops))
    return planned


def fails(fn: object, *args: object) -> tuple[str, str]:
    with pytest.raises(PgError) as info:
        fn(*args)  # type: ignore[operator]
    return info.value.code, info.value.message


def role_id(catalog: Catalog, name: str) -> str:
    found = catalog.state.role_by_name(name)
    assert found is not None
    return found.id


def table(catalog: Catalog, name: str, *, schema: str = PUBLIC_SCHEMA, owner: str = SUPERUSER) -> str:
    spec = ItemSpec(kind="table", schema_id=schema, name=name, owner_id=owner, create_sql=f"CREATE TABLE {name} ()")
    return catalog.transact([CreateItem(spec)]).created[0].id


def view(catalog: Catalog, name: str, query: str, deps: tuple[str, ...], owner: str) -> str:
    spec = ItemSpec(
        kind="view",
        schema_id=PUBLIC_SCHEMA,
        name=name,
        owner_id=owner,
        create_sql=f"CREATE VIEW materialize.public.{name} AS {query}",
        dependencies=deps,
    )
    return catalog.transact([CreateItem(spec)]).created[0].id


def read(catalog: Catalog, sql: str, role: str) -> exp.Expression:
    names = as_role(catalog, role)
    return check_read(parse(sql), catalog.state, names, names.role_id)


# ---- grammar ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("CREATE ROLE a", g.CreateRole("a", g.RoleOptions())),
        (
            "create user b with password 'x' superuser noinherit",
            g.CreateRole("b", g.RoleOptions(True, None, False, True, "x"), user=True),
        ),
        ("ALTER ROLE a WITH NOLOGIN PASSWORD NULL", g.AlterRole("a", g.RoleOptions(None, False, None, True, None))),
        ("ALTER USER a LOGIN;", g.AlterRole("a", g.RoleOptions(login=True))),
        ('DROP ROLE IF EXISTS a, "B"', g.DropRole(("a", "B"), if_exists=True)),
        ("DROP USER a", g.DropRole(("a",))),
        ("GRANT a, b TO c, d", g.GrantRole(("a", "b"), ("c", "d"))),
        ("REVOKE a FROM GROUP c", g.RevokeRole(("a",), ("c",))),
        (
            "GRANT SELECT, insert ON TABLE t, s.u TO a, PUBLIC",
            g.GrantPrivileges(("SELECT", "INSERT"), "table", (Name(("t",)), Name(("s", "u"))), ("a", "public")),
        ),
        ("GRANT ALL PRIVILEGES ON SCHEMA s TO a", g.GrantPrivileges(("ALL",), "schema", (Name(("s",)),), ("a",))),
        (
            "REVOKE ALL ON DATABASE materialize FROM public RESTRICT",
            g.RevokePrivileges(("ALL",), "database", (Name(("materialize",)),), ("public",)),
        ),
        (
            "GRANT usage, create ON CLUSTER quickstart TO a",
            g.GrantPrivileges(("USAGE", "CREATE"), "cluster", (Name(("quickstart",)),), ("a",)),
        ),
        ("GRANT CREATEROLE ON SYSTEM TO a", g.GrantPrivileges(("CREATEROLE",), "system", (), ("a",))),
        ("ALTER TABLE t OWNER TO bob", g.AlterOwner("table", Name(("t",)), "bob")),
        ("ALTER MATERIALIZED VIEW s.mv OWNER TO bob", g.AlterOwner("materialized-view", Name(("s", "mv")), "bob")),
        ("ALTER TABLE IF EXISTS t OWNER TO bob", g.AlterOwner("table", Name(("t",)), "bob", if_exists=True)),
        ("ALTER SCHEMA s OWNER TO bob", g.AlterOwner("schema", Name(("s",)), "bob")),
        ("ALTER DATABASE d OWNER TO bob", g.AlterOwner("database", Name(("d",)), "bob")),
        ("ALTER CLUSTER c OWNER TO bob", g.AlterOwner("cluster", Name(("c",)), "bob")),
        # someone else's statements
        ("ALTER TABLE t RENAME TO u", None),
        ("CREATE TABLE t (a int)", None),
        ("DROP TABLE t", None),
        ("SELECT 1", None),
        ("ALTER NOTICE 'x' SET STATUS = 'ignored'", None),
    ],
)
def test_grammar(sql: str, expected: g.RbacStatement | None) -> None:
    assert g.parse_rbac(sql) == expected


@pytest.mark.parametrize(
    ("sql", "code", "message"),
    [
        ("GRANT", "42601", "syntax error at end of input"),
        ("CREATE ROLE a LOGIN NOLOGIN", "42601", "conflicting or redundant options"),
        ("CREATE ROLE a PASSWORD 'a' PASSWORD 'b'", "42601", "conflicting or redundant options"),
        ("CREATE ROLE a WITH with LOGIN", "42601", 'syntax error at or near "with"'),
        ("GRANT sel ON t TO a", "42601", 'unrecognized privilege type "sel"'),
        ("GRANT SELECT ON t TO a WITH GRANT OPTION", "0A000", "WITH GRANT OPTION is not supported"),
        ("GRANT a TO b WITH ADMIN OPTION", "0A000", "WITH ADMIN OPTION is not supported"),
        ("GRANT SELECT (a) ON t TO b", "0A000", "column privileges is not supported"),
        ("GRANT SELECT ON ALL TABLES IN SCHEMA s TO b", "0A000", "GRANT ON ALL … IN SCHEMA is not supported"),
        ("REVOKE SELECT ON t FROM b CASCADE", "0A000", "REVOKE … CASCADE is not supported"),
        ("CREATE ROLE a CREATEROLE", "0A000", "CREATEROLE attribute is not supported"),
        ("GRANT CREATEROLE ON t TO a", "0LP01", "invalid privilege type CREATEROLE for table"),
    ],
)
def test_grammar_errors(sql: str, code: str, message: str) -> None:
    assert fails(g.parse_rbac, sql) == (code, message)


def test_syntax_error_position() -> None:
    with pytest.raises(PgError) as info:
        g.parse_rbac("CREATE ROLE a BOGUS")
    assert info.value.position == len("CREATE ROLE a ") + 1


# ---- role plans ---------------------------------------------------------------------------------------------


def test_create_alter_drop_role(catalog: Catalog) -> None:
    assert run(catalog, "CREATE ROLE alice").tag == "CREATE ROLE"
    run(catalog, "CREATE USER bob PASSWORD 'secret'")
    state = catalog.state
    alice, bob = state.resolve_role("alice"), state.resolve_role("bob")
    assert (alice.login, alice.superuser, alice.inherit, alice.password_verifier) == (False, False, True, None)
    assert bob.login and bob.password_verifier is not None and "secret" not in bob.password_verifier
    assert parse_secret(bob.password_verifier).verifies("secret")
    assert not parse_secret(bob.password_verifier).verifies("wrong")
    run(catalog, "ALTER ROLE alice WITH SUPERUSER LOGIN NOINHERIT PASSWORD 'pw'")
    alice = catalog.state.resolve_role("alice")
    assert (alice.superuser, alice.login, alice.inherit) == (True, True, False)
    run(catalog, "ALTER ROLE alice PASSWORD NULL")
    assert catalog.state.resolve_role("alice").password_verifier is None
    dropped = run(catalog, "DROP ROLE IF EXISTS alice, nobody, bob")
    assert dropped.tag == "DROP ROLE"
    assert [n.message for n in dropped.notices] == ['role "nobody" does not exist, skipping']
    assert catalog.state.role_by_name("alice") is None and catalog.state.role_by_name("bob") is None


def test_login_role_and_catalog_passwords(catalog: Catalog) -> None:
    run(catalog, "CREATE ROLE nologin")
    run(catalog, "CREATE USER pw PASSWORD 'secret'")
    assert login_role(catalog.state, "pw").name == "pw"
    assert login_role(catalog.state, "mz_system").superuser
    for user, message in (
        ("nobody", 'role "nobody" does not exist'),
        ("nologin", 'role "nologin" is not permitted to log in'),
    ):
        with pytest.raises(PgError) as info:
            login_role(catalog.state, user)
        assert (info.value.code, info.value.severity, info.value.message) == ("28000", "FATAL", message)
    store = CatalogPasswords(lambda: catalog.state, BootstrapPasswords("materialize", "boot"))
    found = store.scram_verifier("pw")
    assert found is not None and found.verifies("secret")
    bootstrap = store.scram_verifier("materialize")
    assert bootstrap is not None and bootstrap.verifies("boot")
    assert store.scram_verifier("nobody") is None
    run(catalog, "ALTER ROLE pw PASSWORD NULL")
    assert store.scram_verifier("pw") is None


def test_scram_secret_format() -> None:
    secret = scram_secret("pw")
    assert secret.startswith("SCRAM-SHA-256$4096:")
    assert parse_secret(secret).verifies("pw")


def test_role_errors(catalog: Catalog) -> None:
    run(catalog, "CREATE ROLE alice LOGIN")
    assert fails(plan, catalog, "CREATE ROLE alice") == ("42710", 'role "alice" already exists')
    assert fails(plan, catalog, "CREATE ROLE mz_x")[0] == "42939"
    assert fails(plan, catalog, "ALTER ROLE nobody LOGIN") == ("42704", 'role "nobody" does not exist')
    assert fails(plan, catalog, "DROP ROLE nobody") == ("42704", 'role "nobody" does not exist')
    assert fails(plan, catalog, "DROP ROLE materialize") == ("55006", "current user cannot be dropped")
    assert fails(plan, catalog, "CREATE ROLE x", "alice") == ("42501", "permission denied to create role")
    assert fails(plan, catalog, "ALTER ROLE mz_system LOGIN")[0] == "42939"


def test_createrole_system_privilege(catalog: Catalog) -> None:
    run(catalog, "CREATE ROLE admin LOGIN")
    run(catalog, "CREATE ROLE su SUPERUSER")
    run(catalog, "GRANT CREATEROLE ON SYSTEM TO admin")
    run(catalog, "CREATE ROLE carol", "admin")
    assert fails(plan, catalog, "CREATE ROLE x SUPERUSER", "admin") == (
        "42501",
        "must be superuser to create superusers",
    )
    assert fails(plan, catalog, "DROP ROLE su", "admin") == ("42501", "must be superuser to drop superusers")
    assert fails(plan, catalog, "GRANT CREATEROLE ON SYSTEM TO carol", "admin")[0] == "42501"
    run(catalog, "DROP ROLE carol", "admin")
    run(catalog, "REVOKE CREATEROLE ON SYSTEM FROM admin")
    assert fails(plan, catalog, "CREATE ROLE y", "admin") == ("42501", "permission denied to create role")


def test_drop_role_that_owns_objects(catalog: Catalog) -> None:
    run(catalog, "CREATE ROLE alice")
    t = table(catalog, "t", owner=role_id(catalog, "alice"))
    code, message = fails(plan, catalog, "DROP ROLE alice")
    assert (code, message) == ("2BP01", 'role "alice" cannot be dropped because some objects depend on it')
    with pytest.raises(PgError) as info:
        plan(catalog, "DROP ROLE alice")
    assert info.value.detail == "owner of table t"
    catalog.transact([DropItems((t,))])
    run(catalog, "DROP ROLE alice")


def test_memberships(catalog: Catalog) -> None:
    run(catalog, "CREATE ROLE alice")
    run(catalog, "CREATE ROLE bob")
    assert run(catalog, "GRANT alice TO bob").tag == "GRANT ROLE"
    again = run(catalog, "GRANT alice TO bob")
    assert (again.ops, [n.message for n in again.notices]) == ((), ['role "bob" is already a member of role "alice"'])
    assert fails(run, catalog, "GRANT bob TO alice") == ("0LP01", 'role "bob" is a member of role "alice"')
    assert run(catalog, "REVOKE alice FROM bob").tag == "REVOKE ROLE"
    missing = run(catalog, "REVOKE alice FROM bob")
    assert [(n.severity, n.sqlstate, n.message) for n in missing.notices] == [
        ("WARNING", "01000", 'role "bob" is not a member of role "alice"')
    ]
    run(catalog, "GRANT mz_monitor TO alice")
    assert MZ_MONITOR in catalog.state.effective_roles(role_id(catalog, "alice"))


def test_grant_and_revoke_privileges(catalog: Catalog) -> None:
    run(catalog, "CREATE ROLE alice")
    t = table(catalog, "t")
    assert run(catalog, "GRANT SELECT, UPDATE ON t TO alice, PUBLIC").tag == "GRANT"
    state = catalog.state
    grants = {(p.grantee_id, p.grantor_id, p.privileges) for p in state.privileges_on(ObjectRef("item", t))}
    assert grants == {(role_id(catalog, "alice"), SUPERUSER, "rw"), ("p", SUPERUSER, "rw")}
    run(catalog, "GRANT ALL ON TABLE t TO alice")
    assert state.has_privilege(role_id(catalog, "alice"), ObjectRef("item", t), "r")
    assert catalog.state.has_privilege(role_id(catalog, "alice"), ObjectRef("item", t), "d")
    assert run(catalog, "REVOKE ALL PRIVILEGES ON t FROM alice, public").tag == "REVOKE"
    assert catalog.state.privileges_on(ObjectRef("item", t)) == []
    run(catalog, "GRANT USAGE, CREATE ON SCHEMA public TO alice")
    run(catalog, "GRANT ALL ON DATABASE materialize TO alice")
    run(catalog, "GRANT USAGE ON CLUSTER quickstart TO alice")
    assert catalog.state.has_privilege(role_id(catalog, "alice"), ObjectRef("schema", PUBLIC_SCHEMA), "C")


def test_privilege_errors(catalog: Catalog) -> None:
    run(catalog, "CREATE ROLE alice")
    run(catalog, "CREATE ROLE bob")
    table(catalog, "t")
    assert fails(plan, catalog, "GRANT SELECT ON nosuch TO alice") == ("42P01", 'relation "nosuch" does not exist')
    assert fails(plan, catalog, "GRANT SELECT ON t TO nosuch") == ("42704", 'role "nosuch" does not exist')
    assert fails(plan, catalog, "GRANT USAGE ON SCHEMA nosuch TO alice") == (
        "3F000",
        'schema "nosuch" does not exist',
    )
    assert fails(plan, catalog, "GRANT CREATE ON t TO alice") == (
        "0LP01",
        "invalid privilege type CREATE for relation",
    )
    assert fails(plan, catalog, "GRANT INSERT ON SCHEMA public TO alice") == (
        "0LP01",
        "invalid privilege type INSERT for schema",
    )
    assert fails(plan, catalog, "GRANT SELECT ON t TO bob", "alice") == (
        "42501",
        "must be owner of TABLE materialize.public.t",
    )
    assert fails(plan, catalog, "GRANT SELECT ON mz_catalog.mz_tables TO alice") == (
        "42501",
        'permission denied for TABLE "mz_catalog.mz_tables"',
    )
    assert fails(plan, catalog, "GRANT CREATEDB ON SYSTEM TO bob", "alice")[0] == "42501"


def test_alter_owner(catalog: Catalog) -> None:
    run(catalog, "CREATE ROLE alice")
    run(catalog, "CREATE ROLE bob")
    alice, bob = role_id(catalog, "alice"), role_id(catalog, "bob")
    t = table(catalog, "t")
    index = ItemSpec(
        kind="index",
        schema_id=PUBLIC_SCHEMA,
        name="t_idx",
        owner_id=SUPERUSER,
        create_sql="CREATE INDEX t_idx IN CLUSTER quickstart ON materialize.public.t ()",
        on_id=t,
        cluster_id="u1",
    )
    (i,) = [r.id for r in catalog.transact([CreateItem(index)]).created]
    assert run(catalog, "ALTER TABLE t OWNER TO alice").tag == "ALTER TABLE"
    assert catalog.state.items[t].owner_id == alice and catalog.state.items[i].owner_id == alice
    assert fails(plan, catalog, "ALTER TABLE t OWNER TO bob", "alice") == ("42501", 'must be member of role "bob"')
    assert fails(plan, catalog, "ALTER TABLE t OWNER TO alice", "bob") == (
        "42501",
        "must be owner of TABLE materialize.public.t",
    )
    run(catalog, "GRANT bob TO alice")
    run(catalog, "ALTER TABLE t OWNER TO bob", "alice")
    assert catalog.state.items[t].owner_id == bob
    assert fails(plan, catalog, "ALTER VIEW t OWNER TO bob") == ("42809", '"t" is not a view')
    assert fails(plan, catalog, "ALTER VIEW nosuch OWNER TO bob") == ("42P01", 'relation "nosuch" does not exist')
    skipped = run(catalog, "ALTER TABLE IF EXISTS nosuch OWNER TO bob")
    assert [n.message for n in skipped.notices] == ['relation "nosuch" does not exist, skipping']
    assert run(catalog, "ALTER SCHEMA public OWNER TO alice").tag == "ALTER SCHEMA"
    assert catalog.state.schemas[PUBLIC_SCHEMA].owner_id == alice
    run(catalog, "ALTER CLUSTER quickstart OWNER TO alice")
    run(catalog, "ALTER DATABASE materialize OWNER TO alice")
    assert catalog.state.resolve_database("materialize").owner_id == alice


# ---- the same errors and notices as PostgreSQL ----------------------------------------------------------------


def ours(catalog: Catalog, sql: str, role: str) -> Outcome:
    try:
        planned = run(catalog, sql, role)
    except PgError as err:
        return ("ERROR", err.code, err.message, err.detail)
    return ("OK", planned.tag, *((n.sqlstate, n.message) for n in planned.notices))


def theirs(conn: psycopg.Connection[tuple[object, ...]], sql: str, role: str) -> Outcome:
    notices: list[tuple[str | None, str | None]] = []
    conn.execute("RESET ROLE" if role == "materialize" else f"SET ROLE {role}")
    conn.add_notice_handler(lambda d: notices.append((d.sqlstate, d.message_primary)))
    try:
        cur = conn.execute(sql)
    except psycopg.Error as exc:
        return ("ERROR", exc.diag.sqlstate, exc.diag.message_primary, exc.diag.message_detail)
    finally:
        conn.execute("RESET ROLE")
    return ("OK", cur.statusmessage, *notices)


# (role the statement runs as, statement); rbac_admin holds CREATEROLE (a role attribute in PostgreSQL, the
# CREATEROLE system privilege here).
ORACLE_SCRIPT: tuple[tuple[str, str], ...] = (
    ("materialize", "CREATE ROLE rbac_alice LOGIN"),
    ("materialize", "CREATE ROLE rbac_alice"),
    ("materialize", "CREATE USER rbac_bob WITH PASSWORD 'x' NOSUPERUSER"),
    ("materialize", "CREATE ROLE rbac_su SUPERUSER"),
    ("materialize", "CREATE ROLE rbac_pw PASSWORD NULL"),
    ("materialize", "CREATE ROLE pg_rbac"),
    ("materialize", "CREATE ROLE public"),
    ("materialize", "CREATE ROLE rbac_c LOGIN NOLOGIN"),
    ("materialize", "ALTER ROLE rbac_nobody LOGIN"),
    ("materialize", "DROP ROLE rbac_nobody"),
    ("materialize", "DROP ROLE IF EXISTS rbac_nobody, rbac_nobody2"),
    ("materialize", "GRANT rbac_alice TO rbac_bob"),
    ("materialize", "GRANT rbac_alice TO rbac_bob"),
    ("materialize", "GRANT rbac_bob TO rbac_alice"),
    ("materialize", "GRANT rbac_alice TO rbac_alice"),
    ("materialize", "GRANT rbac_nobody TO rbac_bob"),
    ("materialize", "GRANT rbac_alice TO rbac_bob, rbac_nobody"),
    ("materialize", "REVOKE rbac_alice FROM rbac_bob"),
    ("materialize", "REVOKE rbac_alice FROM rbac_bob"),
    ("rbac_alice", "CREATE ROLE rbac_x"),
    ("rbac_alice", "ALTER ROLE rbac_bob LOGIN"),
    ("rbac_alice", "ALTER ROLE rbac_alice NOLOGIN"),
    ("rbac_alice", "ALTER ROLE rbac_alice PASSWORD 'mine'"),
    ("rbac_alice", "ALTER ROLE rbac_alice WITH PASSWORD NULL"),
    ("rbac_alice", "ALTER ROLE rbac_su LOGIN"),
    ("rbac_alice", "GRANT rbac_bob TO rbac_alice"),
    ("rbac_alice", "REVOKE rbac_bob FROM rbac_alice"),
    ("rbac_alice", "GRANT rbac_su TO rbac_alice"),
    ("rbac_alice", "DROP ROLE rbac_bob"),
    ("rbac_admin", "CREATE ROLE rbac_y"),
    ("rbac_admin", "CREATE ROLE rbac_z SUPERUSER"),
    ("rbac_admin", "ALTER ROLE rbac_y LOGIN"),
    ("rbac_admin", "ALTER ROLE rbac_bob SUPERUSER"),
    ("rbac_admin", "ALTER ROLE rbac_su NOLOGIN"),
    ("rbac_admin", "GRANT rbac_bob TO rbac_alice"),
    ("rbac_admin", "GRANT rbac_su TO rbac_alice"),
    ("rbac_admin", "REVOKE rbac_bob FROM rbac_alice"),
    ("rbac_admin", "DROP ROLE rbac_su"),
    ("rbac_admin", "DROP ROLE rbac_admin"),
    ("rbac_admin", "DROP ROLE rbac_y"),
    ("materialize", "DROP ROLE rbac_alice, rbac_bob, rbac_su, rbac_pw"),
)


@pytest.fixture
def pg_roles(oracle: PostgresOracle) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    with psycopg.connect(oracle.dsn, autocommit=True) as conn:
        conn.execute("CREATE ROLE rbac_admin CREATEROLE")
        try:
            yield conn
        finally:
            conn.execute("RESET ROLE")
            for row in conn.execute("SELECT rolname FROM pg_roles WHERE rolname LIKE 'rbac%'").fetchall():
                conn.execute(f'DROP ROLE "{row[0]}"')


def test_role_management_matches_postgres(pg_roles: psycopg.Connection[tuple[object, ...]], catalog: Catalog) -> None:
    run(catalog, "CREATE ROLE rbac_admin")
    run(catalog, "GRANT CREATEROLE ON SYSTEM TO rbac_admin")
    for role, sql in ORACLE_SCRIPT:
        assert ours(catalog, sql, role) == theirs(pg_roles, sql, role), (role, sql)


# ---- reads: the role × builtin-relation access matrix --------------------------------------------------------


@pytest.fixture
def matrix_roles(catalog: Catalog) -> dict[str, str]:
    """Login roles for the matrix: a plain role, members of mz_monitor / mz_monitor_redacted / mz_support, a
    superuser; and the builtin login roles themselves."""
    for sql in (
        "CREATE ROLE plain",
        "CREATE ROLE monitor",
        "GRANT mz_monitor TO monitor",
        "CREATE ROLE redacted",
        "GRANT mz_monitor_redacted TO redacted",
        "CREATE ROLE support",
        "GRANT mz_support TO support",
        "CREATE ROLE noinherit NOINHERIT",
        "GRANT mz_monitor TO noinherit",
        "CREATE ROLE su SUPERUSER",
    ):
        run(catalog, sql)
    names = ("plain", "monitor", "redacted", "support", "noinherit", "su", "materialize", "mz_system", "mz_support")
    return {name: role_id(catalog, name) for name in names}


def expected_access(schema: str, name: str, sensitivity: str, role: str) -> str:
    """What issue 5 item 7 and the sensitivities say: 'all' rows, 'own' rows (row-filtered, or other roles' rows
    masked) or 'denied'."""
    if role in ("su", "materialize", "mz_system"):
        return "all"
    monitor = role == "monitor"
    support = role in ("support", "mz_support")
    if name == "mz_notices_redacted":
        return "all" if monitor or support or role == "redacted" else "own"
    if name in ("mz_optimizer_notices", "mz_notices", "mz_ignored_optimizer_notices"):
        return "all" if monitor else "denied"
    # issue 14: the statement history (every role its own statements) and Spark's jobs
    redacted_reader = monitor or support or role == "redacted"
    if name == "mz_recent_activity_log":
        return "all" if monitor else "own"
    if name in ("mz_recent_activity_log_redacted", "mz_statement_lifecycle_history"):
        return "all" if redacted_reader else "own"
    if name in ("mz_sql_text", "mz_spark_jobs", "mz_spark_stages"):
        return "all" if monitor else "denied"
    if name == "pg_stat_activity":  # other roles' sessions masked, as PostgreSQL masks them (stat_activity.py)
        return "all" if monitor else "own"
    if name == "mz_sql_text_redacted":
        return "all" if redacted_reader else "denied"
    return {"public": "all", "superuser_and_support": "all" if support else "denied", "superuser": "denied"}[
        sensitivity
    ]


def access(catalog: Catalog, schema: str, name: str, role: str) -> str:
    tree = parse(f"SELECT * FROM {schema}.{name}")
    try:
        checked = read(catalog, tree.sql("postgres"), role)
    except PgError as err:
        assert (err.code, err.message) == ("42501", f'permission denied for TABLE "{schema}.{name}"')
        return "denied"
    return "all" if checked.sql("postgres") == tree.sql("postgres") else "own"


def test_builtin_relation_access_matrix(catalog: Catalog, matrix_roles: dict[str, str]) -> None:
    relations = {(r.schema, r.name): r.sensitivity for r in RELATIONS}
    for notice_relation in NOTICE_RELATIONS:
        relations.setdefault(("mz_internal", notice_relation), "superuser")
    assert len(relations) >= len(RELATIONS)
    for (schema, name), sensitivity in sorted(relations.items()):
        for role in matrix_roles:
            assert access(catalog, schema, name, role) == expected_access(schema, name, sensitivity, role), (
                schema,
                name,
                role,
            )


def test_every_sensitivity_is_enforced(catalog: Catalog, matrix_roles: dict[str, str]) -> None:
    """The matrix over relations of each sensitivity, whatever the families declare today."""
    from sparkwire.planner.security.privileges import builtin_access

    state = catalog.state
    for sensitivity, readers in (("public", None), ("superuser_and_support", {MZ_SUPPORT}), ("superuser", set())):
        got = builtin_access("pg_catalog", "any", sensitivity)
        assert (got.readers, got.row_filtered) == (None if readers is None else frozenset(readers), False)
    assert state.resolve_role("mz_system").superuser


def test_unqualified_and_joined_builtins(catalog: Catalog, matrix_roles: dict[str, str]) -> None:
    read(catalog, "SELECT * FROM mz_tables JOIN pg_class ON true", "plain")
    sql = "SELECT * FROM mz_tables WHERE EXISTS (SELECT 1 FROM mz_internal.mz_optimizer_notices)"
    assert fails(read, catalog, sql, "plain") == (
        "42501",
        'permission denied for TABLE "mz_internal.mz_optimizer_notices"',
    )
    cte = "WITH n AS (SELECT * FROM mz_internal.mz_notices) SELECT * FROM n"
    assert fails(read, catalog, cte, "redacted")[0] == "42501"
    read(catalog, cte, "monitor")
    # a CTE named like a builtin relation is not the relation
    read(catalog, "WITH mz_notices AS (SELECT 1) SELECT * FROM mz_notices", "plain")


def test_notices_redacted_row_filter_runs_on_duckdb(catalog: Catalog, matrix_roles: dict[str, str]) -> None:
    plain = matrix_roles["plain"]
    mine = table(catalog, "mine", owner=plain)
    granted = table(catalog, "granted")
    hidden = table(catalog, "hidden")
    run(catalog, "GRANT SELECT ON granted TO plain")
    index = ItemSpec(
        kind="index",
        schema_id=PUBLIC_SCHEMA,
        name="granted_idx",
        owner_id=SUPERUSER,
        create_sql="CREATE INDEX granted_idx IN CLUSTER quickstart ON materialize.public.granted ()",
        on_id=granted,
        cluster_id="u1",
    )
    (granted_idx,) = [r.id for r in catalog.transact([CreateItem(index)]).created]
    assert visible_objects(catalog.state, plain) == sorted([mine, granted, granted_idx])
    con = duckdb.connect()
    con.execute("CREATE SCHEMA mz_internal")
    con.execute("CREATE TABLE mz_internal.mz_notices_redacted (object_id text, message text)")
    for object_id in (mine, granted, hidden, granted_idx, None):
        con.execute("INSERT INTO mz_internal.mz_notices_redacted VALUES (?, 'm')", [object_id])
    sql = "SELECT n.object_id FROM mz_internal.mz_notices_redacted AS n ORDER BY 1"
    checked = read(catalog, sql, "plain")
    rows = [r[0] for r in con.execute(checked.sql("duckdb")).fetchall()]
    assert rows == sorted([mine, granted, granted_idx])
    everything = con.execute(read(catalog, sql, "redacted").sql("duckdb")).fetchall()
    assert len(everything) == 5
    bare = read(catalog, "SELECT count(*) FROM mz_internal.mz_notices_redacted", "plain")
    assert con.execute(bare.sql("duckdb")).fetchall() == [(3,)]
    run(catalog, "CREATE ROLE nobody_owns")
    none = read(catalog, "SELECT * FROM mz_internal.mz_notices_redacted", "nobody_owns")
    assert con.execute(none.sql("duckdb")).fetchall() == []


# ---- reads of user relations: schemas, views with their owner's rights ---------------------------------------


def test_user_relations_need_select_and_schema_usage(catalog: Catalog) -> None:
    run(catalog, "CREATE ROLE alice")
    table(catalog, "t")
    assert fails(read, catalog, "SELECT * FROM t", "alice") == (
        "42501",
        'permission denied for TABLE "materialize.public.t"',
    )
    run(catalog, "GRANT SELECT ON t TO alice")
    read(catalog, "SELECT * FROM t", "alice")
    read(catalog, "SELECT * FROM (SELECT * FROM t) AS s JOIN t AS u ON true", "alice")
    (schema,) = catalog.transact([CreateSchema("u1", "s", SUPERUSER)]).created
    table(catalog, "u", schema=schema.id)
    run(catalog, "GRANT SELECT ON s.u TO alice")
    assert fails(read, catalog, "SELECT * FROM s.u", "alice") == (
        "42501",
        'permission denied for SCHEMA "materialize.s"',
    )
    run(catalog, "GRANT USAGE ON SCHEMA s TO alice")
    read(catalog, "SELECT * FROM s.u", "alice")
    assert fails(read, catalog, "SELECT * FROM nosuch", "alice")[0] == "42P01"


def test_views_read_with_their_owners_rights(catalog: Catalog) -> None:
    for sql in ("CREATE ROLE owner_role", "CREATE ROLE reader", "CREATE ROLE monitor_owner"):
        run(catalog, sql)
    run(catalog, "GRANT mz_monitor TO monitor_owner")
    t = table(catalog, "t")
    v = view(catalog, "v", "SELECT * FROM materialize.public.t", (t,), role_id(catalog, "owner_role"))
    run(catalog, "GRANT SELECT ON v TO reader")
    # the owner cannot read t: neither can the reader through v
    assert fails(read, catalog, "SELECT * FROM v", "reader") == (
        "42501",
        'permission denied for TABLE "materialize.public.t"',
    )
    run(catalog, "GRANT SELECT ON t TO owner_role")
    read(catalog, "SELECT * FROM v", "reader")  # the reader itself has no SELECT on t
    assert fails(read, catalog, "SELECT * FROM t", "reader")[0] == "42501"
    # views over views: each level with its own owner
    w = view(catalog, "w", "SELECT * FROM materialize.public.v", (v,), role_id(catalog, "reader"))
    run(catalog, "CREATE ROLE top")
    run(catalog, "GRANT SELECT ON w TO top")
    read(catalog, "SELECT * FROM w", "top")
    run(catalog, "REVOKE SELECT ON t FROM owner_role")
    assert fails(read, catalog, "SELECT * FROM w", "top")[1] == 'permission denied for TABLE "materialize.public.t"'
    catalog.transact([DropItems((w,))])
    # builtin relations inside a view: the owner's access counts
    n = view(catalog, "n", "SELECT * FROM mz_internal.mz_notices", (), role_id(catalog, "owner_role"))
    m = view(catalog, "m", "SELECT * FROM mz_internal.mz_notices", (), role_id(catalog, "monitor_owner"))
    run(catalog, "GRANT SELECT ON n TO reader")
    run(catalog, "GRANT SELECT ON m TO reader")
    assert fails(read, catalog, "SELECT * FROM n", "reader")[1] == (
        'permission denied for TABLE "mz_internal.mz_notices"'
    )
    read(catalog, "SELECT * FROM m", "reader")
    # a row-filtered relation through a view needs the owner's full access
    r = view(catalog, "r", "SELECT * FROM mz_internal.mz_notices_redacted", (), role_id(catalog, "owner_role"))
    run(catalog, "GRANT SELECT ON r TO reader")
    assert fails(read, catalog, "SELECT * FROM r", "reader")[0] == "42501"
    assert {n, m, r} <= set(catalog.state.items)


def test_explain_and_copy_queries_are_reads(catalog: Catalog) -> None:
    run(catalog, "CREATE ROLE alice")
    table(catalog, "t")
    # EXPLAIN: the explained statement is checked (the caller passes its tree, as for execution)
    for sql in ("SELECT * FROM t", "COPY (SELECT * FROM t) TO STDOUT", "COPY t TO STDOUT"):
        assert fails(read, catalog, sql, "alice")[0] == "42501", sql
        assert fails(dml, catalog, sql, "alice")[0] == "42501", sql
    assert fails(dml, catalog, "COPY t FROM STDIN", "alice")[1] == 'permission denied for TABLE "materialize.public.t"'
    run(catalog, "GRANT INSERT ON t TO alice")
    dml(catalog, "COPY t FROM STDIN", "alice")
    dml(catalog, "COPY t (a) FROM STDIN", "alice")
    assert fails(dml, catalog, "COPY t TO STDOUT", "alice")[0] == "42501"


# ---- writes and DDL ------------------------------------------------------------------------------------------


def dml(catalog: Catalog, sql: str, role: str) -> exp.Expression:
    names = as_role(catalog, role)
    return check_dml(parse(sql), catalog.state, names, names.role_id)


def test_writes(catalog: Catalog) -> None:
    run(catalog, "CREATE ROLE alice")
    table(catalog, "t")
    table(catalog, "src")
    assert fails(dml, catalog, "INSERT INTO t VALUES (1)", "alice") == (
        "42501",
        'permission denied for TABLE "materialize.public.t"',
    )
    run(catalog, "GRANT INSERT ON t TO alice")
    dml(catalog, "INSERT INTO t VALUES (1)", "alice")  # INSERT alone: no SELECT on the target needed
    dml(catalog, "INSERT INTO t (a) VALUES (1)", "alice")
    assert fails(dml, catalog, "INSERT INTO t SELECT * FROM src", "alice")[0] == "42501"
    run(catalog, "GRANT SELECT ON src TO alice")
    dml(catalog, "INSERT INTO t SELECT * FROM src", "alice")
    run(catalog, "GRANT UPDATE, DELETE ON t TO alice")
    assert fails(dml, catalog, "DELETE FROM t", "alice")[0] == "42501"  # read-then-write needs SELECT
    run(catalog, "GRANT SELECT ON t TO alice")
    dml(catalog, "DELETE FROM t WHERE a IN (SELECT a FROM src)", "alice")
    dml(catalog, "UPDATE t SET a = 1", "alice")
    assert fails(dml, catalog, "INSERT INTO mz_catalog.mz_tables VALUES (1)", "alice")[0] == "42501"
    run(catalog, "REVOKE SELECT ON src FROM alice")
    assert fails(dml, catalog, "UPDATE t SET a = (SELECT max(a) FROM src)", "alice")[1] == (
        'permission denied for TABLE "materialize.public.src"'
    )


def test_ddl_ops(catalog: Catalog) -> None:
    run(catalog, "CREATE ROLE alice")
    alice = role_id(catalog, "alice")
    t = table(catalog, "t")
    state = catalog.state
    spec = ItemSpec(kind="table", schema_id=PUBLIC_SCHEMA, name="u", owner_id=alice, create_sql="CREATE TABLE u ()")
    create: list[Op] = [CreateItem(spec)]
    assert fails(check_ops, create, state, alice) == ("42501", 'permission denied for SCHEMA "materialize.public"')
    check_ops(create, state, SUPERUSER)
    assert fails(check_ops, [DropItems((t,))], state, alice) == (
        "42501",
        "must be owner of TABLE materialize.public.t",
    )
    assert fails(check_ops, [CreateSchema("u1", "s", alice)], state, alice) == (
        "42501",
        'permission denied for DATABASE "materialize"',
    )
    run(catalog, "GRANT CREATE ON SCHEMA public TO alice")
    check_ops(create, catalog.state, alice)
    index = ItemSpec(
        kind="index",
        schema_id=PUBLIC_SCHEMA,
        name="t_idx",
        owner_id=alice,
        create_sql="CREATE INDEX …",
        on_id=t,
        cluster_id="u1",
    )
    assert fails(check_ops, [CreateItem(index)], catalog.state, alice)[1] == (
        "must be owner of TABLE materialize.public.t"
    )
    run(catalog, "ALTER TABLE t OWNER TO alice")
    assert fails(check_ops, [CreateItem(index)], catalog.state, alice)[1] == (
        'permission denied for CLUSTER "quickstart"'
    )
    run(catalog, "GRANT CREATE ON CLUSTER quickstart TO alice")
    check_ops([CreateItem(index), DropItems((t,))], catalog.state, alice)


def test_state_is_untouched_by_checks(catalog: Catalog) -> None:
    before: CatalogState = catalog.state
    read(catalog, "SELECT * FROM mz_internal.mz_notices_redacted", "materialize")
    assert catalog.state is before
