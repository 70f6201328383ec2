"""int2vector (oid 22) and oidvector (oid 30): registry entries, engine-type mapping, and the wire values.

The expected bytes are what PostgreSQL 15 sends for `pg_index.indkey` = `3 1`, `indclass` = `1978 1978`, the empty
`''::int2vector` and `ARRAY[indkey, indkey]` (int2vector[]): text output space-separated, binary output
array_send's layout with the element oid (int2 / oid), one dimension even when empty, lower bound 0.
"""

from __future__ import annotations

import struct

import pyarrow as pa
import pytest

from sparkwire.pgtypes import EncodeOptions, encode_column, encode_data_rows, format_type, parse_type_name, type_by_oid
from sparkwire.pgtypes.mapping import arrow_type_for_pg, pg_type_for_arrow, pg_type_for_duckdb

OPTIONS = EncodeOptions()
INT2VECTOR, OIDVECTOR = 22, 30
INDKEY_3_1 = bytes.fromhex("00000001 00000000 00000015 00000002 00000000 00000002 0003 00000002 0001".replace(" ", ""))
INDCLASS = bytes.fromhex(
    "00000001 00000000 0000001a 00000002 00000000 00000004 000007ba 00000004 000007ba".replace(" ", "")
)
EMPTY_INT2VECTOR = bytes.fromhex("00000001 00000000 00000015 00000000 00000000".replace(" ", ""))


def test_registry_has_the_vectors_as_postgres() -> None:
    int2vector, oidvector = type_by_oid(INT2VECTOR), type_by_oid(OIDVECTOR)
    assert (int2vector.name, int2vector.typlen, int2vector.array_oid, int2vector.element_oid) == ("int2vector", -1,
                                                                                                   1006, 21)
    assert (oidvector.name, oidvector.typlen, oidvector.array_oid, oidvector.element_oid) == ("oidvector", -1,
                                                                                              1013, 26)
    assert int2vector.vector and not int2vector.is_array and int2vector.category == "A"
    assert type_by_oid(1006).is_array and type_by_oid(1006).element_oid == INT2VECTOR
    assert [format_type(oid) for oid in (22, 30, 1006, 1013)] == ["int2vector", "oidvector", "int2vector[]",
                                                                   "oidvector[]"]
    assert parse_type_name("int2vector")[0].oid == 22
    assert parse_type_name("oidvector[]")[0].oid == 1013


@pytest.mark.parametrize(
    ("engine_type", "expected"),
    [("USMALLINT[]", 22), ("UBIGINT[]", 30), ("USMALLINT[][]", 1006), ("UBIGINT[][]", 1013), ("SMALLINT[]", 1005),
     ("UINTEGER[]", 1028), ("USMALLINT", 23)],
)
def test_engine_types_of_the_vectors(engine_type: str, expected: int) -> None:
    assert pg_type_for_duckdb(engine_type) == (expected, -1)


def test_arrow_types_of_the_vectors() -> None:
    assert pg_type_for_arrow(pa.list_(pa.uint16())) == (22, -1)
    assert pg_type_for_arrow(pa.list_(pa.uint64())) == (30, -1)
    assert pg_type_for_arrow(pa.list_(pa.list_(pa.uint16()))) == (1006, -1)
    assert pg_type_for_arrow(pa.list_(pa.int16())) == (1005, -1)
    for oid in (22, 30, 1006, 1013):
        assert pg_type_for_arrow(arrow_type_for_pg(oid)) == (oid, -1)


def test_text_output() -> None:
    keys = pa.array([[3, 1], [], None, [1600]], pa.list_(pa.uint16()))
    assert encode_column(keys, INT2VECTOR, 0, OPTIONS).to_pylist() == [b"3 1", b"", None, b"1600"]
    classes = pa.array([[1978, 1978], [4294967295]], pa.list_(pa.uint64()))
    assert encode_column(classes, OIDVECTOR, 0, OPTIONS).to_pylist() == [b"1978 1978", b"4294967295"]


def test_text_output_of_an_array_of_vectors_quotes_each_vector() -> None:
    nested = pa.array([[[3, 1], [3, 1]], [], [[2]]], pa.list_(pa.list_(pa.uint16())))
    assert encode_column(nested, 1006, 0, OPTIONS).to_pylist() == [b'{"3 1","3 1"}', b"{}", b"{2}"]


def test_binary_output_matches_postgres() -> None:
    keys = pa.array([[3, 1], [], None], pa.list_(pa.uint16()))
    assert encode_column(keys, INT2VECTOR, 1, OPTIONS).to_pylist() == [INDKEY_3_1, EMPTY_INT2VECTOR, None]
    classes = pa.array([[1978, 1978]], pa.list_(pa.uint64()))
    assert encode_column(classes, OIDVECTOR, 1, OPTIONS).to_pylist() == [INDCLASS]


def test_binary_output_of_an_array_of_vectors() -> None:
    nested = pa.array([[[3, 1], [3, 1]]], pa.list_(pa.list_(pa.uint16())))
    element = struct.pack("!i", len(INDKEY_3_1)) + INDKEY_3_1
    header = struct.pack("!iiiii", 1, 0, INT2VECTOR, 2, 1)
    assert encode_column(nested, 1006, 1, OPTIONS).to_pylist() == [header + element + element]


@pytest.mark.parametrize("rows", [1, 40])
def test_data_rows_small_and_large_batches_agree(rows: int) -> None:
    batch = pa.record_batch([pa.array([[3, 1]] * rows, pa.list_(pa.uint16()))], names=["indkey"])
    encoded = encode_data_rows(batch, [INT2VECTOR], [0], OPTIONS)
    one = b"D" + struct.pack("!ih", 4 + 2 + 4 + 3, 1) + struct.pack("!i", 3) + b"3 1"
    assert encoded == one * rows
