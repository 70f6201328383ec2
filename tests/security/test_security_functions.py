"""The function allowlist walked against the engines (issue 12 items 1 and 5): every function DuckDB lists
(duckdb_functions(), read on a connection of the test's own, where nothing is hidden) and every function Spark lists
(SHOW FUNCTIONS) is either a PostgreSQL function of the allowlist (planner/security/functions.py, which lists them)
or does not exist for a client: 42883, for a plain role and for the superuser, called in a select list and as a
table function. Functions that are PostgreSQL names but read session or server facts answer sparkwire's facts,
never the engine's. User objects named like engine functions or like files are just names."""

from __future__ import annotations

import re

import duckdb
import psycopg
import pytest

from sparkwire.catalog.relations.pg_keywords import KEYWORDS
from sparkwire.introspection.functions import STATE_UDFS, UDFS, udf_name
from sparkwire.planner.security.functions import ALLOWED
from tests.security.conftest import PLAIN, Conn
from tests.support.spark import shared_spark

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# Keywords to sqlglot: `apply(…)` and `show(…)` are no calls (42601), and `FROM apply(1)` names a relation
# (42P01): refused before any engine, so accepted here, by name.
_KEYWORDS = frozenset({"apply", "show"})
# Spark lists its operators as functions (and, or, not, in, between, case, when, cast, any): PostgreSQL keywords
# that are not unreserved are grammar, never a call.
_GRAMMAR_KEYWORDS = frozenset(word for word, category, _ in KEYWORDS if category != "U")


def duckdb_functions() -> set[str]:
    with duckdb.connect(":memory:") as con:
        names = {str(n) for (n,) in con.execute("SELECT DISTINCT function_name FROM duckdb_functions()").fetchall()}
    return names | {udf_name(n) for n in (*UDFS, *STATE_UDFS)} | {"sw_current_setting", "sw_set_config", "sw_pg_sleep"}


def spark_functions() -> set[str]:
    session = shared_spark().session
    return {str(row[0]).split(".")[-1] for row in session.sql("SHOW FUNCTIONS").collect()}


def refused(conn: Conn, names: list[str]) -> list[str]:
    """The calls among `name(…)`, `SELECT * FROM name(…)` and `"name"(…)` that were not refused with 42883. A
    call that does not parse with no arguments (sqlglot knows how many some names take) is tried with one, two and
    three; a syntax error is no answer, the first parseable arity must be 42883, and none may run."""
    wrong: list[str] = []
    for name in names:
        for form in ("SELECT {}({})", "SELECT * FROM {}({})", 'SELECT "{}"({})'):
            outcome = "never parsed"
            for args in ("", "1", "1, 2", "1, 2, 3"):
                sql = form.format(name, args)
                try:
                    conn.execute(sql)
                    outcome = f"{sql}: ran"
                    break
                except psycopg.Error as err:
                    if err.sqlstate == "42601":
                        continue
                    outcome = "" if err.sqlstate == "42883" else f"{sql}: {err.sqlstate} {err}"
                    break
            if name in _KEYWORDS and (outcome == "never parsed" or "42P01" in outcome):
                continue
            if outcome:
                wrong.append(outcome if outcome != "never parsed" else f"{form.format(name, '…')}: never parsed")
    return wrong


@pytest.fixture(scope="module")
def engine_names() -> dict[str, set[str]]:
    return {"duckdb": duckdb_functions(), "spark": spark_functions()}


def test_engine_lists_are_real(engine_names: dict[str, set[str]]) -> None:
    assert {"read_csv", "json_execute_serialized_sql", "enable_logging", "duckdb_tables"} <= engine_names["duckdb"]
    assert {"reflect", "java_method", "input_file_name"} <= engine_names["spark"]


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_every_engine_function_is_allowed_or_does_not_exist(
    engine_names: dict[str, set[str]], plain: Conn, admin: Conn, engine: str
) -> None:
    names = sorted(
        n for n in engine_names[engine] if _NAME.match(n) and n.lower() not in ALLOWED | _GRAMMAR_KEYWORDS
    )
    assert len(names) > 100
    for conn in (plain, admin):
        wrong = refused(conn, names)
        assert wrong == [], "\n".join(wrong)
        assert conn.execute("SELECT 1").fetchone() == (1,)


def test_allowed_engine_functions_are_listed_postgres_names(engine_names: dict[str, set[str]]) -> None:
    allowed = {n for names in engine_names.values() for n in names if n.lower() in ALLOWED}
    assert {"lower", "current_setting", "generate_series", "unnest", "pg_get_viewdef"} <= allowed
    assert not {n for n in allowed if n.startswith(("read_", "duckdb_", "pragma_", "sw_", "json_execute"))}


def test_postgres_named_functions_answer_sparkwire_facts(plain: Conn) -> None:
    row = plain.execute(
        "SELECT current_database(), current_schema(), current_user, current_role, version() LIKE 'PostgreSQL %'"
    ).fetchone()
    assert row == ("materialize", "public", PLAIN, PLAIN, True)
    on_spark = plain.execute(
        "SELECT DISTINCT current_user, session_user, user, current_role, version() LIKE 'PostgreSQL %', "
        "current_database(), current_schema FROM sec_public"
    ).fetchall()
    assert on_spark == [(PLAIN, PLAIN, PLAIN, PLAIN, True, "materialize", "public")]  # not the OS user, not Spark's
    with pytest.raises(psycopg.errors.UndefinedObject):
        plain.execute("SELECT current_setting('threads')")  # a DuckDB setting is no setting of ours
    with pytest.raises(psycopg.errors.UndefinedFunction):
        plain.execute("SELECT current_query()")  # DuckDB's would show the engine's SQL, not the client's


@pytest.mark.parametrize("spelling", ["read_csv", '"read_csv"', "pg_catalog.read_csv", "READ_CSV", "main.read_csv"])
def test_any_spelling_and_position(plain: Conn, spelling: str) -> None:
    call = f"{spelling}('/etc/passwd')"
    for sql in (
        f"SELECT * FROM {call}",
        f"SELECT (SELECT count(*) FROM {call})",
        f"WITH c AS (SELECT * FROM {call}) SELECT * FROM c",
        f"SELECT * FROM sec_public, LATERAL (SELECT * FROM {call}) x",
        f"SELECT a FROM sec_public WHERE EXISTS (SELECT 1 FROM {call})",
        f"DECLARE c CURSOR WITH HOLD FOR SELECT * FROM {call}",
        f"EXPLAIN SELECT * FROM {call}",
        f"COPY (SELECT * FROM {call}) TO STDOUT",
    ):
        with pytest.raises(psycopg.errors.UndefinedFunction):
            plain.execute(sql)
    with pytest.raises(psycopg.errors.UndefinedFunction):
        plain.execute(f"PREPARE sec_p AS SELECT * FROM {call}")
    assert plain.execute("SELECT count(*) FROM sec_public").fetchone() == (2,)


def test_bodies_and_defaults_are_checked(admin: Conn) -> None:
    for sql in (
        "CREATE VIEW sec_v AS SELECT * FROM read_text('/etc/hostname')",
        "CREATE TABLE sec_d (a text DEFAULT getenv('HOME'))",
        "CREATE INDEX ON sec_public (duckdb_memory())",
    ):
        with pytest.raises(psycopg.errors.UndefinedFunction):
            admin.execute(sql)


@pytest.mark.parametrize("name", ['"v1.2"', '"data.csv"', "read_me", "read_csv", '"/etc/passwd"', "parquet_scan"])
def test_user_objects_are_never_taken_for_files(admin: Conn, plain: Conn, name: str) -> None:
    admin.execute(f"CREATE TABLE {name} (a int)")
    try:
        admin.execute(f"INSERT INTO {name} VALUES (7)")
        assert admin.execute(f"SELECT a FROM {name}").fetchall() == [(7,)]
        admin.execute(f"CREATE VIEW {name[:-1] + '_v' + name[-1] if name.endswith(chr(34)) else name + '_v'} AS "
                      f"SELECT a FROM {name}")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            plain.execute(f"SELECT a FROM {name}")
    finally:
        admin.execute(f"DROP TABLE {name} CASCADE")


def test_a_quoted_path_is_never_read(plain: Conn) -> None:
    with pytest.raises(psycopg.errors.UndefinedTable):
        plain.execute("SELECT * FROM '/etc/passwd'")


def test_grammar_classes_follow_sqlglot() -> None:
    """Every expression sqlglot builds without a name token for a PostgreSQL function name or operator is in
    GRAMMAR (else a PostgreSQL call would be refused after a sqlglot upgrade), and the non-PostgreSQL spellings
    sqlglot parses specially are not."""
    from sqlglot import exp, parse_one
    from sqlglot.dialects.postgres import Postgres

    from sparkwire.planner.security.functions import GRAMMAR

    parser = Postgres.Parser
    names = sorted(n for n in {*parser.FUNCTIONS, *parser.FUNCTION_PARSERS} if n.lower() in ALLOWED)
    queries = [
        f"SELECT {name}({args}) FROM t"
        for name in names
        for args in ("", "a", "a, b", "a, b, c", "'x', a", "a ORDER BY b")
    ]
    queries += [f"SELECT a {op} b" for op in ("&&", "<@", "@>", "@@", "?", "#-", "^", "?|", "?&", "~", "~*", "->",
                                                "->>", "#>", "#>>")]
    missing: set[str] = set()
    for sql in queries:
        try:
            tree = parse_one(sql, read="postgres")
        except Exception:  # an arity sqlglot does not parse is no call
            continue
        for node in tree.walk():
            nameless = isinstance(node, exp.Func) and node.meta.get("start") is None
            if nameless and not isinstance(node, exp.Anonymous | exp.If) and type(node) not in GRAMMAR:
                missing.add(f"{type(node).__name__} ({sql})")
    assert not missing, sorted(missing)
    for special in (exp.ArgMax, exp.ArgMin, exp.TryCast, exp.If, exp.GapFill):
        assert special not in GRAMMAR
