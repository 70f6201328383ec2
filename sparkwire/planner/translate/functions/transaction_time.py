"""now() and its kin as PostgreSQL (and Materialize) define them: the time the transaction began, the same value for
every statement of a transaction block, whichever engine runs the statement.

Contract: `uses_transaction_time(tree)` says whether a statement calls any of them (subqueries included);
`with_transaction_time(tree, times)` returns a copy of `tree` (`tree` itself when it calls none) in which each is a
typed literal of `times` (a `StatementTimes`: the transaction's start, the statement's start, both aware datetimes,
and the session's TimeZone), so neither engine's own clock (DuckDB's statement time, Spark's query start) is asked:
- now(), transaction_timestamp(), CURRENT_TIMESTAMP[(p)] → timestamptz of the transaction's start;
- LOCALTIMESTAMP[(p)] → timestamp, CURRENT_DATE → date, LOCALTIME[(p)] → time: that instant in the session's zone;
- statement_timestamp() → timestamptz of the statement's start;
- PostgreSQL's special inputs cast to a date/time type: `'now'` (the transaction's start), `'today'`, `'tomorrow'`,
  `'yesterday'` (midnight of that day in the session's zone): `'today'::date`, `timestamptz 'now'`.
A precision p rounds the fraction to p digits, as PostgreSQL does. clock_timestamp() and timeofday() stay the time
of the call; CURRENT_TIME (time with time zone) is left to the engines, and so is a session TimeZone Python does not
know (the local kinds only).
`parameter_value(node, times)` is one call's value and DuckDB type, to bind as a parameter instead of a literal: a
statement evaluated again and again (an INSERT's VALUES) keeps one text, which its translation is remembered by.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlglot import exp

_CALLS = frozenset({"transaction_timestamp", "statement_timestamp"})
_NODES = (exp.CurrentTimestamp, exp.Localtimestamp, exp.CurrentDate, exp.Localtime)
_DAYS = {"now": 0, "today": 0, "tomorrow": 1, "yesterday": -1}  # PostgreSQL's special date/time inputs
_SPECIAL_TYPES = {
    exp.DataType.Type.DATE: "date",
    exp.DataType.Type.TIMESTAMP: "timestamp",
    exp.DataType.Type.TIMESTAMPTZ: "timestamptz",
}


@dataclass(frozen=True, slots=True)
class StatementTimes:
    transaction: dt.datetime
    statement: dt.datetime
    zone: str


def _is_call(node: exp.Expr) -> bool:
    return isinstance(node, exp.Anonymous) and not node.expressions and node.name.lower() in _CALLS


def _special(node: exp.Expr) -> tuple[str, str] | None:
    """`'today'::date`, `timestamptz 'now'`, …: the special input and the type, for a cast of one to a date/time."""
    if not (isinstance(node, exp.Cast) and isinstance(node.this, exp.Literal) and node.this.is_string):
        return None
    word, type_name = node.this.this.strip().lower(), _SPECIAL_TYPES.get(node.to.this)
    return (word, type_name) if word in _DAYS and type_name is not None else None


def _is_timed(node: exp.Expr) -> bool:
    return isinstance(node, _NODES) or _is_call(node) or _special(node) is not None


def uses_transaction_time(tree: exp.Expression) -> bool:
    return any(_is_timed(node) for node in tree.walk())


def _rounded(value: dt.datetime, precision: exp.Expression | None) -> dt.datetime:
    if not isinstance(precision, exp.Literal) or not precision.is_int:
        return value
    digits = min(max(int(precision.this), 0), 6)
    step = 10 ** (6 - digits)
    micros = (value.microsecond + step // 2) // step * step  # half up, as PostgreSQL rounds
    return value.replace(microsecond=0) + dt.timedelta(microseconds=micros)


def _special_value(word: str, type_name: str, times: StatementTimes) -> tuple[object, str] | None:
    try:
        zone = ZoneInfo(times.zone)
    except (ZoneInfoNotFoundError, ValueError):
        return None
    local = times.transaction.astimezone(zone)
    if word == "now":
        if type_name == "timestamptz":
            return times.transaction.astimezone(dt.UTC), type_name
        return (local.replace(tzinfo=None) if type_name == "timestamp" else local.date()), type_name
    day = local.date() + dt.timedelta(days=_DAYS[word])
    if type_name == "date":
        return day, type_name
    midnight = dt.datetime.combine(day, dt.time())
    if type_name == "timestamp":
        return midnight, type_name
    return midnight.replace(tzinfo=zone).astimezone(dt.UTC), type_name


def _value(node: exp.Expr, times: StatementTimes) -> tuple[object, str] | None:
    """The value `node` stands for and its type (PostgreSQL's name), None to leave it to the engine."""
    special = _special(node)
    if special is not None:
        return _special_value(*special, times)
    if _is_call(node):
        at = times.statement if node.name.lower() == "statement_timestamp" else times.transaction
        return at.astimezone(dt.UTC), "timestamptz"
    if not isinstance(node, _NODES):
        return None
    moment = _rounded(times.transaction, node.args.get("this"))
    if isinstance(node, exp.CurrentTimestamp):
        return moment.astimezone(dt.UTC), "timestamptz"
    try:
        local = moment.astimezone(ZoneInfo(times.zone)).replace(tzinfo=None)
    except (ZoneInfoNotFoundError, ValueError):
        return None
    if isinstance(node, exp.Localtimestamp):
        return local, "timestamp"
    if isinstance(node, exp.CurrentDate):
        return local.date(), "date"
    return local.time(), "time"


def _text(value: object) -> str:
    return value.isoformat(sep=" ") if isinstance(value, dt.datetime) else str(value)


def _calls(tree: exp.Expression) -> list[exp.Expr]:
    return [n for n in tree.walk() if _is_timed(n)]


def with_transaction_time(tree: exp.Expression, times: StatementTimes) -> exp.Expression:
    if not uses_transaction_time(tree):
        return tree  # nothing to replace: no copy (an INSERT … SELECT's query passes here each time)
    out = tree.copy()
    for node in _calls(out):
        known = _value(node, times)
        if known is not None:
            node.replace(exp.Cast(this=exp.Literal.string(_text(known[0])), to=exp.DataType.build(known[1])))
    return out


_DUCKDB_TYPES = {"timestamptz": "TIMESTAMP WITH TIME ZONE", "timestamp": "TIMESTAMP", "date": "DATE", "time": "TIME"}


def parameter_value(node: exp.Expr, times: StatementTimes) -> tuple[object, str] | None:
    """For one of the calls, its value and DuckDB type, to bind as a parameter; None for any other node."""
    known = _value(node, times) if _is_timed(node) else None
    return None if known is None else (known[0], _DUCKDB_TYPES[known[1]])
