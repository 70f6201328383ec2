"""PostgreSQL's operators on `time` where the engines lack them or answer otherwise.

Contract: `time_ops(tree, columns, duckdb)` rewrites in place and returns the tree; a value is a time, an interval or
a timestamp when planner/bind/pg_result_types.result_type types it so (`columns`: the relations' PostgreSQL column
types; `typed_columns` adds the FROM items' aliases and VALUES columns):
- time - time → interval (time_mi_time: microseconds only): DuckDB has no such operator, so
  to_microseconds(epoch_us(a) - epoch_us(b)); Spark's own (a day-time interval) is PostgreSQL's;
- date_trunc(field, time): PostgreSQL has no date_trunc of a time and casts it to an interval (the result is an
  interval): DuckDB date_trunc(field, to_microseconds(epoch_us(t))); Spark time_trunc(field, t) - TIME '00:00:00'
  (time_trunc knows hour … microsecond; another field is left to fail);
- time ± interval on Spark wraps around midnight, as PostgreSQL's time_pl_interval (Spark fails with 22008):
  time_from_micros(pmod(t's microseconds ± the interval's, one day)). DuckDB wraps already.
Also `interval_types(tree)`: on a type-annotated Spark tree, timestamp - timestamp and time - time are typed
interval, and so are the aggregates, parentheses and aliases over them (sqlglot types them as the operands), so the
translator's type checks see PostgreSQL's types.
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlglot import exp

from sparkwire.planner.bind.pg_result_types import result_type
from sparkwire.planner.translate import numeric_types as nt
from sparkwire.planner.translate.functions.intervals.interval_text import DAY_MICROS, call, duration_micros

Columns = Mapping[str, Mapping[str, str]]
TIME, INTERVAL, TIMESTAMPTZ = "time without time zone", "interval", "timestamp with time zone"
_SPARK_TRUNC_FIELDS = frozenset({"HOUR", "MINUTE", "SECOND", "MILLISECOND", "MICROSECOND"})
D = exp.DType
_DATETIMES = frozenset({D.TIMESTAMP, D.TIMESTAMPTZ, D.TIMESTAMPLTZ, D.TIMESTAMPNTZ, D.TIME})


def _micros(time: exp.Expr) -> exp.Expr:
    return call("epoch_us", time)


def _midnight() -> exp.Expr:
    return exp.cast(exp.Literal.string("00:00:00"), exp.DType.TIME)


def typed_columns(tree: exp.Expr, schema: Columns) -> dict[str, Mapping[str, str]]:
    """`schema` by alias (numeric_types.alias_columns), with VALUES columns whose first row is a datetime or an
    interval."""
    known = nt.alias_columns(tree, schema)
    for values in tree.find_all(exp.Values):
        alias = values.args.get("alias")
        first = values.expressions[0] if values.expressions else None
        if isinstance(alias, exp.TableAlias) and alias.columns and isinstance(first, exp.Tuple):
            typed = {c.name: result_type(v, {}) for c, v in zip(alias.columns, first.expressions, strict=False)}
            extra = {n: t for n, t in typed.items() if t is not None and (t in (INTERVAL, TIMESTAMPTZ) or "time" in t)}
            known[alias.name] = {**known.get(alias.name, {}), **extra}
    return known


def _duckdb(node: exp.Expr, known: Columns) -> exp.Expr | None:
    if isinstance(node, exp.Sub) and result_type(node.this, known) == result_type(node.expression, known) == TIME:
        difference = exp.Sub(this=_micros(node.this), expression=_micros(node.expression))
        return exp.Paren(this=call("to_microseconds", difference))
    if isinstance(node, exp.TimestampTrunc) and result_type(node.this, known) == TIME:
        return exp.TimestampTrunc(this=call("to_microseconds", _micros(node.this)), unit=node.args.get("unit"))
    return None


def _spark_wrap(node: exp.Add | exp.Sub, known: Columns) -> exp.Expr | None:
    kinds = [result_type(node.this, known), result_type(node.expression, known)]
    if kinds == [TIME, INTERVAL] or (isinstance(node, exp.Add) and kinds == [INTERVAL, TIME]):
        time, interval = (node.this, node.expression) if kinds[0] == TIME else (node.expression, node.this)
        of_day = call("time_diff", exp.Literal.string("MICROSECOND"), _midnight(), time)
        moved = (exp.Add if isinstance(node, exp.Add) else exp.Sub)(this=of_day, expression=duration_micros(interval))
        return call("time_from_micros", call("pmod", moved, exp.Literal.number(DAY_MICROS)))
    return None


def _spark(node: exp.Expr, known: Columns) -> exp.Expr | None:
    if isinstance(node, exp.TimestampTrunc) and result_type(node.this, known) == TIME:
        unit = node.args.get("unit")
        field = unit.name.upper() if isinstance(unit, exp.Expr) else ""
        if field in _SPARK_TRUNC_FIELDS:
            truncated = call("time_trunc", exp.Literal.string(field), node.this)
            return exp.Paren(this=exp.Sub(this=truncated, expression=_midnight()))
    if isinstance(node, exp.Add | exp.Sub):
        return _spark_wrap(node, known)
    return None


def time_ops(tree: exp.Expr, columns: Columns, duckdb: bool) -> exp.Expr:
    if not any(isinstance(n, exp.Sub | exp.Add | exp.TimestampTrunc) for n in tree.walk()):
        return tree
    known = typed_columns(tree, columns)
    rule = _duckdb if duckdb else _spark
    for node in reversed(list(tree.walk())):  # operands before the operators over them
        if isinstance(node, exp.Sub | exp.Add | exp.TimestampTrunc):
            rewritten = rule(node, known)
            if rewritten is not None and node is not tree:
                node.replace(rewritten)
    return tree


def _kind(node: exp.Expr) -> D | None:
    return node.type.this if node.type is not None else None


def interval_types(tree: exp.Expr) -> exp.Expr:
    for node in reversed(list(tree.walk())):
        kinds = {_kind(node.this), _kind(node.expression)} if isinstance(node, exp.Sub) else set()
        if kinds and kinds <= _DATETIMES | {D.DATE} and kinds != {D.DATE}:
            node.type = exp.DataType.build("interval")
        elif isinstance(node, exp.Paren | exp.Alias | exp.Sum | exp.Avg | exp.Min | exp.Max | exp.Neg):
            inner = node.this
            if isinstance(inner, exp.Expr) and _kind(inner) == D.INTERVAL and _kind(node) != D.INTERVAL:
                node.type = exp.DataType.build("interval")
    return tree
