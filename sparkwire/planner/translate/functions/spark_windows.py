"""PostgreSQL's windows on Spark where Spark asks for more than PostgreSQL does (tree rules like spark_rules.py).

- unordered_rankings: row_number, rank, dense_rank, percent_rank, cume_dist, ntile, lag and lead over a window
  without ORDER BY (`row_number() OVER ()`) are PostgreSQL's over one peer group: every row ranks 1, row_number
  numbers the rows in the order they come. Spark refuses them unordered (42601: "requires the window to be
  ordered"); `ORDER BY NULL` orders them by a constant, which makes every row of a partition a peer, as PostgreSQL's
  missing ORDER BY does. A window that names a WINDOW clause's (`OVER w`) is left to it. Aggregates over such a
  window keep their frame (the whole partition): they are not touched.
- groups_frames: a GROUPS frame (`GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING`) is 0A000 (not supported on Spark
  yet): Spark has ROWS and RANGE frames only and refused the printed frame as a syntax error (42601).
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from sparkwire import errors

Rule = Callable[[exp.Expr], exp.Expr]

_ORDERED_ONLY: tuple[type[exp.Expr], ...] = (
    exp.RowNumber, exp.Rank, exp.DenseRank, exp.PercentRank, exp.CumeDist, exp.Ntile, exp.Lag, exp.Lead,
)  # fmt: skip


def unordered_rankings(tree: exp.Expr) -> exp.Expr:
    for window in tree.find_all(exp.Window):
        function = window.this
        named = window.args.get("alias") is not None  # OVER w: the named window says its order
        if isinstance(function, _ORDERED_ONLY) and window.args.get("order") is None and not named:
            window.set("order", exp.Order(expressions=[exp.Ordered(this=exp.Null())]))
    return tree


def groups_frames(tree: exp.Expr) -> exp.Expr:
    for spec in tree.find_all(exp.WindowSpec):
        if str(spec.args.get("kind") or "").upper() == "GROUPS":
            raise errors.FeatureNotSupported("window frames in GROUPS mode are not supported on Spark yet")
    return tree


WINDOW_RULES: tuple[Rule, ...] = (unordered_rankings, groups_frames)
