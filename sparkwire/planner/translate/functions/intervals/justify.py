"""justify_hours / justify_days / justify_interval on DuckDB (called by functions/lowering.py for DuckDB trees).

Contract: `duckdb_justify(tree)` rewrites each call (sqlglot's JustifyHours / JustifyDays / JustifyInterval) in
place into the engine function `sw_justify(kind, months, days, micros)` (engine/pg_functions.py, PostgreSQL's
algorithm in pgtypes/interval.justify) over the interval's three parts, read with datepart, and cast back to an
interval. DuckDB has none of the three.
`duckdb_interval_text(tree)`: an interval literal, cast or justify_* call cast to text → `sw_interval_text(parts)`,
PostgreSQL's interval output (DuckDB prints its own).
`spark_justify(tree)`: on Spark justify_hours(x) is x: a Spark interval is either months alone or a duration, and a
duration reaches the client as whole days and the time within the day, both of its sign (pgtypes/interval.py
duration_to_interval), which is justify_hours' answer. justify_days and justify_interval would need months beside
days, which no Spark interval holds: they are left as written.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from sparkwire.engine.pg_functions import INTERVAL_TEXT, JUSTIFY

_KINDS: dict[type[exp.Expr], str] = {
    exp.JustifyHours: "hours", exp.JustifyDays: "days", exp.JustifyInterval: "interval",
}  # fmt: skip
_MICROS = {"hour": 3_600_000_000, "minute": 60_000_000, "microseconds": 1}


def _part(name: str, value: exp.Expr) -> exp.Expr:
    return exp.cast(exp.Anonymous(this="datepart", expressions=[exp.Literal.string(name), value.copy()]), "bigint")


def _scaled(name: str, factor: int, value: exp.Expr) -> exp.Expr:
    part = _part(name, value)
    return part if factor == 1 else exp.Mul(this=part, expression=exp.cast(exp.Literal.number(factor), "bigint"))


def interval_parts(interval: exp.Expr) -> list[exp.Expr]:
    """An interval's months, days and microseconds (DuckDB's datepart)."""
    value = exp.cast(interval.copy(), "interval")
    months = exp.Add(this=_scaled("year", 12, value), expression=_part("month", value))
    micros: exp.Expr = _scaled("hour", _MICROS["hour"], value)
    for name in ("minute", "microseconds"):
        micros = exp.Add(this=micros, expression=_scaled(name, _MICROS[name], value))
    return [months, _part("day", value), micros]


def _justified(node: exp.Expr) -> exp.Expr:
    kind = _KINDS.get(type(node))
    if kind is None:
        return node
    call = exp.Anonymous(this=JUSTIFY, expressions=[exp.Literal.string(kind), *interval_parts(node.this)])
    return exp.cast(call, "interval")


def _is_interval(node: exp.Expr) -> bool:
    """An interval by its spelling: a literal, a cast to interval, a justify_* call."""
    return isinstance(node, exp.Interval | exp.JustifyHours | exp.JustifyDays | exp.JustifyInterval) or (
        isinstance(node, exp.Cast) and node.to.is_type(exp.DType.INTERVAL)
    )


def duckdb_interval_text(tree: exp.Expr) -> exp.Expr:
    """`x::text` of an interval (by its spelling) as PostgreSQL prints it: DuckDB's cast prints its own form
    (`-1 day 02:00:00`, `1 month`) where PostgreSQL's is `-1 days +02:00:00`, `1 mon`."""
    for node in list(tree.find_all(exp.Cast)):
        if node.to.is_type(exp.DType.TEXT, exp.DType.VARCHAR) and not node.to.expressions and _is_interval(node.this):
            node.replace(exp.Anonymous(this=INTERVAL_TEXT, expressions=interval_parts(node.this)))
    return tree


def _innermost_first(tree: exp.Expr, rewrite: Callable[[exp.Expr], exp.Expr]) -> exp.Expr:
    """Each call rewritten after the calls inside it (justify_days(justify_hours(x)))."""
    for node in reversed([n for n in tree.walk() if type(n) in _KINDS]):
        lowered = rewrite(node)
        if node is tree:
            return lowered
        node.replace(lowered)
    return tree


def duckdb_justify(tree: exp.Expr) -> exp.Expr:
    return _innermost_first(tree, _justified)


def spark_justify(tree: exp.Expr) -> exp.Expr:
    return _innermost_first(tree, lambda n: exp.Paren(this=n.this) if isinstance(n, exp.JustifyHours) else n)
