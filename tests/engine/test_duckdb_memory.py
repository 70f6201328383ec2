"""DuckDB in the server's process is bounded (engine/duckdb.py's memory_limit), and a statement past the limit is
53200 `out of memory` (engine/duckdb_errors.py), not an internal error."""

from __future__ import annotations

import duckdb
import pytest

from sparkwire.engine.duckdb import DuckDBEngine
from sparkwire.engine.duckdb_errors import map_duckdb_error
from sparkwire.engine.spark_sizing import machine_memory, parse_size


def test_duckdb_takes_at_most_a_quarter_of_the_machine() -> None:
    engine = DuckDBEngine(None)
    try:
        _, batches = engine.connect().query("SELECT current_setting('memory_limit')")
        limit = next(iter(batches)).column(0)[0].as_py()
    finally:
        engine.close()
    assert parse_size(limit.replace(" ", "")) <= machine_memory() // 4 * 1.01, limit


def test_a_statement_past_duckdbs_memory_limit_is_53200() -> None:
    con = duckdb.connect(":memory:", config={"memory_limit": "64MB", "temp_directory": ""})
    with pytest.raises(duckdb.Error) as caught:
        con.execute("SELECT list(repeat('x', 1000) || g::VARCHAR) FROM range(2000000) t(g)").fetchall()
    error = map_duckdb_error(caught.value)
    assert (error.code, error.message) == ("53200", "out of memory")
    assert error.hint
