"""Materialize's session conventions (issue 20, part 1): the variables its clients send in the startup options, SET
and SHOW, the mz_version ParameterStatus in Materialize's format, and the welcome NOTICE."""

from __future__ import annotations

import re

import psycopg
import pytest

from sparkwire.planner.statements.materialize_variables import MZ_VARIABLES
from tests.support.server import SparkwireServer

DBT_MATERIALIZE_OPTIONS = (
    "--auto_route_catalog_queries=on --welcome_message=off --current_object_missing_warnings=off "
    "--search_path=public"
)


def test_dbt_materialize_startup_options(server: SparkwireServer) -> None:
    notices: list[str] = []
    with psycopg.connect(server.dsn, options=DBT_MATERIALIZE_OPTIONS, autocommit=True) as conn:
        conn.add_notice_handler(lambda d: notices.append(d.message_primary or ""))
        mz_version = conn.info.parameter_status("mz_version")
        assert mz_version is not None
        version = mz_version.split()[0][1:]  # what dbt-materialize checks against ">=0.68.0"
        assert re.fullmatch(r"\d+\.\d+\.\d+", version) and tuple(map(int, version.split("."))) >= (0, 68, 0)
        assert conn.execute("SHOW mz_version").fetchone() == (mz_version,)
        assert conn.execute("SHOW welcome_message").fetchone() == ("off",)
        assert conn.execute("SHOW current_object_missing_warnings").fetchone() == ("off",)
        assert conn.execute("SELECT 1").fetchone() == (1,)
    assert notices == []


@pytest.mark.parametrize(("name", "default", "kind"), [(n, d, k) for n, d, k, _ in MZ_VARIABLES])
def test_materialize_variables_set_and_show(server: SparkwireServer, name: str, default: str, kind: str) -> None:
    other = {"bool": "off" if default == "on" else "on", "text": "r1", "duration": "5s", "ratio": "0.5", "count": "2"}
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        assert conn.execute(f"SHOW {name}").fetchone() == (default,)
        conn.execute(f"SET {name} = '{other[kind]}'")
        assert conn.execute(f"SHOW {name}").fetchone() == (other[kind],)
        assert conn.execute(f"SELECT current_setting('{name}')").fetchone() == (other[kind],)
        conn.execute(f"RESET {name}")
        assert conn.execute(f"SHOW {name}").fetchone() == (default,)
        if kind != "text":
            with pytest.raises(psycopg.errors.InvalidParameterValue):
                conn.execute(f"SET {name} = 'not a value'")


def test_mz_version_is_read_only_and_unknown_parameters_still_fail(server: SparkwireServer) -> None:
    """(The welcome NOTICE itself is checked on the raw wire: tests/server/test_protocol.py.)"""
    with psycopg.connect(server.dsn, autocommit=True) as conn, pytest.raises(psycopg.errors.CantChangeRuntimeParam):
        conn.execute("SET mz_version = 'v1.0.0'")
    with pytest.raises(psycopg.OperationalError, match='unrecognized configuration parameter "nope"'):
        psycopg.connect(server.dsn, options="--nope=1")


def test_mz_version_functions(sw: psycopg.Connection[tuple[object, ...]]) -> None:
    """Materialize's mz_version() is the mz_version parameter; mz_version_num() is major·10000 + minor·100 + patch."""
    reported = sw.info.parameter_status("mz_version")
    row = sw.execute("SELECT mz_version(), mz_catalog.mz_version(), mz_version_num(), pg_typeof(mz_version_num())")
    version, qualified, number, kind = row.fetchone() or ()
    assert version == qualified == reported
    parsed = re.match(r"v(\d+)\.(\d+)\.(\d+) ", str(version))
    assert parsed is not None
    major, minor, patch = (int(p) for p in parsed.groups())
    assert (number, kind) == (major * 10_000 + minor * 100 + patch, "integer")
    with pytest.raises(psycopg.errors.UndefinedFunction):
        sw.execute("SELECT mz_internal.mz_version()")
