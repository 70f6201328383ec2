"""The sqlglot pass that reads PostgreSQL array literals: `'{a,b}'::text[]`, `CAST('{1,2}' AS int[])`.

DuckDB casts text to a list only from its own `[a, b]` syntax. `array_literals` is a pure node transform `(node, ctx)
→ node`: a cast of a string literal to a one-dimensional array type becomes the cast of a list of its elements,
parsed as array parameters are parsed (pgtypes.params: quotes, backslash escapes, NULL; a literal it rejects
raises PostgreSQL's 22P02 while planning), each element a string literal or NULL that the cast converts to the element
type, as PostgreSQL converts each element's text. Multi-dimensional literals are left as they are.
(pgjdbc's getSQLKeywords sends `word <> ALL ('{…}'::text[])`.)
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
