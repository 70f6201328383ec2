"""PostgreSQL's format() lowered into expressions both translators print (neither engine has its %I / %L).

Contract: `lower_format(tree)` rewrites a PostgreSQL-parsed sqlglot tree in place and returns it; both translators
call it before `functions/lowering.lower_functions` (translate/duckdb.py `to_duckdb`, translate/spark.py
`to_spark_sql`), whose quote_ident / quote_literal / quote_nullable rules then lower the calls this one builds.
A `format(fmt, args…)` whose format is a written string becomes the concatenation of its pieces, as PostgreSQL's
text_format() reads it: `%s` the argument's output text as concat() gives it (NULL the empty string, a boolean t
or f), `%I` quote_ident of that (NULL raises 22004, as PostgreSQL does), `%L` quote_literal of it (NULL is NULL),
`%%` a percent sign; a position `n$` picks the argument (the next ones follow it), a width pads on the left, `-`
on the right, and never truncates. A format PostgreSQL refuses raises its error at planning (22023: too few
arguments, an unrecognized conversion type, an unterminated format specifier); a width given as `*` and a format
that is not a written string are left as written (the engines' own format, as before). format(fmt) alone is
fmt; format(NULL, …) is NULL.
"""

from __future__ import annotations

import re
from typing import TypeVar

from sqlglot import exp

from sparkwire import errors
from sparkwire.planner.translate.spark_math import raise_error

Tree = TypeVar("Tree", bound=exp.Expr)

_SPEC = re.compile(r"%(?:(\d+)\$)?(-)?(\d+)?([A-Za-z%]?)")
_STAR = re.compile(r"%(?:\d+\$)?-?\*")
_NULL_IDENTIFIER = "null values cannot be formatted as an SQL identifier"


class _Unlowered(Exception):
    """A format this module leaves as written (a `*` width)."""


def _text(node: exp.Expr) -> exp.Expr:
    """The argument's output text, as concat() gives it (a boolean is t or f; NULL the empty string)."""
    return exp.Concat(expressions=[node.copy()], safe=True, coalesce=True)


def _concat(parts: list[exp.Expr]) -> exp.Expr:
    if not parts:
        return exp.Literal.string("")
    out = parts[0]
    for part in parts[1:]:
        out = exp.DPipe(this=out, expression=part)
    return exp.Paren(this=out)


def _call(name: str, *args: exp.Expr) -> exp.Expr:
    return exp.Anonymous(this=name, expressions=list(args))


def _conversion(kind: str, arg: exp.Expr) -> exp.Expr:
    if kind == "s":
        return _text(arg)
    is_null = exp.Is(this=arg.copy(), expression=exp.Null())
    if kind == "L":
        literal = _call("quote_literal", _text(arg))
        return exp.Case(ifs=[exp.If(this=is_null, true=exp.Literal.string("NULL"))], default=literal)
    identifier = _call("quote_ident", _text(arg))
    return exp.Case(ifs=[exp.If(this=is_null, true=raise_error("22004", _NULL_IDENTIFIER))], default=identifier)


def _padded(value: exp.Expr, width: int, left_aligned: bool) -> exp.Expr:
    """PostgreSQL pads to the width and never cuts: lpad/rpad to the longer of the two."""
    wide = exp.Greatest(this=exp.Length(this=value.copy()), expressions=[exp.Literal.number(width)])
    return _call("rpad" if left_aligned else "lpad", value, wide, exp.Literal.string(" "))


def _pieces(fmt: str, args: list[exp.Expr]) -> list[exp.Expr]:
    parts: list[exp.Expr] = []
    plain: list[str] = []
    position, at = 0, 0
    while at < len(fmt):
        char = fmt[at]
        if char != "%":
            plain.append(char)
            at += 1
            continue
        if _STAR.match(fmt, at):
            raise _Unlowered
        match = _SPEC.match(fmt, at)
        assert match is not None  # every group is optional
        index, minus, width, kind = match.groups()
        at = match.end()
        if not kind:
            raise errors.InvalidParameterValue("unterminated format() type specifier")
        if kind == "%" and index is None and minus is None and width is None:
            plain.append("%")
            continue
        if kind not in ("s", "I", "L"):
            raise errors.InvalidParameterValue(f'unrecognized format() type specifier "{kind}"')
        if index is not None:
            if int(index) == 0:
                raise errors.InvalidParameterValue("format specifies argument 0, but arguments are numbered from 1")
            position = int(index) - 1
        if position >= len(args):
            raise errors.InvalidParameterValue("too few arguments for format()")
        value = _conversion(kind, args[position])
        position += 1
        if width is not None:
            value = _padded(value, int(width), minus is not None)
        if plain:
            parts.append(exp.Literal.string("".join(plain)))
            plain = []
        parts.append(value)
    if plain:
        parts.append(exp.Literal.string("".join(plain)))
    return parts


def _lowered(node: exp.Expr) -> exp.Expr | None:
    if isinstance(node, exp.Format):
        fmt, args = node.this, list(node.expressions)
    elif isinstance(node, exp.Anonymous) and node.name.lower() == "format" and node.expressions:
        fmt, args = node.expressions[0], list(node.expressions[1:])
    else:
        return None
    if isinstance(fmt, exp.Null):
        return exp.cast(exp.Null(), "text")
    if not (isinstance(fmt, exp.Literal) and fmt.is_string):
        return None
    try:
        return _concat(_pieces(fmt.this, args))
    except _Unlowered:
        return None


def lower_format(tree: Tree) -> Tree:
    for node in reversed(list(tree.find_all(exp.Format, exp.Anonymous))):  # inner calls first
        lowered = _lowered(node)
        if lowered is None:
            continue
        if isinstance(node.parent, exp.Dot) and node.parent.expression is node:  # pg_catalog.format(…)
            node.parent.replace(lowered)
        else:
            node.replace(lowered)
    return tree
