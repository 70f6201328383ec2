"""PostgreSQL -> Spark SQL with PostgreSQL semantics.

Contract:

    to_spark_sql(expression, schema=None) -> str    # a sqlglot tree parsed with read="postgres"
    translate(sql, schema=None) -> str              # the same from text (exactly one statement)
    postgres_column_names(expression) -> list[str]  # see planner/bind/naming.py
    forbidden_in_spark(expression) -> str | None    # see spark_guard.py; the planner raises 42501

`schema` maps table -> column -> PostgreSQL type name (the catalog's view); with it, column types are known and
type-dependent rules apply (integer division, float/timestamptz text casts). Without it only literal types are.
The input tree is not modified. The Spark SQL's result columns carry PostgreSQL's names (each projection of the
top-level SELECT is aliased with `postgres_column_names`), so the engine's Arrow schema names are the names to
report. `$n` parameters become Spark named markers `:p<n>` (bind them with `args={"p1": …}`).

Pipeline: copy -> EARLY_RULES -> annotate types -> values in PostgreSQL's result types (spark_pg_types.py) and its
numeric quotients (spark_numeric.py) -> time operators, to_char of intervals and numbers, sum / avg of intervals and
age() (functions/intervals/time_ops.py, functions/to_char_values.py, functions/intervals/interval_results.py) ->
`spark_rules.RULES` -> alias outputs -> print with `SparkPostgres`, a Spark dialect whose rule table fixes PostgreSQL
type names (timestamp is TIMESTAMP_NTZ, timestamptz is TIMESTAMP, unconstrained numeric is DECIMAL(38, 10)).
PostgreSQL's NULL ordering (NULLS LAST ascending, NULLS FIRST descending) comes from the parsed `Ordered` nodes, which
sqlglot prints explicitly.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import ClassVar

import sqlglot
from sqlglot import exp
from sqlglot.dialects.spark import Spark
from sqlglot.generators.spark import SparkGenerator
from sqlglot.optimizer.annotate_types import annotate_types
from sqlglot.optimizer.qualify import qualify

from sparkwire import errors
from sparkwire.planner.bind.naming import postgres_column_names
from sparkwire.planner.translate.functions.array_text import constant_array_text
from sparkwire.planner.translate.functions.intervals.interval_results import (
    mark_spark_interval_results,
    spark_interval_results,
)
from sparkwire.planner.translate.functions.intervals.time_ops import interval_types, time_ops
from sparkwire.planner.translate.functions.lowering import lower_functions
from sparkwire.planner.translate.functions.pg_div import lower_div
from sparkwire.planner.translate.functions.pg_format import lower_format
from sparkwire.planner.translate.functions.pg_typeof import lower_typeof
from sparkwire.planner.translate.functions.spark_numeric_casts import chosen_scales, numeric_casts
from sparkwire.planner.translate.functions.spark_numeric_math import numeric_math
from sparkwire.planner.translate.functions.spark_time_zone import in_time_zone
from sparkwire.planner.translate.functions.to_char_values import to_char_values
from sparkwire.planner.translate.spark_guard import forbidden_in_spark
from sparkwire.planner.translate.spark_numeric import Scales, pg_quotients, text_numeric_columns
from sparkwire.planner.translate.spark_pg_types import pg_result_values
from sparkwire.planner.translate.spark_rules import EARLY_RULES, RULES
from sparkwire.planner.translate.spark_semantics import POST_RULES, PRE_RULES

Schema = Mapping[str, Mapping[str, str]]

__all__ = ["forbidden_in_spark", "postgres_column_names", "to_spark_sql", "translate"]

# PostgreSQL functions with no faithful Spark translation yet: FeatureNotSupported (0A000) rather than a guess
UNSUPPORTED_FUNCTIONS: frozenset[str] = frozenset()


def _datatype_sql(generator: SparkGenerator, node: exp.DataType) -> str:
    if node.this == exp.DType.TIMESTAMP:
        return "TIMESTAMP_NTZ"
    if node.this == exp.DType.TIMESTAMPTZ:
        return "TIMESTAMP"
    if node.this == exp.DType.DECIMAL and not node.expressions:
        return "DECIMAL(38, 10)"
    if node.this == exp.DType.TIME:  # Spark's TIME (spark.sql.timeType.enabled), microseconds unless given
        return f"TIME({node.expressions[0].sql() if node.expressions else 6})"
    return str(SparkGenerator.datatype_sql(generator, node))


def _parameter_sql(generator: SparkGenerator, node: exp.Parameter) -> str:
    return f":p{node.name}"


class SparkPostgres(Spark):
    """Spark SQL as sparkwire prints it: Spark's rules plus PostgreSQL's type meanings."""

    class Generator(SparkGenerator):
        TRANSFORMS: ClassVar[dict[type[exp.Expr], Callable[..., str]]] = {
            **SparkGenerator.TRANSFORMS,
            exp.Parameter: _parameter_sql,
        }

        def datatype_sql(self, expression: exp.DataType) -> str:
            return _datatype_sql(self, expression)


def _joins_by_name(tree: exp.Expr) -> bool:
    """A USING or NATURAL join anywhere in `tree`."""
    return any(
        join.args.get("using") or str(join.args.get("method") or "").upper() == "NATURAL"
        for join in tree.find_all(exp.Join)
    )


def _annotated(tree: exp.Expr, schema: Schema | None) -> exp.Expr:
    """Types on every node sqlglot can type; columns through `schema` when given."""
    mapping: dict[str, object] | None = {t: dict(cols) for t, cols in schema.items()} if schema else None
    if mapping:
        # an unknown table leaves its columns untyped; literals are still typed below. sqlglot asserts on an ORDER BY
        # position that points into an unexpanded `*` (`SELECT * FROM t ORDER BY 1`): Spark orders by position itself.
        # qualify rewrites USING and NATURAL joins into ON conditions, so a `*` over them must be expanded with them
        # (the join columns once, coalesced, as PostgreSQL lists them), or Spark would list them twice
        with contextlib.suppress(sqlglot.errors.SqlglotError, AssertionError):
            tree = qualify(
                tree,
                schema=mapping,
                dialect="postgres",
                quote_identifiers=False,
                expand_stars=_joins_by_name(tree),
                validate_qualify_columns=False,
                identify=False,
            )
    return annotate_types(tree, schema=mapping, dialect="postgres")


def _distinct_branch_names(tree: exp.Expr) -> None:
    """Spark's RemoveRedundantAliases drops `k AS k`, so a set operation's later branch that projects one column
    twice (`… UNION ALL SELECT k, k FROM d`) hands the union two outputs of one attribute: an invalid plan. Such a
    branch names its repeats apart (`k AS k_2`): a set operation's column names are its first branch's."""
    for operation in list(tree.find_all(exp.SetOperation)):
        branch = operation.expression
        while isinstance(branch, exp.Subquery):
            branch = branch.this
        if not isinstance(branch, exp.Select):
            continue
        seen: set[str] = set()
        projections: list[exp.Expr] = []
        for n, projection in enumerate(branch.expressions, 1):
            name = projection.alias_or_name
            if name and name in seen and not isinstance(projection, exp.Star):
                value = projection.this if isinstance(projection, exp.Alias) else projection
                projection = exp.alias_(value, f"{name}_{n}", quoted=True)
            seen.add(name)
            projections.append(projection)
        branch.set("expressions", projections)


def _alias_outputs(tree: exp.Expr, names: list[str]) -> None:
    select = tree
    while isinstance(select, exp.SetOperation):
        select = select.this
    if not isinstance(select, exp.Select) or len(select.expressions) != len(names):
        return
    aliased: list[exp.Expr] = []
    renamed: dict[str, exp.Expr] = {}  # qualify's own aliases (_col_0) -> the expression they named
    positions: dict[str, int] = {}  # … and the position of their projection
    for position, (projection, name) in enumerate(zip(select.expressions, names, strict=True), 1):
        if name == "*" or (isinstance(projection, exp.Alias) and projection.alias == name):
            aliased.append(projection)
            continue
        value = projection.this if isinstance(projection, exp.Alias) else projection
        if isinstance(projection, exp.Alias):
            renamed[projection.alias] = value
            positions[projection.alias] = position
        aliased.append(exp.alias_(value, name, quoted=True))
    select.set("expressions", aliased)
    order = select.args.get("order")
    if order is None or not renamed:
        return
    for ordered in order.expressions:  # ORDER BY 4 stays a position: Spark resolves a copied GROUPING(t.c) or a
        key = ordered.this  # qualified t.c under DISTINCT against the input, not the output (42803, 42703)
        if isinstance(key, exp.Column) and not key.table and key.name in positions:
            ordered.set("this", exp.Literal.number(positions[key.name]))
    order.transform(
        lambda n: renamed[n.name].copy() if isinstance(n, exp.Column) and not n.table and n.name in renamed else n,
        copy=False,
    )


def _check_supported(tree: exp.Expr) -> None:
    for node in tree.find_all(exp.Anonymous):
        name = str(node.this).lower()
        if name in UNSUPPORTED_FUNCTIONS:
            raise errors.FeatureNotSupported(f"function {name}() is not supported on Spark yet")
    for spec in tree.find_all(exp.WindowSpec):  # Spark's frames have no exclusion; sqlglot would drop it silently
        excluded = spec.args.get("exclude")
        if excluded is not None and excluded.name.upper() != "NO OTHERS":
            raise errors.FeatureNotSupported(
                f"frame exclusion EXCLUDE {excluded.name.upper()} is not supported on Spark yet"
            )


def to_spark_sql(
    expression: exp.Expr,
    schema: Schema | None = None,
    numeric_scales: Scales | None = None,
    results_as_text: bool = False,
    zone: str = "UTC",
) -> str:
    """Spark SQL for a PostgreSQL-parsed statement (see the module docstring). `numeric_scales`: the relations'
    unconstrained numeric columns held as text, with their largest scale; `results_as_text`: the rows go to a
    client, so numeric quotients among them are PostgreSQL's exact text (translate/spark_numeric.py); `zone`: the
    session's TimeZone (functions/spark_time_zone.py)."""
    names = postgres_column_names(expression)
    _check_supported(expression)
    tree = constant_array_text(lower_div(lower_typeof(expression.copy(), schema)))  # pg_typeof, div, arrays
    tree = lower_functions(lower_format(tree))  # as text, format and the functions neither engine has (functions/)
    for rule in EARLY_RULES:
        tree = rule(tree)
    tree = _annotated(tree, schema)
    tree = text_numeric_columns(tree, numeric_scales or {})
    before = hash(tree)  # sqlglot's structural hash (cached per node, reset up the tree by every change): ~10x cheaper
    tree = pg_result_values(tree, schema or {})
    tree = pg_quotients(tree, schema or {}, results_as_text)
    tree = chosen_scales(numeric_casts(tree, results_as_text), results_as_text)  # numerics' own scales (functions/)
    tree = numeric_math(tree, schema or {}, results_as_text)  # numeric sqrt/ln/exp/power (functions/)
    if hash(tree) != before:  # types as PostgreSQL's: a view's avg() column is numeric, not double
        tree = annotate_types(tree, schema={t: dict(c) for t, c in (schema or {}).items()} or None, dialect="postgres")
    tree = interval_types(tree)  # timestamp - timestamp is an interval (functions/intervals/time_ops.py)
    tree = time_ops(mark_spark_interval_results(tree, schema or {}), schema or {}, duckdb=False)  # functions/
    tree = to_char_values(tree, schema or {}, duckdb=False)  # to_char of intervals and numbers (functions/)
    tree = in_time_zone(tree, zone)  # the session's TimeZone where PostgreSQL uses it (functions/)
    for rule in (*PRE_RULES, *RULES, *POST_RULES):
        tree = rule(tree)
    tree = spark_interval_results(tree)  # sum / avg of intervals and age() as text (functions/intervals/)
    _distinct_branch_names(tree)
    _alias_outputs(tree, names)
    return str(tree.sql(dialect=SparkPostgres))


def translate(sql: str, schema: Schema | None = None, *, results_as_text: bool = False, zone: str = "UTC") -> str:
    """Parse one PostgreSQL statement and translate it; a parse failure is a SyntaxError (42601)."""
    try:
        statements = [s for s in sqlglot.parse(sql, read="postgres") if s is not None]
    except sqlglot.errors.ParseError as exc:
        raise errors.SyntaxError(f"syntax error: {str(exc).splitlines()[0]}") from None
    if len(statements) != 1:
        raise errors.SyntaxError("expected exactly one statement")
    return to_spark_sql(statements[0], schema, results_as_text=results_as_text, zone=zone)
