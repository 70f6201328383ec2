"""Queries Spark can answer while optimizing: a filter / projection / LIMIT of one relation whose rows are in memory.

Spark's optimizer folds `Project`, `Filter` and `Limit` over rows held by the driver (a LocalRelation) into new rows
(ConvertToLocalRelation), and the engine then hands them out without a job (engine/spark_local_result.py). A small
source is registered in the small-input session through `coalesce(1)` (so that an aggregate, a join or a sort is
one stage: Spark knows the input is a single partition and plans no exchange), which hides its rows from that rule;
so every small source is registered a second time as the rows themselves, under `rows_view(name)`
(spark_relations.py), and a query that only scans is pointed at those (over rows Spark does not hold, e.g. past its
Arrow local-relation threshold, it runs as a job, as before).

Contract:
- `scans_only(tree)`: the bound query is one SELECT of one relation (no join, subquery, set operation, CTE,
  aggregate, window, DISTINCT, GROUP BY, HAVING, ORDER BY, OFFSET): what the optimizer folds to rows. A LIMIT is
  fine. (A projection Spark cannot evaluate while optimizing, e.g. a Python UDF, still runs as a job: correct,
  only not faster.)
- `rows_view(name)`: the rows view's name for the source view `name`.
- `over_row_views(tree, names)`: the bound query reading the rows view of every source view in `names` (the
  references keep their aliases, so column references do not change).
"""

from __future__ import annotations

from sqlglot import exp

_ROWS_SUFFIX = "_rows"
_NOT_A_SCAN = (exp.AggFunc, exp.Window, exp.Subquery, exp.SetOperation, exp.Join, exp.Lateral, exp.Unnest)


def rows_view(name: str) -> str:
    return name + _ROWS_SUFFIX


def scans_only(tree: exp.Expression) -> bool:
    if not isinstance(tree, exp.Select):
        return False
    if any(tree.args.get(key) for key in ("with", "joins", "group", "having", "order", "distinct", "offset", "qualify",
                                          "windows", "laterals", "into")):  # fmt: skip
        return False
    source = tree.args.get("from_", tree.args.get("from"))  # sqlglot's key for FROM changed name
    if not isinstance(source, exp.From) or not isinstance(source.this, exp.Table) or source.this.args.get("joins"):
        return False
    if any(isinstance(node, exp.Select) for node in tree.find_all(exp.Select) if node is not tree):
        return False
    return not any(tree.find_all(*_NOT_A_SCAN))


def over_row_views(tree: exp.Expression, names: set[str]) -> exp.Expression:
    """`tree` (bound: every relation reference carries its alias) reading the rows view of each source in `names`."""
    for table in tree.find_all(exp.Table):
        if table.name in names and not table.db:
            table.set("this", exp.to_identifier(rows_view(table.name)))
    return tree
