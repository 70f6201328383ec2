"""EXPLAIN's options (issue 13, item 3): PostgreSQL's option syntax and its errors (compared with the oracle),
FORMAT JSON as one json value, VERBOSE's output columns and Spark's every plan, and EXPLAIN ANALYZE, which runs the
query and reports what Spark really did: its rows, time, jobs and stages — checked against the query's own answer
and against mz_internal.mz_spark_jobs, where the server records every Spark job a statement ran."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from tests.fidelity.outcomes import outcome
from tests.support.clients import poll

Conn = psycopg.Connection[tuple[object, ...]]
JSON_OID = 114
ROWS = 20_000  # more than the 10,000 rows read into memory as a local relation: a Parquet scan on Spark


@pytest.fixture(scope="module")
def table(dsn: str) -> Iterator[str]:
    name = f"ex_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"CREATE TABLE {name} (a int, b text)")
        conn.execute(f"INSERT INTO {name} SELECT g, 'g' || (g % 7) FROM generate_series(1, {ROWS}) AS g")
        yield name
        conn.execute(f"DROP TABLE {name}")


def _json(conn: Conn, sql: str, params: tuple[object, ...] = ()) -> Any:
    """The one json value of an EXPLAIN (FORMAT JSON)."""
    rows = conn.execute(sql, params or None).fetchall()
    assert len(rows) == 1
    return rows[0][0]


def _lines(conn: Conn, sql: str, params: tuple[object, ...] = ()) -> list[str]:
    return [str(row[0]) for row in conn.execute(sql, params or None).fetchall()]


@pytest.mark.parametrize(
    "sql",
    [
        "EXPLAIN (nonsense) SELECT 1",  # 42601 unrecognized EXPLAIN option "nonsense"
        "EXPLAIN (ANALYZE maybe) SELECT 1",  # 42601 analyze requires a Boolean value
        "EXPLAIN (ANALYZE yes) SELECT 1",
        "EXPLAIN (FORMAT) SELECT 1",  # 42601 format requires a parameter
        "EXPLAIN (FORMAT csv) SELECT 1",  # 22023 unrecognized value for EXPLAIN option "format"
        "EXPLAIN (WAL) SELECT 1",  # 22023 EXPLAIN option WAL requires ANALYZE
        "EXPLAIN (TIMING) SELECT 1",  # 22023 EXPLAIN option TIMING requires ANALYZE
        "EXPLAIN (ANALYZE, VERBOSE,) SELECT 1",  # 42601
        "EXPLAIN (ANALYZE",  # 42601
        "EXPLAIN",  # 42601
    ],
)
def test_option_errors_are_postgresqls(sw: Conn, pg: Conn, sql: str) -> None:
    ours = outcome(sw, sql)
    assert ours[0] == "error"
    assert ours == outcome(pg, sql)
    assert outcome(sw, "SELECT 1") == ("rows", [(1,)])  # the session goes on


def test_option_errors_carry_postgresqls_message(sw: Conn, pg: Conn) -> None:
    for sql in (
        "EXPLAIN (nonsense) SELECT 1",
        "EXPLAIN (ANALYZE maybe) SELECT 1",
        "EXPLAIN (FORMAT csv) SELECT 1",
        "EXPLAIN (FORMAT) SELECT 1",
    ):
        with pytest.raises(psycopg.Error) as ours:
            sw.execute(sql)
        with pytest.raises(psycopg.Error) as theirs:
            pg.execute(sql)
        assert ours.value.diag.message_primary == theirs.value.diag.message_primary


@pytest.mark.parametrize(
    "sql",
    [
        "EXPLAIN (COSTS OFF, BUFFERS, SUMMARY off, SETTINGS true) SELECT 1",
        "EXPLAIN (ANALYZE, TIMING false, WAL, BUFFERS 1) SELECT 1",
        "EXPLAIN (ANALYSE 'on', FORMAT TEXT) SELECT 1",
        "EXPLAIN ANALYZE VERBOSE SELECT 1",
    ],
)
def test_options_postgresql_accepts_are_accepted(sw: Conn, pg: Conn, sql: str) -> None:
    assert outcome(pg, sql)[0] == "rows"
    assert outcome(sw, sql)[0] == "rows"


def test_format_json_is_one_json_value(sw: Conn, pg: Conn, table: str) -> None:
    for conn, sql in ((pg, "EXPLAIN (FORMAT JSON) SELECT 1"), (sw, f"EXPLAIN (FORMAT JSON) SELECT b FROM {table}")):
        cur = conn.execute(sql)
        assert cur.description is not None and [d.type_code for d in cur.description] == [JSON_OID]
        assert [d.name for d in cur.description] == ["QUERY PLAN"]
        rows = cur.fetchall()
        assert len(rows) == 1
        document = rows[0][0]
        assert isinstance(document, list) and len(document) == 1 and "Plan" in document[0]
    plan = _json(sw, f"EXPLAIN (FORMAT JSON) SELECT b FROM {table} WHERE a > 1")[0]["Plan"]
    assert plan["Node Type"] == "Spark" and any("Scan parquet" in line for line in plan["Spark Plan"])
    scan = _json(sw, f"EXPLAIN (FORMAT JSON) SELECT b AS label FROM {table} LIMIT 3")[0]["Plan"]
    assert scan == {"Node Type": "Storage Scan", "Relation": f"materialize.public.{table}", "Output": ["b AS label"],
                    "Limit": 3}
    constant = _json(sw, "EXPLAIN (FORMAT JSON) SELECT 1")[0]["Plan"]
    assert constant["Node Type"] == "DuckDB"


def test_materializes_forms_still_work(sw: Conn, table: str) -> None:
    plain = _lines(sw, f"EXPLAIN SELECT a FROM {table} WHERE b <> 'x'")
    assert plain[0].startswith("Spark: ")
    for head in (
        "EXPLAIN PLAN FOR",
        "EXPLAIN OPTIMIZED PLAN FOR",
        "EXPLAIN PHYSICAL PLAN FOR",
        "EXPLAIN WITH (redacted)",
    ):
        assert _lines(sw, f"{head} SELECT a FROM {table} WHERE b <> 'x'")[0] == plain[0]
    assert _lines(sw, f"EXPLAIN SELECT a FROM {table}") == [f"Storage scan: materialize.public.{table}",
                                                              "  Project: a"]
    document = _json(sw, f"EXPLAIN OPTIMIZED PLAN AS JSON FOR SELECT a FROM {table} WHERE b <> 'x'")
    assert document[0]["Plan"]["Node Type"] == "Spark"
    assert _lines(sw, "EXPLAIN WITH x AS (SELECT 1 AS y) SELECT y FROM x")[0] == "DuckDB (introspection store)"
    assert outcome(sw, "EXPLAIN (FORMAT XML) SELECT 1") == ("error", "0A000")


def test_verbose_shows_output_columns_and_every_spark_plan(sw: Conn, table: str) -> None:
    lines = _lines(sw, f"EXPLAIN VERBOSE SELECT a, b AS label FROM {table} WHERE a = 3")
    assert "Output: a integer, label text" in lines
    text = "\n".join(lines)
    for section in ("Parsed Logical Plan", "Analyzed Logical Plan", "Optimized Logical Plan", "Physical Plan"):
        assert f"== {section} ==" in text
    assert "== Parsed Logical Plan ==" not in "\n".join(_lines(sw, f"EXPLAIN SELECT a FROM {table} WHERE a = 3"))


def _analyzed(lines: list[str]) -> dict[str, str]:
    return {
        m.group(1): m.group(2)
        for line in lines
        if (m := re.match(r"(Actual Rows|Spark Jobs|Execution Time): (.*)", line))
    }


def test_analyze_runs_the_query_and_reports_sparks_work(sw: Conn, table: str) -> None:
    expected = sw.execute(f"SELECT count(*) FROM (SELECT b, count(*) FROM {table} GROUP BY b) AS g").fetchall()[0][0]
    lines = _lines(sw, f"EXPLAIN ANALYZE SELECT b, count(*) FROM {table} GROUP BY b")
    facts = _analyzed(lines)
    assert facts["Actual Rows"] == str(expected) == "7"
    assert re.fullmatch(r"\d+\.\d{3} ms", facts["Execution Time"])
    assert re.match(r"[1-9]\d*, stages: [1-9]\d*, tasks: [1-9]\d*", facts["Spark Jobs"])
    job_ids = [int(m.group(1)) for line in lines if (m := re.match(r"  Job (\d+) \(succeeded\)", line))]
    assert job_ids
    # the scan stage read every row of the table
    assert any(f"input {ROWS} rows" in line for line in lines if line.startswith("    Stage "))
    # the same jobs are the ones the server recorded for the statement
    recorded = poll(
        sw,
        "SELECT job_id FROM mz_internal.mz_spark_jobs WHERE job_id = ANY(%s) AND status = 'succeeded'",
        (job_ids,),
        until=lambda rows: len(rows) == len(job_ids),
    )
    assert sorted(int(str(r[0])) for r in recorded) == sorted(job_ids)


def test_analyze_json_and_parameters(sw: Conn, table: str) -> None:
    top = _json(sw, f"EXPLAIN (ANALYZE, FORMAT JSON) SELECT a FROM {table} WHERE a <= %s", (25,))[0]
    assert top["Actual Rows"] == 25
    assert top["Execution Time"] > 0
    jobs = top["Spark Jobs"]
    assert jobs and all(job["Status"] == "succeeded" for job in jobs)
    assert sum(stage["Input Rows"] for job in jobs for stage in job["Stages"]) >= 25


def test_analyze_of_routes_without_spark(sw: Conn) -> None:
    facts = _analyzed(_lines(sw, "EXPLAIN ANALYZE SELECT * FROM generate_series(1, 5)"))
    assert facts["Actual Rows"] == "5"
    assert facts["Spark Jobs"] == "none (answered by DuckDB)"


def test_analyze_of_a_write_is_refused(sw: Conn, table: str) -> None:
    assert outcome(sw, f"EXPLAIN ANALYZE DELETE FROM {table}") == ("error", "0A000")
    assert outcome(sw, f"SELECT count(*) FROM {table}") == ("rows", [(ROWS,)])
