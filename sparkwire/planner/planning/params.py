"""Parameter type inference for statements whose client did not declare `$n` types, without executing
anything.

Contract: `infer_parameter_types(tree, declared, describe)` returns one (PostgreSQL oid, DuckDB type) per
`$n`, n = 1 … highest index. A type the client declared (non-zero oid) wins. Otherwise, in order: an explicit
cast (`$1::int`, also `$1::pg_catalog.int4`); bigint for LIMIT/OFFSET; the column an INSERT VALUES position
targets; the column an UPDATE SET assigns; the other operand of a comparison, arithmetic, IN list or BETWEEN when
that operand has no parameter of its own — its type comes from the engine describing `SELECT <operand> FROM <the
statement's FROM>` (planned lazily, never run); for `x = ANY($1)` (any comparison operator) the array of x's type,
as PostgreSQL resolves it (pgcli sends `relkind = ANY(%s)` with an untyped list); else text. `describe(sql)` is
the engine's no-execute describe of PostgreSQL-dialect-free DuckDB SQL.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sqlglot import exp

from sparkwire import errors as e
from sparkwire.engine.base import Column
from sparkwire.pgtypes.registry import parse_type_name, type_by_oid
from sparkwire.planner.bind.fields import INT8_OID, TEXT_OID, duckdb_type_for_oid, pg_type
from sparkwire.planner.grammar.dialect import PG
from sparkwire.planner.translate.duckdb import parameter_count, parameter_index

Describe = Callable[[str], list[Column]]
ParamType = tuple[int, str]

_OPERATORS = (
    exp.EQ,
    exp.NEQ,
    exp.GT,
    exp.GTE,
    exp.LT,
    exp.LTE,
    exp.Add,
    exp.Sub,
    exp.Mul,
    exp.Div,
    exp.Mod,
    exp.Like,
    exp.ILike,
    exp.NullSafeEQ,
    exp.NullSafeNEQ,
    exp.DPipe,
)


def _has_parameter(node: exp.Expression) -> bool:
    return any(True for _ in node.find_all(exp.Parameter, exp.Placeholder))


def _nulled(node: exp.Expression) -> exp.Expression:
    return node.transform(lambda n: exp.Null() if isinstance(n, exp.Parameter | exp.Placeholder) else n)


def _engine_type(operand: exp.Expression, context: exp.Expression, describe: Describe) -> ParamType | None:
    """The type of `operand` evaluated in the FROM scope of `context` (its enclosing statement)."""
    scope = context.find_ancestor(exp.Select, exp.Update, exp.Delete)
    if isinstance(scope, exp.Select):
        probe = scope.copy()
        for key in ("where", "group", "having", "order", "limit", "offset", "qualify", "distinct", "windows"):
            probe.set(key, None)
        probe.set("expressions", [operand.copy()])
    elif isinstance(scope, exp.Update | exp.Delete):
        target = scope.this
        probe = exp.select(operand.copy()).from_(target.copy())
        extra_from = scope.args.get("from") or scope.args.get("using")
        if isinstance(extra_from, exp.From):
            probe = probe.join(extra_from.this.copy())
    else:
        probe = exp.select(operand.copy())
    try:
        columns = describe(_nulled(probe).sql(dialect="duckdb"))
    except e.PgError:
        return None
    if len(columns) != 1:
        return None
    oid = pg_type(columns[0].engine_type)[0]
    return oid, columns[0].engine_type


def _table_columns(table: exp.Expression, describe: Describe) -> list[Column]:
    if not isinstance(table, exp.Table):
        return []
    try:
        return describe(exp.select("*").from_(table.copy()).sql(dialect="duckdb"))
    except e.PgError:
        return []


def _from_insert(node: exp.Expression, describe: Describe) -> ParamType | None:
    tuple_node = node.parent
    values = tuple_node.parent if tuple_node is not None else None
    insert = values.parent if values is not None else None
    if not (isinstance(tuple_node, exp.Tuple) and isinstance(values, exp.Values) and isinstance(insert, exp.Insert)):
        return None
    position = tuple_node.expressions.index(node)
    target = insert.this
    table = target.this if isinstance(target, exp.Schema) else target
    columns = _table_columns(table, describe)
    if isinstance(target, exp.Schema) and target.expressions:
        wanted = [c.name for c in target.expressions]
        by_name = {c.name.lower(): c for c in columns}
        columns = [by_name[w.lower()] for w in wanted if w.lower() in by_name]
    if position >= len(columns):
        return None
    return pg_type(columns[position].engine_type)[0], columns[position].engine_type


def _from_update_set(node: exp.Expression, describe: Describe) -> ParamType | None:
    eq = node.parent
    update = eq.parent if eq is not None else None
    if not (isinstance(eq, exp.EQ) and isinstance(update, exp.Update) and eq.expression is node):
        return None
    if eq not in update.expressions:
        return None
    column = eq.this
    for col in _table_columns(update.this, describe):
        if col.name.lower() == column.name.lower():
            return pg_type(col.engine_type)[0], col.engine_type
    return None


def _unqualified(datatype: exp.DataType) -> exp.DataType:
    """`pg_catalog.int4` → `int4` (psql and pgcli write `$1::pg_catalog.regclass`): builtin types live there."""
    kind = datatype.args.get("kind")
    if (
        datatype.this == exp.DataType.Type.USERDEFINED
        and isinstance(kind, exp.Dot)
        and kind.this.name.lower() == "pg_catalog"
    ):
        return exp.DataType.build(kind.expression.name, dialect=PG)
    return datatype


def _array_of(found: ParamType | None) -> ParamType | None:
    """The array type whose elements have type `found` (`x = ANY($1)`), None when that type has no array type."""
    if found is None:
        return None
    oid, duck_type = found
    try:
        array_oid = type_by_oid(oid).array_oid
    except e.PgError:
        return None
    return (array_oid, duck_type + "[]") if array_oid else None


def _any_operand(node: exp.Expression) -> exp.Expression | None:
    """`x op ANY($1)` (sqlglot: op(x, Any(Paren($1)))): x, when $1 is the array ANY reads."""
    wrapper = node.parent
    if isinstance(wrapper, exp.Paren):
        wrapper = wrapper.parent
    comparison = wrapper.parent if isinstance(wrapper, exp.Any) else None
    operand = comparison.this if isinstance(comparison, _OPERATORS) and comparison.expression is wrapper else None
    return operand if isinstance(operand, exp.Expression) else None


def _infer_one(node: exp.Expression, describe: Describe) -> ParamType | None:
    parent = node.parent
    if isinstance(parent, exp.Cast) and parent.this is node:
        to = _unqualified(parent.to)
        if isinstance(to, exp.ObjectIdentifier) and to.name.upper() != "OID":
            return TEXT_OID, "VARCHAR"  # `$1::regclass`: an object's name, resolved by the introspection rewrite
        pgtype, _ = parse_type_name(to.sql(PG))
        return pgtype.oid, to.sql("duckdb")
    if isinstance(parent, exp.Limit | exp.Offset | exp.Fetch):
        return INT8_OID, "BIGINT"
    found = _from_insert(node, describe) or _from_update_set(node, describe)
    if found:
        return found
    element_of = _any_operand(node)
    if element_of is not None:
        return None if _has_parameter(element_of) else _array_of(_engine_type(element_of, node, describe))
    other: exp.Expression | None = None
    if isinstance(parent, _OPERATORS):
        other = parent.expression if parent.this is node else parent.this
    elif (isinstance(parent, exp.In) and node in parent.expressions) or (
        isinstance(parent, exp.Between) and parent.this is not node
    ):
        other = parent.this
    if other is None or _has_parameter(other):
        return None
    return _engine_type(other, node, describe)


def infer_parameter_types(tree: exp.Expression, declared: Sequence[int], describe: Describe) -> list[ParamType]:
    count = max(parameter_count(tree), len(declared))
    result: list[ParamType | None] = [
        (oid, duckdb_type_for_oid(oid)) if oid else None for oid in list(declared) + [0] * (count - len(declared))
    ]
    for node in tree.find_all(exp.Parameter, exp.Placeholder):
        index = parameter_index(node)
        if index is None or index > count or result[index - 1] is not None:
            continue
        result[index - 1] = _infer_one(node, describe)
    return [r if r is not None else (TEXT_OID, "VARCHAR") for r in result]
