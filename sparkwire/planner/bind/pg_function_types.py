"""PostgreSQL's result types of scalar functions: one rule per function, by its argument types.

Contract: `function_type(node, typer)` is the PostgreSQL result type (as pg_result_types.canonical spells it:
'integer', 'numeric', 'double precision', 'timestamp with time zone', …) of a scalar function call in a
PostgreSQL-parsed sqlglot tree, or None when the node is not one of these functions or an argument type it
depends on is unknown. `typer(expr)` gives an argument's type (pg_result_types.result_type over the query's
columns). The rules are pg_proc's `prorettype` for the overload PostgreSQL 15's resolution picks:

- float-or-numeric functions (round/trunc/ceil/floor/sign/sqrt/ln/log/exp of one argument): numeric for a numeric
  argument, double precision for any other number (an integer or real argument is cast to float8, the preferred
  type of the numeric category); round/trunc with a scale: numeric; power: double precision unless one argument is
  numeric and none is a float; the trigonometric functions, cbrt, degrees, radians, pi(), random(): double
  precision; factorial: numeric; abs: its argument's type; gcd/lcm: the wider integer type, or numeric;
- length, char_length, octet_length, bit_length, strpos/position, ascii, regexp_count, regexp_instr,
  width_bucket, scale, min_scale: integer; trim_scale: numeric;
- EXTRACT: numeric; date_part: double precision (the parser marks date_part calls, grammar/dialect.py);
- to_timestamp (of a text and a format, or of epoch seconds): timestamp with time zone;
- date_trunc: timestamp for a timestamp, timestamp with time zone for a timestamptz or a date (date → timestamptz
  is the preferred implicit cast), interval for an interval or a time (cast to interval); age: interval;
- COALESCE / GREATEST / LEAST: the arguments' common type (select_common_type: unknown literals take the others'
  type, text beats varchar, numbers widen: smallint < integer < bigint < numeric < real < double precision),
  NULLIF: its first argument's type.

pg_result_types.result_type consults this table for every call it has no aggregate or window rule for.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from sparkwire.planner.grammar.dialect import DATE_PART

Typer = Callable[[exp.Expr], str | None]
ScalarRule = Callable[[exp.Expr, Typer], str | None]

SMALLINT, INTEGER, BIGINT, NUMERIC = "smallint", "integer", "bigint", "numeric"
REAL, DOUBLE, TEXT, VARCHAR = "real", "double precision", "text", "character varying"
DATE, TIMESTAMP, TIMESTAMPTZ, INTERVAL, TIME = (
    "date",
    "timestamp without time zone",
    "timestamp with time zone",
    "interval",
    "time without time zone",
)
INTEGERS = (SMALLINT, INTEGER, BIGINT)
NUMBERS = (*INTEGERS, NUMERIC, REAL, DOUBLE)


def _arg(node: exp.Expr, key: str = "this") -> exp.Expr | None:
    found = node.args.get(key)
    return found if isinstance(found, exp.Expr) else None


def _float_or_numeric(node: exp.Expr, typer: Typer) -> str | None:
    """f(float8) and f(numeric): numeric for numeric, float8 for other numbers."""
    arg = _arg(node)
    found = typer(arg) if arg is not None else None
    if found is None or found not in NUMBERS:
        return None
    return NUMERIC if found == NUMERIC else DOUBLE


def _rounding(node: exp.Expr, typer: Typer) -> str | None:
    """round/trunc(x, n) is numeric only; round/trunc/ceil/floor(x) as _float_or_numeric."""
    if _arg(node, "decimals") is not None:
        return NUMERIC
    return _float_or_numeric(node, typer)


def _log(node: exp.Expr, typer: Typer) -> str | None:
    """log(x): float8 or numeric; log(b, x) exists for numeric only."""
    if _arg(node, "expression") is not None:
        return NUMERIC
    return _float_or_numeric(node, typer)


def _power(node: exp.Expr, typer: Typer) -> str | None:
    args = [a for a in (_arg(node), _arg(node, "expression")) if a is not None]
    types = [typer(a) for a in args]
    if len(types) != 2 or any(t is None or t not in NUMBERS for t in types):
        return None
    if NUMERIC in types and not {REAL, DOUBLE} & set(types):
        return NUMERIC
    return DOUBLE


def _same(node: exp.Expr, typer: Typer) -> str | None:
    arg = _arg(node)
    found = typer(arg) if arg is not None else None
    return found if found in NUMBERS else None


def _integer_pair(node: exp.Expr, typer: Typer) -> str | None:
    """gcd/lcm(a, b): integer, bigint or numeric, the wider of the two."""
    args = list(node.expressions)
    types = [typer(a) for a in args]
    if len(types) != 2 or any(t not in (*INTEGERS, NUMERIC) for t in types):
        return None
    order = (*INTEGERS, NUMERIC)
    wider = max(types, key=lambda t: order.index(t or SMALLINT))
    return INTEGER if wider == SMALLINT else wider


def _fixed(result: str) -> ScalarRule:
    return lambda node, typer: result


def _extract(node: exp.Expr, typer: Typer) -> str | None:
    return DOUBLE if node.meta.get(DATE_PART) else NUMERIC


def _date_trunc(node: exp.Expr, typer: Typer) -> str | None:
    arg = _arg(node)
    found = typer(arg) if arg is not None else None
    if found == DATE:
        return TIMESTAMPTZ
    if found == TIME:  # a time is cast to interval, date_trunc(text, interval)'s argument (no time overload)
        return INTERVAL
    return found if found in (TIMESTAMP, TIMESTAMPTZ, INTERVAL) else None


_TEXT_LIKE = (TEXT, VARCHAR, "character", "name")


def common_type(types: list[str | None]) -> str | None:
    """select_common_type over known argument types (None: an unknown literal or NULL, which takes the others')."""
    known = [t for t in types if t is not None]
    if not known:
        return None
    if all(t in _TEXT_LIKE for t in known):
        return known[0] if len(set(known)) == 1 else TEXT
    if all(t in NUMBERS for t in known):
        order = (*INTEGERS, NUMERIC, REAL, DOUBLE)  # numeric and integers cast implicitly to real, not back
        return max(known, key=order.index)
    return known[0] if len(set(known)) == 1 else None


def _common(node: exp.Expr, typer: Typer) -> str | None:
    args = [a for a in (_arg(node), *node.expressions) if a is not None]
    return common_type([typer(a) for a in args])


def _first(node: exp.Expr, typer: Typer) -> str | None:
    arg = _arg(node)
    return typer(arg) if arg is not None else None


_FLOAT_OR_NUMERIC: tuple[type[exp.Expr], ...] = (exp.Sign, exp.Sqrt, exp.Ln, exp.Exp)
_DOUBLE_ONLY: tuple[type[exp.Expr], ...] = (
    *(exp.Cbrt, exp.Degrees, exp.Radians, exp.Pi, exp.Rand, exp.Sin, exp.Cos, exp.Tan, exp.Cot),
    *(exp.Asin, exp.Acos, exp.Atan, exp.Atan2),
)
_INTEGER_VALUED: tuple[type[exp.Expr], ...] = (
    *(exp.Length, exp.BitLength, exp.StrPosition, exp.Ascii, exp.RegexpCount, exp.RegexpInstr),
    exp.WidthBucket,
)

SCALAR_CLASSES: dict[type[exp.Expr], ScalarRule] = {
    **{kind: _float_or_numeric for kind in _FLOAT_OR_NUMERIC},
    **{kind: _fixed(DOUBLE) for kind in _DOUBLE_ONLY},
    **{kind: _fixed(INTEGER) for kind in _INTEGER_VALUED},
    exp.Round: _rounding,
    exp.Trunc: _rounding,
    exp.Ceil: _rounding,
    exp.Floor: _rounding,
    exp.Log: _log,
    exp.Pow: _power,
    exp.Abs: _same,
    exp.Factorial: _fixed(NUMERIC),
    exp.Extract: _extract,
    exp.TimestampTrunc: _date_trunc,
    exp.DateTrunc: _date_trunc,
    exp.Coalesce: _common,
    exp.Greatest: _common,
    exp.Least: _common,
    exp.Nullif: _first,
    exp.StrToTime: _fixed(TIMESTAMPTZ),  # to_timestamp(text, format)
    exp.UnixToTime: _fixed(TIMESTAMPTZ),  # to_timestamp(epoch seconds)
}
# Calls sqlglot leaves anonymous, by PostgreSQL's (lower-case) name.
SCALAR_NAMES: dict[str, ScalarRule] = {
    "gcd": _integer_pair,
    "lcm": _integer_pair,
    "octet_length": _fixed(INTEGER),
    "scale": _fixed(INTEGER),
    "min_scale": _fixed(INTEGER),
    "trim_scale": _fixed(NUMERIC),
    "strpos": _fixed(INTEGER),
    "age": _fixed(INTERVAL),
}


def function_type(node: exp.Expr, typer: Typer) -> str | None:
    rule = SCALAR_CLASSES.get(type(node))
    if rule is None and isinstance(node, exp.Anonymous):
        rule = SCALAR_NAMES.get(node.name.lower())
    return rule(node, typer) if rule is not None else None
