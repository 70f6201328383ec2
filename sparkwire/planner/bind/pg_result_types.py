"""PostgreSQL's result types of expressions over user relations: the one table of PostgreSQL's type rules.

Contract: `result_type(node, columns)` is the PostgreSQL type (as `format_type` spells it without a typmod:
'integer', 'numeric', 'double precision', …) of a PostgreSQL-parsed sqlglot expression, or None when these rules
do not know it (then the engine's own type is described, as before). `columns` maps a relation's name or alias to
its columns' PostgreSQL type names (translate/numeric_types.Columns; unqualified columns are found in the one
relation that has them; `column_type` is a column's type with its typmod); `with_derived(tree, columns)` adds the
derived tables and CTEs of `tree`, each output column typed by these rules. A computed value's typmod is always
-1 (PostgreSQL keeps one only for columns and casts).

The rules, from PostgreSQL 15's catalog (pg_proc.prorettype by argument type, pg_operator.oprresult):
- arithmetic `+ - * / %` and unary minus over numbers (`OPERATORS`): the wider of smallint < integer < bigint <
  numeric < double precision; real with real is real, real with anything else double precision; no float `%`;
  date - date is integer, date ± integer date; timestamp - timestamp and time - time interval, a timestamp or time
  ± interval its own type, an interval literal interval;
- aggregates and window functions by their argument's type (`AGGREGATES`, `WINDOW_FUNCTIONS`): count, the
  ranking functions bigint, ntile integer, percentile_cont double precision, percentile_disc and mode the
  ordered value's type, lag/lead the common type of the value and its default, sum of smallint/integer bigint
  and of bigint numeric, avg and stddev/variance of integers and numerics numeric (of floats double precision),
  min/max the argument's type, …;
- `FUNCTIONS`: scalar functions by PostgreSQL name (lower case) → rule over the argument types; helper modules add
  theirs here (`register`), one rule per function, never per query.
A rule is `Callable[[list[str | None]], str | None]` over the argument types (None: unknown).

Where the types are used: planner/bind/output_types.py declares them for the result columns (they win over the
engine's, and the rows are conformed to them), and the Spark translation computes each value in the same type
(translate/spark_pg_types.py), so the described type and the values always agree.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from sqlglot import exp

from sparkwire.planner.bind.pg_function_types import common_type, function_type

Columns = Mapping[str, Mapping[str, str]]
Rule = Callable[[list[str | None]], str | None]

SMALLINT, INTEGER, BIGINT, NUMERIC = "smallint", "integer", "bigint", "numeric"
REAL, DOUBLE, TEXT, BOOLEAN, DATE = "real", "double precision", "text", "boolean", "date"
NUMBERS = (SMALLINT, INTEGER, BIGINT, NUMERIC, DOUBLE)  # by width; real is apart (see `arithmetic`)
INTEGERS = frozenset({SMALLINT, INTEGER, BIGINT})
FLOATS = frozenset({REAL, DOUBLE})

_SPELLINGS = {
    "int2": SMALLINT, "int4": INTEGER, "int": INTEGER, "int8": BIGINT, "float4": REAL, "float8": DOUBLE,
    "float": DOUBLE, "double": DOUBLE, "decimal": NUMERIC, "bool": BOOLEAN, "varchar": "character varying",
    "bpchar": "character", "char": "character", "timestamp": "timestamp without time zone",
    "timestamptz": "timestamp with time zone", "time": "time without time zone",
}  # fmt: skip
_TYPMOD = re.compile(r"\s*\(\s*\d+\s*(,\s*-?\d+\s*)?\)")


def canonical(type_name: str) -> str:
    """A PostgreSQL type name without its typmod, as format_type spells it ('numeric(10,2)' -> 'numeric')."""
    base = _TYPMOD.sub("", type_name.strip().lower())
    return _SPELLINGS.get(base, base)


_DATE_OPERATORS = {("-", DATE, DATE): INTEGER, ("+", DATE, INTEGER): DATE, ("+", INTEGER, DATE): DATE}
_DATE_OPERATORS |= {("-", DATE, INTEGER): DATE}
_TIMESTAMP, _TIMESTAMPTZ, _TIME, _INTERVAL = (
    "timestamp without time zone", "timestamp with time zone", "time without time zone", "interval",
)  # fmt: skip
# timestamp - timestamp, time - time: interval (timestamp_mi, time_mi_time); ± interval keeps the datetime's type
_DATE_OPERATORS |= {("-", t, t): _INTERVAL for t in (_TIMESTAMP, _TIMESTAMPTZ, _TIME, _INTERVAL)}
_STAMPS = (DATE, _TIMESTAMP, _TIMESTAMPTZ)  # a date with a timestamp is cast to it
_DATE_OPERATORS |= {("-", a, b): _INTERVAL for a in _STAMPS for b in _STAMPS if a != b}
_DATE_OPERATORS |= {("+", DATE, _INTERVAL): _TIMESTAMP, ("-", DATE, _INTERVAL): _TIMESTAMP}
_DATE_OPERATORS |= {("+", _INTERVAL, DATE): _TIMESTAMP}
_DATE_OPERATORS |= {("+", _INTERVAL, _INTERVAL): _INTERVAL}
_DATE_OPERATORS |= {(op, t, _INTERVAL): t for op in "+-" for t in (_TIMESTAMP, _TIMESTAMPTZ, _TIME)}
_DATE_OPERATORS |= {("+", _INTERVAL, t): t for t in (_TIMESTAMP, _TIMESTAMPTZ, _TIME)}


def arithmetic(types: list[str | None], modulo: bool = False, operator: str = "") -> str | None:
    """PostgreSQL's result type of a binary arithmetic operator over numbers (None: not numbers, or no operator);
    `operator` ('+', '-') also finds date arithmetic (date - date is integer days, date ± integer a date; the other
    _DATE_OPERATORS: timestamps, times and intervals)."""
    dated = _DATE_OPERATORS.get((operator, types[0] or "", types[1] or "")) if len(types) == 2 else None
    if dated is not None:
        return dated
    if len(types) != 2 or any(t not in (*NUMBERS, REAL) for t in types):
        return None
    if modulo and any(t in FLOATS for t in types):
        return None  # 42883 operator does not exist: double precision % …
    if types[0] == REAL and types[1] == REAL:
        return REAL
    widened = [DOUBLE if t == REAL else t for t in types]
    return max(widened, key=lambda t: NUMBERS.index(t or SMALLINT))


def _first(types: list[str | None]) -> str | None:
    return types[0] if types else None


def _fixed(result: str) -> Rule:
    return lambda types: result


def _by_argument(table: Mapping[str, str]) -> Rule:
    return lambda types: table.get(types[0] or "") if types else None


_SUM = {SMALLINT: BIGINT, INTEGER: BIGINT, BIGINT: NUMERIC, NUMERIC: NUMERIC, REAL: REAL, DOUBLE: DOUBLE}
_SUM |= {"interval": "interval"}
_AVG = {SMALLINT: NUMERIC, INTEGER: NUMERIC, BIGINT: NUMERIC, NUMERIC: NUMERIC, REAL: DOUBLE, DOUBLE: DOUBLE}
_AVG |= {"interval": "interval"}
_SPREAD = {SMALLINT: NUMERIC, INTEGER: NUMERIC, BIGINT: NUMERIC, NUMERIC: NUMERIC, REAL: DOUBLE, DOUBLE: DOUBLE}
# min/max: one per type; character varying has none and is compared as text
_EXTREMES = {"character varying": TEXT, "name": TEXT}


def _extreme(types: list[str | None]) -> str | None:
    found = _first(types)
    return _EXTREMES.get(found, found) if found is not None else None


_DOUBLE_AGGREGATES = (exp.Corr, exp.CovarPop, exp.CovarSamp)
_DOUBLE_AGGREGATE_NAMES = ("regr_slope", "regr_intercept", "regr_r2", "regr_avgx", "regr_avgy", "regr_sxx")
_DOUBLE_AGGREGATE_NAMES_MORE = ("regr_syy", "regr_sxy", "corr", "covar_pop", "covar_samp")

AGGREGATES: dict[type[exp.Expr], Rule] = {
    exp.Count: _fixed(BIGINT),
    exp.RegrCount: _fixed(BIGINT),
    exp.Sum: _by_argument(_SUM),
    exp.Avg: _by_argument(_AVG),
    exp.Stddev: _by_argument(_SPREAD),
    exp.StddevSamp: _by_argument(_SPREAD),
    exp.StddevPop: _by_argument(_SPREAD),
    exp.Variance: _by_argument(_SPREAD),
    exp.VariancePop: _by_argument(_SPREAD),
    exp.Min: _extreme,
    exp.Max: _extreme,
    exp.LogicalAnd: _fixed(BOOLEAN),
    exp.LogicalOr: _fixed(BOOLEAN),
    exp.GroupConcat: _fixed(TEXT),
    exp.Grouping: _fixed(INTEGER),
    **{kind: _fixed(DOUBLE) for kind in _DOUBLE_AGGREGATES},
}
WINDOW_FUNCTIONS: dict[type[exp.Expr], Rule] = {
    exp.RowNumber: _fixed(BIGINT),
    exp.Rank: _fixed(BIGINT),
    exp.DenseRank: _fixed(BIGINT),
    exp.Ntile: _fixed(INTEGER),
    exp.PercentRank: _fixed(DOUBLE),
    exp.CumeDist: _fixed(DOUBLE),
    exp.FirstValue: _first,
    exp.LastValue: _first,
    exp.NthValue: _first,
    exp.Lag: _first,
    exp.Lead: _first,
}
FUNCTIONS: dict[str, Rule] = {
    **{name: _fixed(DOUBLE) for name in (*_DOUBLE_AGGREGATE_NAMES, *_DOUBLE_AGGREGATE_NAMES_MORE)},
    "every": _fixed(BOOLEAN),
    "bool_and": _fixed(BOOLEAN),
    "bool_or": _fixed(BOOLEAN),
}
_RULES: dict[type[exp.Expr], Rule] = {**AGGREGATES, **WINDOW_FUNCTIONS}


def register(name: str, rule: Rule) -> None:
    """Add a scalar function's rule (by PostgreSQL's lower-case name)."""
    FUNCTIONS[name.lower()] = rule


def column_type(node: exp.Column, columns: Columns) -> str | None:
    """The column's declared type as `columns` spells it, typmod included ('character varying(30)')."""
    if node.table:
        return columns.get(node.table, {}).get(node.name)
    having = {cols[node.name] for cols in columns.values() if node.name in cols}
    return having.pop() if len(having) == 1 else None


def _column(node: exp.Column, columns: Columns) -> str | None:
    found = column_type(node, columns)
    return canonical(found) if found is not None else None


def _literal(node: exp.Literal) -> str | None:
    if node.is_string:
        return None  # unknown: PostgreSQL types it by its context
    text = node.this
    if text.isdigit():
        value = int(text)
        return INTEGER if value <= 2**31 - 1 else BIGINT if value <= 2**63 - 1 else NUMERIC
    return NUMERIC


def _cast(node: exp.Cast) -> str | None:
    return canonical(node.to.sql("postgres"))


def _arguments(node: exp.Expr) -> list[exp.Expr]:
    """An aggregate's or function's value arguments (DISTINCT unwrapped)."""
    first = node.this if isinstance(node.this, exp.Expr) else None
    if isinstance(first, exp.Distinct):
        return list(first.expressions)
    args = [first] if first is not None else []
    return args + [e for e in node.expressions if isinstance(e, exp.Expr)]


def result_type(node: exp.Expr, columns: Columns) -> str | None:
    if isinstance(node, exp.Paren | exp.Alias):
        return result_type(node.this, columns)
    if isinstance(node, exp.Column) and isinstance(node.this, exp.Identifier):
        return _column(node, columns)
    if isinstance(node, exp.Literal):
        return _literal(node)
    if isinstance(node, exp.Interval):
        return _INTERVAL
    if isinstance(node, exp.Cast):
        return _cast(node)
    if isinstance(node, exp.Neg):
        found = result_type(node.this, columns)
        return found if found in (*NUMBERS, REAL, _INTERVAL) else None
    if isinstance(node, exp.Add | exp.Sub | exp.Mul | exp.Div | exp.Mod):
        types = [result_type(node.this, columns), result_type(node.expression, columns)]
        operator = "+" if isinstance(node, exp.Add) else "-" if isinstance(node, exp.Sub) else ""
        return arithmetic(types, modulo=isinstance(node, exp.Mod), operator=operator)
    if isinstance(node, exp.Window | exp.Filter):
        return result_type(node.this, columns)
    if isinstance(node, exp.Subquery) and isinstance(node.this, exp.Select) and len(node.this.expressions) == 1:
        return result_type(node.this.expressions[0].unalias(), columns)  # a scalar subquery: its one column's
    if isinstance(node, exp.WithinGroup):
        return _ordered_set(node, columns)
    if isinstance(node, exp.Count):
        return BIGINT
    if isinstance(node, exp.Lag | exp.Lead) and isinstance(node.args.get("default"), exp.Expr):
        # lag/lead(anycompatible, integer, anycompatible): the value's and the default's common type
        return common_type([result_type(node.this, columns), result_type(node.args["default"], columns)])
    rule = _RULES.get(type(node))
    name = node.name.lower() if isinstance(node, exp.Anonymous) else None
    if rule is None and name is not None:
        rule = FUNCTIONS.get(name)
    if rule is None:
        return function_type(node, lambda arg: result_type(arg, columns))  # scalar functions: pg_function_types.py
    return rule([result_type(arg, columns) for arg in _arguments(node)])


def _ordered_set(node: exp.WithinGroup, columns: Columns) -> str | None:
    """percentile_cont(fraction) of numbers is double precision (of an interval an interval); percentile_disc and
    mode are the ordered value's type. A fraction array (several percentiles) is not typed here."""
    order = node.expression
    keys = order.expressions if isinstance(order, exp.Order) else []
    if len(keys) != 1 or isinstance(node.this.this, exp.Array):
        return None
    value = result_type(keys[0].this, columns)
    if isinstance(node.this, exp.PercentileCont):
        return "interval" if value == "interval" else DOUBLE if value in (*NUMBERS, REAL) else None
    if isinstance(node.this, exp.PercentileDisc | exp.Mode):
        return _extreme([value])
    return None


def _outputs(select: exp.Select, columns: Columns) -> dict[str, str]:
    typed: dict[str, str] = {}
    for projection in select.expressions:
        found = result_type(projection.unalias(), columns)
        if found is not None and projection.alias_or_name:
            typed[projection.alias_or_name] = found
    return typed


def with_derived(tree: exp.Expr, columns: Columns) -> dict[str, Mapping[str, str]]:
    """`columns` and, by alias, the output columns of `tree`'s CTEs and derived tables (innermost first)."""
    found: dict[str, Mapping[str, str]] = dict(columns)
    for node in reversed(list(tree.find_all(exp.CTE, exp.Subquery, exp.Lateral))):
        inner, alias = node.this, node.alias
        if isinstance(node, exp.Lateral) and isinstance(inner, exp.Subquery):  # LATERAL (SELECT …) alias
            inner = inner.this
        if alias and isinstance(inner, exp.Select):
            found[alias] = _outputs(inner, found)
    return found
