"""The sqlglot pass that names the columns of inner SELECTs as PostgreSQL names them.

DuckDB names an unaliased projection after its text (`count(1)`, `row_number() OVER (…)`), PostgreSQL after the
function or column (`count`, `row_number`: bind/naming.py's FigureColname rules). Queries over a CTE or a subquery in
FROM refer to those names (pgcli's casing query orders a CTE by `count` and filters on `row_number`), and `*` over
them shows them. `inner_names` is a pure node transform `(node, ctx) → node` for `translate.duckdb.TRANSFORMS`: each
unaliased projection of a SELECT that is not the statement's own result (a CTE, a subquery, a set operation below
one) gets PostgreSQL's name as its alias. Plain column references (DuckDB names them alike), `*`, and projections
PostgreSQL leaves unnamed (`?column?`) are left as they are; the statement's own result columns are named by the
planner (bind/naming.py). It runs first, on the tree as the client wrote it.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.planner.bind.naming import UNNAMED, column_name


def _is_statement_result(select: exp.Select) -> bool:
    """The statement's own SELECT, or a branch of its top-level UNION / INTERSECT / EXCEPT."""
    node: exp.Expression = select
    while isinstance(node.parent, exp.SetOperation) and node.arg_key in ("this", "expression"):
        node = node.parent
    return node.parent is None


def _named(projection: exp.Expr) -> exp.Expr:
    if not isinstance(projection, exp.Expression) or isinstance(projection, exp.Alias | exp.Column | exp.Star):
        return projection
    name = column_name(projection)
    if name is None or name == UNNAMED:
        return projection
    return exp.alias_(projection, exp.to_identifier(name, quoted=True))


def inner_names(node: exp.Expression, ctx: object) -> exp.Expression:
    if isinstance(node, exp.Select) and not _is_statement_result(node):
        node.set("expressions", [_named(projection) for projection in node.expressions])
    return node
