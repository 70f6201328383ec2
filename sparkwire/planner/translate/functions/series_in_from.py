"""generate_series in a join's FROM item over an earlier item's columns, for both translators (from lowering.py).

Contract: `series_in_from(tree, duckdb)` lowers in place each join's FROM item that is `FROM t, [LATERAL]
generate_series(a, b[, step]) [AS] g[(c)]` and `CROSS JOIN LATERAL generate_series(…) g` (a function in FROM is
lateral in PostgreSQL, LATERAL written or not) → a lateral unnest of the series as an array, whose one column is
named by the column alias, else by the table alias, else generate_series (PostgreSQL names a scalar function's
column so). sqlglot printed DuckDB's table function (column "g" does not exist, 42703: DuckDB names it
generate_series), Spark's EXPLODE(…, _u(g)) (an outer column inside a table function: 42703). The array is DuckDB's
`sw_series(start, stop, step)` (engine/pg_functions.py: integer elements for integer bounds, as PostgreSQL's
generate_series(int, int) gives; DuckDB's are bigint) or Spark's sequence (translate/spark_rules.py
generate_series, empty where PostgreSQL's range is). A series as the first FROM item is not lateral and is left to
the engines, which read it.
A LATERAL VALUES list of one column over an outer column (`LATERAL (VALUES (e.id), (e.manager_id)) x(v)`) is the
same lateral unnest, of the array of its rows' values, its column named by the column alias, else column1: Spark
evaluates no outer column in an inline table (42000).
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.engine.pg_functions import SERIES


def _named_unnest(array: exp.Expr, alias: exp.Expr | None, default: str, column: str) -> exp.Lateral:
    name = alias.name if isinstance(alias, exp.TableAlias) and alias.name else default
    columns = (
        list(alias.columns) if isinstance(alias, exp.TableAlias) and alias.columns else [exp.to_identifier(column)]
    )
    return exp.Lateral(
        this=exp.Unnest(expressions=[array]), alias=exp.TableAlias(this=exp.to_identifier(name), columns=columns)
    )


def _lateral_values(node: exp.Expr) -> exp.Expr | None:
    values = node.this.this if isinstance(node.this, exp.Subquery) else node.this
    if not isinstance(node, exp.Lateral) or not isinstance(values, exp.Values):
        return None
    rows = values.expressions
    if not all(isinstance(row, exp.Tuple) and len(row.expressions) == 1 for row in rows):
        return None
    if not any(row.find(exp.Column) for row in rows):
        return None  # no outer column: the engines read it
    array = exp.Array(expressions=[row.expressions[0].copy() for row in rows])
    return _named_unnest(array, node.args.get("alias"), "*VALUES*", "column1")


def _lowered(node: exp.Expr, duckdb: bool) -> exp.Expr | None:
    if isinstance(node, exp.Lateral) and isinstance(node.parent, exp.Join):
        found = _lateral_values(node)
        if found is not None:
            return found
    call = node.this
    if not isinstance(call, exp.ExplodingGenerateSeries) or node.args.get("ordinality"):
        return None
    alias = node.args.get("alias")
    name = alias.name if isinstance(alias, exp.TableAlias) and alias.name else "generate_series"
    columns = list(alias.columns) if isinstance(alias, exp.TableAlias) and alias.columns else [exp.to_identifier(name)]
    bounds = {k: v.copy() for k, v in call.args.items() if isinstance(v, exp.Expr)}
    step = bounds.get("step") or exp.Literal.number(1)
    series = (
        exp.Anonymous(this=SERIES, expressions=[bounds["start"], bounds["end"], step])
        if duckdb
        else exp.GenerateSeries(**bounds)
    )
    return exp.Lateral(
        this=exp.Unnest(expressions=[series]),
        alias=exp.TableAlias(this=exp.to_identifier(name), columns=columns),
    )


def series_in_from(tree: exp.Expr, duckdb: bool) -> exp.Expr:
    for join in list(tree.find_all(exp.Join)):
        lowered = _lowered(join.this, duckdb)
        if lowered is not None:
            join.set("this", lowered)
    return tree
