"""Type modifier arithmetic, as PostgreSQL stores atttypmod.

numeric(p,s) ↔ ((p << 16) | s) + 4; varchar(n)/bpchar(n) ↔ n + 4; interval(p) ↔ (INTERVAL_FULL_RANGE << 16) | p.
Out-of-range modifiers raise `InvalidParameterValue` (22023) with PostgreSQL's wording.
"""

from __future__ import annotations

from sparkwire.errors import InvalidParameterValue

VARHDRSZ = 4
NUMERIC_MAX_PRECISION = 1000
INTERVAL_FULL_RANGE = 0x7FFF
INTERVAL_FULL_PRECISION = 0xFFFF


def numeric_typmod(precision: int, scale: int = 0) -> int:
    if not 1 <= precision <= NUMERIC_MAX_PRECISION:
        raise InvalidParameterValue(f"NUMERIC precision {precision} must be between 1 and {NUMERIC_MAX_PRECISION}")
    if not -1000 <= scale <= 1000:
        raise InvalidParameterValue(f"NUMERIC scale {scale} must be between -1000 and 1000")
    return ((precision << 16) | (scale & 0x7FF)) + VARHDRSZ


def numeric_precision_scale(typmod: int) -> tuple[int, int]:
    """(precision, scale) of a numeric typmod ≥ 4 (scale may be negative, stored in 11 bits)."""
    value = typmod - VARHDRSZ
    scale = value & 0x7FF
    return (value >> 16) & 0xFFFF, scale - 0x800 if scale & 0x400 else scale


def char_typmod(length: int) -> int:
    if length < 1:
        raise InvalidParameterValue("length for type varchar must be at least 1")
    if length > 10485760:
        raise InvalidParameterValue("length for type varchar cannot exceed 10485760")
    return length + VARHDRSZ


def char_length(typmod: int) -> int:
    return typmod - VARHDRSZ


def interval_typmod(precision: int) -> int:
    if not 0 <= precision <= 6:
        raise InvalidParameterValue(f"INTERVAL({precision}) precision must be between 0 and 6")
    return (INTERVAL_FULL_RANGE << 16) | precision


def interval_precision(typmod: int) -> int | None:
    precision = typmod & 0xFFFF
    return None if precision == INTERVAL_FULL_PRECISION else precision
