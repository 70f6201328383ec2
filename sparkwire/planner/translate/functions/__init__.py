"""PostgreSQL functions the engines lack under PostgreSQL's name.

- lowering.py: PostgreSQL-level rewrites applied by both translators (translate/duckdb.py, translate/spark.py)
  before their own rules: a function DuckDB and Spark both lack becomes sqlglot nodes both generators print
  (every, quote_ident, quote_literal, quote_nullable, width_bucket, scale, min_scale, regexp_match,
  regexp_matches, regexp_substr, substring(s FROM pattern), regexp_split_to_table; json_agg for DuckDB).
- spark_arrays.py: Spark-only rules (translate/spark_semantics) for what DuckDB has and Spark lacks
  (string_to_array, regexp_split_to_array, json_agg).
- typed_literals.py, overlaps.py, binary_strings.py, series_in_from.py, justify.py: parts of lowering.py for
  both translators (free-form date / ISO interval / ::name literals, OVERLAPS, encode / decode / convert_to /
  convert_from, generate_series as a lateral join item, justify_*).
- spark_windows.py: Spark-only window rules (ranking functions without ORDER BY).
- spark_numeric_casts.py: `x::numeric` keeps each value's scale on Spark (called by translate/spark.py).
- spark_numeric_math.py: numeric sqrt/ln/log/exp/power with numeric.c's digits on Spark (called by
  translate/spark.py).
"""
