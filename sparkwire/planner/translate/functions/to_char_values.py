"""to_char of an interval and of a number, built from the engines' string functions (both translators).

sqlglot reads every to_char as a datetime's (TimeToStr, its template respelled as strftime codes, which
spark_datetime.pg_format reads back); these rules replace the call when the value is an interval or an integer or
numeric (planner/bind/pg_result_types.result_type), before the datetime rules see it.

Contract: `to_char_values(tree, columns, duckdb)` rewrites in place and returns the tree:
- to_char(interval, template) as PostgreSQL's interval_to_char: the interval's fields (years, months, days, hours
  unbounded by a day, minutes, seconds, microseconds: all of the interval's sign) formatted by the patterns HH24,
  HH / HH12, MI, SS, MS, US, DD, DDD (the span in days, 30 a month), MM, YYYY, AM / PM / am / pm, FM and quoted text
  (`%0*d`: two digits, three with a minus sign, none with FM; DD and DDD make no room for the sign). The parts
  are DuckDB's datepart, or a Spark duration's days and time within the day (functions/intervals/interval_text.py);
- to_char(integer or numeric, template) as PostgreSQL's NUM formatting for the templates of 9 and 0 digit positions,
  a decimal point (D or .), group separators (G or ,) between digits and a leading FM: the value rounded half away
  from zero to the fraction's digits; an integer digit shows from the first 0 of the template or from the value's
  first digit (a zero integer part only when no fraction digit is printed), a hidden position is a space, and the
  sign (a space for a positive value) sits just before the first shown character; FM drops the hidden positions,
  the positive sign and the trailing zeros of 9 positions of the fraction; an integer part wider than the template
  (a zero one too, without integer positions) prints each digit as #; a point with no digit after it is
  dropped (but from the #s).
Other templates and value types are left as written (42883, as before).
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlglot import exp

from sparkwire.planner.bind.pg_result_types import result_type
from sparkwire.planner.translate.functions.intervals.interval_text import call, duration_parts, number, string
from sparkwire.planner.translate.functions.intervals.justify import interval_parts
from sparkwire.planner.translate.functions.intervals.time_ops import typed_columns
from sparkwire.planner.translate.spark_datetime import pg_format, template_tokens

Columns = Mapping[str, Mapping[str, str]]
_NUMBERS = frozenset({"smallint", "integer", "bigint", "numeric"})
_INTERVAL_PATTERNS = frozenset({"HH24", "HH", "HH12", "MI", "SS", "MS", "US", "DD", "DDD", "MM", "YYYY"})
_MERIDIEMS = {"AM": ("AM", "PM"), "PM": ("AM", "PM"), "am": ("am", "pm"), "pm": ("am", "pm")}


def _p(node: exp.Expr) -> exp.Expr:
    return exp.Paren(this=node)


def _text(value: exp.Expr) -> exp.Expr:
    return exp.cast(value, "text")


def _case(condition: exp.Expr, then: exp.Expr, default: exp.Expr) -> exp.Expr:
    return exp.Case(ifs=[exp.If(this=condition, true=then)], default=default)


def _concat(parts: list[exp.Expr]) -> exp.Expr:
    return exp.Concat(expressions=parts) if len(parts) > 1 else parts[0] if parts else string("")


def _zero_padded(digits: exp.Expr, width: int) -> exp.Expr:
    """lpad that never cuts a longer text."""
    if width <= 1:
        return digits
    longer = exp.GTE(this=exp.Length(this=digits.copy()), expression=number(width))
    return _case(longer, digits.copy(), call("lpad", digits, number(width), string("0")))


def _printf(value: exp.Expr, width: int, negative_width: int) -> exp.Expr:
    """C's `%0*d` with `width` digits (`negative_width` characters with the minus sign)."""
    negative = exp.LT(this=value.copy(), expression=number(0))
    magnitude = _text(exp.Abs(this=value.copy()))
    return _case(
        negative,
        _concat([string("-"), _zero_padded(magnitude.copy(), negative_width - 1)]),
        _zero_padded(magnitude, width),
    )


# ---- intervals ---------------------------------------------------------------------------------------------------


def _interval_fields(value: exp.Expr, duckdb: bool) -> dict[str, exp.Expr]:
    if duckdb:
        months, days, micros = interval_parts(value)
    else:
        months, (days, micros) = number(0), duration_parts(value)
    hours = exp.IntDiv(this=_p(micros.copy()), expression=number(3_600_000_000))
    return {
        "YYYY": exp.IntDiv(this=_p(months.copy()), expression=number(12)),
        "MM": exp.Mod(this=_p(months.copy()), expression=number(12)),
        "DD": days,
        "DDD": _p(exp.Add(this=exp.Mul(this=_p(months), expression=number(30)), expression=_p(days.copy()))),
        "HH24": hours,
        "MI": exp.Mod(this=exp.IntDiv(this=_p(micros.copy()), expression=number(60_000_000)), expression=number(60)),
        "SS": exp.Mod(this=exp.IntDiv(this=_p(micros.copy()), expression=number(1_000_000)), expression=number(60)),
        "US": exp.Mod(this=_p(micros), expression=number(1_000_000)),
    }


def _interval_pattern(token: str, fill: bool, fields: dict[str, exp.Expr]) -> exp.Expr | None:
    hours = fields["HH24"]
    if token in _MERIDIEMS:
        am, pm = _MERIDIEMS[token]
        afternoon = exp.GTE(this=exp.Mod(this=hours.copy(), expression=number(24)), expression=number(12))
        return _case(afternoon, string(pm), string(am))
    if token not in _INTERVAL_PATTERNS:
        return None
    if token in ("HH", "HH12"):
        twelfth = exp.Mod(this=hours.copy(), expression=number(12))
        value = _case(exp.EQ(this=twelfth.copy(), expression=number(0)), number(12), twelfth)
        return _text(value) if fill else _printf(value, 2, 3)  # the sign of the hours' width, as PostgreSQL
    if token == "MS":
        return _printf(exp.IntDiv(this=_p(fields["US"].copy()), expression=number(1000)), 3, 3)
    if token == "US":
        return _printf(fields["US"].copy(), 6, 6)
    value = fields[token].copy()
    if fill:
        return _text(value)
    if token in ("DDD", "DD"):  # no room made for a minus sign
        return _printf(value, len(token), len(token))
    return _printf(value, 4, 5) if token == "YYYY" else _printf(value, 2, 3)


def _interval_to_char(value: exp.Expr, template: str, duckdb: bool) -> exp.Expr | None:
    fields = _interval_fields(value, duckdb)
    parts: list[exp.Expr] = []
    for token, fill in template_tokens(template):
        if token.startswith('"'):
            parts.append(string(token[1:-1]))
            continue
        if token[0].isalpha():
            pattern = _interval_pattern(token, fill, fields)
            if pattern is None:
                return None
            parts.append(pattern)
            continue
        parts.append(string(token))
    missing = exp.Is(this=value.copy(), expression=exp.null())
    return _p(_case(missing, exp.null(), _concat(parts)))


# ---- numbers -----------------------------------------------------------------------------------------------------


def _number_template(template: str) -> tuple[bool, str, str, bool] | None:
    """(FM, integer positions, fraction positions, a decimal point) of a template of 9, 0, D/., G/, and a leading
    FM; None for any other template."""
    fill = template.startswith("FM")
    body = (template[2:] if fill else template).replace("D", ".").replace("G", ",")
    if not body or set(body) - set("90.,") or body.count(".") > 1:
        return None
    whole, point, fraction = body.partition(".")
    if "," in fraction or whole.startswith(",") or whole.endswith(",") or ",," in whole:
        return None
    return fill, whole, fraction, bool(point)


def _number_to_char(value: exp.Expr, template: str) -> exp.Expr | None:
    shape = _number_template(template)
    if shape is None:
        return None
    fill, whole, fraction, written_point = shape
    point = written_point and bool(fraction)  # a point with no digit after it is not printed (but for #)
    digits_whole = whole.replace(",", "")
    n_int, n_frac = len(digits_whole), len(fraction)
    rounded = exp.Round(this=exp.cast(value.copy(), "decimal(38, 10)"), decimals=number(n_frac))
    magnitude = exp.Abs(this=rounded.copy())
    integer = exp.cast(exp.Floor(this=magnitude.copy()), "decimal(38, 0)")
    integer_text = _text(integer.copy())
    fraction_text: exp.Expr = string("")
    if n_frac:
        scaled = exp.Mul(this=_p(exp.Sub(this=magnitude.copy(), expression=exp.Floor(this=magnitude.copy()))),
                         expression=exp.Literal.number(10**n_frac))  # fmt: skip
        fraction_text = _zero_padded(_text(exp.cast(scaled, "decimal(38, 0)")), n_frac)
    kept_zeros = fraction.rfind("0") + 1  # FM keeps the digits up to the last 0 position
    if fill and kept_zeros < n_frac:
        head = exp.Substring(this=fraction_text.copy(), start=number(1), length=number(kept_zeros))
        tail = exp.Substring(this=fraction_text.copy(), start=number(kept_zeros + 1))
        fraction_text = _concat([head, exp.Trim(this=tail, expression=string("0"), position="TRAILING")])
    printed_fraction = exp.Length(this=fraction_text.copy()) if fill else number(n_frac)
    zero = exp.EQ(this=integer.copy(), expression=number(0))
    fraction_printed = exp.GT(this=printed_fraction, expression=number(0))
    significant = _case(exp.and_(zero.copy(), fraction_printed), number(0), exp.Length(this=integer_text.copy()))
    padded = call("lpad", integer_text.copy(), number(max(n_int, 1)), string("0"))
    first_zero = digits_whole.find("0") if "0" in digits_whole else n_int

    def shown(position: int) -> exp.Expr:
        """Whether the integer digit at `position` shows: from the template's first 0 or the value's first digit."""
        if position >= first_zero:
            return exp.true()
        first_digit = exp.Sub(this=number(n_int), expression=significant.copy())
        return exp.GTE(this=number(position), expression=first_digit)

    body: list[exp.Expr] = []
    position = 0
    hidden = string("") if fill else string(" ")
    for char in whole:
        if char == ",":  # shown after a shown digit
            body.append(_case(shown(position - 1), string(","), hidden.copy()))
            continue
        digit = exp.Substring(this=padded.copy(), start=number(position + 1), length=number(1))
        body.append(_case(shown(position), digit, hidden.copy()))
        position += 1
    if point:
        body.extend([string("."), fraction_text])
    negative = exp.LT(this=rounded.copy(), expression=number(0))
    rendered = _concat(body)
    if fill:
        out = _concat([_case(negative.copy(), string("-"), string("")), rendered])
    else:
        sign = _case(negative.copy(), string("-"), string(" "))
        trimmed = call("ltrim", rendered.copy())
        lead = exp.Sub(this=exp.Length(this=rendered.copy()), expression=exp.Length(this=trimmed.copy()))
        out = _concat([call("repeat", string(" "), lead), sign, trimmed])
    hashes = "".join("#" if c in "90" else c for c in whole) + ("." + "#" * n_frac if written_point else "")
    overflow = exp.GT(this=exp.Length(this=integer_text.copy()), expression=number(n_int))
    overflowed = _concat([_case(negative.copy(), string("-"), string("" if fill else " ")), string(hashes)])
    missing = exp.Is(this=value.copy(), expression=exp.null())
    cases = [exp.If(this=missing, true=exp.null()), exp.If(this=overflow, true=overflowed)]
    return _p(exp.Case(ifs=cases, default=out))


def to_char_values(tree: exp.Expr, columns: Columns, duckdb: bool) -> exp.Expr:
    calls = [n for n in tree.find_all(exp.TimeToStr) if isinstance(n.args.get("format"), exp.Literal)]
    if not calls:
        return tree
    known = typed_columns(tree, columns)
    for node in calls:
        written = node.args["format"]
        if not written.is_string:
            continue
        template = pg_format(written.this)
        kind = result_type(node.this, known)
        if kind == "interval":
            lowered = _interval_to_char(node.this, template, duckdb)
        elif kind in _NUMBERS:
            lowered = _number_to_char(node.this, template)
        else:
            continue
        if lowered is not None and node is not tree:
            node.replace(lowered)
    return tree
