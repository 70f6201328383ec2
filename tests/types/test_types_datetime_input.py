"""Text input of date/time types (bind parameters, COPY FROM): every spelling below decodes to the value — or fails
with the SQLSTATE and message — PostgreSQL gives for `'<text>'::<type>` in the same session time zone."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import psycopg
import pytest

from sparkwire.errors import PgError
from sparkwire.pgtypes import EncodeOptions, decode_param
from tests.support.postgres import PostgresOracle

ZONE = "America/New_York"
TYPES = {"date": 1082, "timestamp": 1114, "timestamptz": 1184, "time": 1083, "timetz": 1266}
INPUTS = [
    "2024-02-01",
    "2024-02-01 +00",  # pgjdbc's setDate
    "2024-02-01 -05:30",
    "2024-02-01T10:11:12",
    "2024-02-01t10:11:12.5+01",
    "2024-02-01 10:11:12-05:30",
    "2024-02-01 10:11:12+0530",
    "2024-02-01 10:11:12+05:30:15",
    "2024-02-01 10:11:12 +00:00",
    "2024-02-01 10:11:12Z",
    "2024-02-01 10:11:12 UTC",
    "2024-02-01 10:11:12 Europe/Paris",
    "2024-07-01 10:11:12 America/Chicago",
    "2024-07-01 10:11:12",
    "  2024-2-1   10:11  ",
    "20240201",
    "2024-02-01 10:11:12.1234567",
    "2024-02-01 10:11:59.9999999",
    "2024-02-01 10:11:60",
    "2024-02-01 24:00:00",
    "2024-02-01 allballs",
    "epoch",
    "EPOCH",
    "allballs",
    "10:11",
    "10:11:12+02",
    "2024-02-30",
    "2024-13-01",
    "2024-02-01 25:00",
    "2024-02-01 10:61",
    "2024-02-01 +25",
    "2024-02-01T",
    "abc",
    "",
]

UNSUPPORTED = {("2024-02-01 24:00:00", "time"), ("2024-02-01 24:00:00", "timetz")}  # Python's time stops at 24:00


@pytest.fixture(scope="module")
def pg(oracle: PostgresOracle) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    with psycopg.connect(oracle.dsn, autocommit=True) as conn:
        conn.execute(f"SET TimeZone = '{ZONE}'")
        yield conn


def _postgres(conn: psycopg.Connection[tuple[object, ...]], text: str, type_name: str) -> object:
    try:
        row = conn.execute(f"SELECT %s::text::{type_name}", [text]).fetchone()
    except psycopg.Error as exc:
        return (exc.sqlstate, exc.diag.message_primary)
    assert row is not None
    return row[0]


def _ours(text: str, oid: int) -> object:
    try:
        return decode_param(text.encode(), oid, 0, options=EncodeOptions(timezone=ZONE))
    except PgError as exc:
        return (exc.sqlstate, exc.message)


@pytest.mark.parametrize("type_name", TYPES)
@pytest.mark.parametrize("text", INPUTS)
def test_text_input_matches_postgres(pg: psycopg.Connection[tuple[object, ...]], text: str, type_name: str) -> None:
    want = _postgres(pg, text, type_name)
    got = _ours(text, TYPES[type_name])
    if (text, type_name) in UNSUPPORTED:
        assert isinstance(got, tuple) and got[0] == "22008"
        assert not isinstance(want, tuple) or want[0] is None  # PostgreSQL accepts it (psycopg cannot load it)
        return
    assert got == want
    if isinstance(want, dt.time) and isinstance(got, dt.time):  # timetz keeps its offset
        assert got.utcoffset() == want.utcoffset()


@pytest.mark.parametrize(
    ("text", "oid", "value"),
    [
        ("infinity", 1082, dt.date.max),
        ("-infinity", 1114, dt.datetime.min),
        (" +Infinity ", 1184, dt.datetime.max.replace(tzinfo=dt.UTC)),
    ],
)
def test_infinities_are_the_extremes(text: str, oid: int, value: object) -> None:
    assert decode_param(text.encode(), oid, 0) == value


@pytest.mark.parametrize(("text", "oid"), [("0044-03-15 BC", 1082), ("12345-01-01", 1114), ("24:00:00", 1083)])
def test_values_python_cannot_hold_are_out_of_range(text: str, oid: int) -> None:
    with pytest.raises(PgError) as caught:
        decode_param(text.encode(), oid, 0)
    assert caught.value.sqlstate == "22008"
