"""Timestamps in queries: the value of an AS OF expression, and EXPLAIN TIMESTAMP's text (docs/timestamps.md).

Contract:
- `as_of_ms(as_of, ctx, evaluate)`: the timestamp (ms since the Unix epoch) an `AS OF [AT LEAST] <expr>` names.
  The expression must be a constant castable to mz_timestamp, as in Materialize: a number of milliseconds
  (integer, or integral numeric ≥ 0), a timestamp / timestamptz (its instant; a timestamp without time zone is
  UTC), or text holding either; an outer `::mz_timestamp` is accepted. `evaluate(sql)` runs one-value DuckDB SQL
  (the session's engine connection) and returns the value. mz_now() there is 0A000 `calling an unmaterializable
  function in AS OF or UP TO not supported`; a column is 42703; a subquery, aggregate, parameter, NULL, a negative
  or fractional number, or anything not castable is 22023 `AS OF or UP TO should be castable to a (non-null)
  mz_timestamp value` (Materialize's wording; Materialize itself reports it as XX000, which sparkwire keeps for
  its own bugs).
- `explain_timestamp_text(explanation)`: EXPLAIN TIMESTAMP's one text value, shaped as Materialize prints it:
  right-aligned labels, `<ms> (<UTC time>)`, frontiers in brackets, then one block per source read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal

from sqlglot import exp

from sparkwire import errors as e
from sparkwire.planner.grammar.as_of import AsOf
from sparkwire.planner.translate.duckdb import SessionContext, parse, to_duckdb
from sparkwire.planner.translate.mz_now import is_mz_timestamp_cast, uses_mz_now

INVALID_AS_OF = "AS OF or UP TO should be castable to a (non-null) mz_timestamp value"
_MAX_TS = 2**64 - 1
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _invalid(detail: str | None = None) -> e.PgError:
    return e.InvalidParameterValue(INVALID_AS_OF, detail=detail)


def _from_value(value: object) -> int | str:
    """The milliseconds a value stands for; text is returned as is (read again as a timestamp by the caller)."""
    if value is None or isinstance(value, bool):
        raise _invalid()
    if isinstance(value, datetime):
        instant = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
        delta = instant - _EPOCH
        return (delta.days * 86_400_000) + (delta.seconds * 1000) + delta.microseconds // 1000
    if isinstance(value, int | float | Decimal):
        number = Decimal(str(value)) if isinstance(value, float) else Decimal(value)
        if not number.is_finite() or number != number.to_integral_value() or not 0 <= number <= _MAX_TS:
            raise _invalid(f"{value} is not a timestamp in milliseconds")
        return int(number)
    if isinstance(value, str):
        text = value.strip()
        return int(text) if text.isdigit() else text
    raise _invalid()


def as_of_ms(as_of: AsOf, ctx: SessionContext, evaluate: Callable[[str], object]) -> int:
    tree = parse("SELECT " + as_of.expression)
    if not isinstance(tree, exp.Select) or len(tree.expressions) != 1 or tree.args.get("from"):
        raise _invalid()
    if uses_mz_now(tree):
        raise e.FeatureNotSupported("calling an unmaterializable function in AS OF or UP TO not supported")
    column = tree.find(exp.Column)
    if column is not None:
        raise e.UndefinedColumn(f'column "{column.name}" does not exist')
    if tree.find(exp.Subquery, exp.AggFunc, exp.Parameter, exp.Placeholder, exp.Window) is not None:
        raise _invalid()
    node = tree.expressions[0]
    while is_mz_timestamp_cast(node):
        node = node.this
    try:
        value = _from_value(evaluate(to_duckdb(exp.select(node.copy()), ctx, [])))
        if isinstance(value, str):  # text that is not a number: a timestamp's text
            cast = exp.cast(exp.Literal.string(value), exp.DataType.build("timestamptz", dialect="postgres"))
            value = _from_value(evaluate(to_duckdb(exp.select(cast), ctx, [])))
    except e.PgError as err:
        if err.message == INVALID_AS_OF:
            raise
        raise _invalid(err.message) from None
    assert isinstance(value, int)
    return value


@dataclass(frozen=True, slots=True)
class SourceFrontiers:
    name: str  # database.schema.name
    id: str
    kind: str  # "storage" (tables, sources) or "compute"
    read: int
    write: int


@dataclass(frozen=True, slots=True)
class TimestampExplanation:
    query_ts: int
    oracle_ts: int | None  # None when no oracle read was needed (an exact AS OF)
    since: int
    upper: int
    wall_time: int
    sources: tuple[SourceFrontiers, ...]

    @property
    def immediately(self) -> bool:
        return self.since <= self.query_ts < self.upper


def _at(ts: int) -> str:
    moment = datetime.fromtimestamp(ts / 1000, tz=UTC) if 0 <= ts < 253_402_300_800_000 else None
    shown = moment.strftime("%Y-%m-%d %H:%M:%S.") + f"{ts % 1000:03d}" if moment is not None else "+inf"
    return f"{ts} ({shown})"


def _line(label: str, value: str) -> str:
    return f"{label:>31}:{value}"


def explain_timestamp_text(x: TimestampExplanation) -> str:
    lines = [_line("query timestamp", " " + _at(x.query_ts))]
    if x.oracle_ts is not None:
        lines.append(_line("oracle read timestamp", " " + _at(x.oracle_ts)))
    lines += [
        _line("largest not in advance of upper", " " + _at(x.upper - 1)),
        _line("upper", f"[{_at(x.upper)}]"),
        _line("since", f"[{_at(x.since)}]"),
        _line("can respond immediately", " " + ("true" if x.immediately else "false")),
        _line("timeline", " Some(EpochMilliseconds)" if x.sources else " None"),
        _line("session wall time", " " + _at(x.wall_time)),
    ]
    for source in x.sources:
        lines += [
            "",
            f"source {source.name} ({source.id}, {source.kind}):",
            _line("read frontier", f"[{_at(source.read)}]"),
            _line("write frontier", f"[{_at(source.write)}]"),
        ]
    return "\n".join(lines) + "\n"
