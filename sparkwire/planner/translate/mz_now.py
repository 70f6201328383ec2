"""mz_now(): Materialize's logical time of a statement, as a literal of the statement's read timestamp.

Contract: the read timestamp is a number of milliseconds since the Unix epoch (the storage timeline's, see
catalog/timeline.py). `uses_mz_now(tree)` says whether a statement calls mz_now() anywhere (subqueries included);
`with_read_ts(tree, ts, engine, columns)` returns a copy of `tree` in which every mz_now() is that timestamp, so that
neither engine ever sees the call:
- compared (=, <>, <, <=, >, >=, BETWEEN) with a timestamp expression → a timestamptz literal of `ts`, compared with
  anything else → the number `ts`. Materialize allows only numeric and timestamp operands there; which one the other
  side is comes from its shape: an interval, a cast to a date/time type, a date/time function, a column whose type
  in `columns` (the user relations' column types) is a date/time type, or a bare column of unknown type → timestamp;
- cast to a date/time type → the timestamptz literal cast; cast to anything else (text, numeric, bigint,
  mz_timestamp) → the number cast;
- anywhere else (a SELECT list) → a value of type mz_timestamp: `UHUGEINT` on DuckDB, which describes it
  (pgtypes/mapping.py maps that engine type to mz_timestamp, OID 16552), `DECIMAL(20,0)` on Spark (the rows are
  conformed to DuckDB's description).
`MZ_NOW_DESCRIBE_TS` is the value used where the timestamp is not known yet (describing a statement).

`with_mz_timestamp_casts(tree, engine)` rewrites the other casts to mz_timestamp (`x::mz_timestamp`): a date/time
operand (by the same shape rule) becomes its milliseconds since the epoch, `floor(extract(epoch from x) * 1000)`,
anything else (a number, text holding one) is cast as it is; either way to the engine's mz_timestamp type above.
`mentions_mz_time(tree)` says whether a tree needs either rewrite.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Literal

from sqlglot import exp

EngineName = Literal["duckdb", "spark"]
MZ_NOW_DESCRIBE_TS = 0
_COMPARISONS = (exp.EQ, exp.NEQ, exp.LT, exp.LTE, exp.GT, exp.GTE)
_DATETIME_TYPES = frozenset(
    {
        exp.DataType.Type.DATE,
        exp.DataType.Type.TIMESTAMP,
        exp.DataType.Type.TIMESTAMPTZ,
        exp.DataType.Type.TIMESTAMPLTZ,
        exp.DataType.Type.TIMESTAMP_S,
        exp.DataType.Type.TIMESTAMP_MS,
        exp.DataType.Type.TIMESTAMP_NS,
        exp.DataType.Type.DATETIME,
    }
)
_DATETIME_FUNCTIONS = (
    exp.CurrentTimestamp,
    exp.CurrentDate,
    exp.CurrentDatetime,
    exp.TimestampTrunc,
    exp.DateTrunc,
    exp.UnixToTime,
    exp.StrToTime,
    exp.TsOrDsToTimestamp,
)
_DATETIME_NAMES = frozenset({"now", "to_timestamp", "date_trunc", "statement_timestamp", "clock_timestamp"})


def is_mz_now(node: object) -> bool:
    return isinstance(node, exp.Anonymous) and node.name.lower() == "mz_now" and not node.expressions


def uses_mz_now(tree: exp.Expression) -> bool:
    return any(is_mz_now(node) for node in tree.find_all(exp.Anonymous))


def timestamptz_literal(ts: int) -> exp.Expression:
    text = datetime.fromtimestamp(ts / 1000, tz=UTC).isoformat(timespec="milliseconds")
    return exp.cast(exp.Literal.string(text), exp.DataType.build("timestamptz", dialect="postgres"))


def _number(ts: int) -> exp.Expression:
    return exp.cast(exp.Literal.number(ts), exp.DataType.build("bigint", dialect="postgres"))


def _mz_timestamp(ts: int, engine: EngineName) -> exp.Expression:
    return exp.cast(exp.Literal.number(ts), _engine_type(engine))


def _column_type(node: exp.Column, columns: Mapping[str, Mapping[str, str]]) -> str | None:
    if node.table:
        return columns.get(node.table, {}).get(node.name)
    found = [types[node.name] for types in columns.values() if node.name in types]
    return found[0] if found else None


def _temporal(node: object, columns: Mapping[str, Mapping[str, str]]) -> bool:
    """Whether an operand compared with mz_now() is a date/time value (else it is taken as a number)."""
    if isinstance(node, exp.Paren):
        return _temporal(node.this, columns)
    if isinstance(node, (exp.Interval, *_DATETIME_FUNCTIONS)):
        return True
    if isinstance(node, exp.Cast):
        return node.to.this in _DATETIME_TYPES
    if isinstance(node, exp.Anonymous):
        return node.name.lower() in _DATETIME_NAMES
    if isinstance(node, exp.Column):
        kind = _column_type(node, columns)
        return kind is None or kind.split("(")[0].strip() in ("timestamp", "timestamptz", "date") or "time" in kind
    if isinstance(node, exp.Binary):
        return _temporal(node.left, columns) or _temporal(node.right, columns)
    return False


def _replacement(
    node: exp.Expression, ts: int, engine: EngineName, columns: Mapping[str, Mapping[str, str]]
) -> exp.Expression:
    parent = node.parent
    if isinstance(parent, exp.Cast):
        return timestamptz_literal(ts) if parent.to.this in _DATETIME_TYPES else _number(ts)
    if isinstance(parent, _COMPARISONS):
        other = parent.right if parent.left is node else parent.left
        return timestamptz_literal(ts) if _temporal(other, columns) else _number(ts)
    if isinstance(parent, exp.Between):
        bounds = [parent.args.get("low"), parent.args.get("high")] if parent.this is node else [parent.this]
        temporal = any(b is not None and _temporal(b, columns) for b in bounds)
        return timestamptz_literal(ts) if temporal else _number(ts)
    return _mz_timestamp(ts, engine)


def is_mz_timestamp_cast(node: object) -> bool:
    return isinstance(node, exp.Cast) and node.to.sql("postgres").lower() == "mz_timestamp"


def mentions_mz_time(tree: exp.Expression) -> bool:
    return any(is_mz_now(node) or is_mz_timestamp_cast(node) for node in tree.find_all(exp.Anonymous, exp.Cast))


def _engine_type(engine: EngineName) -> exp.DataType:
    if engine == "duckdb":
        return exp.DataType(this=exp.DataType.Type.UINT128)
    return exp.DataType.build("decimal(20,0)", dialect="postgres")


def with_mz_timestamp_casts(
    tree: exp.Expression, engine: EngineName, columns: Mapping[str, Mapping[str, str]] | None = None
) -> exp.Expression:
    known = columns or {}
    out = tree.copy()
    for cast in [n for n in out.find_all(exp.Cast) if is_mz_timestamp_cast(n)]:
        operand = cast.this
        if _temporal(operand, known) and not isinstance(operand, exp.Literal):
            epoch = exp.Extract(this=exp.var("epoch"), expression=operand.copy())
            operand = exp.Floor(this=exp.Mul(this=epoch, expression=exp.Literal.number(1000)))
        cast.replace(exp.cast(operand.copy(), _engine_type(engine)))
    return out


def with_read_ts(
    tree: exp.Expression,
    ts: int,
    engine: EngineName,
    columns: Mapping[str, Mapping[str, str]] | None = None,
) -> exp.Expression:
    known = columns or {}
    out = tree.copy()
    for call in [n for n in out.find_all(exp.Anonymous) if is_mz_now(n)]:
        target: exp.Expression = call
        if isinstance(call.parent, exp.Cast) and is_mz_timestamp_cast(call.parent):  # mz_now()::mz_timestamp
            target = call.parent
        target.replace(_replacement(target, ts, engine, known))
    return out
