"""psycopg 3 against a real sparkwire server: queries, errors, settings, notices and ParameterStatus.

Where PostgreSQL defines the answer, the same statement runs on the oracle (PostgreSQL 15) and the two answers
are compared; after every error the same connection must keep working. Types, COPY/pipeline and
transactions/cursors/ cancel live in the sibling test_client_psycopg_*.py modules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import psycopg
import pytest
from psycopg import errors

from tests.support.clients import all_results, unique
from tests.support.server import SparkwireServer


def test_simple_query(sw: psycopg.Connection[Any]) -> None:
    cur = sw.execute("SELECT 1")
    assert cur.fetchall() == [(1,)]
    assert cur.statusmessage == "SELECT 1"
    assert cur.description is not None
    assert cur.description[0].name == "?column?"


def test_result_column_names_match_oracle(sw: psycopg.Connection[Any], pg: psycopg.Connection[Any]) -> None:
    query = "SELECT 1, 1 + 2, 'x'::text AS named, count(*), CAST(1 AS int) FROM (VALUES (1), (2)) v(a)"
    got, want = sw.execute(query), pg.execute(query)
    assert got.description is not None and want.description is not None
    assert [(d.name, d.type_code) for d in got.description] == [
        (d.name, d.type_code) for d in want.description
    ]
    assert got.fetchall() == want.fetchall()


def test_multi_statement_string(sw: psycopg.Connection[Any], pg: psycopg.Connection[Any]) -> None:
    table = unique("multi")
    sql = (
        f"SELECT 1; SELECT 2 AS a, 'b' AS b; CREATE TABLE {table} (a int); "
        f"INSERT INTO {table} VALUES (1), (2); SELECT count(*) FROM {table}; DROP TABLE {table}"
    )
    got = all_results(sw.cursor().execute(sql))
    want = all_results(pg.cursor().execute(sql))
    assert got == want
    assert got[-2] == ("SELECT 1", ["count"], [(2,)])


def test_empty_query(sw: psycopg.Connection[Any]) -> None:
    cur = sw.execute("")
    assert cur.description is None
    assert sw.pgconn.transaction_status == psycopg.pq.TransactionStatus.IDLE


ERRORS = [
    ("SELEC 1", errors.SyntaxError),
    ("SELECT * FROM (SELECT 1 AS a) s WHERE", errors.SyntaxError),
    ("SELECT * FROM no_such_table_anywhere", errors.UndefinedTable),
    ("SELECT no_such_column FROM (SELECT 1 AS a) s", errors.UndefinedColumn),
    ("SELECT 1 / 0", errors.DivisionByZero),
    ("SELECT 'abc'::int", errors.InvalidTextRepresentation),
]


@pytest.mark.parametrize(("query", "error"), ERRORS, ids=[e.sqlstate or "" for _, e in ERRORS])
@pytest.mark.parametrize("prepare", [False, True], ids=["simple", "extended"])
def test_error_sqlstate_and_session_survives(
    sw: psycopg.Connection[Any],
    pg: psycopg.Connection[Any],
    query: str,
    error: type[psycopg.Error],
    prepare: bool,
) -> None:
    with pytest.raises(error) as got:
        sw.execute(query, prepare=prepare)
    with pytest.raises(error) as want:
        pg.execute(query, prepare=prepare)
    if error is errors.SyntaxError:
        assert got.value.diag.statement_position == want.value.diag.statement_position
    else:
        assert got.value.diag.message_primary == want.value.diag.message_primary
    assert got.value.diag.severity == "ERROR"
    assert sw.execute("SELECT 42").fetchone() == (42,)


def test_version_and_builtin_functions(sw: psycopg.Connection[Any]) -> None:
    row = sw.execute(
        "SELECT version(), current_database(), current_user, session_user, current_schema()"
    ).fetchone()
    assert row is not None
    assert str(row[0]).startswith("PostgreSQL 15")
    assert row[1:] == ("materialize", "materialize", "materialize", "public")


def test_pg_sleep_matches_oracle(sw: psycopg.Connection[Any], pg: psycopg.Connection[Any]) -> None:
    got, want = sw.execute("SELECT pg_sleep(0.05)"), pg.execute("SELECT pg_sleep(0.05)")
    assert got.description is not None and want.description is not None
    assert got.description[0].type_code == want.description[0].type_code
    assert got.fetchall() == want.fetchall()


def test_set_show_reset(sw: psycopg.Connection[Any]) -> None:
    assert sw.execute("SHOW application_name").fetchone() == ("",)
    assert sw.execute("SET application_name = 'sw-test'").statusmessage == "SET"
    assert sw.execute("SHOW application_name").fetchone() == ("sw-test",)
    assert sw.info.parameter_status("application_name") == "sw-test"
    assert sw.execute("RESET application_name").statusmessage == "RESET"
    assert sw.execute("SHOW application_name").fetchone() == ("",)
    sw.execute("SET search_path TO public")
    assert sw.execute("SHOW search_path").fetchone() == ("public",)


def test_set_unknown_variable(sw: psycopg.Connection[Any], pg: psycopg.Connection[Any]) -> None:
    with pytest.raises(errors.UndefinedObject) as got:
        sw.execute("SHOW no_such_setting")
    with pytest.raises(errors.UndefinedObject) as want:
        pg.execute("SHOW no_such_setting")
    assert got.value.diag.message_primary == want.value.diag.message_primary
    assert sw.execute("SELECT 1").fetchone() == (1,)


def test_show_all(sw: psycopg.Connection[Any], pg: psycopg.Connection[Any]) -> None:
    got, want = sw.execute("SHOW ALL"), pg.execute("SHOW ALL")
    assert got.description is not None and want.description is not None
    assert [d.name for d in got.description] == [d.name for d in want.description]
    settings = {str(name).lower(): setting for name, setting, _ in got.fetchall()}
    for name in ("timezone", "datestyle", "client_encoding", "server_version", "standard_conforming_strings",
                 "application_name", "search_path", "statement_timeout"):
        assert name in settings
    assert settings["client_encoding"] == "UTF8"


def test_set_config_and_current_setting(sw: psycopg.Connection[Any], pg: psycopg.Connection[Any]) -> None:
    for conn in (sw, pg):
        assert conn.execute("SELECT set_config('application_name', 'via-set-config', false)").fetchone() == (
            "via-set-config",
        )
        assert conn.execute("SELECT current_setting('application_name')").fetchone() == ("via-set-config",)
        assert conn.execute("SELECT current_setting('no_such.setting', true)").fetchone() == (None,)
    with pytest.raises(errors.UndefinedObject):
        sw.execute("SELECT current_setting('no_such_setting')")
    assert sw.execute("SELECT 1").fetchone() == (1,)


def test_set_local_reverts_at_transaction_end(sw: psycopg.Connection[Any]) -> None:
    with sw.transaction():
        sw.execute("SET LOCAL application_name = 'local-only'")
        assert sw.execute("SHOW application_name").fetchone() == ("local-only",)
    assert sw.execute("SHOW application_name").fetchone() == ("",)


def test_discard_all(sw: psycopg.Connection[Any]) -> None:
    sw.execute("SET application_name = 'to-be-discarded'")
    sw.execute("PREPARE discard_me AS SELECT 1")
    assert sw.execute("DISCARD ALL").statusmessage == "DISCARD ALL"
    assert sw.execute("SHOW application_name").fetchone() == ("",)
    with pytest.raises(errors.InvalidSqlStatementName):
        sw.execute("EXECUTE discard_me")
    assert sw.execute("SELECT 1").fetchone() == (1,)


def test_sql_prepare_execute_deallocate(sw: psycopg.Connection[Any]) -> None:
    sw.execute("PREPARE twice(int) AS SELECT $1 * 2")
    assert sw.execute("EXECUTE twice(21)").fetchone() == (42,)
    assert sw.execute("DEALLOCATE twice").statusmessage == "DEALLOCATE"
    sw.execute("PREPARE again AS SELECT 'again'")
    assert sw.execute("DEALLOCATE ALL").statusmessage == "DEALLOCATE ALL"
    with pytest.raises(errors.InvalidSqlStatementName):
        sw.execute("EXECUTE again")
    assert sw.execute("SELECT 1").fetchone() == (1,)


def test_protocol_prepared_statements_survive_reuse(sw: psycopg.Connection[Any]) -> None:
    """psycopg prepares a query server-side after `prepare_threshold` executions; results must not change."""
    sw.prepare_threshold = 2
    for i in range(6):
        assert sw.execute("SELECT %s::int8 + 1", [i]).fetchone() == (i + 1,)
    assert sw.execute("SELECT %s::int8 + 1", [10], prepare=True).fetchone() == (11,)


def test_notices(sw: psycopg.Connection[Any], pg: psycopg.Connection[Any]) -> None:
    seen: dict[str, list[tuple[str | None, str | None, str | None]]] = {"sw": [], "pg": []}

    def collector(key: str) -> Callable[[psycopg.errors.Diagnostic], None]:
        return lambda d: seen[key].append((d.severity, d.sqlstate, d.message_primary))

    for key, conn in (("sw", sw), ("pg", pg)):
        conn.add_notice_handler(collector(key))
        conn.execute("COMMIT")
        conn.execute("BEGIN")
        conn.execute("BEGIN")
        conn.execute("ROLLBACK")
    assert seen["sw"] == seen["pg"]
    assert seen["sw"][0] == ("WARNING", "25P01", "there is no transaction in progress")


def test_parameter_status(dsn: str) -> None:
    with psycopg.connect(dsn, autocommit=True, application_name="ps-test") as conn:
        info = conn.info
        server_version = info.parameter_status("server_version")
        assert server_version is not None and server_version.startswith("15")
        assert info.server_version >= 150000
        assert info.parameter_status("server_encoding") == "UTF8"
        assert info.parameter_status("client_encoding") == "UTF8"
        assert info.parameter_status("DateStyle") == "ISO, MDY"
        assert info.parameter_status("integer_datetimes") == "on"
        assert info.parameter_status("standard_conforming_strings") == "on"
        assert info.parameter_status("application_name") == "ps-test"
        assert info.parameter_status("TimeZone") == "UTC"
        assert info.backend_pid != 0


def test_time_zone_change(sw: psycopg.Connection[Any], pg: psycopg.Connection[Any]) -> None:
    query = "SELECT '2024-01-01 12:00:00+00'::timestamptz::text, '2024-07-01 12:00:00+00'::timestamptz"
    for conn in (sw, pg):
        conn.execute("SET TIME ZONE 'Europe/Berlin'")
        assert conn.info.parameter_status("TimeZone") == "Europe/Berlin"
        assert conn.execute("SHOW TimeZone").fetchone() == ("Europe/Berlin",)
    got, want = sw.execute(query).fetchone(), pg.execute(query).fetchone()
    assert got == want
    assert got is not None and got[0] == "2024-01-01 13:00:00+01"
    sw.execute("SET TIME ZONE 'America/St_Johns'")
    assert sw.info.parameter_status("TimeZone") == "America/St_Johns"
    with pytest.raises(errors.InvalidParameterValue):
        sw.execute("SET TIME ZONE 'Not/AZone'")
    sw.execute("RESET TimeZone")
    assert sw.info.parameter_status("TimeZone") == "UTC"


def test_startup_options(dsn: str) -> None:
    options = "-c statement_timeout=1234 -c search_path=public"
    with psycopg.connect(dsn, autocommit=True, options=options) as conn:
        assert conn.execute("SHOW statement_timeout").fetchone() == ("1234ms",)


def test_unknown_database_is_fatal(server: SparkwireServer) -> None:
    with pytest.raises(psycopg.OperationalError, match='database "nope" does not exist'):
        psycopg.connect(f"host=127.0.0.1 port={server.port} user=materialize dbname=nope")
