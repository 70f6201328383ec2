"""Scalar expressions of a maintained view, evaluated on Arrow batches with PostgreSQL's semantics.

Contract: `unsupported(node, types)` says why a sqlglot expression over a dataflow's columns (`types`: column name
→ PostgreSQL type OID) is outside the subset this module evaluates, or None; `evaluate(node, table)` gives its
values over `table` (one per row; a constant is broadcast). The subset is what evaluates exactly as PostgreSQL
(and so as a recompute on Spark) does on Arrow: column references, literals (numbers, strings, booleans, NULL),
comparisons between values of one class (numbers, text, booleans, dates and times), AND / OR / NOT with SQL's
three-valued logic (Kleene), IS [NOT] NULL, IS [NOT] TRUE / FALSE, `x [NOT] IN (constants without NULL)`,
BETWEEN, `+` `-` `*` and unary minus on integers (checked: an overflow is PostgreSQL's 22003, as int4/int8
arithmetic), `||` on text, COALESCE. Anything else (casts, functions, division, numeric or float arithmetic,
LIKE, CASE, subqueries) makes the view be maintained by recompute, and EXPLAIN says which construct.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pyarrow as pa
import pyarrow.compute as pc
from sqlglot import exp

from sparkwire import errors as e

INT_TYPES = frozenset({20, 21, 23})
TEXT_TYPES = frozenset({25, 1043, 19})
BOOL = 16
TIME_TYPES = frozenset({1082, 1083, 1114, 1184})
_CLASSES: tuple[tuple[str, frozenset[int]], ...] = (
    ("number", INT_TYPES),
    ("text", TEXT_TYPES),
    ("boolean", frozenset({BOOL})),
    ("date", frozenset({1082})),
    ("time", frozenset({1083})),
    ("timestamp", frozenset({1114})),
    ("timestamptz", frozenset({1184})),
)
NULL_CLASS = "null"

_COMPARISONS: dict[type[exp.Expr], Callable[..., pa.Array]] = {
    exp.EQ: pc.equal,
    exp.NEQ: pc.not_equal,
    exp.LT: pc.less,
    exp.LTE: pc.less_equal,
    exp.GT: pc.greater,
    exp.GTE: pc.greater_equal,
}
_ARITHMETIC: dict[type[exp.Expr], Callable[..., pa.Array]] = {
    exp.Add: pc.add_checked,
    exp.Sub: pc.subtract_checked,
    exp.Mul: pc.multiply_checked,
}


def _class_of(oid: int) -> str:
    """Values of one class compare exactly on Arrow as in PostgreSQL; floats (NaN orders above every number and
    equals itself in PostgreSQL) and numerics (unconstrained ones are held as text) are each their own class,
    which nothing compares with here."""
    return next((name for name, oids in _CLASSES if oid in oids), f"type {oid}")


def _literal_class(node: exp.Literal) -> str:
    return "text" if node.is_string else "number"


def _value_class(node: exp.Expr, types: Mapping[str, int]) -> tuple[str | None, str | None]:
    """(the class of the value `node` gives, or None when unsupported; the reason when unsupported)."""
    reason = unsupported(node, types)
    if reason is not None:
        return None, reason
    if isinstance(node, exp.Paren):
        return _value_class(node.this, types)
    if isinstance(node, exp.Column):
        return _class_of(types[node.name]), None
    if isinstance(node, exp.Literal):
        return _literal_class(node), None
    if isinstance(node, exp.Null):
        return NULL_CLASS, None
    if isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Neg)):
        return "integer", None
    if isinstance(node, exp.DPipe):
        return "text", None
    if isinstance(node, exp.Coalesce):
        return _value_class(node.this, types)
    return "boolean", None


def _same_class(left: str | None, right: str | None) -> bool:
    if left == NULL_CLASS or right == NULL_CLASS:
        return True
    numbers = {"number", "integer"}
    return left == right or (left in numbers and right in numbers)


def _integer(node: exp.Expr, types: Mapping[str, int]) -> bool:
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Column):
        return types.get(node.name) in INT_TYPES
    if isinstance(node, exp.Literal):
        return not node.is_string and node.this.lstrip("-").isdigit() and abs(int(node.this)) < 2**31
    return isinstance(node, (exp.Add, exp.Sub, exp.Mul, exp.Neg))


def unsupported(node: exp.Expr, types: Mapping[str, int]) -> str | None:
    if isinstance(node, exp.Paren):
        return unsupported(node.this, types)
    if isinstance(node, exp.Column):
        return None if node.name in types else f"column {node.sql()} is not an input column"
    if isinstance(node, exp.Literal):
        if not node.is_string and not node.this.lstrip("-").isdigit():
            return f"the literal {node.sql()}"
        return None
    if isinstance(node, (exp.Null, exp.Boolean)):
        return None
    if isinstance(node, exp.Binary) and type(node) in _COMPARISONS:
        left, why = _value_class(node.left, types)
        right, why_right = _value_class(node.right, types)
        if why or why_right:
            return why or why_right
        if left is not None and left.startswith("type ") and right is not None and right.startswith("type "):
            return f"a comparison of values of {left}"
        return None if _same_class(left, right) else f"a comparison of {left} with {right}"
    if isinstance(node, (exp.And, exp.Or)):
        return unsupported(node.left, types) or unsupported(node.right, types)
    if isinstance(node, exp.Not):
        return unsupported(node.this, types)
    if isinstance(node, exp.Is):
        if not isinstance(node.expression, (exp.Null, exp.Boolean)):
            return f"IS {node.expression.sql()}"
        return unsupported(node.this, types)
    if isinstance(node, exp.In):
        if node.args.get("query") or node.args.get("unnest") or node.args.get("field"):
            return "IN (subquery)"
        values = node.expressions
        if not values or not all(isinstance(v, exp.Literal) for v in values):
            return "IN with a list that is not of constants (or holds NULL)"
        cls, why = _value_class(node.this, types)
        if why:
            return why
        if not all(_same_class(cls, _literal_class(v)) for v in values):
            return f"IN over {cls} with values of another type"
        return None
    if isinstance(node, exp.Between):
        return unsupported(exp.and_(exp.GTE(this=node.this, expression=node.args["low"]),
                                    exp.LTE(this=node.this, expression=node.args["high"])), types)  # fmt: skip
    if isinstance(node, exp.Binary) and type(node) in _ARITHMETIC:
        if not (_integer(node.left, types) and _integer(node.right, types)):
            return f"{node.key} on values that are not integers"
        return unsupported(node.left, types) or unsupported(node.right, types)
    if isinstance(node, exp.Neg):
        return None if _integer(node.this, types) else "unary minus on a value that is not an integer"
    if isinstance(node, exp.DPipe):
        sides = [_value_class(side, types) for side in (node.left, node.right)]
        if any(why for _, why in sides):
            return next(why for _, why in sides if why)
        return None if all(cls == "text" for cls, _ in sides) else "|| on values that are not text"
    if isinstance(node, exp.Coalesce):
        parts = [node.this, *node.expressions]
        reasons = [unsupported(part, types) for part in parts]
        if any(reasons):
            return next(r for r in reasons if r)
        classes = {_value_class(part, types)[0] for part in parts} - {NULL_CLASS}
        return None if len(classes) <= 1 else "COALESCE over values of different types"
    return f"the expression {node.sql(dialect='postgres')[:60]}"


def _literal(node: exp.Literal) -> pa.Scalar:
    if node.is_string:
        return pa.scalar(node.this, pa.string())
    value = int(node.this)
    return pa.scalar(value, pa.int32() if abs(value) < 2**31 else pa.int64())


def _broadcast(value: pa.Array | pa.Scalar, rows: int) -> pa.Array:
    if isinstance(value, pa.Scalar):
        return pa.array([value.as_py()] * rows, value.type) if rows else pa.array([], value.type)
    return value


def _arith(function: Callable[..., pa.Array], *args: pa.Array | pa.Scalar) -> pa.Array:
    try:
        return function(*args)
    except pa.ArrowInvalid as exc:
        if "overflow" in str(exc).lower():
            raise e.NumericValueOutOfRange("integer out of range") from None
        raise


def _eval(node: exp.Expr, table: pa.Table) -> pa.Array | pa.Scalar:
    if isinstance(node, exp.Paren):
        return _eval(node.this, table)
    if isinstance(node, exp.Column):
        return table.column(node.name)
    if isinstance(node, exp.Literal):
        return _literal(node)
    if isinstance(node, exp.Null):
        return pa.scalar(None, pa.null())
    if isinstance(node, exp.Boolean):
        return pa.scalar(bool(node.this), pa.bool_())
    if isinstance(node, exp.Binary) and type(node) in _COMPARISONS:
        left, right = _eval(node.left, table), _eval(node.right, table)
        if left.type == pa.null() or right.type == pa.null():
            return pa.scalar(None, pa.bool_())
        return _COMPARISONS[type(node)](left, right)
    if isinstance(node, exp.And):
        return pc.and_kleene(_eval(node.left, table), _eval(node.right, table))
    if isinstance(node, exp.Or):
        return pc.or_kleene(_eval(node.left, table), _eval(node.right, table))
    if isinstance(node, exp.Not):
        return pc.invert(_eval(node.this, table))
    if isinstance(node, exp.Is):
        value = _eval(node.this, table)
        if isinstance(node.expression, exp.Null):
            return pc.is_null(value)
        wanted = bool(node.expression.this)
        return pc.fill_null(pc.equal(value, pa.scalar(wanted)), False)
    if isinstance(node, exp.In):
        value = _eval(node.this, table)
        options = pa.array([_literal(v).as_py() for v in node.expressions])
        if isinstance(value, pa.Scalar):
            value = _broadcast(value, table.num_rows)
        options = options.cast(value.type) if value.type != pa.null() else options
        found = pc.is_in(value, value_set=options)
        return pc.if_else(pc.is_null(value), pa.scalar(None, pa.bool_()), found)
    if isinstance(node, exp.Between):
        low = exp.GTE(this=node.this, expression=node.args["low"])
        high = exp.LTE(this=node.this, expression=node.args["high"])
        return _eval(exp.and_(low, high), table)
    if isinstance(node, exp.Binary) and type(node) in _ARITHMETIC:
        return _arith(_ARITHMETIC[type(node)], _eval(node.left, table), _eval(node.right, table))
    if isinstance(node, exp.Neg):
        return _arith(pc.negate_checked, _eval(node.this, table))
    if isinstance(node, exp.DPipe):
        left, right = _eval(node.left, table), _eval(node.right, table)
        return pc.binary_join_element_wise(left, right, "")
    if isinstance(node, exp.Coalesce):
        parts = [_eval(part, table) for part in (node.this, *node.expressions)]
        typed = [p for p in parts if p.type != pa.null()]
        return pc.coalesce(*typed) if typed else pa.scalar(None, pa.null())
    raise e.InternalError(f"cannot evaluate {node.sql()} in a dataflow")


def evaluate(node: exp.Expr, table: pa.Table) -> pa.Array:
    """`node`'s value for every row of `table` (a constant is repeated)."""
    value = _eval(node, table)
    if isinstance(value, pa.ChunkedArray):
        return value.combine_chunks()
    return _broadcast(value, table.num_rows)


def predicate_mask(node: exp.Expr, table: pa.Table) -> pa.Array:
    """Rows where `node` is true (NULL and false drop a row, as WHERE and ON do)."""
    return pc.fill_null(evaluate(node, table), False)
