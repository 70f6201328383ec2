"""Rules of the Spark translation that hold on DuckDB as written: one decision for both routes.

Contract: `SHARED_RULES` is an ordered tuple of pure rules `rule(tree) -> tree` over a PostgreSQL-parsed sqlglot
tree (no type annotation needed; `constant_type_errors`, which annotates a copy, runs first, on the tree as written,
apart from the others). Each is a Spark rule applied as is, then `duckdb_raises` turns the Spark
`raise_error('<marker><SQLSTATE>:<message>')` those rules build into DuckDB's `error(...)` with the same text, which
engine/duckdb_errors.py maps back to the SQLSTATE and message:

- domain_errors (spark_math.py): sqrt of a negative number 2201F, ln/log of zero or a negative number 2201E, a
  negative number to a non-integer power and zero to a negative power 2201F (DuckDB answers NaN or ±Infinity)
- char_casts (spark_text.py): `x::varchar(n)` / `x::char(n)` keep the first n characters, char(n) pads (DuckDB
  ignores the length)
- limit_values (spark_limits.py): LIMIT NULL / ALL, a fractional or quoted count rounded, a negative LIMIT 2201W
  and OFFSET 2201X (DuckDB: 42804 for both)
- constant_type_errors (spark_typecheck.type_errors over sqlglot's type annotation, for a statement that reads no
  relation): a cast PostgreSQL has no pg_cast for 42846 (`1.5::boolean`, `1::date`), float `%` and round(float, n)
  42883, ntile(0) 22014, … (DuckDB casts or answers). It only raises; the tree goes on as it was.
- substring_bounds (spark_rules.py): substring(s, start[, n]) with start < 1 counts the positions before 1 (DuckDB
  counts from the end)
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.annotate_types import annotate_types

from sparkwire.errors import RAISED_MARKER
from sparkwire.planner.translate.spark_limits import limit_values
from sparkwire.planner.translate.spark_math import Rule, domain_errors
from sparkwire.planner.translate.spark_rules import substring_bounds
from sparkwire.planner.translate.spark_text import char_casts
from sparkwire.planner.translate.spark_typecheck import type_errors


def duckdb_raises(tree: exp.Expr) -> exp.Expr:
    """raise_error('<marker>…') → error('<marker>…'): only calls a translator built (users cannot call raise_error:
    the function allowlist)."""

    def rewrite(node: exp.Expr) -> exp.Expr:
        if not (isinstance(node, exp.Anonymous) and node.name.lower() == "raise_error" and len(node.expressions) == 1):
            return node
        text = node.expressions[0]
        if isinstance(text, exp.Literal) and text.is_string and text.this.startswith(RAISED_MARKER):
            return exp.Anonymous(this="error", expressions=[text.copy()])
        return node

    return tree.transform(rewrite, copy=False)


def constant_type_errors(tree: exp.Expr) -> exp.Expr:
    if tree.find(exp.Table) is not None:
        return tree
    try:
        annotated = annotate_types(tree.copy(), dialect="postgres")
    except (SqlglotError, AssertionError, KeyError, TypeError, ValueError):
        return tree  # what the annotator cannot type, DuckDB judges
    type_errors(annotated)
    return tree


SHARED_RULES: tuple[Rule, ...] = (
    domain_errors,
    char_casts,
    limit_values,
    substring_bounds,
    duckdb_raises,
)
