"""Session variables through a real session: SET/SHOW/RESET forms, validation errors as PostgreSQL reports them,
ParameterStatus reporting, startup options, and set_config/current_setting inside SELECT. ALTER SYSTEM against a
real catalog: its grammar, its errors, its values surviving a restart and acting as every session's defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from sparkwire.catalog import Catalog
from sparkwire.catalog.ops import CreateRole, GrantRole, SetSystemVariable
from sparkwire.errors import PgError
from sparkwire.planner.grammar.utility import AlterSystem, ShowVariable, parse_utility
from sparkwire.planner.statements.notice_service import enabled_by
from sparkwire.planner.statements.set_show import alter_system_ops, show
from sparkwire.planner.statements.variables import SessionVariables
from sparkwire.session.service import PlannerService
from tests.planner.test_planner_helpers import Client, oracle_run
from tests.support.postgres import PostgresOracle


def test_reported_parameters(client: Client) -> None:
    reported = client.session.reported_parameters()
    assert reported["server_version"] == "15.0"
    assert reported["TimeZone"] == "UTC"
    assert reported["client_encoding"] == "UTF8"
    assert reported["standard_conforming_strings"] == "on"
    assert reported["integer_datetimes"] == "on"
    assert reported["session_authorization"] == "materialize"


@pytest.mark.parametrize(
    ("statement", "name", "shown"),
    [
        ("SET TimeZone = 'europe/paris'", "timezone", "Europe/Paris"),
        ("SET TIME ZONE 'UTC'", "TimeZone", "UTC"),
        ("SET SESSION extra_float_digits TO 3", "extra_float_digits", "3"),
        ("SET statement_timeout = '5s'", "statement_timeout", "5s"),
        ("SET statement_timeout = 1500", "statement_timeout", "1500ms"),
        ("SET statement_timeout = '2min'", "statement_timeout", "2min"),
        ("SET search_path TO public, other", "search_path", "public, other"),
        ("SET datestyle = 'iso, dmy'", "DateStyle", "ISO, DMY"),
        ("SET NAMES 'utf8'", "client_encoding", "UTF8"),
        ("SET client_min_messages = WARNING", "client_min_messages", "warning"),
        ("SET cluster = other", "cluster", "other"),
    ],
)
def test_set_then_show(client: Client, statement: str, name: str, shown: str) -> None:
    assert client.one(statement).tag == "SET"
    out = client.one(f"SHOW {name}")
    assert (out.tag, out.rows) == ("SHOW", [(shown,)])


def test_show_uses_the_canonical_column_name(client: Client, oracle: PostgresOracle) -> None:
    for name in ("timezone", "datestyle", "statement_timeout"):
        assert client.one(f"SHOW {name}").names == oracle_run(oracle.dsn, f"SHOW {name}").names


@pytest.mark.parametrize(
    "statement",
    [
        "SET nope = 1",
        "SHOW nope",
        "SET TimeZone = 'Mars/Olympus'",
        "SET extra_float_digits = 10",
        "SET extra_float_digits = 'abc'",
        "SET statement_timeout = 'soon'",
        "SET server_version = '1'",
        "SET client_encoding = 'nonsense'",
    ],
)
def test_invalid_settings_fail_like_postgres(client: Client, oracle: PostgresOracle, statement: str) -> None:
    expected = oracle_run(oracle.dsn, statement).sqlstate
    assert client.error(statement).code == expected


def test_unsupported_values_are_refused(client: Client) -> None:
    assert client.error("SET client_encoding = 'LATIN1'").code == "0A000"
    assert client.error("SET DateStyle = 'German'").code == "0A000"
    assert client.error("SET standard_conforming_strings = off").code == "0A000"


def test_reset_and_default(client: Client) -> None:
    client.run("SET application_name = 'x'; SET extra_float_digits = 2")
    assert client.one("RESET application_name").tag == "RESET"
    assert client.rows("SHOW application_name") == [("",)]
    client.run("SET extra_float_digits TO DEFAULT")
    assert client.rows("SHOW extra_float_digits") == [("1",)]
    client.run("SET TimeZone = 'Asia/Tokyo'; RESET ALL")
    assert client.rows("SHOW TimeZone") == [("UTC",)]


def test_show_all(client: Client) -> None:
    out = client.one("SHOW ALL")
    assert out.names == ["name", "setting", "description"]
    settings = {name: setting for name, setting, _ in out.rows}
    assert settings["server_version_num"] == "150000"
    assert settings["cluster"] == "quickstart"
    assert settings["max_identifier_length"] == "63"


def test_reported_changes_reach_the_parameter_status_sink(client: Client) -> None:
    client.run("SET TimeZone = 'Asia/Tokyo'; SET extra_float_digits = 2; SET application_name = 'app'")
    assert client.statuses == [("TimeZone", "Asia/Tokyo"), ("application_name", "app")]


def test_transaction_characteristics(client: Client) -> None:
    client.run("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ")
    assert client.rows("SHOW default_transaction_isolation") == [("repeatable read",)]
    client.run("BEGIN")
    assert client.rows("SHOW transaction_isolation") == [("repeatable read",)]
    client.run("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE")
    assert client.rows("SHOW TRANSACTION ISOLATION LEVEL") == [("serializable",)]
    client.run("COMMIT")


def test_set_local_outside_a_transaction_warns_and_does_nothing(client: Client) -> None:
    client.run("SET LOCAL application_name = 'x'")
    assert client.rows("SHOW application_name") == [("",)]
    assert client.notices[-1].message == "SET LOCAL can only be used in transaction blocks"


def test_set_config_and_current_setting(client: Client) -> None:
    assert client.rows("SELECT set_config('application_name', 'via_fn', false)") == [("via_fn",)]
    assert client.rows("SELECT current_setting('application_name')") == [("via_fn",)]
    assert client.rows("SELECT current_setting('nope', true)") == [(None,)]
    err = client.error("SELECT current_setting('nope')")
    assert (err.code, err.message) == ("42704", 'unrecognized configuration parameter "nope"')


def test_startup_options_apply(service: PlannerService) -> None:
    c = Client(service, options={"TimeZone": "Europe/Berlin", "extra_float_digits": "3"}, application_name="psql")
    try:
        assert c.rows("SHOW TimeZone") == [("Europe/Berlin",)]
        assert c.rows("SHOW application_name") == [("psql",)]
        assert c.session.encode_options().extra_float_digits == 3
        assert c.session.encode_options().timezone == "Europe/Berlin"
    finally:
        c.close()


def test_bad_startup_option_is_fatal(service: PlannerService) -> None:
    with pytest.raises(PgError) as info:
        Client(service, options={"nope": "1"})
    assert (info.value.code, info.value.severity) == ("42704", "FATAL")


def test_only_the_materialize_database_exists(service: PlannerService) -> None:
    with pytest.raises(PgError) as info:
        Client(service, database="other")
    assert (info.value.code, info.value.message) == ("3D000", 'database "other" does not exist')


def test_discard_all_resets_the_session(client: Client) -> None:
    client.run("SET application_name = 'x'; PREPARE p AS SELECT 1")
    assert client.one("DISCARD ALL").tag == "DISCARD ALL"
    assert client.rows("SHOW application_name") == [("",)]
    assert client.error("EXECUTE p").code == "26000"
    client.run("BEGIN")
    assert client.error("DISCARD ALL").code == "25001"
    client.run("ROLLBACK")


def test_time_zone_applies_to_timestamptz_text(client: Client, oracle: PostgresOracle) -> None:
    sql = "SELECT '2024-01-01 12:00:00+00'::timestamptz::text AS t, '2024-07-01 12:00:00'::timestamptz::text AS u"
    client.run("SET TIME ZONE 'Europe/Berlin'")
    expected = oracle_run(oracle.dsn, sql, "SET TIME ZONE 'Europe/Berlin'")
    assert client.one(sql).rows == expected.rows == [("2024-01-01 13:00:00+01", "2024-07-01 12:00:00+02")]
    client.run("RESET TimeZone")
    assert client.one(sql).rows == [("2024-01-01 12:00:00+00", "2024-07-01 12:00:00+00")]


# ---- ALTER SYSTEM: durable defaults in the catalog ------------------------------------------------------------


def alter_system(catalog: Catalog, sql: str, role_id: str = "u1", *, in_block: bool = False) -> None:
    stmt = parse_utility(sql)
    assert isinstance(stmt, AlterSystem)
    catalog.transact(list(alter_system_ops(stmt, catalog.state, role_id, in_block=in_block)))


def test_alter_system_grammar() -> None:
    assert parse_utility("ALTER SYSTEM SET enable_notices_for_cross_join = off") == AlterSystem(
        "enable_notices_for_cross_join", "off"
    )
    assert parse_utility("alter system set search_path to a, b") == AlterSystem("search_path", "a, b")
    assert parse_utility("ALTER SYSTEM SET TimeZone TO DEFAULT") == AlterSystem("timezone", None)
    assert parse_utility("ALTER SYSTEM RESET statement_timeout") == AlterSystem("statement_timeout", None)
    assert parse_utility("ALTER SYSTEM RESET ALL") == AlterSystem(None, None)
    assert parse_utility("ALTER TABLE t RENAME TO u") is None
    with pytest.raises(PgError) as info:
        parse_utility("ALTER SYSTEM SET statement_timeout")
    assert (info.value.code, info.value.message) == ("42601", "syntax error at end of input")


def test_alter_system_is_durable_and_the_default_of_sessions(tmp_path: Path) -> None:
    catalog = Catalog.open(tmp_path)
    alter_system(catalog, "ALTER SYSTEM SET enable_notices_for_cross_join = false")
    alter_system(catalog, "ALTER SYSTEM SET TimeZone = 'europe/paris'")
    catalog.close()
    catalog = Catalog.open(tmp_path)
    try:
        stored = catalog.state.system_vars["enable_notices_for_cross_join"]
        assert (stored.value, stored.set_by) == ("off", "u1")
        variables = SessionVariables(lambda name, value: None, {}, system=lambda: catalog.state.system_defaults)
        assert variables.get("enable_notices_for_cross_join") == "off"
        assert variables.get("timezone") == "Europe/Paris"
        assert variables.reported()["TimeZone"] == "Europe/Paris"
        enabled = enabled_by(variables.get)
        assert not enabled("cross_join") and enabled("equals_null")
        _, batches = show(ShowVariable("enable_notices_for_cross_join"), variables)
        assert batches[0].to_pylist() == [{"enable_notices_for_cross_join": "off"}]
        shown_all = {r["name"]: r["setting"] for r in show(ShowVariable(None), variables)[1][0].to_pylist()}
        assert shown_all["TimeZone"] == "Europe/Paris"
    finally:
        catalog.close()


def test_a_session_value_wins_and_reset_returns_to_the_system_value(tmp_path: Path) -> None:
    catalog = Catalog.open(tmp_path)
    try:
        statuses: list[tuple[str, str]] = []
        variables = SessionVariables(
            lambda name, value: statuses.append((name, value)),
            {"application_name": "psql"},
            system=lambda: catalog.state.system_defaults,
        )
        alter_system(catalog, "ALTER SYSTEM SET TimeZone = 'Asia/Tokyo'")
        alter_system(catalog, "ALTER SYSTEM SET application_name = 'from_system'")
        # a session that has not SET the variable follows ALTER SYSTEM at its next access
        assert variables.get("TimeZone") == "Asia/Tokyo"
        assert statuses == [("TimeZone", "Asia/Tokyo")]
        assert variables.get("application_name") == "psql"  # startup options beat ALTER SYSTEM
        variables.set("TimeZone", "UTC")
        alter_system(catalog, "ALTER SYSTEM SET TimeZone = 'Europe/Berlin'")
        assert variables.get("TimeZone") == "UTC"
        variables.set("TimeZone", None)  # RESET / SET … TO DEFAULT
        assert variables.get("TimeZone") == "Europe/Berlin"
        variables.set("application_name", "")
        assert variables.get("application_name") == ""
        version = variables.version
        alter_system(catalog, "ALTER SYSTEM SET statement_timeout = 1500")
        assert variables.version > version  # callers' caches of derived values see the change
        assert variables.get("statement_timeout") == "1500ms"
        alter_system(catalog, "ALTER SYSTEM RESET TimeZone")
        assert variables.get("TimeZone") == "UTC"
        alter_system(catalog, "ALTER SYSTEM RESET ALL")
        assert catalog.state.system_vars == {}
        assert variables.get("statement_timeout") == "0"
        alter_system(catalog, "ALTER SYSTEM RESET ALL")  # nothing stored: nothing happens
    finally:
        catalog.close()


def test_alter_system_in_a_transaction_rolls_back_with_session_values(tmp_path: Path) -> None:
    catalog = Catalog.open(tmp_path)
    try:
        variables = SessionVariables(lambda name, value: None, {}, system=lambda: catalog.state.system_defaults)
        alter_system(catalog, "ALTER SYSTEM SET extra_float_digits = 2")
        variables.set("extra_float_digits", "3", in_transaction=True)
        variables.end_transaction(committed=False)
        assert variables.get("extra_float_digits") == "2"
    finally:
        catalog.close()


@pytest.mark.parametrize(
    ("sql", "code", "message"),
    [
        ("ALTER SYSTEM SET nope = 1", "42704", 'unrecognized configuration parameter "nope"'),
        ("ALTER SYSTEM SET server_version = '1'", "55P02", 'parameter "server_version" cannot be changed'),
        ("ALTER SYSTEM SET transaction_isolation = 'serializable'", "55P02", None),
        ("ALTER SYSTEM SET enable_notices_for_cross_join = maybe", "22023", None),
        ("ALTER SYSTEM SET statement_timeout = 'soon'", "22023", None),
        ("ALTER SYSTEM SET DateStyle = 'German'", "0A000", None),
    ],
)
def test_alter_system_errors(tmp_path: Path, sql: str, code: str, message: str | None) -> None:
    catalog = Catalog.open(tmp_path)
    try:
        with pytest.raises(PgError) as info:
            alter_system(catalog, sql)
        assert info.value.code == code
        assert message is None or info.value.message == message
        assert catalog.state.system_vars == {}
    finally:
        catalog.close()


def test_alter_system_needs_a_superuser_outside_a_transaction_block(tmp_path: Path) -> None:
    catalog = Catalog.open(tmp_path)
    try:
        catalog.transact([CreateRole("alice", login=True)])
        monitor = catalog.state.resolve_role("mz_monitor").id
        alice = catalog.state.resolve_role("alice").id
        catalog.transact([GrantRole(monitor, alice, "u1")])
        sql = "ALTER SYSTEM SET enable_notices_for_cross_join = off"
        with pytest.raises(PgError) as info:
            alter_system(catalog, sql, alice)
        assert (info.value.code, info.value.message) == ("42501", "must be superuser to execute ALTER SYSTEM command")
        with pytest.raises(PgError) as info:
            alter_system(catalog, sql, in_block=True)
        assert (info.value.code, info.value.message) == (
            "25001",
            "ALTER SYSTEM cannot run inside a transaction block",
        )
        alter_system(catalog, sql)
        assert catalog.state.system_defaults == {"enable_notices_for_cross_join": "off"}
    finally:
        catalog.close()


def test_stored_values_no_longer_valid_are_ignored(tmp_path: Path) -> None:
    catalog = Catalog.open(tmp_path)
    try:
        catalog.transact([SetSystemVariable("TimeZone", "Mars/Olympus", "u1"), SetSystemVariable("gone", "1", "u1")])
        variables = SessionVariables(lambda name, value: None, {}, system=lambda: catalog.state.system_defaults)
        assert variables.get("TimeZone") == "UTC"
    finally:
        catalog.close()
