"""Errors PostgreSQL raises for the arguments of string functions, where DuckDB answers.

Contract: `string_errors(tree)` guards each call with a CASE that raises PostgreSQL's error for the values it
refuses (raised as spark_math.raise_error builds it; duckdb_rules/shared.py turns that into DuckDB's `error()`):
substring with a negative length 22011 `negative substring length not allowed` (DuckDB counts backwards),
split_part with field 0 22023 `field position must not be zero` (DuckDB answers ''), chr(0) 54000 `null character
not permitted` (DuckDB answers a NUL). `text_concatenation(tree)`: `||` of two operands that are numbers by their
spelling (number literals, casts to number types) is 42883 `operator does not exist` at plan time, as PostgreSQL
finds no `||` for them (DuckDB concatenates their text); a boolean argument of concat() (a literal, a comparison,
a cast to boolean) is its output text t / f, as PostgreSQL's concat() and format() print it; a char(n) operand
of `||` loses its trailing spaces (functions/spark_chars.character_concatenation).
`similar_to(tree)`: a SIMILAR TO pattern written as a literal is PostgreSQL's SQL regular expression (`%` any
text, `_` any character, the escape character, default `\\`, quoting the next one) made the
regular expression DuckDB's SIMILAR TO matches whole (DuckDB reads the pattern as a regular expression as is: `%`
is a percent sign there).
"""

from __future__ import annotations

import re

from sqlglot import exp

from sparkwire import errors as e
from sparkwire.planner.translate.functions.spark_chars import character_concatenation
from sparkwire.planner.translate.spark_math import raise_error


def _guarded(value: exp.Expr, check: exp.Expr, sqlstate: str, message: str) -> exp.Expr:
    case = exp.Case(ifs=[exp.If(this=check, true=raise_error(sqlstate, message))], default=value)
    return exp.Paren(this=case)


def _compare(kind: type[exp.LT] | type[exp.EQ], node: exp.Expr) -> exp.Expr:
    return kind(this=node.copy(), expression=exp.Literal.number(0))


def string_errors(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Substring) and node.args.get("length") is not None:
            check = _compare(exp.LT, node.args["length"])
            return _guarded(node, check, "22011", "negative substring length not allowed")
        if isinstance(node, exp.SplitPart) and node.args.get("part_index") is not None:
            check = _compare(exp.EQ, node.args["part_index"])
            return _guarded(node, check, "22023", "field position must not be zero")
        if isinstance(node, exp.Chr) and len(node.expressions) == 1:
            return _guarded(node, _compare(exp.EQ, node.expressions[0]), "54000", "null character not permitted")
        return node

    return tree.transform(rewrite, copy=False)


_NUMBER_TYPES = frozenset(
    {exp.DType.SMALLINT, exp.DType.INT, exp.DType.BIGINT, exp.DType.DECIMAL, exp.DType.FLOAT, exp.DType.DOUBLE}
)
_TYPE_NAMES = {exp.DType.SMALLINT: "smallint", exp.DType.INT: "integer", exp.DType.BIGINT: "bigint",
               exp.DType.FLOAT: "real", exp.DType.DOUBLE: "double precision"}  # fmt: skip


def _number_type(node: exp.Expr) -> str | None:
    while isinstance(node, exp.Paren | exp.Neg):
        node = node.this
    if isinstance(node, exp.Literal) and not node.is_string:
        return "integer" if node.this.isdigit() else "numeric"
    if isinstance(node, exp.Cast) and node.to.this in _NUMBER_TYPES:
        return _TYPE_NAMES.get(node.to.this, "numeric")
    return None


def _boolean(node: exp.Expr) -> bool:
    while isinstance(node, exp.Paren):
        node = node.this
    is_cast = isinstance(node, exp.Cast) and node.to.this == exp.DType.BOOLEAN
    return is_cast or isinstance(node, exp.Boolean | exp.Predicate | exp.Not | exp.And | exp.Or)


def _letter(node: exp.Expr) -> exp.Expr:
    """A boolean's output text, t or f (DuckDB's is true / false), NULL kept."""
    true, false = exp.If(this=node.copy(), true=exp.Literal.string("t")), exp.Literal.string("f")
    return exp.Case(ifs=[true, exp.If(this=exp.Not(this=exp.Paren(this=node.copy())), true=false)])


def text_concatenation(tree: exp.Expr) -> exp.Expr:
    for node in tree.find_all(exp.DPipe):
        left, right = _number_type(node.this), _number_type(node.expression)
        if left is not None and right is not None:
            raise e.UndefinedFunction(f"operator does not exist: {left} || {right}")
    for concat in tree.find_all(exp.Concat):
        concat.set("expressions", [_letter(a) if _boolean(a) else a for a in concat.expressions])
    return character_concatenation(tree)


def similar_regex(pattern: str, escape: str = "\\") -> str:
    """PostgreSQL's similar_to_escape: the SQL pattern as a regular expression matched against the whole text."""
    out: list[str] = []
    i, bracket = 0, False
    while i < len(pattern):
        c = pattern[i]
        if escape and c == escape and i + 1 < len(pattern):
            i += 1
            out.append(re.escape(pattern[i]))
        elif bracket:
            out.append(c)
            bracket = c != "]"
        elif c == "[":
            out.append(c)
            bracket = True
        elif c == "%":
            out.append(".*")
        elif c == "_":
            out.append(".")
        elif c in ".^$":
            out.append("\\" + c)
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _pattern(node: exp.SimilarTo, escape: str) -> exp.Expr | None:
    pattern = node.expression
    if not (isinstance(pattern, exp.Literal) and pattern.is_string and len(escape) <= 1):
        return None
    return exp.SimilarTo(this=node.this.copy(), expression=exp.Literal.string(similar_regex(pattern.this, escape)))


def similar_to(tree: exp.Expr) -> exp.Expr:
    def rewrite(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Escape) and isinstance(node.this, exp.SimilarTo):
            escape = node.expression
            if isinstance(escape, exp.Literal) and escape.is_string:
                return _pattern(node.this, escape.this) or node
            return node
        if isinstance(node, exp.SimilarTo) and not isinstance(node.parent, exp.Escape):
            return _pattern(node, "\\") or node
        return node

    return tree.transform(rewrite, copy=False)
