"""PostgreSQL's grouping and ordered-set aggregates on Spark (tree rules like spark_rules.py).

- grouping_bits: grouping(a, b, …) with several arguments is a bit mask, Spark's grouping_id(a, b, …) (Spark's
  grouping() takes one argument)
- exact_percentiles: percentile_cont / percentile_disc WITHIN GROUP are exact in PostgreSQL; sqlglot prints
  Spark's percentile_approx. Spark has both, with the same WITHIN GROUP syntax.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

Rule = Callable[[exp.Expr], exp.Expr]


def grouping_bits(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Grouping) and len(node.expressions) > 1:
            return exp.Anonymous(this="grouping_id", expressions=[e.copy() for e in node.expressions])
        return node

    return tree.transform(rewrite, copy=False)


def exact_percentiles(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.PercentileCont | exp.PercentileDisc) and isinstance(node.parent, exp.WithinGroup):
            name = "percentile_cont" if isinstance(node, exp.PercentileCont) else "percentile_disc"
            return exp.Anonymous(this=name, expressions=[node.this.copy()])
        return node

    return tree.transform(rewrite, copy=False)


AGGREGATE_RULES: tuple[Rule, ...] = (grouping_bits, exact_percentiles)
