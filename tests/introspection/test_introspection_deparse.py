"""View definitions and default expressions deparsed as PostgreSQL 15 prints them, compared with a real PostgreSQL.

The same tables and views are created on a real sparkwire server and on the oracle; for every view,
pg_get_viewdef(oid) (non-pretty), pg_get_viewdef(oid, true) (pretty), pg_views.definition and
information_schema.views.view_definition must be equal on both, as must a materialized view's definition in
pg_matviews and pg_get_viewdef(oid, wrap_column). A shape the deparser does not reproduce falls back to the query
as written (no database qualifiers), never an error. Column defaults: pg_get_expr(adbin, adrelid), atthasdef and
information_schema.columns.column_default per column are PostgreSQL's.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer

Conn = psycopg.Connection[tuple[Any, ...]]

TABLES = (
    "CREATE TABLE dp_t (id integer NOT NULL, amount numeric(10,2), name text DEFAULT 'x', ts timestamptz)",
    "CREATE TABLE dp_u (id integer, label varchar(20), code char(3))",
    "CREATE SCHEMA dp_s",
    "CREATE TABLE dp_s.dp_w (k bigint, f double precision)",
)

# Views whose output column names PostgreSQL and sparkwire agree on (unaliased function calls aside).
VIEWS: dict[str, str] = {
    "dp_plain": "SELECT id, name FROM dp_t WHERE id > 1",
    "dp_star": "SELECT * FROM dp_t",
    "dp_qualified_star": "SELECT dp_t.* FROM dp_t",
    "dp_join": (
        "SELECT dp_t.id AS ident, dp_u.label, count(*) AS n, sum(amount) AS total FROM dp_t "
        "JOIN dp_u ON dp_t.id = dp_u.id WHERE name = 'a' AND amount > 1.5 OR dp_t.id < 3 "
        "GROUP BY dp_t.id, dp_u.label HAVING count(*) > 1 ORDER BY 1 DESC LIMIT 10"
    ),
    "dp_union": "SELECT id FROM dp_t UNION SELECT id FROM dp_u",
    "dp_union_except": "SELECT id FROM dp_t UNION ALL SELECT id FROM dp_u EXCEPT SELECT 5",
    "dp_left_join": "SELECT a.id, b.label FROM dp_t a LEFT JOIN dp_u b ON a.id = b.id",
    "dp_joins": (
        "SELECT a.id, b.label, c.k FROM dp_t a JOIN dp_u b ON a.id = b.id "
        "FULL JOIN dp_s.dp_w c ON c.k = a.id CROSS JOIN dp_u d"
    ),
    "dp_constants": (
        "SELECT 1 AS one, 'x' AS s, 1.5 AS f, true AS b, NULL AS n, -1 AS neg, -2.5 AS negf, "
        "3000000000 AS big, now() AS ts"
    ),
    "dp_expressions": (
        "SELECT id + 1 AS x, -id AS neg, id * 2 + 3 AS y, name || 'z' AS c, "
        "CASE WHEN id > 1 THEN 'a' ELSE 'b' END AS k, CASE WHEN id > 2 THEN 1 END AS k2, "
        "coalesce(name, 'q') AS q, id IN (1, 2) AS inn, id NOT IN (3) AS notin, name LIKE 'a%' AS lk, "
        "name NOT LIKE 'b%' AS nlk, name IS NULL AS isn, NOT (id > 1) AS nt FROM dp_t"
    ),
    "dp_negations": (
        "SELECT NOT (id IN (1, 2)) AS a, NOT (name LIKE 'x') AS b, id NOT BETWEEN 1 AND 2 AS c, "
        "NOT (id BETWEEN 1 AND 2) AS d, name NOT ILIKE 'y' AS e FROM dp_t"
    ),
    "dp_distinct": "SELECT DISTINCT name FROM dp_t ORDER BY name",
    "dp_casts": "SELECT id::text AS s, cast(amount AS integer) AS i, amount::numeric(5,1) AS n FROM dp_t",
    "dp_subquery": "SELECT x.id, x.doubled FROM (SELECT id, id * 2 AS doubled FROM dp_t) x WHERE x.id > 0",
    "dp_limits": "SELECT id FROM dp_t ORDER BY id LIMIT 5 OFFSET 2",
    "dp_comma": "SELECT dp_t.id, dp_u.id AS uid FROM dp_t, dp_u WHERE dp_t.id = dp_u.id",
    "dp_aggregates": (
        "SELECT count(DISTINCT id) AS c, max(name) AS mx, min(amount) AS mn, avg(amount) AS av, "
        "sum(id) AS si, avg(id) AS ai FROM dp_t"
    ),
    "dp_comparisons": "SELECT id BETWEEN 1 AND 5 AS bt, id <> 2 AS ne, id >= 2 AND id <= 3 AS r FROM dp_t",
    "dp_functions": "SELECT upper(name) AS up, lower(label) AS low, length(name) AS len, label FROM dp_t, dp_u",
    "dp_varchar": "SELECT label FROM dp_u WHERE label = 'a' AND code = 'abc'",
    "dp_numeric_coercion": "SELECT amount FROM dp_t WHERE amount > 1 AND id < 2.5",
    "dp_unknown_literal": "SELECT id FROM dp_t WHERE id = '5' AND name <> 'b' ORDER BY name DESC NULLS LAST, id",
    "dp_arithmetic": (
        "SELECT id - 1 - 2 AS a, id - (1 - 2) AS b, (id + 1) * 2 AS c, id * 2 + 1 AS d, "
        "(id + 1)::text AS e, id % 2 AS m, k / 2 AS q, f * 1.5 AS g FROM dp_t, dp_s.dp_w"
    ),
    "dp_booleans": "SELECT id FROM dp_t WHERE NOT (id > 1 AND id < 5) OR (id = 3 OR id = 4) AND name IS NOT NULL",
    "dp_group_alias": "SELECT name AS label, count(*) AS n FROM dp_t GROUP BY name ORDER BY n",
    "dp_quoted": 'SELECT id AS "Id", name AS "two words" FROM dp_t',
    "dp_other_schema": "SELECT k, f FROM dp_s.dp_w WHERE k > 10",
    "dp_no_from": "SELECT 1 + 2 AS three",
    "dp_sublinks": (
        "SELECT id FROM dp_t WHERE id > (SELECT max(id) FROM dp_u) AND EXISTS (SELECT 1 FROM dp_u WHERE "
        "dp_u.id = dp_t.id) AND id NOT IN (SELECT id FROM dp_u) OR name IN (SELECT label FROM dp_u)"
    ),
    "dp_scalar_sublinks": (
        "SELECT id, (SELECT max(dp_u.id) AS m FROM dp_u WHERE dp_u.id < dp_t.id) AS mx, "
        "EXISTS (SELECT * FROM dp_u) AS e, id = ANY (SELECT id FROM dp_u) AS a, id < ALL (SELECT id FROM dp_u) AS l "
        "FROM dp_t"
    ),
    "dp_using": "SELECT * FROM dp_t JOIN dp_u USING (id)",
    "dp_using_left": "SELECT id, label FROM dp_t x LEFT JOIN dp_u USING (id) WHERE id > 1",
    "dp_using_right_full": (
        "SELECT id, a.name, b.code FROM dp_t a RIGHT JOIN dp_u b USING (id) FULL JOIN (SELECT 1 AS id) c USING (id)"
    ),
    "dp_nested_from": "SELECT x.up FROM (SELECT id + 1, upper(name) AS up FROM dp_t) x",
}

DEFAULTS = (
    ("a", "text", "'x'"),
    ("b", "varchar(10)", "'y'"),
    ("c", "integer", "0"),
    ("e", "numeric", "1.5"),
    ("f", "timestamptz", "now()"),
    ("g", "date", "'2020-01-01'"),
    ("h", "boolean", "true"),
    ("i", "integer", "NULL"),
    ("j", "bigint", "5"),
    ("k", "smallint", "3"),
    ("l", "double precision", "2.5"),
    ("m", "real", "1"),
    ("n", "numeric(10,2)", "3"),
    ("o", "integer", "-1"),
    ("q", "timestamp", "CURRENT_TIMESTAMP"),
    ("r", "char(3)", "'ab'"),
    ("s", "jsonb", "'{}'"),
    ("u", "text", "upper('a')"),
    ("v", "integer", "1 + 2"),
    ("w", "bigint", "3000000000"),
    ("x", "text[]", "'{}'"),
    ("y", "date", "CURRENT_DATE"),
    ("z", "float8", "-2.5"),
    ("aa", "boolean", "false"),
    ("ab", "text", "''"),
    ("ac", "text", "'it''s'"),
    ("ad", "integer", "'7'"),
    ("ae", "numeric", "'2'"),
    ("af", "timestamp", "'2020-01-01 10:00'"),
    ("ag", "double precision", "1e3"),
    ("ah", "text", "current_user"),
    ("ai", "timestamp", "localtimestamp"),
    ("aj", "bigint", "CAST(5 AS bigint)"),
    ("ak", "text", "coalesce(NULL, 'x')"),
    ("al", "integer", "(2 * 3 + 1)"),
    ("am", "numeric(5,2)", "-1.5"),
    ("an", "text", "'a' || 'b'"),
    ("ao", "date", "now()"),
)

FALLBACK_VIEW = ("dp_fallback", "SELECT id, row_number() OVER (ORDER BY id) AS rn FROM dp_t")


def _create_all(conn: Conn) -> None:
    for sql in TABLES:
        conn.execute(sql)
    for name, query in VIEWS.items():
        conn.execute(f"CREATE VIEW {name} AS {query}")
    conn.execute("CREATE MATERIALIZED VIEW dp_mat AS SELECT id, name FROM dp_t WHERE id > 1")
    conn.execute(f"CREATE VIEW {FALLBACK_VIEW[0]} AS {FALLBACK_VIEW[1]}")
    columns = ", ".join(f"{name} {sql_type} DEFAULT {default}" for name, sql_type, default in DEFAULTS)
    conn.execute(f"CREATE TABLE dp_d ({columns})")


def _drop_all(conn: Conn) -> None:
    conn.execute(f"DROP VIEW IF EXISTS {', '.join([*VIEWS, FALLBACK_VIEW[0]])}")
    conn.execute("DROP MATERIALIZED VIEW IF EXISTS dp_mat")
    conn.execute("DROP TABLE IF EXISTS dp_t, dp_u, dp_d, dp_s.dp_w")
    conn.execute("DROP SCHEMA IF EXISTS dp_s")


@pytest.fixture(scope="module")
def both(server: SparkwireServer, oracle: PostgresOracle) -> Iterator[tuple[Conn, Conn]]:
    with (
        psycopg.connect(server.dsn, autocommit=True) as ours,
        psycopg.connect(oracle.dsn, autocommit=True) as theirs,
    ):
        _create_all(ours)
        _create_all(theirs)
        try:
            yield ours, theirs
        finally:
            _drop_all(ours)
            _drop_all(theirs)


_DEFINITIONS = (
    "SELECT pg_get_viewdef('{0}'::regclass), pg_get_viewdef('{0}'::regclass, true), "
    "(SELECT definition FROM pg_views WHERE viewname = '{0}'), "
    "(SELECT view_definition FROM information_schema.views WHERE table_name = '{0}')"
)


@pytest.mark.parametrize("view", VIEWS)
def test_view_definition_matches_postgres(both: tuple[Conn, Conn], view: str) -> None:
    ours, theirs = both
    sql = _DEFINITIONS.format(view)
    assert ours.execute(sql).fetchone() == theirs.execute(sql).fetchone()


@pytest.mark.parametrize("view", ["dp_join", "dp_comma", "dp_expressions", "dp_sublinks", "dp_using"])
@pytest.mark.parametrize("wrap", [20, 80])
def test_wrap_column_matches_postgres(both: tuple[Conn, Conn], view: str, wrap: int) -> None:
    ours, theirs = both
    sql = f"SELECT pg_get_viewdef('{view}'::regclass, {wrap})"
    assert ours.execute(sql).fetchone() == theirs.execute(sql).fetchone()


def test_pretty_mode_drops_parentheses(both: tuple[Conn, Conn]) -> None:
    ours, _ = both
    row = ours.execute(_DEFINITIONS.format("dp_plain")).fetchone()
    assert row is not None
    plain, pretty, pg_views, information_schema = row
    assert plain == " SELECT dp_t.id,\n    dp_t.name\n   FROM dp_t\n  WHERE (dp_t.id > 1);"
    assert pretty == " SELECT dp_t.id,\n    dp_t.name\n   FROM dp_t\n  WHERE dp_t.id > 1;"
    assert pg_views == information_schema == plain


def test_materialized_view_definition_matches_postgres(both: tuple[Conn, Conn]) -> None:
    ours, theirs = both
    sql = (
        "SELECT pg_get_viewdef('dp_mat'::regclass), pg_get_viewdef('dp_mat'::regclass, true), definition "
        "FROM pg_matviews WHERE matviewname = 'dp_mat'"
    )
    assert ours.execute(sql).fetchall() == theirs.execute(sql).fetchall()


def test_unsupported_shape_falls_back_to_the_query_as_written(both: tuple[Conn, Conn]) -> None:
    ours, _ = both
    row = ours.execute(_DEFINITIONS.format(FALLBACK_VIEW[0])).fetchone()
    assert row is not None
    assert row[0] == row[1] == row[2] == " SELECT id, ROW_NUMBER() OVER (ORDER BY id) AS rn FROM dp_t;"


def test_default_expressions_match_postgres(both: tuple[Conn, Conn]) -> None:
    ours, theirs = both
    sql = (
        "SELECT a.attname, a.atthasdef, pg_get_expr(d.adbin, d.adrelid), c.column_default "
        "FROM pg_attribute a JOIN pg_class r ON r.oid = a.attrelid "
        "LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum "
        "JOIN information_schema.columns c ON c.table_name = r.relname AND c.column_name = a.attname "
        "WHERE r.relname = 'dp_d' AND a.attnum > 0 ORDER BY a.attnum"
    )
    mine, expected = ours.execute(sql).fetchall(), theirs.execute(sql).fetchall()
    assert len(expected) == len(DEFAULTS)
    assert mine == expected
