"""psqlODBC (Debian's odbc-postgresql, through unixODBC and pyodbc: the Tableau / Power BI path) against sparkwire
and against PostgreSQL 15 on the same DDL in a schema of its own: catalog functions SQLTables, SQLColumns,
SQLPrimaryKeys, SQLStatistics (psqlODBC parses pg_index.indkey as int2vector text, `"1 2"`), SQLGetTypeInfo,
SQLGetInfo and a query round trip.

Each client run is a subprocess (a driver crash must fail the test, not kill pytest) that prints one JSON object.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.clients import same_schema
from tests.support.postgres import PostgresOracle
from tests.support.server import SparkwireServer

pyodbc = pytest.importorskip("pyodbc", reason="pip install pyodbc (the dev extra)")
DRIVER = "PostgreSQL Unicode"
if DRIVER not in pyodbc.drivers():
    pytest.skip("apt-get install odbc-postgresql unixodbc", allow_module_level=True)

DDL = (
    "CREATE SCHEMA {s}",
    "CREATE TABLE {s}.t (id integer NOT NULL, amount numeric(10,2), name text, v varchar(20), "
    "ts timestamp with time zone, d double precision, b bigint, flag boolean, PRIMARY KEY (id))",
    "CREATE VIEW {s}.v AS SELECT id, name FROM {s}.t",
    "CREATE INDEX t_id_idx ON {s}.t (id)",
    "CREATE INDEX t_name_b_idx ON {s}.t (name, b)",
    "CREATE INDEX t_expr_idx ON {s}.t ((b + 1), flag)",
)

CLIENT = r"""
import json, sys
import pyodbc
port, user, db, schema = sys.argv[1:5]
conn = pyodbc.connect(f"DRIVER={{PostgreSQL Unicode}};SERVER=127.0.0.1;PORT={port};DATABASE={db};UID={user};",
                      autocommit=True)
cur = conn.cursor()
out = {
    "dbms": conn.getinfo(pyodbc.SQL_DBMS_NAME),
    "tables": [[r.table_schem, r.table_name, r.table_type] for r in cur.tables(schema=schema)],
    "columns": [[r.column_name, r.type_name, r.data_type, r.column_size, r.decimal_digits, r.nullable,
                 r.ordinal_position] for r in cur.columns(table="t", schema=schema)],
    "view_columns": [[r.column_name, r.type_name] for r in cur.columns(table="v", schema=schema)],
    "primary_keys": [list(r) for r in cur.primaryKeys("t", schema=schema)],
    "statistics": [[r.non_unique, r.index_qualifier, r.index_name, r.type, r.ordinal_position, r.column_name,
                    r.asc_or_desc] for r in cur.statistics("t", schema=schema)],
    "type_info": sorted([r.type_name, r.data_type] for r in cur.getTypeInfo()),
    "query": [[str(v) for v in row] for row in cur.execute(
        "SELECT 1, 'a'::text, 1.5::numeric(5,2), DATE '2024-01-02', true").fetchall()],
}
print(json.dumps(out))
"""


def run(tmp: Path, port: int, user: str, db: str, schema: str) -> dict[str, Any]:
    script = tmp / "odbc_client.py"
    script.write_text(CLIENT)
    result = subprocess.run([sys.executable, str(script), str(port), user, db, schema],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    loaded: dict[str, Any] = json.loads(result.stdout)
    return loaded


def test_odbc_catalog_functions(tmp_path: Path, server: SparkwireServer, oracle: PostgresOracle) -> None:
    schema = same_schema((server.dsn, oracle.dsn), "odbc", DDL)
    got = run(tmp_path, server.port, "materialize", "materialize", schema)
    want = run(tmp_path, oracle.port, "postgres", "postgres", schema)
    assert got["dbms"] == want["dbms"] == "PostgreSQL"
    for key in ("tables", "columns", "view_columns", "statistics", "type_info", "query"):
        assert got[key] == want[key], key
    # SQLPrimaryKeys names the database as the catalog
    assert [row[1:] for row in got["primary_keys"]] == [row[1:] for row in want["primary_keys"]]
    assert got["primary_keys"] == [["materialize", schema, "t", "id", 1, "t_pkey"]]
    assert got["tables"] == [[schema, "t", "TABLE"], [schema, "v", "VIEW"]]
    assert got["columns"][1] == ["amount", "numeric", 2, 10, 2, 1, 2]
    assert [row[2] + "." + str(row[5]) for row in got["statistics"]] == [
        "t_pkey.id", "t_expr_idx.(b + 1)", "t_expr_idx.flag", "t_id_idx.id", "t_name_b_idx.name", "t_name_b_idx.b"
    ]
