"""Unconstrained numeric[] parameters keep each element's own scale (`{1.5,NULL,-3}`) when projected — the raw
text/binary values are PostgreSQL's — and still work as numbers inside expressions (same values as PostgreSQL)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import psycopg
import pytest

from tests.support.clients import raw_cursor

VALUE = [Decimal("1.5"), None, Decimal("-3"), Decimal("0.000"), Decimal("12345678901234567890.123")]
QUERIES = [
    "SELECT (%{p}::numeric[])[1] AS v",
    "SELECT (%{p}::numeric[])[5] * 2 AS v",
    "SELECT 1.5 = ANY(%{p}::numeric[]) AS v",
    "SELECT cardinality(%{p}::numeric[]) AS v",
]


@pytest.mark.parametrize("binary", [False, True], ids=["result_t", "result_b"])
@pytest.mark.parametrize("param", ["t", "b"])
def test_projected_array_keeps_each_scale(
    sw: psycopg.Connection[Any], pg: psycopg.Connection[Any], param: str, binary: bool
) -> None:
    sql = f"SELECT %{param}::numeric[] AS v"
    got = raw_cursor(sw, binary=binary).execute(sql, [VALUE]).fetchone()
    assert got == raw_cursor(pg, binary=binary).execute(sql, [VALUE]).fetchone()
    assert sw.cursor(binary=binary).execute(sql, [VALUE]).fetchone() == (VALUE,)


@pytest.mark.parametrize("binary", [False, True], ids=["result_t", "result_b"])
@pytest.mark.parametrize("param", ["t", "b"])
@pytest.mark.parametrize("query", QUERIES)
def test_array_elements_work_as_numbers(
    sw: psycopg.Connection[Any], pg: psycopg.Connection[Any], query: str, param: str, binary: bool
) -> None:
    """Inside expressions the elements are DuckDB decimals (scale 10): equal values, not the same spelling."""
    sql = query.format(p=param)
    got = sw.cursor(binary=binary).execute(sql, [VALUE]).fetchone()
    want = pg.cursor(binary=binary).execute(sql, [VALUE]).fetchone()
    assert got == want
