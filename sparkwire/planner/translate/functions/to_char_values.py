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
from sparkwire.planner.translate.functions.intervals.interval_text import duration_parts
from sparkwire.planner.translate.functions.intervals.justify import interval_parts
from sparkwire.planner.translate.functions.intervals.time_ops import typed_columns
from sparkwire.planner.translate.spark_datetime import pg_format, template_tokens

Columns = Mapping[str, Mapping[str, str]]
_NUMBERS = frozenset({"smallint", "integer", "bigint", "numeric"})
_INTERVAL_PATTERNS = frozenset({"HH24", "HH", "HH12", "MI", "SS", "MS", "US", "DD", "DDD", "MM", "YYYY"})
_MERIDIEMS = {"AM": ("AM", "PM"), "PM": ("AM", "PM"), "am": ("am", "pm"), "pm": ("am", "pm")}


def _s(text: str) -> exp.Expr:
    return exp.Literal.string(text)


def _n(value: int) -> exp.Expr:
    return exp.Literal.number(value)


def _fn(name: str, *args: exp.Expr) -> exp.Expr:
    return exp.Anonymous(this=name, expressions=list(args))


def _p(node: exp.Expr) -> exp.Expr:
    return exp.Paren(this=node)


def _text(value: exp.Expr) -> exp.Expr:
    return exp.cast(value, "text")


def _case(condition: exp.Expr, then: exp.Expr, default: exp.Expr) -> exp.Expr:
    return exp.Case(ifs=[exp.If(this=condition, true=then)], default=default)


def _concat(parts: list[exp.Expr]) -> exp.Expr:
    return exp.Concat(expressions=parts) if len(parts) > 1 else parts[0] if parts else _s("")


def _zero_padded(digits: exp.Expr, width: int) -> exp.Expr:
    """lpad that never cuts a longer text."""
    if width <= 1:
        return digits
    longer = exp.GTE(this=exp.Length(this=digits.copy()), expression=_n(width))
    return _case(longer, digits.copy(), _fn("lpad", digits, _n(width), _s("0")))


def _printf(value: exp.Expr, width: int, negative_width: int) -> exp.Expr:
    """C's `%0*d` with `width` digits (`negative_width` characters with the minus sign)."""
    negative = exp.LT(this=value.copy(), expression=_n(0))
    magnitude = _text(exp.Abs(this=value.copy()))
    return _case(
        negative,
        _concat([_s("-"), _zero_padded(magnitude.copy(), negative_width - 1)]),
        _zero_padded(magnitude, width),
    )


# ---- intervals ---------------------------------------------------------------------------------------------------


def _interval_fields(value: exp.Expr, duckdb: bool) -> dict[str, exp.Expr]:
    if duckdb:
        months, days, micros = interval_parts(value)
    else:
        months, (days, micros) = _n(0), duration_parts(value)
    hours = exp.IntDiv(this=_p(micros.copy()), expression=_n(3_600_000_000))
    return {
        "YYYY": exp.IntDiv(this=_p(months.copy()), expression=_n(12)),
        "MM": exp.Mod(this=_p(months.copy()), expression=_n(12)),
        "DD": days,
        "DDD": _p(exp.Add(this=exp.Mul(this=_p(months), expression=_n(30)), expression=_p(days.copy()))),
        "HH24": hours,
        "MI": exp.Mod(this=exp.IntDiv(this=_p(micros.copy()), expression=_n(60_000_000)), expression=_n(60)),
        "SS": exp.Mod(this=exp.IntDiv(this=_p(micros.copy()), expression=_n(1_000_000)), expression=_n(60)),
        "US": exp.Mod(this=_p(micros), expression=_n(1_000_000)),
    }


def _interval_pattern(token: str, fill: bool, fields: dict[str, exp.Expr]) -> exp.Expr | None:
    hours = fields["HH24"]
    if token in _MERIDIEMS:
        am, pm = _MERIDIEMS[token]
        afternoon = exp.GTE(this=exp.Mod(this=hours.copy(), expression=_n(24)), expression=_n(12))
        return _case(afternoon, _s(pm), _s(am))
    if token not in _INTERVAL_PATTERNS:
        return None
    if token in ("HH", "HH12"):
        twelfth = exp.Mod(this=hours.copy(), expression=_n(12))
        value = _case(exp.EQ(this=twelfth.copy(), expression=_n(0)), _n(12), twelfth)
        return _text(value) if fill else _printf(value, 2, 3)  # the sign of the hours' width, as PostgreSQL
    if token == "MS":
        return _printf(exp.IntDiv(this=_p(fields["US"].copy()), expression=_n(1000)), 3, 3)
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
            parts.append(_s(token[1:-1]))
            continue
        if token[0].isalpha():
            pattern = _interval_pattern(token, fill, fields)
            if pattern is None:
                return None
            parts.append(pattern)
            continue
        parts.append(_s(token))
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
    rounded = exp.Round(this=exp.cast(value.copy(), "decimal(38, 10)"), decimals=_n(n_frac))
    magnitude = exp.Abs(this=rounded.copy())
    integer = exp.cast(exp.Floor(this=magnitude.copy()), "decimal(38, 0)")
    integer_text = _text(integer.copy())
    fraction_text: exp.Expr = _s("")
    if n_frac:
        scaled = exp.Mul(this=_p(exp.Sub(this=magnitude.copy(), expression=exp.Floor(this=magnitude.copy()))),
                         expression=exp.Literal.number(10**n_frac))  # fmt: skip
        fraction_text = _zero_padded(_text(exp.cast(scaled, "decimal(38, 0)")), n_frac)
    kept_zeros = fraction.rfind("0") + 1  # FM keeps the digits up to the last 0 position
    if fill and kept_zeros < n_frac:
        head = exp.Substring(this=fraction_text.copy(), start=_n(1), length=_n(kept_zeros))
        tail = exp.Substring(this=fraction_text.copy(), start=_n(kept_zeros + 1))
        fraction_text = _concat([head, exp.Trim(this=tail, expression=_s("0"), position="TRAILING")])
    printed_fraction = exp.Length(this=fraction_text.copy()) if fill else _n(n_frac)
    zero = exp.EQ(this=integer.copy(), expression=_n(0))
    fraction_printed = exp.GT(this=printed_fraction, expression=_n(0))
    significant = _case(exp.and_(zero.copy(), fraction_printed), _n(0), exp.Length(this=integer_text.copy()))
    padded = _fn("lpad", integer_text.copy(), _n(max(n_int, 1)), _s("0"))
    first_zero = digits_whole.find("0") if "0" in digits_whole else n_int

    def shown(position: int) -> exp.Expr:
        """Whether the integer digit at `position` shows: from the template's first 0 or the value's first digit."""
        if position >= first_zero:
            return exp.true()
        first_digit = exp.Sub(this=_n(n_int), expression=significant.copy())
        return exp.GTE(this=_n(position), expression=first_digit)

    body: list[exp.Expr] = []
    position = 0
    hidden = _s("") if fill else _s(" ")
    for char in whole:
        if char == ",":  # shown after a shown digit
            body.append(_case(shown(position - 1), _s(","), hidden.copy()))
            continue
        digit = exp.Substring(this=padded.copy(), start=_n(position + 1), length=_n(1))
        body.append(_case(shown(position), digit, hidden.copy()))
        position += 1
    if point:
        body.extend([_s("."), fraction_text])
    negative = exp.LT(this=rounded.copy(), expression=_n(0))
    rendered = _concat(body)
    if fill:
        out = _concat([_case(negative.copy(), _s("-"), _s("")), rendered])
    else:
        sign = _case(negative.copy(), _s("-"), _s(" "))
        trimmed = _fn("ltrim", rendered.copy())
        lead = exp.Sub(this=exp.Length(this=rendered.copy()), expression=exp.Length(this=trimmed.copy()))
        out = _concat([_fn("repeat", _s(" "), lead), sign, trimmed])
    hashes = "".join("#" if c in "90" else c for c in whole) + ("." + "#" * n_frac if written_point else "")
    overflow = exp.GT(this=exp.Length(this=integer_text.copy()), expression=_n(n_int))
    overflowed = _concat([_case(negative.copy(), _s("-"), _s("" if fill else " ")), _s(hashes)])
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
