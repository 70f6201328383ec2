"""Which expressions are PostgreSQL `numeric`: the one decision both translators make the same way.

Contract: `Columns` maps a relation's name or alias to its columns' PostgreSQL type names (unqualified columns are
looked up in every relation, and used when exactly one has them). `kind(node, columns)` is "numeric", "float",
"integer" or None (anything else or unknown), from casts, literals (`1.5` is numeric, `1` integer), columns,
and the arithmetic, aggregates and functions over them (windows, FILTER and the rest by
planner/bind/pg_result_types.py). `numeric_quotient(div, columns)`: a `/` PostgreSQL
computes as numeric (an operand is numeric and none is a float). `avg_kind(avg, columns)`: the kind of avg's
argument.

Why one decision: a query over tables is described on DuckDB and run on Spark; the numeric quotient (exact text with
PostgreSQL's scale, pgtypes/numeric_ops.py) must be chosen by both or neither, or the values would not match the
description.
"""

from __future__ import annotations

from collections.abc import Mapping

from sqlglot import exp

from sparkwire.planner.bind.naming import column_name
from sparkwire.planner.bind.pg_result_types import result_type, with_derived

Columns = Mapping[str, Mapping[str, str]]
Kind = str | None

_INTEGER_TYPES = frozenset({"smallint", "integer", "bigint", "int2", "int4", "int8", "int", "tinyint"})
_FLOAT_TYPES = frozenset({"real", "double precision", "float4", "float8", "double", "float"})
_T = exp.DataType.Type
_INTEGER_DTYPES = (_T.TINYINT, _T.SMALLINT, _T.INT, _T.BIGINT)
_FLOAT_DTYPES = (_T.FLOAT, _T.DOUBLE)
_KEEPS_KIND = (exp.Paren, exp.Neg, exp.Abs, exp.Min, exp.Max, exp.Coalesce)
_ROUNDING = (exp.Round, exp.Ceil, exp.Floor)


def _of_type_name(name: str) -> Kind:
    spelled = name.strip().lower()
    if spelled.startswith(("numeric", "decimal")):
        return "numeric"
    if spelled in _INTEGER_TYPES:
        return "integer"
    if spelled in _FLOAT_TYPES:
        return "float"
    return None


def _of_datatype(datatype: exp.DataType) -> Kind:
    if datatype.is_type(_T.DECIMAL):
        return "numeric"
    if datatype.is_type(*_INTEGER_DTYPES):
        return "integer"
    if datatype.is_type(*_FLOAT_DTYPES):
        return "float"
    return None


def _column(node: exp.Column, columns: Columns) -> Kind:
    if node.table:
        found = columns.get(node.table, {}).get(node.name)
        return _of_type_name(found) if found is not None else None
    having = [cols[node.name] for cols in columns.values() if node.name in cols]
    return _of_type_name(having[0]) if len(set(having)) == 1 else None


def _combine(kinds: list[Kind]) -> Kind:
    if None in kinds:
        return None
    if "float" in kinds:
        return "float"
    if "numeric" in kinds:
        return "numeric"
    return "integer"


def kind(node: exp.Expr, columns: Columns) -> Kind:
    if isinstance(node, exp.Cast):
        return _of_datatype(node.to)
    if isinstance(node, exp.Literal):
        if node.is_string:
            return None
        return "integer" if node.this.isdigit() else "numeric"
    if isinstance(node, exp.Column):
        return _column(node, columns)
    if isinstance(node, exp.Add | exp.Sub | exp.Mul | exp.Mod):
        return _combine([kind(node.this, columns), kind(node.expression, columns)])
    if isinstance(node, exp.Div):
        kinds = [kind(node.this, columns), kind(node.expression, columns)]
        return _combine(kinds)
    if isinstance(node, (*_KEEPS_KIND, exp.Sum)):
        found = kind(node.this, columns)
        if isinstance(node, exp.Sum) and found == "integer":
            return "integer"
        return found
    if isinstance(node, exp.Avg):
        found = kind(node.this, columns)
        return "numeric" if found == "integer" else found
    if isinstance(node, _ROUNDING):
        found = kind(node.this, columns)
        return "numeric" if found == "integer" else found
    if isinstance(node, exp.Count):
        return "integer"
    return _of_type_name(result_type(node, columns) or "")  # windows, FILTER, …: PostgreSQL's rules


def numeric_quotient(div: exp.Div, columns: Columns) -> bool:
    kinds = [kind(div.this, columns), kind(div.expression, columns)]
    return "numeric" in kinds and "float" not in kinds and None not in kinds


def avg_kind(avg: exp.Avg, columns: Columns) -> Kind:
    value = avg.this
    if isinstance(value, exp.Distinct):
        return kind(value.expressions[0], columns) if len(value.expressions) == 1 else None
    return kind(value, columns)


def result_projection(node: exp.Expr) -> bool:
    """`node` is a projection (itself or aliased) of the statement's own SELECT, or of a branch of its top-level
    set operation, or of a scalar subquery that is one (`_scalar_subquery_result`): where a numeric leaves the
    engine as exact text."""
    parent = node.parent
    if isinstance(parent, exp.Alias):
        node, parent = parent, parent.parent
    if not isinstance(parent, exp.Select) or node.arg_key != "expressions":
        return False
    if _scalar_subquery_result(parent):
        return True
    outer: exp.Expr | None = parent.parent
    while isinstance(outer, exp.SetOperation | exp.Subquery) and outer.parent is not None:
        outer = outer.parent
    return outer is None or (isinstance(outer, exp.SetOperation | exp.Subquery) and outer.parent is None)


def _scalar_subquery_result(select: exp.Select) -> bool:
    """`select` is a one-column scalar subquery that is itself a result projection, (SELECT avg(x) FROM t) AS a,
    of a statement that neither orders by it nor is DISTINCT: its value leaves for the client as it is."""
    subquery = select.parent
    if not isinstance(subquery, exp.Subquery) or len(select.expressions) != 1:
        return False
    projection = subquery.parent if isinstance(subquery.parent, exp.Alias) else subquery
    outer = projection.parent
    if not isinstance(outer, exp.Select) or projection.arg_key != "expressions" or outer.args.get("distinct"):
        return False
    return result_projection(subquery) and not _order_keys(outer, projection)


def _order_keys(select: exp.Select, projection: exp.Expr) -> list[exp.Ordered]:
    """The ORDER BY items that name `projection` by its output name or position (text would sort as text)."""
    order = select.args.get("order")
    if not isinstance(order, exp.Order):
        return []
    index = next((i for i, p in enumerate(select.expressions) if p is projection), -1)
    name = projection.alias if isinstance(projection, exp.Alias) else None
    found: list[exp.Ordered] = []
    for ordered in order.expressions:
        key = ordered.this
        by_position = isinstance(key, exp.Literal) and not key.is_string and key.this.isdigit()
        by_name = bool(name) and isinstance(key, exp.Column) and not key.table and key.name == name
        if (by_position and int(key.this) == index + 1) or by_name:
            found.append(ordered)
    return found


def leaves_as_text(node: exp.Expr) -> bool:
    """A numeric quotient or average at `node` leaves the engine as PostgreSQL's exact text: it is a result
    projection, and not one a DISTINCT statement orders by (see `order_by_value`)."""
    if not result_projection(node):
        return False
    projection = node.parent if isinstance(node.parent, exp.Alias) else node
    select = projection.parent
    return isinstance(select, exp.Select) and not (select.args.get("distinct") and _order_keys(select, projection))


def ordered_by(node: exp.Expr) -> bool:
    """An ORDER BY item names the projection at `node` (by output name or position)."""
    projection = node.parent if isinstance(node.parent, exp.Alias) else node
    select = projection.parent
    return isinstance(select, exp.Select) and bool(_order_keys(select, projection))


def order_by_value(node: exp.Expr, value: exp.Expr) -> None:
    """ORDER BY items naming the projection at `node` (output name, position) sort by `value` instead of its text."""
    projection = node.parent if isinstance(node.parent, exp.Alias) else node
    select = projection.parent
    if isinstance(select, exp.Select):
        for ordered in _order_keys(select, projection):
            ordered.set("this", value.copy())


def aggregate_call(node: exp.Expr) -> bool:
    """A plain aggregate call: not a window, FILTER, DISTINCT or ordered-set form (those keep the engine's own)."""
    return not isinstance(node.parent, exp.Window | exp.Filter | exp.WithinGroup) and not isinstance(
        node.this, exp.Distinct
    )


def named_as_postgres(node: exp.Expr, replacement: exp.Expr) -> exp.Expr:
    """`replacement` for `node`, aliased with PostgreSQL's name for `node` when `node` is an unaliased projection
    (a subquery's `avg(x)` stays readable as `avg`, not as the engine function's name)."""
    name = None
    if isinstance(node, exp.Expression) and isinstance(node.parent, exp.Select) and node.arg_key == "expressions":
        name = column_name(node)
    return exp.alias_(replacement, name, quoted=True) if name else replacement


def alias_columns(tree: exp.Expr, schema: Columns) -> dict[str, Mapping[str, str]]:
    """`schema` (relation name -> columns) keyed also by each FROM item's alias in `tree`, with the columns of its
    derived tables and CTEs (planner/bind/pg_result_types.with_derived)."""
    found: dict[str, Mapping[str, str]] = dict(schema)
    for table in tree.find_all(exp.Table):
        columns = schema.get(table.name)
        if columns is not None:
            found[table.alias_or_name] = columns
    for values in tree.find_all(exp.Values):
        alias = values.args.get("alias")
        first = values.expressions[0] if values.expressions else None
        if isinstance(alias, exp.TableAlias) and alias.columns and isinstance(first, exp.Tuple):
            # a VALUES list's column is typed by its rows; the first row's constants stand for them here
            pairs = zip(alias.columns, first.expressions, strict=False)
            typed = {c.name: _VALUES_TYPES.get(kind(v, {}) or "") for c, v in pairs}
            found[alias.name] = {name: t for name, t in typed.items() if t is not None}
    return with_derived(tree, found)  # derived tables' and CTEs' columns, typed by PostgreSQL's rules


_VALUES_TYPES = {"numeric": "numeric", "integer": "integer", "float": "double precision"}


def integer_to_numeric(tree: exp.Expr, columns: Columns) -> None:
    """`int_expr::numeric` → DECIMAL(38, 0): an integer's display scale is 0 (the engines' unconstrained decimal has a
    fixed scale: DuckDB's 3, Spark's 10, which PostgreSQL would print)."""
    for cast in list(tree.find_all(exp.Cast)):
        if cast.to.is_type(_T.DECIMAL) and not cast.to.expressions and kind(cast.this, columns) == "integer":
            cast.set("to", exp.DataType.build("DECIMAL(38, 0)"))
