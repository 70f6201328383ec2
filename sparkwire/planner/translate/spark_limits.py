"""PostgreSQL's LIMIT / OFFSET / FETCH on Spark (tree rules like spark_rules.py, run before it).

- limit_values: LIMIT NULL and LIMIT ALL mean no limit (Spark rejects both); a written fractional or quoted count
  is rounded to a bigint as PostgreSQL casts it (LIMIT 2.6 is 3); a written negative count is 2201W `LIMIT must
  not be negative` (OFFSET: 2201X)
- with_ties: FETCH FIRST n ROWS WITH TIES keeps the rows that tie with the n-th under ORDER BY (sqlglot drops
  WITH TIES): the query ranks its rows with rank() over the ORDER BY and keeps rank <= n
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from sqlglot import exp

from sparkwire import errors
from sparkwire.planner.bind.naming import column_name
from sparkwire.planner.translate.spark_rules import _resolve_output_reference

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
    projections = list(select.expressions)
    order: list[exp.Ordered] = list(select.args["order"].expressions)
    inner = select.copy()
    for key in ("order", "limit", "offset"):
        inner.set(key, None)
    names = [column_name(p) or "*" for p in projections]
    inner_projections: list[exp.Expr] = []
    for i, projection in enumerate(projections):
        value: exp.Expr = projection.this if isinstance(projection, exp.Alias) else projection
        inner_projections.append(exp.alias_(value.copy(), f"_t{i}"))
    window_order: list[exp.Ordered] = []
    outer_order: list[exp.Ordered] = []
    for i, ordered in enumerate(order):
        sort_key = _resolve_output_reference(ordered.this, projections)
        inner_projections.append(exp.alias_(sort_key.copy(), f"_k{i}"))
        item = ordered.copy()
        item.set("this", sort_key)
        window_order.append(item)
        outer_item = ordered.copy()
        outer_item.set("this", exp.column(f"_k{i}"))
        outer_order.append(outer_item)
    rank = exp.Window(this=exp.Anonymous(this="rank", expressions=[]), order=exp.Order(expressions=window_order))
    inner_projections.append(exp.alias_(rank, "_rank"))
    inner.set("expressions", inner_projections)
    count = fetch.args.get("count") or exp.Literal.number(1)
    outer = (
        exp.select(*[exp.alias_(exp.column(f"_t{i}"), name, quoted=True) for i, name in enumerate(names)])
        .from_(exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier("_with_ties"))))
        .where(exp.LTE(this=exp.column("_rank"), expression=count.copy()))
    )
    outer.set("order", exp.Order(expressions=outer_order))
    return outer


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


LIMIT_RULES: tuple[Rule, ...] = (limit_values, with_ties)
