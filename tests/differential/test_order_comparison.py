"""The differential suite's row-order comparison (bench/differential.py): rows must come in the order the query asks
for, and rows whose sort keys tie may come in any order among themselves, as they may in PostgreSQL."""

from __future__ import annotations

import pytest

from bench.differential import order_columns, same_order


@pytest.mark.parametrize(
    ("sql", "columns"),
    [
        ("SELECT k, tag, sum(v) FROM pairs GROUP BY ROLLUP (k, tag) ORDER BY k, tag", [0, 1]),
        ("SELECT extract(year FROM day) AS y, kind, count(*) FROM events GROUP BY CUBE (1, 2) ORDER BY 1, 2", [0, 1]),
        ("SELECT a + 1, b FROM t ORDER BY a + 1 DESC NULLS LAST", [0]),
        ("SELECT a AS x, b FROM t ORDER BY b, x", [1, 0]),
        # sqlglot cannot parse ROLLUP over a comparison: trailing positions still count
        ("SELECT d, a > 30 AS old, count(*) FROM emp GROUP BY ROLLUP (d, a > 30) ORDER BY 1, 2", [0, 1]),
        ("SELECT id, x FROM t ORDER BY x + 1", None),  # a key that is not output
        ("SELECT * FROM t ORDER BY a", None),
        ("SELECT t.* FROM t ORDER BY a", None),
        ("SELECT a FROM t", None),
    ],
)
def test_sort_keys_are_output_columns_or_the_whole_row_counts(sql: str, columns: list[int] | None) -> None:
    assert order_columns(sql) == columns


def test_tied_rows_may_come_in_any_order() -> None:
    sql = "SELECT a, b FROM t ORDER BY a"
    assert same_order(sql, [("1", "x"), ("1", "y"), ("2", "z")], [("1", "y"), ("1", "x"), ("2", "z")])
    assert same_order(sql, [("1", None), ("1", "y")], [("1", "y"), ("1", None)])


def test_rows_out_of_key_order_or_different_within_a_tie_disagree() -> None:
    sql = "SELECT a, b FROM t ORDER BY a"
    assert not same_order(sql, [("1", "x"), ("2", "y"), ("2", "z")], [("2", "y"), ("1", "x"), ("2", "z")])
    assert not same_order(sql, [("1", "x"), ("1", "y")], [("1", "x"), ("1", "x")])
    # every column a key: nothing ties, the order is the order
    assert not same_order("SELECT a, b FROM t ORDER BY a, b", [("1", "x"), ("1", "y")], [("1", "y"), ("1", "x")])
    # a key that is not output: the whole order must match
    assert not same_order("SELECT a FROM t ORDER BY b", [("1",), ("2",)], [("2",), ("1",)])
