"""The columns of a VALUES list are column1, column2, … as PostgreSQL names them (DuckDB: col0, col1, …).

Contract: `values_columns(tree)` gives every VALUES in FROM whose alias lists no columns the column names
PostgreSQL gives it, so `SELECT column1 FROM (VALUES (1)) t` and `*` over it resolve as in PostgreSQL; a statement
that is a VALUES list with ORDER BY, LIMIT or OFFSET (`VALUES (3), (1) ORDER BY column1`) becomes
`SELECT * FROM (VALUES …) AS "*VALUES*"(column1, …)` with those clauses, as PostgreSQL plans it.
"""

from __future__ import annotations

from sqlglot import exp

_CLAUSES = ("order", "limit", "offset")


def _names(values: exp.Values) -> list[exp.Identifier]:
    first = values.expressions[0] if values.expressions else None
    width = len(first.expressions) if isinstance(first, exp.Tuple) else 1
    return [exp.to_identifier(f"column{i}") for i in range(1, width + 1)]


def values_columns(tree: exp.Expr) -> exp.Expr:
    for values in tree.find_all(exp.Values):
        alias = values.args.get("alias")
        if values is not tree and isinstance(alias, exp.TableAlias) and not alias.columns:
            alias.set("columns", _names(values))
    if not (isinstance(tree, exp.Values) and any(tree.args.get(k) for k in _CLAUSES)):
        return tree
    rows = exp.Values(
        expressions=[row.copy() for row in tree.expressions],
        alias=exp.TableAlias(this=exp.to_identifier("*VALUES*", quoted=True), columns=_names(tree)),
    )
    select = exp.select("*").from_(rows)
    for key in _CLAUSES:
        if tree.args.get(key) is not None:
            select.set(key, tree.args[key].copy())
    return select
