"""justify_hours / justify_days / justify_interval on DuckDB (called by functions/lowering.py for DuckDB trees).

Contract: `duckdb_justify(tree)` rewrites each call (sqlglot's JustifyHours / JustifyDays / JustifyInterval) in
place into the engine function `sw_justify(kind, months, days, micros)` (engine/pg_functions.py, PostgreSQL's
algorithm in pgtypes/interval.justify) over the interval's three parts, read with datepart, and cast back to an
interval. DuckDB has none of the three.
`spark_justify(tree)`: on Spark justify_hours(x) is x: a Spark interval is either months alone or a duration, and a
duration reaches the client as whole days and the time within the day, both of its sign (pgtypes/interval.py
duration_to_interval), which is justify_hours' answer. justify_days and justify_interval would need months beside
days, which no Spark interval holds: they are left as written.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from sparkwire.engine.pg_functions import JUSTIFY

_KINDS: dict[type[exp.Expr], str] = {
    exp.JustifyHours: "hours", exp.JustifyDays: "days", exp.JustifyInterval: "interval",
}  # fmt: skip
_MICROS = {"hour": 3_600_000_000, "minute": 60_000_000, "microseconds": 1}


def _part(name: str, value: exp.Expr) -> exp.Expr:
    return exp.cast(exp.Anonymous(this="datepart", expressions=[exp.Literal.string(name), value.copy()]), "bigint")


def _scaled(name: str, factor: int, value: exp.Expr) -> exp.Expr:
    part = _part(name, value)
    return part if factor == 1 else exp.Mul(this=part, expression=exp.cast(exp.Literal.number(factor), "bigint"))


def _justified(node: exp.Expr) -> exp.Expr:
    kind = _KINDS.get(type(node))
    if kind is None:
        return node
    value = exp.cast(node.this.copy(), "interval")
    months = exp.Add(this=_scaled("year", 12, value), expression=_part("month", value))
    micros: exp.Expr = _scaled("hour", _MICROS["hour"], value)
    for name in ("minute", "microseconds"):
        micros = exp.Add(this=micros, expression=_scaled(name, _MICROS[name], value))
    call = exp.Anonymous(
        this=JUSTIFY,
        expressions=[exp.Literal.string(kind), months, _part("day", value), micros],
    )
    return exp.cast(call, "interval")


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
