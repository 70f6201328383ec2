"""The sqlglot pass that gives the builtin relations' int2vector / oidvector columns PostgreSQL's semantics.

The store holds those columns as DuckDB lists (see tables.py), which are indexed from 1 while PostgreSQL indexes
a vector from 0, and whose elements are unsigned integers rather than int2 / oid. `vectors` is a pure node transform
`(node, ctx) → node` (run after `builtin_tables`, before `catalog_functions`) over references to those columns,
recognised by name (`indkey`, `indclass`, `proargtypes`, …: every vector column of `relations.RELATIONS`; no
builtin relation uses one of those names for anything else):
- `v[i]` → the element at DuckDB position i + 1, as smallint / oid; `v[i:j]` → the elements i..j as smallint[] /
  oid[] (PostgreSQL's slice of a vector is an array);
- `generate_subscripts(v, 1)` counts from 0; `array_lower(v, 1)` is 0 and `array_upper(v, 1)` the length - 1;
- `v::text` (and varchar, name) is the space-separated text int2vectorout prints;
- `unnest(v)` (also `FROM unnest(v)`) and `information_schema._pg_expandarray(v)` yield smallint / oid elements.
Everything else (`x = ANY(v)`, array_to_string, array_length, the column itself, which results report as
int2vector / oidvector) works on the stored list as it is.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire.introspection.relations import RELATIONS

_ELEMENT_TYPES = {"int2vector": "SMALLINT", "oidvector": "UINTEGER"}
VECTOR_COLUMNS: dict[str, str] = {
    name: _ELEMENT_TYPES[pg_type] for rel in RELATIONS for name, pg_type in rel.columns if pg_type in _ELEMENT_TYPES
}
_TEXT_TYPES = (exp.DataType.Type.TEXT, exp.DataType.Type.VARCHAR, exp.DataType.Type.NAME)
_ELEMENT_FUNCTIONS = frozenset({"unnest", "_pg_expandarray"})


def _element_type(node: exp.Expression | None) -> str | None:
    """The DuckDB element type of a vector column reference, else None."""
    if isinstance(node, exp.Column) and isinstance(node.this, exp.Identifier):
        return VECTOR_COLUMNS.get(node.name)
    return None


def _cast(node: exp.Expression, duck_type: str) -> exp.Expression:
    return exp.Cast(this=node, to=exp.DataType.build(duck_type, dialect="duckdb"))


def _int_literal(node: exp.Expression) -> int | None:
    if isinstance(node, exp.Literal) and not node.is_string and node.this.lstrip("-").isdigit():
        return int(node.this)
    if isinstance(node, exp.Neg):
        inner = _int_literal(node.this)
        return None if inner is None else -inner
    return None


def _plus_one(node: exp.Expression) -> exp.Expression:
    value = _int_literal(node)
    return exp.Literal.number(value + 1) if value is not None else exp.Add(this=node, expression=exp.Literal.number(1))


def _subscript(node: exp.Bracket, element: str) -> exp.Expression:
    """`v[i]` / `v[i:j]` (PostgreSQL positions from 0) on the stored list (DuckDB positions from 1)."""
    column = node.this.copy()
    (index,) = node.expressions
    if isinstance(index, exp.Slice):
        low = _plus_one(index.this) if index.this is not None else exp.Literal.number(1)
        high = (
            _plus_one(index.expression)
            if index.expression is not None
            else exp.Anonymous(this="len", expressions=[column.copy()])
        )
        return _cast(exp.Anonymous(this="list_slice", expressions=[column, low, high]), element + "[]")
    # sqlglot holds integer literal subscripts 0-based (PostgreSQL's `[0]` is `-1`): the PostgreSQL position is + 1
    value = _int_literal(index)
    position = exp.Literal.number(value + 1) if value is not None else index.copy()
    return _cast(exp.Anonymous(this="list_extract", expressions=[column, _plus_one(position)]), element)


def _function(node: exp.Expression) -> exp.Anonymous | None:
    """A call as written `f(…)` or `schema.f(…)`."""
    if isinstance(node, exp.Dot) and isinstance(node.expression, exp.Anonymous):
        return node.expression
    return node if isinstance(node, exp.Anonymous) else None


def _first_dimension(call: exp.Anonymous) -> exp.Expression:
    dimension = call.expressions[1] if len(call.expressions) > 1 else exp.Literal.number(1)
    return exp.EQ(this=dimension.copy(), expression=exp.Literal.number(1))


def _bounds(call: exp.Anonymous, column: exp.Expression) -> exp.Expression | None:
    name = call.name.lower()
    if name == "generate_subscripts" and len(call.expressions) == 2:
        counted = exp.Anonymous(this="generate_subscripts", expressions=[column.copy(), call.expressions[1].copy()])
        return _cast(exp.Sub(this=counted, expression=exp.Literal.number(1)), "INTEGER")
    if name == "array_lower":
        return exp.Case(ifs=[exp.If(this=_first_dimension(call), true=exp.Literal.number(0))])
    if name == "array_upper":
        length = exp.Anonymous(this="len", expressions=[column.copy()])
        last = _cast(exp.Sub(this=length, expression=exp.Literal.number(1)), "INTEGER")
        return exp.Case(ifs=[exp.If(this=_first_dimension(call), true=last)])
    return None


def _feeds_elements(node: exp.Column) -> bool:
    parent = node.parent
    if isinstance(parent, exp.Explode | exp.Unnest):
        return True
    return isinstance(parent, exp.Anonymous) and parent.name.lower() in _ELEMENT_FUNCTIONS


def vectors(node: exp.Expression, ctx: object) -> exp.Expression:
    if isinstance(node, exp.Bracket) and len(node.expressions) == 1:
        element = _element_type(node.this)
        return node if element is None else _subscript(node, element)
    call = _function(node)
    if call is not None and call.expressions and _element_type(call.expressions[0]) is not None:
        bounded = _bounds(call, call.expressions[0])
        if bounded is not None:
            return bounded
    if isinstance(node, exp.Cast) and node.to.this in _TEXT_TYPES and _element_type(node.this) is not None:
        return exp.Anonymous(this="array_to_string", expressions=[node.this.copy(), exp.Literal.string(" ")])
    element = _element_type(node)
    if isinstance(node, exp.Column) and element is not None and _feeds_elements(node):
        return _cast(node.copy(), element + "[]")
    return node
