"""Every common type through psycopg 3, in text AND binary, as parameters and as results, against the oracle.

For each (type, value) and each combination of parameter format (`%t` text / `%b` binary) and result format
(`cursor(binary=False/True)`), `SELECT <param>::<type>` must
  1. load back in psycopg to the value sent (the parameter round trip),
  2. report the same column type OID as PostgreSQL 15, and
  3. send exactly the bytes PostgreSQL 15 sends for the same query (a raw-bytes cursor on both servers).
"""

from __future__ import annotations

import math
import uuid
from datetime import UTC, date, datetime, time, timedelta, timezone
from decimal import Decimal
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Json, Jsonb

from tests.support.clients import raw_cursor

IST = timezone(timedelta(hours=5, minutes=30))

CASES: list[tuple[str, Any]] = [
    ("bool", True),
    ("bool", False),
    ("int2", 32767),
    ("int2", -32768),
    ("int4", 2147483647),
    ("int4", -7),
    ("int8", 9223372036854775807),
    ("int8", -9223372036854775808),
    ("float4", 1.5),
    ("float4", -0.25),
    ("float8", 1.0000000000000002),
    ("float8", 1e300),
    ("float8", -1.5e-7),
    ("float8", math.inf),
    ("float8", -math.inf),
    ("numeric", Decimal("12345.6789")),
    ("numeric", Decimal("-0.0001")),
    ("numeric", Decimal("1.50")),
    ("numeric", Decimal("0")),
    ("numeric", Decimal("123456789012345678")),
    ("text", "hello"),
    ("text", ""),
    ("text", "ünïcødé ✓ 日本"),
    ("text", "quote ' dq \" backslash \\ tab \t nl \n"),
    ("varchar", "abc"),
    ("bytea", b"\x00\x01\xfe\xff"),
    ("bytea", b""),
    ("date", date(2024, 2, 29)),
    ("date", date(1970, 1, 1)),
    ("date", date(9999, 12, 31)),
    ("time", time(13, 14, 15, 123456)),
    ("time", time(0, 0)),
    ("timestamp", datetime(2024, 1, 2, 3, 4, 5, 678901)),
    ("timestamp", datetime(1999, 12, 31, 23, 59, 59)),
    ("timestamptz", datetime(2024, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)),
    ("timestamptz", datetime(2024, 7, 1, 12, 0, tzinfo=IST)),
    ("interval", timedelta(days=3, hours=4, minutes=5, seconds=6, microseconds=700000)),
    ("interval", timedelta(days=-1, hours=2)),
    ("interval", timedelta(0)),
    ("uuid", uuid.UUID("12345678-1234-5678-1234-567812345678")),
    ("json", Json({"a": [1, 2, None], "b": "x"})),
    ("jsonb", Jsonb({"a": [1, 2, None], "b": "x"})),
    ("jsonb", Jsonb([1, "two", {"three": 3.5}])),
    ("int4[]", [1, 2, None]),
    ("int8[]", [9223372036854775807, -1]),
    ("int4[]", []),
    ("text[]", ["a b", 'c"d', None, "NULL", ""]),
    ("bool[]", [True, None, False]),
    ("float8[]", [1.5, -2.25]),
    ("numeric[]", [Decimal("1.5"), None, Decimal("-3")]),
    ("date[]", [date(2024, 2, 29), None]),
    ("timestamp[]", [datetime(2024, 1, 2, 3, 4, 5)]),
    ("timestamptz[]", [datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)]),
    ("uuid[]", [uuid.UUID("12345678-1234-5678-1234-567812345678"), None]),
    ("bytea[]", [b"\x01", None]),
]
SCALARS = sorted({t for t, _ in CASES if not t.endswith("[]")})
CASES += [(t, None) for t in SCALARS]  # NULL of every type

FORMATS = [("t", False), ("t", True), ("b", False), ("b", True)]


def _expected(value: Any) -> Any:
    if isinstance(value, Json | Jsonb):
        return value.obj
    return value


def _case_id(case: tuple[str, Any]) -> str:
    sql_type, value = case
    return f"{sql_type}:{value!r}"[:60]


@pytest.mark.parametrize(("param_format", "binary"), FORMATS, ids=[f"param_{p}-result_{'b' if b else 't'}"
                                                                   for p, b in FORMATS])
@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_type_round_trip(
    sw: psycopg.Connection[Any],
    pg: psycopg.Connection[Any],
    case: tuple[str, Any],
    param_format: str,
    binary: bool,
) -> None:
    sql_type, value = case
    query = f"SELECT %{param_format}::{sql_type} AS v"

    got = sw.cursor(binary=binary).execute(query, [value])
    row = got.fetchone()
    assert row is not None
    assert got.description is not None
    assert row[0] == _expected(value)

    want = pg.cursor(binary=binary).execute(query, [value])
    assert want.description is not None
    assert got.description[0].name == want.description[0].name == "v"
    assert got.description[0].type_code == want.description[0].type_code

    raw_got = raw_cursor(sw, binary=binary).execute(query, [value]).fetchone()
    raw_want = raw_cursor(pg, binary=binary).execute(query, [value]).fetchone()
    assert raw_got == raw_want


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_literal_values_match_oracle(
    sw: psycopg.Connection[Any], pg: psycopg.Connection[Any], binary: bool
) -> None:
    """Values produced by SQL, not by parameters: special floats, numeric scale, typed NULLs, nested
    arrays."""
    query = (
        "SELECT 'NaN'::float8 AS nan, '-0'::float8 AS negzero, 0.1::float4 AS f4, 1e20::float8 AS big, "
        "1.50::numeric(10,2) AS n, 'NaN'::numeric AS nnan, NULL::int4 AS nul, "
        "ARRAY[[1,2],[3,4]] AS nested, ARRAY['x', NULL]::text[] AS arr, "
        "'1 year 2 mons 3 days'::interval AS iv, "
        "true AS t, 'a'::varchar(5) AS vc"
    )
    got = raw_cursor(sw, binary=binary).execute(query)
    want = raw_cursor(pg, binary=binary).execute(query)
    assert got.description is not None and want.description is not None
    assert [(d.name, d.type_code) for d in got.description] == [
        (d.name, d.type_code) for d in want.description
    ]
    assert got.fetchall() == want.fetchall()
