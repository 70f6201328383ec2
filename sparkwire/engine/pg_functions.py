"""PostgreSQL's result types and numeric quotients as engine functions, for both engines.

Contract:
- `NUMERIC_DIV = "sw_numeric_div"`: `sw_numeric_div(a, b)` is PostgreSQL's numeric `a / b` as exact text with its
  scale (pgtypes/numeric_ops.py), NULL for a NULL argument, 22012 for division by zero. Registered on DuckDB by
  `install_duckdb` and on Spark by `install_spark` (a Python UDF: run by Spark's Python workers, which must be able
  to import sparkwire — true for the embedded `local[*]`; a cluster's workers need the package installed).
- `NUMERIC_SPREAD = "sw_numeric_spread"` (Spark only): `sw_numeric_spread(count, sum(x), sum(x·x), kind)` is
  PostgreSQL's numeric variance or stddev (`kind`: var_samp, var_pop, stddev_samp, stddev_pop) as exact text
  (pgtypes/numeric_ops.numeric_spread_text).
- `FLOAT_NUMERIC = "sw_float_numeric"` (Spark): `sw_float_numeric(x, digits)` is PostgreSQL's float8::numeric
  (digits 15, DBL_DIG) or float4::numeric (6, FLT_DIG) as exact text: the float printed `%.<digits>g` and read as
  a numeric (`1e+20` → 100000000000000000000, `1e-05` → 0.00001), NaN and ±Infinity as PostgreSQL spells them.
- `NUMERIC_MATH = "sw_numeric_math"` (Spark): `sw_numeric_math(function, x[, y])` is PostgreSQL's numeric sqrt, ln,
  log, exp or power as exact text with numeric.c's scale (pgtypes/numeric_math.py), its domain errors included.
- `FLOAT8_TEXT = "sw_float8_text"` / `FLOAT4_TEXT = "sw_float4_text"` (DuckDB): a double / real as the text
  PostgreSQL's float8out / float4out print (pgtypes/text_numbers.spell_float: `1`, `1e+15`, `1e+07` for a real,
  `NaN`, `-0`), what `x::text` of a float is; DuckDB's cast prints `1.0`, `1000000000000000.0`, `nan`.
- `JUSTIFY = "sw_justify"` (DuckDB): `sw_justify(kind, months, days, micros)` is PostgreSQL's justify_hours /
  justify_days / justify_interval (`kind`: hours, days, interval) of the interval with those parts
  (pgtypes/interval.justify), as text DuckDB reads as that interval (`1 months 5 days 0 microseconds`).
  `INTERVAL_TEXT = "sw_interval_text"` (DuckDB): `sw_interval_text(months, days, micros)` is that interval's text as
  PostgreSQL prints it (pgtypes/text_datetime.spell_interval), what `x::text` of an interval is.
- DuckDB macros (`install_duckdb`), chosen by the argument's type where PostgreSQL's result type depends on it:
  `sw_sum(x)` is bigint for smallint / integer arguments and numeric for bigint (DuckDB: HUGEINT for all);
  `sw_avg(x)` of integers is numeric (DECIMAL(38, 16)) and `sw_avg_text(x)` the exact text PostgreSQL prints
  (DuckDB: DOUBLE); other argument types get DuckDB's own sum/avg. `sw_quotient(a, b)` / `sw_quotient_text(a, b)`
  and `sw_numeric_avg_text(x)` are the numeric forms the translator picks when it knows an argument is numeric
  (translate/numeric_types.py): DuckDB's typed macros cannot tell DECIMAL from DOUBLE.
  `sw_series(start, stop, step)` is generate_series' array, of integers for integer bounds (DuckDB: bigint), as
  PostgreSQL's generate_series(int, int[, int]) is integer.
  `sw_octet_length(x)` is the byte length of text or bytea, `sw_length(x)` characters of text, bytes of bytea
  (both int4).
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from sparkwire.pgtypes.interval import Interval, justify
from sparkwire.pgtypes.numeric_math import numeric_math_text
from sparkwire.pgtypes.numeric_ops import numeric_div_text, numeric_spread_text
from sparkwire.pgtypes.text_datetime import spell_interval
from sparkwire.pgtypes.text_numbers import spell_float

NUMERIC_DIV = "sw_numeric_div"
NUMERIC_SPREAD = "sw_numeric_spread"
FLOAT_NUMERIC = "sw_float_numeric"
NUMERIC_MATH = "sw_numeric_math"
FLOAT8_TEXT = "sw_float8_text"
FLOAT4_TEXT = "sw_float4_text"
JUSTIFY = "sw_justify"
SERIES = "sw_series"
INTERVAL_TEXT = "sw_interval_text"
NESTED_NUMERIC = "DECIMAL(38, 16)"  # a numeric quotient computed with further (PostgreSQL keeps 16+ digits)

_INTEGERS = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT")


def _overloads(name: str, typed: list[tuple[tuple[str, ...], str]], fallback: str) -> str:
    parts = [f"(x {t}) AS {body}" for types, body in typed for t in types]
    parts.append(f"(x) AS {fallback}")
    return f"CREATE OR REPLACE MACRO main.{name}" + ", ".join(parts)


_QUOTIENT = f"{NUMERIC_DIV}(CAST(sum(x) AS VARCHAR), CAST(count(x) AS VARCHAR))"

MACROS: tuple[str, ...] = (
    _overloads(
        "sw_sum",
        [
            (("TINYINT", "SMALLINT", "INTEGER"), "CAST(sum(x) AS BIGINT)"),
            (("BIGINT",), "CAST(sum(x) AS DECIMAL(38, 0))"),
        ],
        "sum(x)",
    ),
    _overloads("sw_avg", [(_INTEGERS, f"CAST({_QUOTIENT} AS {NESTED_NUMERIC})")], "avg(x)"),
    _overloads("sw_avg_text", [(_INTEGERS, _QUOTIENT)], "avg(x)"),
    f"CREATE OR REPLACE MACRO main.sw_numeric_avg_text(x) AS {_QUOTIENT}",
    f"CREATE OR REPLACE MACRO main.sw_numeric_avg(x) AS CAST({_QUOTIENT} AS {NESTED_NUMERIC})",
    f"CREATE OR REPLACE MACRO main.sw_quotient_text(a, b) AS {NUMERIC_DIV}(CAST(a AS VARCHAR), CAST(b AS VARCHAR))",
    f"CREATE OR REPLACE MACRO main.sw_quotient(a, b) AS "
    f"CAST({NUMERIC_DIV}(CAST(a AS VARCHAR), CAST(b AS VARCHAR)) AS {NESTED_NUMERIC})",
    f"CREATE OR REPLACE MACRO main.{SERIES}(a INTEGER, b INTEGER, s INTEGER) AS "
    "CAST(generate_series(a, b, s) AS INTEGER[]), (a, b, s) AS generate_series(a, b, s)",
    # one typed overload each: two (VARCHAR, BLOB) are ambiguous to DuckDB for an argument it types late (a view's
    # `length(max(name))`); text takes the untyped one
    "CREATE OR REPLACE MACRO main.sw_octet_length(x BLOB) AS CAST(octet_length(x) AS INTEGER), "
    "(x) AS CAST(strlen(CAST(x AS VARCHAR)) AS INTEGER)",
    "CREATE OR REPLACE MACRO main.sw_length(x BLOB) AS CAST(octet_length(x) AS INTEGER), "
    "(x) AS CAST(length(x) AS INTEGER)",
)


def _numeric_div(a: object, b: object) -> str | None:
    # a PgError crosses DuckDB by its class name (engine/duckdb_errors.py) and Spark by its message (spark_errors)
    return numeric_div_text(a, b)


def _float8_text(value: float) -> str:
    return spell_float(value, 15, 1, single=False).decode()


def _float4_text(value: float) -> str:
    return spell_float(value, 6, 1, single=True).decode()


def _justify(kind: str, months: int, days: int, micros: int) -> str:
    value = justify(kind, Interval(months, days, micros))
    return f"{value.months} months {value.days} days {value.micros} microseconds"


def install_duckdb(db: Any) -> None:
    """`db`: a duckdb connection (the database's, so every cursor sees the functions)."""
    db.create_function(NUMERIC_DIV, _numeric_div, ["VARCHAR", "VARCHAR"], "VARCHAR", side_effects=False)
    db.create_function(FLOAT8_TEXT, _float8_text, ["DOUBLE"], "VARCHAR", side_effects=False)
    db.create_function(FLOAT4_TEXT, _float4_text, ["FLOAT"], "VARCHAR", side_effects=False)
    db.create_function(INTERVAL_TEXT, spell_interval, ["BIGINT", "BIGINT", "BIGINT"], "VARCHAR", side_effects=False)
    db.create_function(JUSTIFY, _justify, ["VARCHAR", "BIGINT", "BIGINT", "BIGINT"], "VARCHAR", side_effects=False)
    for macro in MACROS:
        db.execute(macro)


def _numeric_spread(count: object, sum_x: object, sum_x2: object, kind: str) -> str | None:
    return numeric_spread_text(count, sum_x, sum_x2, kind)


def _float_numeric(value: float | None, digits: int) -> str | None:
    if value is None:
        return None
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    read = Decimal(f"{value:.{digits}g}")
    return "0" if read == 0 else f"{read:f}"


def _numeric_math(function: str, *args: object) -> str | None:
    return numeric_math_text(function, *args)


def install_spark(spark: Any) -> None:
    from pyspark.sql.types import StringType

    spark.udf.register(NUMERIC_DIV, _numeric_div, StringType())
    spark.udf.register(NUMERIC_SPREAD, _numeric_spread, StringType())
    spark.udf.register(FLOAT_NUMERIC, _float_numeric, StringType())
    spark.udf.register(NUMERIC_MATH, _numeric_math, StringType())
