"""Keywords as column labels (issue 13, item 3): every keyword PostgreSQL lists in pg_get_keywords() — the oracle's
own list — is tried as a label after AS and without it, in constant selects, over a relation and in one select
list over a user table (Spark), and sparkwire must accept exactly what PostgreSQL accepts, name the columns as it
does and fail with the same SQLSTATE where it fails."""

from __future__ import annotations

import uuid

import psycopg
import pytest

from tests.fidelity.outcomes import Outcome
from tests.support.postgres import PostgresOracle

Conn = psycopg.Connection[tuple[object, ...]]

FORMS = (
    "SELECT 1 AS {w}",
    "SELECT 1 {w}",
    "SELECT x AS {w}, x FROM (VALUES (1)) AS v(x)",
    "SELECT x {w} FROM (VALUES (1)) AS v(x)",
    "SELECT (SELECT x {w}) FROM (VALUES (1)) AS v(x)",
)


def _labelled(conn: Conn, sql: str) -> Outcome:
    try:
        cur = conn.execute(sql)
    except psycopg.Error as err:
        return ("error", err.sqlstate)
    assert cur.description is not None
    return ("rows", ([d.name for d in cur.description], cur.fetchall()))


@pytest.fixture(scope="module")
def keywords(oracle: PostgresOracle) -> list[tuple[str, bool]]:
    """(word, can be a bare label) for every keyword of the oracle's pg_get_keywords()."""
    with psycopg.connect(oracle.dsn) as conn:
        rows = conn.execute("SELECT word, barelabel FROM pg_get_keywords() ORDER BY word").fetchall()
    return [(str(word), bool(bare)) for word, bare in rows]


def test_the_oracle_lists_the_keywords(keywords: list[tuple[str, bool]]) -> None:
    words = {w for w, _ in keywords}
    assert len(words) > 400 and {"select", "from", "not", "order", "year", "and"} <= words


@pytest.mark.parametrize("form", FORMS)
def test_every_keyword_as_a_label(sw: Conn, pg: Conn, keywords: list[tuple[str, bool]], form: str) -> None:
    differing = {}
    for word, _ in keywords:
        sql = form.format(w=word)
        theirs, ours = _labelled(pg, sql), _labelled(sw, sql)
        if theirs != ours:
            differing[sql] = (theirs, ours)
    assert differing == {}


def test_every_keyword_labels_a_user_tables_column(sw: Conn, pg: Conn, keywords: list[tuple[str, bool]]) -> None:
    """One select list over a user table with every keyword as a label after AS: the Spark route."""
    table = f"kw_{uuid.uuid4().hex[:8]}"
    items = ", ".join(f"a + {i} AS {word}" for i, (word, _) in enumerate(keywords))
    for conn in (sw, pg):
        conn.execute(f"CREATE TABLE {table} (a int)")
        conn.execute(f"INSERT INTO {table} VALUES (1)")
    try:
        sql = f"SELECT {items} FROM {table}"
        ours = _labelled(sw, sql)
        assert ours == _labelled(pg, sql)
        assert ours[0] == "rows"
    finally:
        for conn in (sw, pg):
            conn.execute(f"DROP TABLE {table}")


def test_a_bi_tools_catalog_query_with_keyword_labels(sw: Conn, pg: Conn) -> None:
    """A catalog query shaped like the ones BI tools send (column metadata under keyword labels)."""
    table = f"kw_{uuid.uuid4().hex[:8]}"
    sql = f"""
        SELECT n.nspname AS schema, c.relname AS table, a.attname AS column,
               pg_catalog.format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS notnull_flag,
               a.attnum AS order, NOT a.attnotnull nullable, a.attnum position, 'x' AS default, a.attname user
          FROM pg_catalog.pg_attribute a
          JOIN pg_catalog.pg_class c ON a.attrelid = c.oid
          JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
         WHERE c.relname = '{table}' AND a.attnum > 0 AND NOT a.attisdropped
         ORDER BY a.attnum"""
    for conn in (sw, pg):
        conn.execute(f"CREATE TABLE {table} (id bigint NOT NULL, name text, amount numeric(10, 2))")
    try:
        ours = _labelled(sw, sql)
        assert ours == _labelled(pg, sql)
        assert ours[0] == "rows"
    finally:
        for conn in (sw, pg):
            conn.execute(f"DROP TABLE {table}")


def test_keyword_labels_in_returning(sw: Conn, pg: Conn) -> None:
    table = f"kw_{uuid.uuid4().hex[:8]}"
    for conn in (sw, pg):
        conn.execute(f"CREATE TABLE {table} (a int)")
    try:
        for sql in (
            f"INSERT INTO {table} VALUES (1) RETURNING a AS select, a not, a + 1 AS from",
            f"UPDATE {table} SET a = 2 RETURNING a AS order, a and",
            f"DELETE FROM {table} RETURNING a year",  # 42601: requires AS
        ):
            ours = _labelled(sw, sql)
            assert ours == _labelled(pg, sql)
        assert _labelled(sw, f"SELECT count(*) FROM {table}") == ("rows", (["count"], [(1,)]))
    finally:
        for conn in (sw, pg):
            conn.execute(f"DROP TABLE {table}")
