"""Set operations whose later branch repeats a column (`… UNION ALL SELECT k, k FROM d`), through a real server
against PostgreSQL 15: Spark's RemoveRedundantAliases turned such a branch into two outputs of one attribute and
the plan invalid (XX000); the translation names the repeats apart (translate/spark.py `_distinct_branch_names`)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest

from tests.fidelity.outcomes import outcome

Conn = psycopg.Connection[tuple[object, ...]]


@pytest.fixture
def tables(sw: Conn, pg: Conn) -> Iterator[tuple[str, str]]:
    f, d = f"so_f_{uuid.uuid4().hex[:8]}", f"so_d_{uuid.uuid4().hex[:8]}"
    for conn in (sw, pg):
        conn.execute(f"CREATE TABLE {f} (id int, k int, v int)")
        conn.execute(f"CREATE TABLE {d} (k int, name text)")
        conn.execute(f"INSERT INTO {f} VALUES (1, 1, 1), (2, 2, 5)")
        conn.execute(f"INSERT INTO {d} VALUES (1, 'a'), (3, 'c')")
    yield f, d
    for conn in (sw, pg):
        conn.execute(f"DROP TABLE {f}, {d} CASCADE")


@pytest.mark.parametrize(
    "template",
    [
        "SELECT id, k FROM {f} UNION ALL SELECT k, k FROM {d} ORDER BY 1, 2",
        "SELECT id, k FROM {f} UNION SELECT k, k FROM {d} ORDER BY 1, 2",
        "SELECT id, v FROM {f} UNION ALL SELECT k, k FROM {d} EXCEPT SELECT 3, 3 ORDER BY 1, 2",
        "SELECT count(*) FROM (SELECT id, k FROM {f} UNION ALL SELECT {d}.k, {d}.k FROM {d}) AS s",
    ],
)
def test_a_later_branch_may_repeat_a_column(sw: Conn, pg: Conn, tables: tuple[str, str], template: str) -> None:
    sql = template.format(f=tables[0], d=tables[1])
    assert outcome(sw, sql) == outcome(pg, sql)
