"""Secrets and connections through the wire (psycopg against the session's sparkwire server): CREATE / ALTER /
DROP SECRET, CREATE / VALIDATE / DROP CONNECTION TO POSTGRES against a real upstream, SHOW, the catalog relations,
and that a secret's value is readable nowhere: not through SQL, not in the catalog, not in the statement history."""

from __future__ import annotations

import sqlite3
import stat
import time
import uuid
from pathlib import Path

import psycopg
import pytest

from tests.support.clients import as_role
from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer

Conn = psycopg.Connection[tuple[object, ...]]


def _error(conn: Conn, sql: str) -> psycopg.Error:
    with pytest.raises(psycopg.Error) as info:
        conn.execute(sql)
    return info.value


def test_secret_lifecycle_and_secrecy(sw: Conn, server: SparkwireServer, role: str) -> None:
    name, value = "s_" + uuid.uuid4().hex[:8], "hunter2-" + uuid.uuid4().hex
    sw.execute(f"CREATE SECRET {name} AS '{value}'")
    assert _error(sw, f"CREATE SECRET {name} AS 'x'").sqlstate == "42710"
    sw.execute(f"CREATE SECRET IF NOT EXISTS {name} AS 'x'")
    assert (name, None) in sw.execute("SHOW SECRETS").fetchall()
    rows = sw.execute(f"SELECT id, oid, schema_id, name, owner_id, privileges FROM mz_secrets WHERE name = '{name}'")
    assert len(rows.fetchall()) == 1
    assert sw.execute(f"SHOW CREATE SECRET {name}").fetchone() == (
        f"materialize.public.{name}", f"CREATE SECRET materialize.public.{name} AS '********'"
    )
    sw.execute(f"ALTER SECRET {name} AS '{value}-2'")
    # The value is nowhere SQL can reach: every catalog relation's text, the history, the activity view.
    found = sw.execute(
        "SELECT count(*) FROM mz_objects o JOIN mz_catalog.mz_secrets s USING (id) WHERE s.name = %s", (name,)
    ).fetchone()
    assert found == (1,)
    history = "SELECT sql FROM mz_internal.mz_recent_activity_log"
    for _ in range(50):  # the history is written from the side: wait for the CREATE SECRET to be there
        if any(f"ALTER SECRET {name}" in str(r[0]) for r in sw.execute(history).fetchall()):
            break
        time.sleep(0.1)
    else:
        raise AssertionError("ALTER SECRET never reached the statement history")
    for sql in (
        "SELECT create_sql || coalesce(redacted_create_sql, '') FROM mz_views",
        history,
        "SELECT coalesce(query, '') FROM pg_stat_activity",
        "SELECT coalesce(create_sql, '') FROM mz_connections",
    ):
        texts = [str(r[0]) for r in sw.execute(sql).fetchall()]
        assert not any(value in t for t in texts), sql
    catalog = Path(server.data_dir) / "catalog" / "catalog.db"
    with sqlite3.connect(catalog) as db:
        dump = "\n".join(db.iterdump())
    assert value not in dump and name in dump
    secrets = Path(server.data_dir) / "secrets"
    assert stat.S_IMODE((secrets / "key").stat().st_mode) == 0o600
    assert all(value.encode() not in p.read_bytes() for p in secrets.iterdir())
    # Another role may not alter or drop it, nor use it in a connection without USAGE.
    with psycopg.connect(as_role(sw.info.dsn, role), autocommit=True) as other:
        assert _error(other, f"ALTER SECRET {name} AS 'x'").sqlstate == "42501"
        assert _error(other, f"DROP SECRET {name}").sqlstate == "42501"
        options = f"HOST 'h', USER 'u', PASSWORD SECRET {name}"
        sql = f"CREATE CONNECTION c_{role} TO POSTGRES ({options}) WITH (VALIDATE = false)"
        assert _error(other, sql).sqlstate == "42501"
        sw.execute(f"GRANT USAGE ON SECRET {name} TO {role}")
        sw.execute(f"GRANT CREATE ON SCHEMA public TO {role}")
        other.execute(sql)  # USAGE on the secret (and CREATE on the schema) is what it takes
        acl = sw.execute("SELECT privileges::text FROM mz_secrets WHERE name = %s", (name,)).fetchone()
        assert acl is not None and "=U/" in str(acl[0])
        assert _error(other, f"DROP SECRET {name}").sqlstate == "42501"
        other.execute(f"DROP CONNECTION c_{role}")
        sw.execute(f"REVOKE CREATE ON SCHEMA public FROM {role}")
        sw.execute(f"REVOKE USAGE ON SECRET {name} FROM {role}")
    sw.execute(f"DROP SECRET {name}")
    assert (name, None) not in sw.execute("SHOW SECRETS").fetchall()
    assert _error(sw, f"DROP SECRET {name}").sqlstate == "42704"
    sw.execute(f"DROP SECRET IF EXISTS {name}")


def test_connection_to_postgres(sw: Conn, oracle: PostgresOracle) -> None:
    tag = uuid.uuid4().hex[:8]
    hba = oracle.datadir / "pg_hba.conf"  # this role, and only it, must give its password upstream
    hba.write_text(f"host all cdc_{tag} 127.0.0.1/32 scram-sha-256\n" + hba.read_text())
    with psycopg.connect(oracle.dsn, autocommit=True) as pg:
        pg.execute(f"CREATE ROLE cdc_{tag} LOGIN PASSWORD 'pw_{tag}'")
        pg.execute("SELECT pg_reload_conf()")
    sw.execute(f"CREATE SECRET pw_{tag} AS 'pw_{tag}'")
    sw.execute(f"CREATE SECRET bad_{tag} AS 'wrong'")
    base = f"HOST '127.0.0.1', PORT {oracle.port}, USER 'cdc_{tag}', DATABASE 'postgres'"
    sw.execute(f"CREATE CONNECTION pg_{tag} TO POSTGRES ({base}, PASSWORD SECRET pw_{tag}, SSL MODE 'disable')")
    assert (f"pg_{tag}", "postgres", None) in sw.execute("SHOW CONNECTIONS").fetchall()
    created = sw.execute(f"SHOW CREATE CONNECTION pg_{tag}").fetchone()
    assert created is not None and f"PASSWORD = SECRET materialize.public.pw_{tag}" in str(created[1])
    row = sw.execute(
        "SELECT type, create_sql, redacted_create_sql FROM mz_connections WHERE name = %s", (f"pg_{tag}",)
    ).fetchone()
    assert row is not None and row[0] == "postgres" and "'<REDACTED>'" in str(row[2]) and "127.0.0.1" in str(row[1])
    sw.execute(f"VALIDATE CONNECTION pg_{tag}")
    # A used secret cannot go without CASCADE; the connection goes with it.
    assert _error(sw, f"DROP SECRET pw_{tag}").sqlstate == "2BP01"
    # Validation errors keep PostgreSQL's SQLSTATE, or 08001 when no connection was made.
    err = _error(sw, f"CREATE CONNECTION x_{tag} TO POSTGRES ({base}, PASSWORD SECRET bad_{tag})")
    assert err.sqlstate == "28P01" and f'password authentication failed for user "cdc_{tag}"' in str(err)
    err = _error(sw, f"CREATE CONNECTION x_{tag} TO POSTGRES ({base})")  # no password at all
    assert err.sqlstate == "28P01", err
    err = _error(sw, f"CREATE CONNECTION x_{tag} TO POSTGRES (HOST '127.0.0.1', PORT 1, USER 'u')")
    assert err.sqlstate == "08001" and "Connection refused" in str(err)
    nodb = base.replace("DATABASE 'postgres'", "DATABASE 'nope'")
    err = _error(sw, f"CREATE CONNECTION x_{tag} TO POSTGRES ({nodb}, PASSWORD SECRET pw_{tag})")
    assert err.sqlstate == "3D000" and 'database "nope" does not exist' in str(err)
    sw.execute(f"CREATE CONNECTION x_{tag} TO POSTGRES (HOST '127.0.0.1', PORT 1, USER 'u') WITH (VALIDATE = false)")
    assert _error(sw, f"VALIDATE CONNECTION x_{tag}").sqlstate == "08001"
    assert _error(sw, f"CREATE CONNECTION y_{tag} TO POSTGRES (HOST 'h', USER 'u', PASSWORD 'p')").sqlstate == "22023"
    assert _error(sw, f"CREATE CONNECTION y_{tag} TO POSTGRES (HOST 'h', USER 'u', BROKER 'b')").sqlstate == "42601"
    sw.execute(f"DROP SECRET pw_{tag} CASCADE")
    assert sw.execute("SELECT count(*) FROM mz_connections WHERE name = %s", (f"pg_{tag}",)).fetchone() == (0,)
    sw.execute(f"DROP CONNECTION x_{tag}")
    sw.execute(f"DROP SECRET bad_{tag}")
