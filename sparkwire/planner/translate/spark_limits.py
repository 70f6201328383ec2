"""PostgreSQL's LIMIT / OFFSET / FETCH on Spark (tree rules like spark_rules.py, run before it).

- limit_values: LIMIT NULL and LIMIT ALL mean no limit (Spark rejects both); a written fractional or quoted count
  is rounded to a bigint as PostgreSQL casts it (LIMIT 2.6 is 3); a written negative count is 2201W `LIMIT must
  not be negative` (OFFSET: 2201X)
- with_ties: FETCH FIRST n ROWS WITH TIES keeps the rows that tie with the n-th under ORDER BY (sqlglot drops
  WITH TIES): the query ranks its rows with rank() over the ORDER BY and keeps rank <= n
- subquery_limits: a LIMIT or OFFSET given by a subquery (`LIMIT (SELECT count(*) FROM t)`) under ORDER BY; Spark
  takes only a constant (42K0E): the query numbers its rows with row_number() over the ORDER BY and keeps
  offset < row_number <= offset + limit (a NULL limit is none, a NULL offset 0)
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from sqlglot import exp

from sparkwire import errors
from sparkwire.planner.translate.spark_rules import filtered_by_window

Rule = Callable[[exp.Expr], exp.Expr]


def _written_number(node: exp.Expr) -> Decimal | None:
    negative = False
    while isinstance(node, exp.Paren | exp.Neg):
        negative ^= isinstance(node, exp.Neg)
        node = node.this
    if not isinstance(node, exp.Literal):
        return None
    try:
        value = Decimal(node.this.strip())
    except InvalidOperation:
        return None
    return -value if negative else value


def _normalized(count: exp.Expr, clause: str) -> exp.Expr | None:
    """The count to print, or None for no limit; raises for a written negative count."""
    if isinstance(count, exp.Null) or (isinstance(count, exp.Var) and count.name.upper() == "ALL"):
        return None
    value = _written_number(count)
    if value is None:
        return count
    if value < 0:
        state = "2201W" if clause == "LIMIT" else "2201X"
        raise errors.PgError.for_sqlstate(state)(f"{clause} must not be negative", sqlstate=state)
    return exp.Literal.number(int(value.quantize(Decimal(1), rounding=ROUND_HALF_UP)))


def limit_values(tree: exp.Expr) -> exp.Expr:
    for node in list(tree.find_all(exp.Limit, exp.Offset)):
        count = node.args.get("expression")
        if count is None:
            continue
        normalized = _normalized(count, "LIMIT" if isinstance(node, exp.Limit) else "OFFSET")
        if normalized is None:
            node.pop()
        elif normalized is not count:
            node.set("expression", normalized)
    return tree


def _ranked(select: exp.Select, fetch: exp.Fetch) -> exp.Expr:
    def rank(order: list[exp.Ordered]) -> exp.Expr:
        return exp.Window(this=exp.Anonymous(this="rank", expressions=[]), order=exp.Order(expressions=order))

    count = fetch.args.get("count") or exp.Literal.number(1)
    within = exp.LTE(this=exp.column("_w"), expression=count.copy())
    return filtered_by_window(select, ("order", "limit", "offset"), rank, within, "_with_ties")


def with_ties(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.Select) or node.args.get("offset") is not None or not node.args.get("order"):
            return node
        fetch = node.args.get("limit")
        options = fetch.args.get("limit_options") if isinstance(fetch, exp.Fetch) else None
        if isinstance(fetch, exp.Fetch) and options is not None and options.args.get("with_ties"):
            return _ranked(node, fetch)
        return node

    return tree.transform(rewrite, copy=False)


def _computed(node: exp.Expr | None) -> bool:
    return node is not None and node.find(exp.Subquery, exp.Select) is not None


def subquery_limits(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        limit, offset = node.args.get("limit"), node.args.get("offset")
        count = limit.args.get("expression") if isinstance(limit, exp.Limit) else None
        skip = offset.args.get("expression") if isinstance(offset, exp.Offset) else None
        if not isinstance(node, exp.Select) or not node.args.get("order") or not (_computed(count) or _computed(skip)):
            return node

        def number(order: list[exp.Ordered]) -> exp.Expr:
            return exp.Window(this=exp.RowNumber(), order=exp.Order(expressions=order))

        start = exp.Coalesce(this=(skip or exp.Literal.number(0)).copy(), expressions=[exp.Literal.number(0)])
        keep: exp.Expr = exp.GT(this=exp.column("_w"), expression=start)
        if count is not None:  # a NULL count is no limit, a NULL offset 0, as in PostgreSQL
            taken = exp.Sub(this=exp.column("_w"), expression=start.copy())
            bound = exp.Coalesce(this=count.copy(), expressions=[exp.column("_w")])
            keep = exp.and_(keep, exp.LTE(this=taken, expression=bound))
        return filtered_by_window(node, ("order", "limit", "offset"), number, keep, "_limited")

    return tree.transform(rewrite, copy=False)


LIMIT_RULES: tuple[Rule, ...] = (limit_values, with_ties, subquery_limits)
