"""Unconstrained numeric columns held as text, on Spark: exact where they leave, decimals where they are computed.

Contract: `text_numeric_columns(tree, scales)` rewrites a qualified, type-annotated tree. `scales` maps a Spark
relation name (a table's temporary view) to its text-held numeric columns and, for each, the largest scale among its
values (storage/numeric_text.py). Every reference to such a column becomes `CAST(col AS DECIMAL(38, s))` except:
- a bare projection of the statement's own SELECT (or of a branch of its top-level set operation), which stays the
  exact text, so each value comes back with its own display scale (1.23456789, 12345678901234567890.5, 0.1);
- a bare GROUP BY item of that SELECT (the projection of the same column stays text, and Spark requires both to
  be the same expression): such groups are formed by the text, so 1.5 and 1.50 are two groups there.
An ORDER BY item of that SELECT that names a text projection (by output name or position) sorts by the decimal;
a result projection `max(n)` / `min(n)` is the text of the largest / smallest value (`max_by`).

`pg_quotients(tree, schema)`: avg(), stddev/variance and numeric `/` as PostgreSQL computes them (see the function).

Why: PostgreSQL's numeric carries a display scale per value and up to 131072 digits; no Spark type does. DECIMAL(38,
s) with the largest scale present never rounds a value: one whose integer digits do not fit in 38 − s fails the
cast with 22003 (numeric field overflow) when it is computed with; it can still be selected as is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sqlglot import exp

from sparkwire.engine.pg_functions import NESTED_NUMERIC, NUMERIC_DIV, NUMERIC_SPREAD
from sparkwire.planner.translate import numeric_types as nt

Scales = Mapping[str, Mapping[str, int]]


def _top_selects(tree: exp.Expr) -> list[exp.Select]:
    if isinstance(tree, exp.Select):
        return [tree]
    if isinstance(tree, exp.SetOperation):
        return _top_selects(tree.this) + _top_selects(tree.expression)
    if isinstance(tree, exp.Subquery):
        return _top_selects(tree.this)
    return []


def _aliases(tree: exp.Expr, scales: Scales) -> dict[str, dict[str, int]]:
    """Table alias (or name) -> text-held numeric column -> scale; an alias used for several relations merges."""
    found: dict[str, dict[str, int]] = {}
    for table in tree.find_all(exp.Table):
        columns = scales.get(table.name)
        if not columns:
            continue
        merged = found.setdefault(table.alias_or_name, {})
        for name, scale in columns.items():
            merged[name] = max(scale, merged.get(name, 0))
    return found


def _decimal(column: exp.Column, scale: int) -> exp.Cast:
    target = exp.DataType.build(f"DECIMAL(38, {scale})")
    cast = exp.Cast(this=column.copy(), to=target)
    cast.type = target.copy()
    return cast


def _raw(column: exp.Column, tops: list[exp.Select]) -> bool:
    node: exp.Expr = column
    parent = column.parent
    if isinstance(parent, exp.Alias) and column.arg_key == "this":
        node, parent = parent, parent.parent
    if isinstance(parent, exp.Select) and node.arg_key == "expressions":
        return any(parent is top for top in tops)
    if isinstance(parent, exp.Group) and column.arg_key == "expressions":
        return any(parent.parent is top for top in tops)
    return False


def _order_by_values(select: exp.Select, aliases: dict[str, dict[str, int]]) -> None:
    """ORDER BY <output name> / <position> of a text projection -> the decimal of its column."""
    order = select.args.get("order")
    if not isinstance(order, exp.Order):
        return
    outputs: dict[str, exp.Column] = {}
    by_position: list[exp.Column | None] = []
    for projection in select.expressions:
        inner = projection.this if isinstance(projection, exp.Alias) else projection
        text = isinstance(inner, exp.Column) and inner.name in aliases.get(inner.table, {})
        by_position.append(inner if text else None)
        if text:
            outputs[projection.alias_or_name] = inner
    for ordered in order.expressions:
        key = ordered.this
        target: exp.Column | None = None
        if isinstance(key, exp.Literal) and not key.is_string and key.this.isdigit():
            index = int(key.this) - 1
            target = by_position[index] if 0 <= index < len(by_position) else None
        elif isinstance(key, exp.Column) and not key.table:
            target = outputs.get(key.name)
        if target is not None:
            ordered.set("this", _decimal(target, aliases[target.table][target.name]))


def _extremes_as_text(tree: exp.Expr, aliases: dict[str, dict[str, int]]) -> None:
    """A result projection `max(n)` / `min(n)` of a text-held column is the value with its own display scale, as
    in PostgreSQL: `max_by(n, <its decimal>)` (the text of the largest value)."""
    for node in list(tree.find_all(exp.Max, exp.Min)):
        column = node.this
        if not (isinstance(column, exp.Column) and nt.result_projection(node) and nt.aggregate_call(node)):
            continue
        scale = aliases.get(column.table, {}).get(column.name)
        if scale is None or node.expressions:
            continue
        name = "max_by" if isinstance(node, exp.Max) else "min_by"
        call = exp.Anonymous(this=name, expressions=[column.copy(), _decimal(column, scale)])
        node.replace(nt.named_as_postgres(node, call))


def text_numeric_columns(tree: exp.Expr, scales: Scales) -> exp.Expr:
    if not scales:
        return tree
    aliases = _aliases(tree, scales)
    if not aliases:
        return tree
    tops = _top_selects(tree)
    for select in tops:
        _order_by_values(select, aliases)
    _extremes_as_text(tree, aliases)
    for column in list(tree.find_all(exp.Column)):
        scale = aliases.get(column.table, {}).get(column.name)
        if scale is None or _raw(column, tops):
            continue
        parent = column.parent
        extreme_text = isinstance(parent, exp.Anonymous) and parent.name in ("max_by", "min_by")
        if extreme_text and column.arg_key == "expressions" and column.index == 0:
            continue  # the text of the extreme value (`_extremes_as_text`)
        if isinstance(parent, exp.Cast) and (
            parent.to.is_type(*exp.DataType.TEXT_TYPES)
            or (parent.to.is_type(exp.DataType.Type.DECIMAL) and parent.to.expressions)
        ):
            continue  # `n::text` is the text itself; `n::numeric(p, s)` reads (and rounds) the text as PostgreSQL
        column.replace(_decimal(column, scale))
    return tree


def _nested(call: exp.Expr) -> exp.Expr:
    target = exp.DataType.build(NESTED_NUMERIC)
    cast = exp.Cast(this=call, to=target)
    cast.type = target.copy()
    return cast


def _truncations(tree: exp.Expr, known: nt.Columns) -> None:
    """trunc(numeric [, d]) toward zero, keeping numeric (Spark prints it as a cast to BIGINT, which overflows)."""
    for node in list(tree.find_all(exp.Trunc)):
        if nt.kind(node.this, known) != "numeric":
            continue
        value, scale = node.this, node.args.get("decimals")
        extra = [scale.copy()] if scale is not None else []
        floor = exp.Anonymous(this="floor", expressions=[value.copy(), *extra])
        ceil = exp.Anonymous(this="ceil", expressions=[value.copy(), *[x.copy() for x in extra]])
        negative = exp.LT(this=value.copy(), expression=exp.Literal.number(0))
        node.replace(exp.If(this=negative, true=ceil, false=floor))


def _in_same_form(aggregate: exp.Expr, parts: Sequence[exp.Expr]) -> tuple[exp.Expr, list[exp.Expr]]:
    """The expression `aggregate` stands for (itself, or its FILTER / window around it), and each of `parts` (other
    aggregates of the same rows) in that same FILTER and window."""
    outer: exp.Expr = aggregate
    if isinstance(outer.parent, exp.Filter) and outer.arg_key == "this":
        outer = outer.parent
    if isinstance(outer.parent, exp.Window) and outer.arg_key == "this":
        outer = outer.parent

    def wrapped(part: exp.Expr) -> exp.Expr:
        if outer is aggregate:
            return part
        copy = outer.copy()
        inner = copy
        while not isinstance(inner.this, type(aggregate)):
            inner = inner.this
        inner.set("this", part)
        return copy

    return outer, [wrapped(part) for part in parts]


def _avg_quotient(avg: exp.Avg) -> tuple[exp.Expr, exp.Expr]:
    """PostgreSQL's numeric avg: `sw_numeric_div` of its sum by its count, in its FILTER, window and DISTINCT."""
    outer, parts = _in_same_form(avg, [exp.Sum(this=avg.this.copy()), exp.Count(this=avg.this.copy())])
    return outer, exp.Anonymous(this=NUMERIC_DIV, expressions=parts)


_SPREADS: dict[type[exp.Expr], str] = {
    exp.Stddev: "stddev_samp",
    exp.StddevSamp: "stddev_samp",
    exp.StddevPop: "stddev_pop",
    exp.Variance: "var_samp",
    exp.VariancePop: "var_pop",
}


def _numeric_spread(node: exp.Expr, known: nt.Columns) -> tuple[exp.Expr, exp.Expr] | None:
    """PostgreSQL's numeric stddev / variance of integers or numerics (not DISTINCT): `sw_numeric_spread` of the
    count, sum and sum of squares (exact decimals), in its FILTER and window."""
    value = node.this
    kind = nt.kind(value, known) if isinstance(value, exp.Expr) else None
    if kind not in ("integer", "numeric") or isinstance(value, exp.Distinct):
        return None
    exact = exp.cast(value.copy(), "DECIMAL(38, 0)") if kind == "integer" else value.copy()
    square = exp.Mul(this=exact.copy(), expression=exact.copy())
    parts = [exp.Count(this=value.copy()), exp.Sum(this=exact), exp.Sum(this=square)]
    outer, wrapped = _in_same_form(node, parts)
    call = exp.Anonymous(this=NUMERIC_SPREAD, expressions=[*wrapped, exp.Literal.string(_SPREADS[type(node)])])
    return outer, call


def pg_quotients(tree: exp.Expr, schema: nt.Columns, results_as_text: bool = False) -> exp.Expr:
    """avg() and stddev/variance of integers or numerics and `/` of numerics as PostgreSQL computes them (numeric,
    with its scale): `sw_numeric_div` (engine/pg_functions.py) of the sum by the count, or of the operands, and
    `sw_numeric_spread` of the count, sum and sum of squares: exact text where the
    value leaves the engine for a client (`results_as_text` and `numeric_types.leaves_as_text`), else
    DECIMAL(38, 16); in every form (a window's, FILTER's and DISTINCT's sum and count are the avg's own)."""
    known = nt.alias_columns(tree, schema)
    nt.integer_to_numeric(tree, known)
    _truncations(tree, known)
    nodes = list(tree.find_all(exp.Avg, exp.Div, *_SPREADS))
    for found in reversed(nodes):  # inner first: avg(avg(x)) OVER () averages the replaced inner quotient
        call: exp.Expr | None = None
        node: exp.Expr = found
        if isinstance(found, exp.Avg) and nt.avg_kind(found, known) in ("integer", "numeric"):
            node, call = _avg_quotient(found)
        elif type(found) in _SPREADS and (spread := _numeric_spread(found, known)) is not None:
            node, call = spread
        elif isinstance(node, exp.Div) and nt.numeric_quotient(node, known):
            call = exp.Anonymous(this=NUMERIC_DIV, expressions=[node.this.copy(), node.expression.copy()])
        if call is not None and results_as_text and nt.leaves_as_text(node):
            nt.order_by_value(node, _nested(call.copy()))
            node.replace(nt.named_as_postgres(node, call))
        elif call is not None:
            node.replace(nt.named_as_postgres(node, _nested(call)))
    return tree
