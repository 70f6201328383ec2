"""Text output of bool, integers, floats and numeric, byte-identical to PostgreSQL 15.

Integers and numerics are cast to strings by Arrow (already PostgreSQL's spelling; numeric keeps trailing zeros to
its scale) except the tiny decimals Arrow writes in E-notation, which are re-spelled per value. Floats follow
float8out/float4out: with extra_float_digits > 0 the shortest round-trip digits, exponent form when the decimal
exponent is < -4 or ≥ 15 (float8) / 6 (float4), at least two exponent digits; otherwise `%.{15|6 + efd}g`.
Arrow's cast already spells the common magnitudes that way; the others are spelled per value.
"""

from __future__ import annotations

import decimal
import math
from fractions import Fraction

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from sparkwire.pgtypes import _wire
from sparkwire.pgtypes.options import EncodeOptions


def encode_bool(arr: pa.Array) -> pa.Array:
    if not pa.types.is_boolean(arr.type):
        arr = arr.cast(pa.bool_())
    return pc.if_else(arr, pa.scalar(b"t", _wire.BINARY), pa.scalar(b"f", _wire.BINARY))


def encode_int(arr: pa.Array) -> pa.Array:
    if pa.types.is_floating(arr.type) or pa.types.is_decimal(arr.type):
        arr = arr.cast(pa.int64())
    elif pa.types.is_boolean(arr.type):
        arr = arr.cast(pa.int8())
    return _wire.as_binary(arr if pa.types.is_string(arr.type) else pc.cast(arr, pa.string()))


def encode_numeric(arr: pa.Array) -> pa.Array:
    if pa.types.is_decimal(arr.type):
        text = _wire.as_binary(pc.cast(arr, pa.string()))
        if not _wire.may_contain(text, b"E"):  # Arrow's E-notation (tiny values) is rare: one byte search
            return text
        mask = pc.match_substring(text, b"E").fill_null(False)
        return _wire.patch(text, np.asarray(mask), arr, _spell_decimal)
    if pa.types.is_floating(arr.type):
        return _wire.from_values(arr, lambda v: _spell_decimal(decimal.Decimal(repr(v))))  # NaN, integral floats
    if pa.types.is_integer(arr.type):
        return _wire.as_binary(pc.cast(arr, pa.string()))
    return _wire.as_binary(arr)


def _spell_decimal(value: object) -> bytes:
    assert isinstance(value, decimal.Decimal)
    if value.is_nan():
        return b"NaN"
    if value.is_infinite():
        return b"Infinity" if value > 0 else b"-Infinity"
    return format(value, "f").encode()


def encode_float(arr: pa.Array, digits: int, options: EncodeOptions) -> pa.Array:
    """`digits` is 15 for float8, 6 for float4 (DBL_DIG / FLT_DIG)."""
    efd = options.extra_float_digits
    single = digits == 6
    target = pa.float32() if single else pa.float64()
    if arr.type != target:
        arr = arr.cast(target, safe=False)

    def render(value: object) -> bytes:
        assert isinstance(value, float)
        return spell_float(value, digits, efd, single=single)

    if efd <= 0:
        return _wire.from_values(arr, render)
    # Arrow's cast writes the same shortest digits, in fixed notation, for 1e-4 <= |v| < 1e6 (float4) / 1e10
    # (float8) and for zeros; no half-way ambiguity exists at those magnitudes. The rest is spelled per value.
    magnitude = np.abs(np.asarray(arr.fill_null(0).to_numpy(zero_copy_only=False), dtype=np.float64))
    plain = (magnitude == 0) | ((magnitude >= 1e-4) & (magnitude < (1e6 if single else 1e10)))
    text = _wire.as_binary(pc.cast(arr, pa.string()))
    return _wire.patch(text, ~plain & _wire.valid_mask(arr), arr, render)


def spell_float(value: float, digits: int, efd: int, *, single: bool) -> bytes:
    if math.isnan(value):
        return b"NaN"
    if math.isinf(value):
        return b"Infinity" if value > 0 else b"-Infinity"
    if efd <= 0:
        return f"{value:.{max(digits + efd, 1)}g}".encode()
    if value == 0:
        return b"-0" if math.copysign(1.0, value) < 0 else b"0"
    return _pg_shortest(_shortest_open_interval(value, single=single), digits).encode()


def _shortest_open_interval(value: float, *, single: bool) -> decimal.Decimal:
    """The shortest decimal strictly inside the rounding interval of `value` (PostgreSQL builds Ryu without
    STRICTLY_SHORTEST, so a candidate exactly on a half-way point is rejected: 7.0133912485186496e+16 rather than
    Python's 7.01339124851865e+16), the closest to `value` among those of that length."""
    shortest = decimal.Decimal(np.format_float_scientific(np.float32(value), unique=True) if single else repr(value))
    if not _maybe_halfway(shortest, value):
        return shortest
    low, high = _rounding_interval(abs(value), single=single)
    length = len(shortest.as_tuple().digits)
    candidate = shortest
    for precision in range(length, 18 if not single else 10):
        candidate = decimal.Decimal(format(value, f".{precision - 1}e")) if precision > length else shortest
        if low < Fraction(abs(candidate)) < high:
            return candidate
    return candidate


def _maybe_halfway(candidate: decimal.Decimal, value: float) -> bool:
    """Cheap filter: a half-way point between two floats is a dyadic rational, so a decimal D·10^k with k < 0 can
    only be one when 5^-k divides D; with k ≥ 0 only above 2^24 (float4) / 2^53 (float8)."""
    _, digits, exponent = candidate.as_tuple()
    assert isinstance(exponent, int)
    if exponent >= 0:
        return abs(value) >= 2**24
    mantissa = int("".join(map(str, digits)))
    return bool(mantissa % 5 ** (-exponent) == 0)


def _rounding_interval(value: float, *, single: bool) -> tuple[Fraction, Fraction]:
    if single:
        here = np.float32(value)
        with np.errstate(over="ignore"):
            below = float(np.nextafter(here, np.float32(0)))
            above = float(np.nextafter(here, np.float32(np.inf)))
    else:
        below, above = math.nextafter(value, 0.0), math.nextafter(value, math.inf)
    exact = Fraction(value)
    low = (exact + Fraction(below)) / 2
    high = exact + (exact - low) if math.isinf(above) else (exact + Fraction(above)) / 2
    return low, high


def _pg_shortest(value: decimal.Decimal, digits: int) -> str:
    """Spell the shortest round-trip decimal `value` the way PostgreSQL's Ryu-based output does."""
    sign = "-" if value.is_signed() else ""
    significant = "".join(map(str, value.as_tuple().digits)).rstrip("0") or "0"
    exponent = value.adjusted()
    if exponent < -4 or exponent >= digits:
        body = significant[0] + ("." + significant[1:] if len(significant) > 1 else "")
        return f"{sign}{body}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    if exponent < 0:
        return f"{sign}0.{'0' * (-exponent - 1)}{significant}"
    integer = significant[: exponent + 1].ljust(exponent + 1, "0")
    rest = significant[exponent + 1 :]
    return f"{sign}{integer}.{rest}" if rest else f"{sign}{integer}"
