"""`x IN (subquery)` as a value, with PostgreSQL's NULLs (a tree rule like spark_rules.py, run after it).

In a select list PostgreSQL's `x IN (SELECT y …)` is NULL, not false, when x is not found and some y is NULL, or
when x is NULL and the subquery has rows; Spark answers false (its null-aware handling is for WHERE, where NULL and
false filter alike, and it stays there). `in_subquery_values` rewrites an IN over a simple subquery (one output, no
GROUP BY, DISTINCT, LIMIT or set operation) in a select list to

    CASE WHEN x IN (sub) THEN true
         WHEN EXISTS (sub's FROM/WHERE AND y IS NULL) THEN NULL
         WHEN x IS NULL AND EXISTS (sub) THEN NULL
         ELSE false END

(NOT IN is NOT of it, so it follows.) A correlated subquery keeps its outer references in the WHERE of the EXISTS,
where Spark takes them.

`quantified_subqueries`: Spark has no `x op ANY/ALL (subquery)` for op other than `= ANY` (which any_all makes an
IN): `x op ANY (sub)` becomes `EXISTS (sub's FROM/WHERE AND x op y)` and `x op ALL (sub)` becomes `NOT EXISTS (sub's
FROM/WHERE AND (NOT (x op y) OR y IS NULL OR x IS NULL))`. Where PostgreSQL's answer is NULL these give false,
which a WHERE filters alike (in a select list they differ: a known disagreement).

`cte_materialization`: `WITH x AS [NOT] MATERIALIZED (…)` is a planner hint in PostgreSQL (it changes no result of
these queries); Spark has no such clause (42601), so the hint is dropped.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

Rule = Callable[[exp.Expr], exp.Expr]


def _in_select_list(node: exp.Expr) -> bool:
    child, parent = node, node.parent
    while parent is not None and not isinstance(parent, exp.Query):
        child, parent = parent, parent.parent
    return isinstance(parent, exp.Select) and child.arg_key == "expressions"


def _simple(query: exp.Expr) -> exp.Select | None:
    if not isinstance(query, exp.Select) or len(query.expressions) != 1 or query.is_star:
        return None
    if any(query.args.get(k) for k in ("group", "having", "distinct", "limit", "offset", "qualify", "windows")):
        return None
    if any(isinstance(n, exp.AggFunc) for n in query.expressions[0].find_all(exp.AggFunc)):
        return None
    return query


def _exists(query: exp.Select, extra: exp.Expr | None) -> exp.Exists:
    probe = query.copy()
    probe.set("expressions", [exp.Literal.number(1)])
    if extra is not None:
        probe = probe.where(extra, copy=False)
    return exp.Exists(this=probe)


def in_subquery_values(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.In) or node.args.get("query") is None or not _in_select_list(node):
            return node
        subquery = node.args["query"]
        query = _simple(subquery.this if isinstance(subquery, exp.Subquery) else subquery)
        if query is None:
            return node
        projection = query.expressions[0]
        value = projection.this if isinstance(projection, exp.Alias) else projection
        null_inside = _exists(query, exp.Is(this=value.copy(), expression=exp.Null()))
        null_probe = exp.and_(exp.Is(this=node.this.copy(), expression=exp.Null()), _exists(query, None))
        case = exp.Case(
            ifs=[
                exp.If(this=node.copy(), true=exp.true()),
                exp.If(this=null_inside, true=exp.null()),
                exp.If(this=null_probe, true=exp.null()),
            ],
            default=exp.false(),
        )
        return exp.Paren(this=case)

    return tree.transform(rewrite, copy=False)


def _realiased(query: exp.Select) -> exp.Select:
    """The subquery with fresh aliases for its own tables, so that an outer column moved into it (x of x op ALL)
    cannot be captured by an inner table of the same name (qualification names both `emp AS emp`)."""
    copy = query.copy()
    renamed: dict[str, str] = {}
    sources = [copy.args.get("from_"), *copy.args.get("joins", [])]
    for n, source in enumerate(s for s in sources if s is not None):
        table = source.this
        if isinstance(table, exp.Table | exp.Subquery) and table.alias_or_name:
            fresh = f"_sw_q{n}"
            renamed[table.alias_or_name] = fresh
            table.set("alias", exp.TableAlias(this=exp.to_identifier(fresh)))
    for column in copy.find_all(exp.Column):
        if column.table in renamed:
            column.set("table", exp.to_identifier(renamed[column.table]))
    return copy


COMPARISONS = (exp.EQ, exp.NEQ, exp.LT, exp.LTE, exp.GT, exp.GTE)


def quantified_subqueries(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, COMPARISONS) or not isinstance(node.expression, exp.Any | exp.All):
            return node
        operand = node.expression.this
        simple = _simple(operand.this if isinstance(operand, exp.Subquery) else operand)
        if simple is None:
            return node
        query = _realiased(simple)
        projection = query.expressions[0]
        y = projection.this if isinstance(projection, exp.Alias) else projection
        compare = type(node)(this=node.this.copy(), expression=y.copy())
        if isinstance(node.expression, exp.Any):
            return _exists(query, compare)
        unknown = exp.or_(
            exp.Not(this=exp.Paren(this=compare)),
            exp.Is(this=y.copy(), expression=exp.Null()),
            exp.Is(this=node.this.copy(), expression=exp.Null()),
        )
        return exp.Not(this=_exists(query, exp.Paren(this=unknown)))

    return tree.transform(rewrite, copy=False)


def cte_materialization(tree: exp.Expr) -> exp.Expr:
    for cte in tree.find_all(exp.CTE):
        cte.set("materialized", None)
    return tree


SUBQUERY_RULES: tuple[Rule, ...] = (in_subquery_values, quantified_subqueries, cte_materialization)
