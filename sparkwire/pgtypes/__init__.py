"""PostgreSQL types and wire values: the type registry, engine-type mapping, and Arrow ↔ wire encoding.

Public contract (everything else in the package is an implementation module):
- registry: `PgType`, `type_by_oid`, `type_by_name`, `parse_type_name`, `format_type`; typmod helpers.
- mapping: `pg_type_for_duckdb`, `pg_type_for_arrow` → (oid, typmod); `arrow_type_for_pg`.
- encoding: `EncodeOptions`, `encode_data_rows` (DataRow messages for a record batch, text or binary per column),
  `encode_column` (one column's wire values).
- parameters: `decode_param` (Bind values), `Interval`.
- COPY: `encode_copy_rows`, `copy_header`, `copy_trailer` (COPY TO STDOUT text/CSV/binary), `CopyInParser`
  (COPY FROM STDIN text/CSV), `BinaryCopyInParser` (COPY FROM STDIN binary).
"""

from sparkwire.pgtypes.copy.binary import BinaryCopyInParser
from sparkwire.pgtypes.copy.out import copy_header, copy_trailer, encode_copy_rows
from sparkwire.pgtypes.copy.text_in import CopyInParser
from sparkwire.pgtypes.interval import Interval, parse_interval
from sparkwire.pgtypes.mapping import arrow_type_for_pg, pg_type_for_arrow, pg_type_for_duckdb
from sparkwire.pgtypes.options import EncodeOptions
from sparkwire.pgtypes.params import decode_param, decode_text
from sparkwire.pgtypes.registry import PgType, all_types, format_type, parse_type_name, type_by_name, type_by_oid
from sparkwire.pgtypes.rows import encode_column, encode_data_rows
from sparkwire.pgtypes.typmod import (
    char_length,
    char_typmod,
    numeric_precision_scale,
    numeric_typmod,
)

__all__ = [
    "BinaryCopyInParser",
    "CopyInParser",
    "EncodeOptions",
    "Interval",
    "PgType",
    "all_types",
    "arrow_type_for_pg",
    "char_length",
    "char_typmod",
    "copy_header",
    "copy_trailer",
    "decode_param",
    "decode_text",
    "encode_column",
    "encode_copy_rows",
    "encode_data_rows",
    "format_type",
    "numeric_precision_scale",
    "numeric_typmod",
    "parse_interval",
    "parse_type_name",
    "pg_type_for_arrow",
    "pg_type_for_duckdb",
    "type_by_name",
    "type_by_oid",
]
