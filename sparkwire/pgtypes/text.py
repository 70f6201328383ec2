"""Text-format encoding of one column: `encode_text(arr, oid, options)` → `pa.BinaryArray` of PostgreSQL 15's text
output for each value (nulls stay null). Dispatch by the target oid; the Arrow type of `arr` is whatever the engine
produced and each family encoder converts from it. Unknown oids render Arrow's string cast of the value.
"""

from __future__ import annotations

import pyarrow as pa

from sparkwire.pgtypes import _wire, text_datetime, text_numbers, text_other
from sparkwire.pgtypes.mapping import pg_type_for_arrow
from sparkwire.pgtypes.options import EncodeOptions
from sparkwire.pgtypes.registry import type_by_oid

_INTS = frozenset({20, 21, 23, 24, 26, 28, 2205, 2206, 4089, 4096})
_JSON = frozenset({114, 3802})


def encode_text(arr: pa.Array, oid: int, options: EncodeOptions) -> pa.Array:
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    if pa.types.is_null(arr.type):
        return pa.nulls(len(arr), _wire.BINARY)
    if pa.types.is_string_view(arr.type) or pa.types.is_large_string(arr.type):
        arr = arr.cast(pa.string())
    if oid == 16:
        return text_numbers.encode_bool(arr)
    if oid in _INTS and not pa.types.is_string(arr.type):  # regproc / regclass / regtype may come as names
        return text_numbers.encode_int(arr)
    if oid == 1700:
        return text_numbers.encode_numeric(arr)
    if oid == 700:
        return text_numbers.encode_float(arr, 6, options)
    if oid == 701:
        return text_numbers.encode_float(arr, 15, options)
    if oid == 17:
        return text_other.encode_bytea_hex(arr)
    if oid == 1082:
        return text_datetime.encode_date(arr)
    if oid == 1083:
        return text_datetime.encode_time(arr)
    if oid == 1266:
        return text_datetime.encode_timetz(arr)
    if oid == 1114:
        return text_datetime.encode_timestamp(arr)
    if oid == 1184:
        return text_datetime.encode_timestamptz(arr, options)
    if oid == 1186:
        return text_datetime.encode_interval(arr)
    if oid == 2950:
        return text_other.encode_uuid(arr)
    if oid in _JSON:
        return text_other.encode_json(arr)
    found = type_by_oid(oid) if oid else None
    if found is not None and found.vector and text_other.is_list(arr.type):
        return text_other.encode_vector(arr)
    if found is not None and found.is_array and text_other.is_list(arr.type):
        element_oid = found.element_oid
        depth = 1 if type_by_oid(element_oid).vector else 0
        return text_other.encode_array(arr, lambda values: encode_text(values, element_oid, options), depth)
    return _as_text(arr, options)


def _as_text(arr: pa.Array, options: EncodeOptions) -> pa.Array:
    """text, varchar, name, … — and any other value rendered as its natural text."""
    if pa.types.is_string(arr.type):
        return _wire.as_binary(arr)
    if pa.types.is_boolean(arr.type):
        return text_numbers.encode_bool(arr)
    if pa.types.is_struct(arr.type) or pa.types.is_map(arr.type):
        return text_other.encode_json(arr)
    if pa.types.is_binary(arr.type) or pa.types.is_large_binary(arr.type):
        return _wire.as_binary(arr)
    oid, _ = pg_type_for_arrow(arr.type)
    if oid in (25, 114):
        return _wire.as_binary(arr.cast(pa.string()))
    return encode_text(arr, oid, options)
