"""PostgreSQL's numeric sqrt, ln, log, exp and power, exactly: numeric.c's result scales and rounding.

Contract: `numeric_math_text(function, x[, y])` is `function` ('sqrt', 'ln', 'log' of base x and value y, 'exp',
'power' of x to y) of numeric arguments as PostgreSQL 15 computes it, as the text PostgreSQL prints: the result
rounded half away from zero to the scale numeric.c picks (at least 16 significant digits, at least each input's
display scale), None for a NULL argument, NaN for a NaN one. Domain errors are PostgreSQL's: 2201F for the square
root of a negative number, a negative number to a non-integer power and zero to a negative power; 2201E for the
logarithm of zero or of a negative number; 22012 for a logarithm in base 1.

The scales follow numeric.c (PostgreSQL 15): sqrt `16 - (2·weight + 1)` (weight: of the base-10000 digit groups);
ln `16 - estimate_ln_dweight(x)` (from the first two digit groups, or from x − 1 near 1); log the same of
ln(value) − ln(base); exp `16 - (int) (x · log10(e))`; power to an integer exponent 16, else
`16 - (int) (y · ln(x) · log10(e))`.
"""

from __future__ import annotations

import decimal
import math

from sparkwire import errors as e
from sparkwire.pgtypes.numeric_ops import display_scale, spell

MIN_SIG_DIGITS, MAX_DISPLAY_SCALE, NBASE = 16, 1000, 10000
_CONTEXT = decimal.Context(prec=1100, rounding=decimal.ROUND_HALF_UP, Emax=999999, Emin=-999999)
_ONE = decimal.Decimal(1)


def _groups(value: decimal.Decimal) -> tuple[int, list[int]]:
    """numeric.c's weight and base-10000 digits (leading and trailing zero groups stripped) of |value| > 0."""
    _, digits, exponent = abs(value).as_tuple()
    assert isinstance(exponent, int)
    top = len(digits) - 1 + exponent
    weight = top // 4
    text = "".join(map(str, digits))
    low = exponent  # power of ten of the last digit
    first_group_low = weight * 4  # power of ten of the last digit of the first group
    pad_left = (first_group_low + 3) - top
    ngroups = -(-(first_group_low + 3 - low + 1) // 4)
    padded = "0" * pad_left + text + "0" * (ngroups * 4 - pad_left - len(text))
    groups = [int(padded[i : i + 4]) for i in range(0, len(padded), 4)]
    while groups and groups[-1] == 0:
        groups.pop()
    return weight, groups


def _scale(rscale: int, *inputs: decimal.Decimal) -> int:
    return min(max(rscale, *(display_scale(x) for x in inputs), 0), MAX_DISPLAY_SCALE)


def _rounded(value: decimal.Decimal, scale: int) -> str:
    return spell(value.quantize(_ONE.scaleb(-scale), rounding=decimal.ROUND_HALF_UP, context=_CONTEXT))


def ln_dweight(value: decimal.Decimal) -> int:
    """numeric.c's estimate_ln_dweight: roughly the decimal weight of ln(value)."""
    if value <= 0:
        return 0
    if decimal.Decimal("0.9") <= value <= decimal.Decimal("1.1"):
        x = value - 1
        if x.is_zero():
            return 0
        weight, groups = _groups(x)
        return weight * 4 + int(math.log10(groups[0]))
    weight, groups = _groups(value)
    digits, dweight = groups[0], weight * 4
    if len(groups) > 1:
        digits, dweight = digits * NBASE + groups[1], dweight - 4
    estimate = math.log(digits) + dweight * 2.302585092994046
    return int(math.log10(abs(estimate))) if estimate != 0 else 0


def _ln(value: decimal.Decimal) -> decimal.Decimal:
    if value.is_zero():
        raise e.InvalidArgumentForLogarithm("cannot take logarithm of zero")
    if value < 0:
        raise e.InvalidArgumentForLogarithm("cannot take logarithm of a negative number")
    return value.ln(_CONTEXT)


def _sqrt(x: decimal.Decimal) -> str:
    if x < 0:
        raise e.InvalidArgumentForPowerFunction("cannot take square root of a negative number")
    weight = _groups(x)[0] if not x.is_zero() else 0
    return _rounded(x.sqrt(_CONTEXT), _scale(MIN_SIG_DIGITS - (2 * weight + 1), x))


def _log(base: decimal.Decimal, x: decimal.Decimal) -> str:
    ln_base, ln_x = _ln(base), _ln(x)
    if ln_base.is_zero():
        raise e.DivisionByZero("division by zero")
    rscale = MIN_SIG_DIGITS - (ln_dweight(x) - ln_dweight(base))
    return _rounded(_CONTEXT.divide(ln_x, ln_base), _scale(rscale, base, x))


def _exp(x: decimal.Decimal) -> str:
    estimate = max(min(float(x) * 0.434294481903252, 2000), -2000)
    return _rounded(x.exp(_CONTEXT), _scale(MIN_SIG_DIGITS - int(estimate), x))


def _power(x: decimal.Decimal, y: decimal.Decimal) -> str:
    if x.is_zero() and y < 0:
        raise e.InvalidArgumentForPowerFunction("zero raised to a negative power is undefined")
    integral = y == y.to_integral_value()
    if x < 0 and not integral:
        raise e.InvalidArgumentForPowerFunction(
            "a negative number raised to a non-integer power yields a complex result"
        )
    if integral and abs(y) <= 2**31 - 1:
        n = int(y)
        exact = _CONTEXT.power(x, abs(n)) if n else _ONE
        value = _CONTEXT.divide(_ONE, exact) if n < 0 else exact
        return _rounded(value, _scale(MIN_SIG_DIGITS, x))
    if x.is_zero():
        return _rounded(decimal.Decimal(0), MIN_SIG_DIGITS)
    logged = float(y) * float(x.ln(_CONTEXT)) * 0.434294481903252
    rscale = _scale(MIN_SIG_DIGITS - int(logged), x, y)
    return _rounded((y * x.ln(_CONTEXT)).exp(_CONTEXT), rscale)


def _parse(value: object) -> decimal.Decimal:
    if isinstance(value, decimal.Decimal):
        return value
    return decimal.Decimal(str(value).strip())


def numeric_math_text(function: str, *args: object) -> str | None:
    if any(a is None for a in args):
        return None
    values = [_parse(a) for a in args]
    if any(v.is_nan() for v in values):
        return "NaN"
    if function == "sqrt":
        return _sqrt(values[0])
    if function == "ln":
        return _rounded(_ln(values[0]), _scale(MIN_SIG_DIGITS - ln_dweight(values[0]), values[0]))
    if function == "log":
        return _log(*values) if len(values) == 2 else _log(decimal.Decimal(10), values[0])
    if function == "exp":
        return _exp(values[0])
    if function == "power" and len(values) == 2:
        return _power(*values)
    raise e.InternalError(f"no numeric function {function}")
