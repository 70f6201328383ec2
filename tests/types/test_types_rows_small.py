"""The small-batch DataRow path (fewer than SMALL_BATCH rows, per-value encoders) writes exactly the bytes of the
vectorized path: a batch of SMALL_BATCH or more rows goes the vectorized way, and encoding it one row at a time
goes the small way, so the two encodings of the same rows must be byte-identical — for every type, both formats,
NULLs, and Arrow types that do and do not have a per-value encoder."""

from __future__ import annotations

import math
from typing import TypeVar

import duckdb
import pyarrow as pa
import pytest

from sparkwire.pgtypes import EncodeOptions, encode_data_rows, pg_type_for_duckdb
from sparkwire.pgtypes.rows import SMALL_BATCH
from tests.types.test_types_rows import DUCK_SQL

T = TypeVar("T")


def enough(values: list[T]) -> list[T]:
    """`values` repeated until there are more than SMALL_BATCH of them: a batch that takes the vectorized path."""
    return values * (SMALL_BATCH // len(values) + 1)


def assert_small_equals_vectorized(batch: pa.RecordBatch, oids: list[int], formats: list[int]) -> None:
    assert batch.num_rows >= SMALL_BATCH
    options = EncodeOptions()
    vectorized = encode_data_rows(batch, oids, formats, options)
    one_by_one = b"".join(encode_data_rows(batch.slice(i, 1), oids, formats, options) for i in range(batch.num_rows))
    assert one_by_one == vectorized
    small_slices = b"".join(
        encode_data_rows(batch.slice(i, SMALL_BATCH - 1), oids, formats, options)
        for i in range(0, batch.num_rows, SMALL_BATCH - 1)
    )
    assert small_slices == vectorized


@pytest.mark.parametrize("fmt", [0, 1])
def test_every_duckdb_type_matches(fmt: int) -> None:
    rel = duckdb.sql(DUCK_SQL + f" LIMIT {2 * SMALL_BATCH}")
    assert rel is not None
    oids = [pg_type_for_duckdb(str(t))[0] for t in rel.types]
    batch = rel.to_arrow_table().combine_chunks().to_batches()[0]
    assert_small_equals_vectorized(batch, oids, [fmt] * batch.num_columns)


INTS = [0, 1, -1, 127, -128, None, 42, 100, -100, 7, 8, 9, 10, 11, 12, 13, 14, 15]
FLOATS = [0.0, -0.0, 1.5, math.nan, -math.nan, math.inf, -math.inf, None, 1e300, 5e-324, 0.1, 2.5, 3, 4, 5, 6, 7]


@pytest.mark.parametrize("fmt", [0, 1])
@pytest.mark.parametrize("arrow_type", [pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint32()])
@pytest.mark.parametrize("oid", [21, 23, 20, 26])
def test_integers_into_every_integer_oid(fmt: int, arrow_type: pa.DataType, oid: int) -> None:
    values = [v if v is None or not pa.types.is_unsigned_integer(arrow_type) else abs(v) for v in enough(INTS)]
    batch = pa.record_batch([pa.array(values, arrow_type)], names=["i"])
    assert_small_equals_vectorized(batch, [oid], [fmt])


@pytest.mark.parametrize("fmt", [0, 1])
@pytest.mark.parametrize(("arrow_type", "oid"), [(pa.float64(), 701), (pa.float32(), 700), (pa.float64(), 700)])
def test_floats_with_nan_infinity_and_negative_zero(fmt: int, arrow_type: pa.DataType, oid: int) -> None:
    batch = pa.record_batch([pa.array(enough(FLOATS), arrow_type)], names=["f"])
    assert_small_equals_vectorized(batch, [oid], [fmt])


@pytest.mark.parametrize("fmt", [0, 1])
@pytest.mark.parametrize("oid", [18, 19, 25, 705, 1042, 1043, 114, 3802, 0])
def test_strings_into_text_like_and_json_oids(fmt: int, oid: int) -> None:
    strings = enough(["", "a", "ünïcode ✓", None, '{"k": [1, 2]}', "tab\there", "x" * 300])
    batch = pa.record_batch(
        [pa.array(strings, pa.string()), pa.array(strings, pa.large_string())], names=["s", "l"]
    )
    assert_small_equals_vectorized(batch, [oid, oid], [fmt, 1 - fmt])


@pytest.mark.parametrize("fmt", [0, 1])
def test_booleans_and_all_null_columns(fmt: int) -> None:
    flags = enough([True, False, None])
    batch = pa.record_batch([pa.array(flags), pa.nulls(len(flags)), pa.array(flags)], names=["b", "n", "i"])
    assert_small_equals_vectorized(batch, [16, 25, 23], [fmt, fmt, 1 - fmt])


def test_zero_columns() -> None:
    batch = pa.RecordBatch.from_pydict({"a": list(range(SMALL_BATCH))}).select([])
    assert_small_equals_vectorized(batch, [], [])


_CALENDAR_MICROS = [
    None,
    0,
    1,
    -1,
    1_764_000_000_123_000,
    -62135596800000000 - 1,  # the last µs of 1 BC
    253402300800000000,  # 10000-01-01: past Arrow's string cast
    2**63 - 1,  # DuckDB's infinity
    -(2**63 - 1),  # and -infinity
]


@pytest.mark.parametrize("zone", ["UTC", "Etc/GMT-0", "Asia/Kolkata"])
def test_calendar_values_small_equals_vectorized(zone: str) -> None:
    """Dates, timestamps and timestamptz spelled per value (small batches; timestamptz in zero-offset zones) equal
    the column encoders, BC years, year 10000, infinities, NULLs and sliced arrays included."""
    micros = pa.array(enough(_CALENDAR_MICROS), pa.int64())
    days = pa.array(enough([None, 0, -1, 2932896, -719163, 2**31 - 1, -(2**31 - 1), 20000]), pa.int32())
    days = pa.concat_arrays([days, days]).slice(0, len(micros))
    batch = pa.RecordBatch.from_arrays(
        [
            micros.cast(pa.timestamp("us")),
            micros.cast(pa.timestamp("us", "UTC")),
            days.cast(pa.date32()),
        ],
        ["ts", "tstz", "d"],
    )
    options = EncodeOptions(timezone=zone)
    vectorized = encode_data_rows(batch, [1114, 1184, 1082], [0, 0, 0], options)
    oids, formats = [1114, 1184, 1082], [0, 0, 0]
    assert batch.num_rows >= SMALL_BATCH
    one_by_one = b"".join(
        encode_data_rows(batch.slice(i, 1), oids, formats, options) for i in range(batch.num_rows)
    )
    assert one_by_one == vectorized
    assert all(text in vectorized for text in (b"-infinity", b" BC", b"10000-01-01", b".123"))


def test_zero_offset_shortcut_equals_the_zone_arithmetic() -> None:
    """timestamptz in UTC takes a shortcut without zone arithmetic; Etc/GMT-0 (also always +00, not in the
    shortcut's list) takes the general path: the texts must be identical."""
    from sparkwire.pgtypes.text_datetime import encode_timestamptz

    arr = pa.array(_CALENDAR_MICROS, pa.int64()).cast(pa.timestamp("us", "UTC"))
    for part in (arr, arr.slice(2), arr.slice(1, 4)):
        shortcut = encode_timestamptz(part, EncodeOptions(timezone="UTC")).to_pylist()
        general = encode_timestamptz(part, EncodeOptions(timezone="Etc/GMT-0")).to_pylist()
        assert shortcut == general
    assert b"1970-01-01 00:00:00.000001+00" in encode_timestamptz(arr, EncodeOptions()).to_pylist()
