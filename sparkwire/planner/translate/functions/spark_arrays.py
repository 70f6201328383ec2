"""Text-to-array functions Spark lacks under PostgreSQL's name (tree rules like translate/spark_rules.py).

Contract: `ARRAY_RULES` is an ordered tuple of pure rules `rule(expression) -> expression` over a PostgreSQL-parsed
sqlglot tree, applied among translate/spark_semantics.POST_RULES:
- string_to_array(s, delimiter [, null_string]): Spark's split on the delimiter taken literally (`\\Q…\\E`), every
  field kept (limit -1); an empty s is an empty array, an empty delimiter the whole s as one element, NULL s NULL;
  fields equal to null_string are NULL (a NULL delimiter, which splits into characters, is left as written);
- regexp_split_to_array(s, pattern): Spark's split with limit -1 (leading and trailing empty fields kept, as
  PostgreSQL keeps them). DuckDB has both functions under these names, so only Spark needs them.
`JSON_RULES` (in spark_semantics.PRE_RULES, before spark_rules.ordered_array_agg): json_agg(x [ORDER BY …]) is
the array_agg of x (its order, NULLs kept, NULL over no rows) printed as PostgreSQL's json_agg prints it:
`[e1, e2]`, each element its JSON (Spark's to_json of the value; `null` for NULL). Under FILTER it is left as
written. DuckDB's side is to_json(list(…)) (functions/lowering.py), which types the column json.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

Rule = Callable[[exp.Expr], exp.Expr]


def _fn(name: str, *args: exp.Expr) -> exp.Anonymous:
    return exp.Anonymous(this=name, expressions=list(args))


def _quoted(delimiter: exp.Expr) -> exp.Expr:
    """A regular expression matching `delimiter` literally."""
    if isinstance(delimiter, exp.Literal) and delimiter.is_string:
        return exp.Literal.string("\\Q" + delimiter.name.replace("\\E", "\\E\\\\E\\Q") + "\\E")
    return _fn("concat", exp.Literal.string("\\Q"), delimiter.copy(), exp.Literal.string("\\E"))


def _is_null(node: exp.Expr) -> bool:
    return isinstance(node, exp.Null)


def _string_to_array(node: exp.StringToArray) -> exp.Expr:
    value, delimiter = node.this, node.expression
    null_string = node.args.get("null")
    if delimiter is None or _is_null(delimiter):
        return node
    empty_delimiter = exp.EQ(this=delimiter.copy(), expression=exp.Literal.string(""))
    fields: exp.Expr = exp.If(
        this=empty_delimiter,
        true=exp.Array(expressions=[value.copy()]),
        false=_fn("split", value.copy(), _quoted(delimiter), exp.Literal.number(-1)),
    )
    if isinstance(null_string, exp.Expr) and not _is_null(null_string):
        element = exp.to_identifier("_sparkwire_f")
        nulled = exp.Nullif(this=exp.column(element), expression=null_string.copy())
        fields = _fn("transform", fields, exp.Lambda(this=nulled, expressions=[element]))
    return exp.Paren(
        this=exp.Case(
            ifs=[
                exp.If(this=exp.Is(this=value.copy(), expression=exp.Null()), true=exp.Null()),
                exp.If(this=exp.EQ(this=value.copy(), expression=exp.Literal.string("")), true=_fn("array")),
            ],
            default=fields,
        )
    )


def string_to_array(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.StringToArray):
            return _string_to_array(node)
        if (
            isinstance(node, exp.Anonymous)
            and node.name.lower() == "regexp_split_to_array"
            and len(node.expressions) == 2
        ):
            value, pattern = node.expressions
            return _fn("split", value, pattern, exp.Literal.number(-1))
        return node

    return tree.transform(rewrite, copy=False)


ARRAY_RULES: tuple[Rule, ...] = (string_to_array,)


def _element_json(element: exp.Expr) -> exp.Expr:
    wrapped = _fn("to_json", _fn("named_struct", exp.Literal.string("v"), element.copy()))
    value = exp.RegexpExtract(
        this=wrapped, expression=exp.Literal.string('^\\{"v":(.*)\\}$'), group=exp.Literal.number(1)
    )
    is_null = exp.Is(this=element.copy(), expression=exp.Null())
    return exp.Case(ifs=[exp.If(this=is_null, true=exp.Literal.string("null"))], default=value)


def json_agg(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if not isinstance(node, exp.JSONArrayAgg) or isinstance(node.parent, exp.Filter | exp.Window):
            return node
        element = exp.to_identifier("_sparkwire_j")
        texts = _fn(
            "transform",
            exp.ArrayAgg(this=node.this),
            exp.Lambda(this=_element_json(exp.column(element)), expressions=[element]),
        )
        joined = _fn("array_join", texts, exp.Literal.string(", "))
        return _fn("concat", exp.Literal.string("["), joined, exp.Literal.string("]"))

    return tree.transform(rewrite, copy=False)


JSON_RULES: tuple[Rule, ...] = (json_agg,)
