"""PostgreSQL's numeric division, exactly: the result scale of `select_div_scale` and its rounding.

Contract: `numeric_div(a, b)` is `a / b` as PostgreSQL 15's numeric_div computes it (also avg(), which divides the
sum by the count): the result has `div_scale(a, b)` fractional digits, rounded half away from zero; `b = 0` raises
22012. `numeric_div_text(a, b)` takes and returns PostgreSQL's text spelling (the inputs' written scales are their
display scales, as a numeric's dscale), None for a NULL argument; it is the engine function the translators call
for a numeric `/` and for avg() where a result leaves the engine (planner/translate: DuckDB and Spark).

`div_scale` follows numeric.c: the weights and first digits are those of the base-10000 digit groups, aligned on
the decimal point; rscale = 16 − 4·qweight, at least each input's display scale, clamped to [0, 1000].
"""

from __future__ import annotations

import decimal

from sparkwire import errors as e

NUMERIC_MIN_SIG_DIGITS = 16
DEC_DIGITS = 4
NUMERIC_MAX_DISPLAY_SCALE = 1000
_CONTEXT = decimal.Context(prec=2000, rounding=decimal.ROUND_HALF_UP, Emax=999999, Emin=-999999)


def display_scale(value: decimal.Decimal) -> int:
    exponent = value.as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


def _weight_and_first_digit(value: decimal.Decimal) -> tuple[int, int]:
    """numeric.c's (weight, first nonzero base-10000 digit); (0, 0) for zero."""
    if value.is_zero():
        return 0, 0
    _, digits, exponent = abs(value).as_tuple()
    assert isinstance(exponent, int)
    # the position (power of ten) of the most significant decimal digit
    top = len(digits) - 1 + exponent
    weight = top // DEC_DIGITS  # floor division: groups aligned on the decimal point
    scaled = abs(value).scaleb(-DEC_DIGITS * weight, _CONTEXT)
    return weight, int(scaled)


def div_scale(a: decimal.Decimal, b: decimal.Decimal) -> int:
    weight1, first1 = _weight_and_first_digit(a)
    weight2, first2 = _weight_and_first_digit(b)
    qweight = weight1 - weight2
    if first1 <= first2:
        qweight -= 1
    rscale = NUMERIC_MIN_SIG_DIGITS - qweight * DEC_DIGITS
    rscale = max(rscale, display_scale(a), display_scale(b), 0)
    return min(rscale, NUMERIC_MAX_DISPLAY_SCALE)


def numeric_div(a: decimal.Decimal, b: decimal.Decimal) -> decimal.Decimal:
    if a.is_nan() or b.is_nan():
        return decimal.Decimal("NaN")
    if b.is_zero():
        raise e.DivisionByZero("division by zero")
    scale = div_scale(a, b)
    quotient = _CONTEXT.divide(a, b)
    return quotient.quantize(decimal.Decimal(1).scaleb(-scale), rounding=decimal.ROUND_HALF_UP, context=_CONTEXT)


def _parse(value: object) -> decimal.Decimal:
    if isinstance(value, decimal.Decimal):
        return value
    if isinstance(value, int | str):
        try:
            return decimal.Decimal(str(value).strip())
        except decimal.InvalidOperation:
            raise e.InvalidTextRepresentation(f'invalid input syntax for type numeric: "{value}"') from None
    return decimal.Decimal(repr(value))


def spell(value: decimal.Decimal) -> str:
    if value.is_nan():
        return "NaN"
    text = format(value, "f")
    return "0" + text[2:] if text.startswith("-0") and value.is_zero() else text


def numeric_div_text(a: object, b: object) -> str | None:
    if a is None or b is None:
        return None
    return spell(numeric_div(_parse(a), _parse(b)))


SPREADS = ("var_samp", "var_pop", "stddev_samp", "stddev_pop")


def numeric_spread_text(count: object, sum_x: object, sum_x2: object, kind: str) -> str | None:
    """variance / stddev (`kind`: one of SPREADS) of numerics or integers as numeric.c's numeric_stddev_internal
    computes it from N, sum(x) and sum(x·x): (N·sumX2 − sumX²) / (N·(N − 1)) (N·N for the population) at
    `div_scale`, its square root at the same scale; 0 when the numerator is not positive; NULL for no rows, or
    one row of a sample."""
    if count is None or sum_x is None or sum_x2 is None:
        return None
    n = int(_parse(count))
    sample = kind.endswith("_samp")
    if n == 0 or (sample and n <= 1):
        return None
    sx, sx2 = _parse(sum_x), _parse(sum_x2)
    if sx.is_nan() or sx2.is_nan():
        return "NaN"
    scale = decimal.Decimal(1).scaleb(-2 * display_scale(sx))
    numerator = (n * sx2 - _CONTEXT.multiply(sx, sx)).quantize(scale, context=_CONTEXT)
    if numerator <= 0:
        return "0"
    denominator = decimal.Decimal(n * (n - 1) if sample else n * n)
    variance = numeric_div(numerator, denominator)
    if kind.startswith("var"):
        return spell(variance)
    root = variance.sqrt(_CONTEXT)
    return spell(root.quantize(decimal.Decimal(1).scaleb(-div_scale(numerator, denominator)), context=_CONTEXT))
