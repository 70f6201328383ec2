"""Session settings that change how values are rendered on the wire (the GUCs PostgreSQL consults when encoding).

Only the values PostgreSQL clients use in practice are supported: DateStyle "ISO, MDY" (the day/month order only
matters for input), IntervalStyle "postgres", bytea_output "hex". `timezone` is an IANA name used for timestamptz.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class EncodeOptions:
    timezone: str = "UTC"
    extra_float_digits: int = 1
    datestyle: str = "ISO, MDY"
    intervalstyle: str = "postgres"
    bytea_output: str = "hex"
