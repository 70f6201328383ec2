"""PostgreSQL functions the engines lack under PostgreSQL's name.

- lowering.py: PostgreSQL-level rewrites applied by both translators (translate/duckdb.py, translate/spark.py)
  before their own rules: a function DuckDB and Spark both lack becomes sqlglot nodes both generators print
  (every, quote_ident, quote_literal, quote_nullable, width_bucket, scale, min_scale, regexp_match,
  regexp_matches, regexp_substr, substring(s FROM pattern), regexp_split_to_table; json_agg for DuckDB).
- spark_arrays.py: Spark-only rules (translate/spark_semantics) for what DuckDB has and Spark lacks
  (string_to_array, regexp_split_to_array, json_agg).
- spark_numeric_casts.py: `x::numeric` keeps each value's scale on Spark (called by translate/spark.py).
- spark_numeric_math.py: numeric sqrt/ln/log/exp/power with numeric.c's digits on Spark (called by
  translate/spark.py).
"""
