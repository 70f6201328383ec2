"""Byte sizes as session variables take them (`max_query_result_size`): `'1GB'`, `'64 MB'`, `'512kB'`, `'1048576'`.

Contract: `byte_size(text)` is the number of bytes (units B, kB, MB, GB, TB, 1024-based as PostgreSQL's memory
settings; a bare number is bytes), or None when `text` is not a size. `normalize_byte_size(name, value)` is the
variable normalizer: the canonical spelling (the largest unit that divides the size exactly) or 22023.
`describe_byte_size(n)` is the size for messages, as Materialize prints it (`1.0 GiB`).
"""

from __future__ import annotations

import re

from sparkwire import errors as e

_SIZE = re.compile(r"\s*(\d+)\s*(B|kB|MB|GB|TB)?\s*$", re.I)
_UNITS = {"b": 1, "kb": 1 << 10, "mb": 1 << 20, "gb": 1 << 30, "tb": 1 << 40}
_CANONICAL = (("TB", 1 << 40), ("GB", 1 << 30), ("MB", 1 << 20), ("kB", 1 << 10))
_MAX = (1 << 63) - 1


def byte_size(text: str) -> int | None:
    match = _SIZE.match(text)
    if match is None:
        return None
    size = int(match.group(1)) * _UNITS[(match.group(2) or "B").lower()]
    return size if size <= _MAX else None


def normalize_byte_size(name: str, value: str) -> str:
    size = byte_size(value)
    if size is None:
        raise e.InvalidParameterValue(f'invalid value for parameter "{name}": "{value}"')
    for unit, factor in _CANONICAL:
        if size and size % factor == 0:
            return f"{size // factor}{unit}"
    return f"{size}B"


def describe_byte_size(size: int) -> str:
    for unit, factor in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= factor:
            return f"{size / factor:.1f} {unit}"
    return f"{size} B"
