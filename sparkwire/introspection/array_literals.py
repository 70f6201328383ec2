"""The sqlglot pass that reads PostgreSQL array literals: `'{a,b}'::text[]`, `CAST('{1,2}' AS int[])`.

DuckDB casts text to a list only from its own `[a, b]` syntax. `array_literals` is a pure node transform `(node, ctx)
→ node`: a cast of a string literal to a one-dimensional array type becomes the cast of a list of its elements,
parsed as array parameters are parsed (pgtypes.params: quotes, backslash escapes, NULL; a literal it rejects
raises PostgreSQL's 22P02 while planning), each element a string literal or NULL that the cast converts to the element
type, as PostgreSQL converts each element's text. Multi-dimensional literals are left as they are.
(pgjdbc's getSQLKeywords sends `word <> ALL ('{…}'::text[])`.)
`any_literals` (its own pass) reads the untyped literal of `x = ANY('{a,b}')`, which PostgreSQL takes as an array of
x's type (pgspecial's `\\dt` sends `c.relkind = ANY('{r,p,""}')`): it becomes `x IN ('a', 'b')`, where DuckDB
converts each string to x's type as PostgreSQL converts each element's text; an empty array is false.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.pgtypes.options import EncodeOptions
from sparkwire.pgtypes.params import decode_text

_TEXT_ARRAY = 1009


def array_literals(node: exp.Expression, ctx: object) -> exp.Expression:
    if not (
        isinstance(node, exp.Cast)
        and isinstance(node.this, exp.Literal)
        and node.this.is_string
        and node.to.is_type(exp.DataType.Type.ARRAY)
    ):
        return node
    elements = decode_text(node.this.this, _TEXT_ARRAY, EncodeOptions())
    if not isinstance(elements, list) or any(isinstance(element, list) for element in elements):
        return node
    listed = exp.Array(
        expressions=[exp.Null() if element is None else exp.Literal.string(str(element)) for element in elements]
    )
    return exp.Cast(this=listed, to=node.to.copy())


def any_literals(node: exp.Expression, ctx: object) -> exp.Expression:
    if not (isinstance(node, exp.EQ) and isinstance(node.expression, exp.Any)):
        return node
    literal = node.expression.this
    while isinstance(literal, exp.Paren):
        literal = literal.this
    if not (isinstance(literal, exp.Literal) and literal.is_string):
        return node
    elements = decode_text(literal.this, _TEXT_ARRAY, EncodeOptions())
    if not isinstance(elements, list) or any(isinstance(element, list) for element in elements):
        return node
    if not elements:
        return exp.false()
    listed = [exp.Null() if element is None else exp.Literal.string(str(element)) for element in elements]
    return exp.In(this=node.this, expressions=listed)
