"""pg_index's int2vector / oidvector columns as clients use them, on a real sparkwire server and on PostgreSQL 15
over the same DDL: the columns themselves (type oids 22 / 30, text `2 3`, binary array_send with lower bound 0),
subscripts from 0 and slices, generate_subscripts, unnest (also in FROM, WITH ORDINALITY), `= ANY`, `::text`,
array_lower / array_upper and information_schema._pg_expandarray — result column names, type oids and rows equal.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from tests.support.clients import same_schema
from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer

Conn = psycopg.Connection[tuple[Any, ...]]
DDL = (
    "CREATE SCHEMA {s}",
    "CREATE TABLE {s}.t (id integer NOT NULL, a integer, b text)",
    "CREATE INDEX t_id_idx ON {s}.t (id)",
    "CREATE INDEX t_ab_idx ON {s}.t (a, b)",
    "CREATE INDEX t_expr_idx ON {s}.t ((a + 1), b)",
)
FROM = (
    "FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid "
    "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
)
QUERIES = (
    "SELECT c.relname::text AS index, i.indkey, i.indcollation, i.indoption {from} WHERE n.nspname = '{s}' ORDER BY 1",
    "SELECT c.relname::text AS index, i.indkey[0] AS first, i.indkey[1] AS second, i.indkey[2] AS none, "
    "i.indkey[0:0] AS head, i.indkey[1:] AS tail, i.indoption[i.indnatts - 1] AS last_option "
    "{from} WHERE n.nspname = '{s}' ORDER BY 1",
    "SELECT c.relname::text AS index, generate_subscripts(i.indkey, 1) AS ord, unnest(i.indkey) AS attnum, "
    "pg_catalog.unnest(i.indoption) AS option {from} WHERE n.nspname = '{s}' ORDER BY 1, 2",
    "SELECT c.relname::text AS index, i.indkey::text AS t, array_lower(i.indkey, 1) AS lo, "
    "array_upper(i.indkey, 1) AS hi, array_to_string(i.indkey, ',') AS s "
    "{from} WHERE n.nspname = '{s}' ORDER BY 1",
    "SELECT c.relname::text AS index, a.attname::text AS column {from} JOIN pg_catalog.pg_attribute a "
    "ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) WHERE n.nspname = '{s}' ORDER BY 1, 2",
    "SELECT c.relname::text AS index, k.attnum, k.ord {from} CROSS JOIN LATERAL unnest(i.indkey) "
    "WITH ORDINALITY AS k(attnum, ord) WHERE n.nspname = '{s}' ORDER BY 1, 3",
    "SELECT c.relname::text AS index, (information_schema._pg_expandarray(i.indkey)).x AS x, "
    "(information_schema._pg_expandarray(i.indkey)).n AS n {from} WHERE n.nspname = '{s}' ORDER BY 1, 3",
    # no function is named like the schema: the result's column types are compared
    "SELECT p.proname::text AS name, p.proargtypes, p.proargtypes[0] AS first FROM pg_catalog.pg_proc p "
    "WHERE p.proname = '{s}'",
)


@pytest.fixture(scope="module")
def schema(server: SparkwireServer, oracle: PostgresOracle) -> Iterator[str]:
    yield same_schema((server.dsn, oracle.dsn), "vec", DDL)


def _run(conn: Conn, sql: str, binary: bool) -> tuple[list[tuple[str, int]], list[tuple[Any, ...]]]:
    cur = conn.cursor(binary=binary)
    cur.execute(sql)
    assert cur.description is not None
    return [(c.name, c.type_code) for c in cur.description], cur.fetchall()


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
@pytest.mark.parametrize("query", QUERIES)
def test_vector_columns_answer_like_postgres(sw: Conn, pg: Conn, schema: str, query: str, binary: bool) -> None:
    sql = query.format(s=schema, **{"from": FROM})
    assert _run(sw, sql, binary) == _run(pg, sql, binary)


def test_vector_values_on_the_wire(sw: Conn, schema: str) -> None:
    sql = f"SELECT i.indkey, i.indoption {FROM} WHERE n.nspname = '{schema}' AND c.relname = 't_ab_idx'"
    description, rows = _run(sw, sql, binary=False)
    assert description == [("indkey", 22), ("indoption", 22)]
    assert rows == [("2 3", "0 0")]
    _, binary_rows = _run(sw, sql, binary=True)
    # array_send: 1 dimension, no NULLs, int2 elements, 2 of them from lower bound 0, then (length, value) pairs
    assert binary_rows[0][0] == bytes.fromhex("00000001" "00000000" "00000015" "00000002" "00000000"
                                              "00000002" "0002" "00000002" "0003")
