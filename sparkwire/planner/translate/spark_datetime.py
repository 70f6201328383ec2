"""PostgreSQL's to_char(datetime, format) and the EXTRACT fields Spark lacks (tree rules like spark_rules.py, run
before it).

- pg_to_char: to_char(value, 'literal format') is built from one Spark expression per template pattern (YYYY, MM,
  DD, HH24, MI, SS, MS, US, AM, Month, Mon, Day, Dy, D, DDD, Q, WW, IW, IYYY, "quoted text", FM fill mode, case
  variants), concatenated. sqlglot rewrites the format into strftime codes when it parses (lossily for Spark:
  'Day' becomes '%uay', quotes stay); the codes are mapped back to PostgreSQL's patterns first.
- extract_extras: isoyear, century, decade, millennium, milliseconds (3 decimals, as PostgreSQL's numeric),
  microseconds (Spark cannot extract them);
  a time field of a date is 0A000 `unit "hour" not supported for type date`, as PostgreSQL says.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from sqlglot import exp
from sqlglot.dialects.postgres import Postgres

from sparkwire import errors

Rule = Callable[[exp.Expr], exp.Expr]
DATETIMES = frozenset({exp.DType.DATE, exp.DType.TIMESTAMP, exp.DType.TIMESTAMPTZ, exp.DType.TIMESTAMPLTZ})

# sqlglot's strftime code -> the PostgreSQL pattern it came from (TIME_MAPPING inverted; upper case wins)
_CODES = {code: pattern for pattern, code in sorted(Postgres.TIME_MAPPING.items(), key=lambda kv: not kv[0].islower())}
_CODE_RE = re.compile("|".join(re.escape(c) for c in sorted(_CODES, key=len, reverse=True)))

PATTERNS = (
    "IYYY",
    "YYYY",
    "YYY",
    "YY",
    "HH24",
    "HH12",
    "HH",
    "MI",
    "SS",
    "MS",
    "US",
    "AM",
    "PM",
    "am",
    "pm",
    "MONTH",
    "Month",
    "month",
    "MON",
    "Mon",
    "mon",
    "DAY",
    "Day",
    "day",
    "DY",
    "Dy",
    "dy",
    "DDD",
    "DD",
    "D",
    "MM",
    "Q",
    "WW",
    "IW",
)
TOKENS = re.compile(r'"[^"]*"|FM|TM|' + "|".join(PATTERNS) + r"|.", re.DOTALL)


def _fn(name: str, *args: exp.Expr) -> exp.Anonymous:
    return exp.Anonymous(this=name, expressions=list(args))


def _s(text: str) -> exp.Literal:
    return exp.Literal.string(text)


def _text(value: exp.Expr) -> exp.Expr:
    return exp.cast(value, exp.DType.TEXT)


def _case(pattern: str, value: exp.Expr) -> exp.Expr:
    """MONTH / Month / month: upper, as is, lower (Spark's names are capitalized)."""
    if pattern.isupper() and len(pattern) > 1:
        return exp.Upper(this=value)
    if pattern.islower():
        return exp.Lower(this=value)
    return value


def _pattern(pattern: str, x: exp.Expr, fill: bool) -> exp.Expr:
    """One template pattern of `x` (fill: FM given, no padding)."""

    def fmt(java: str) -> exp.Expr:
        return _fn("date_format", x.copy(), _s(java))

    def number(fn: str) -> exp.Expr:
        return _text(_fn(fn, x.copy()))

    upper = pattern.upper()
    padded: dict[str, tuple[str, str]] = {
        "YYYY": ("yyyy", "year"),
        "MM": ("MM", "month"),
        "DD": ("dd", "day"),
        "DDD": ("DDD", "dayofyear"),
        "HH24": ("HH", "hour"),
        "MI": ("mm", "minute"),
        "SS": ("ss", "second"),
    }
    if upper in padded:
        java, fn = padded[upper]
        return number(fn) if fill else fmt(java)
    if upper in ("HH12", "HH"):
        return fmt("h" if fill else "hh")
    if upper in ("MONTH", "DAY"):
        name = fmt("MMMM" if upper == "MONTH" else "EEEE")
        return _case(pattern, name if fill else _fn("rpad", name, exp.Literal.number(9), _s(" ")))
    simple = {
        "YYY": _fn("substring", fmt("yyyy"), exp.Literal.number(2)),
        "YY": fmt("yy"),
        "MS": fmt("SSS"),
        "US": fmt("SSSSSS"),
        "MON": fmt("MMM"),
        "DY": fmt("EEE"),
        "D": number("dayofweek"),
        "Q": number("quarter"),
        "IW": _fn("lpad", number("weekofyear"), exp.Literal.number(2), _s("0")),
        "WW": _fn(
            "lpad",
            _text(
                exp.Add(
                    this=exp.IntDiv(
                        this=exp.Paren(this=exp.Sub(this=_fn("dayofyear", x.copy()), expression=exp.Literal.number(1))),
                        expression=exp.Literal.number(7),
                    ),
                    expression=exp.Literal.number(1),
                )
            ),
            exp.Literal.number(2),
            _s("0"),
        ),
        "IYYY": _text(exp.Extract(this=exp.var("YEAROFWEEK"), expression=x.copy())),
        "AM": fmt("a"),
        "PM": fmt("a"),
    }
    return _case(pattern, simple[upper]) if upper in ("MON", "DY", "AM", "PM") else simple[upper]


def pg_format(code: str) -> str:
    return _CODE_RE.sub(lambda m: _CODES[m.group(0)], code)


def template_tokens(template: str) -> Iterator[tuple[str, bool]]:
    """to_char's template as its tokens, each with whether FM (fill mode) is on for it (FM applies to the token
    after it); FM and TM are read here."""
    fill = False
    for token in TOKENS.findall(template):
        if token in ("FM", "TM"):
            fill = fill or token == "FM"
            continue
        yield token, fill
        fill = False


def _to_char(value: exp.Expr, pg_format: str) -> exp.Expr:
    parts: list[exp.Expr] = []
    for token, fill in template_tokens(pg_format):
        if token.startswith('"'):
            parts.append(_s(token[1:-1]))
        elif token in PATTERNS:
            parts.append(_pattern(token, value, fill))
        else:
            parts.append(_s(token))
    return _fn("concat", *parts) if parts else _s("")


def pg_to_char(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.TimeToStr):
            return node
        fmt = node.args.get("format")
        kind = node.this.type.this if node.this.type is not None else None
        if not (isinstance(fmt, exp.Literal) and fmt.is_string) or kind not in DATETIMES:
            return node
        return _to_char(node.this, pg_format(fmt.this))

    return tree.transform(rewrite, copy=False)


TIME_FIELDS = frozenset({"HOUR", "MINUTE", "SECOND", "MILLISECOND", "MILLISECONDS", "MICROSECOND", "MICROSECONDS"})


def _year(x: exp.Expr) -> exp.Expr:
    return _fn("year", x.copy())


def extract_extras(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.Extract):
            return node
        field, x = node.name.upper(), node.expression
        kind = x.type.this if x.type is not None else None
        if kind == exp.DType.DATE and field in TIME_FIELDS:
            raise errors.FeatureNotSupported(f'unit "{node.name.lower()}" not supported for type date')
        one = exp.Literal.number(1)
        if field == "ISOYEAR":
            return exp.Extract(this=exp.var("YEAROFWEEK"), expression=x)
        if field in ("CENTURY", "MILLENNIUM"):
            size = exp.Literal.number(100 if field == "CENTURY" else 1000)
            past = exp.IntDiv(this=exp.Paren(this=exp.Sub(this=_year(x), expression=one)), expression=size)
            return exp.Paren(this=exp.Add(this=past, expression=one.copy()))
        if field == "DECADE":
            return exp.IntDiv(this=_year(x), expression=exp.Literal.number(10))
        if field in ("MILLISECOND", "MILLISECONDS", "MICROSECOND", "MICROSECONDS"):
            seconds = exp.Extract(this=exp.var("SECOND"), expression=x)
            scale = exp.Literal.number(1000 if field.startswith("MILLI") else 1000000)
            product = exp.Mul(this=seconds, expression=scale)
            return exp.cast(product, "decimal(8, 3)") if field.startswith("MILLI") else exp.cast(product, exp.DType.INT)
        return node

    return tree.transform(rewrite, copy=False)


DATETIME_RULES: tuple[Rule, ...] = (pg_to_char, extract_extras)
