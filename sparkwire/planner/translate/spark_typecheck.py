"""The type errors PostgreSQL raises before it runs anything, raised at translation (Spark allows more, or fails
with another SQLSTATE at run time).

Contract: `type_errors(tree) -> tree` walks a type-annotated, PostgreSQL-parsed sqlglot tree and raises the
`PgError` PostgreSQL 15 would raise at parse analysis, or returns the tree unchanged:
- a cast with no PostgreSQL cast (pg_cast) between the two types: 42846 `cannot cast type X to Y` (numbers and
  booleans to dates or timestamps and back; any number but integer to or from boolean);
- `%` with a float operand: 42883 `operator does not exist` (PostgreSQL has no float modulo);
- round(float, n): 42883 `function round(double precision, integer) does not exist`;
- sum/avg of a non-number and min/max of a boolean: 42883 `function avg(date) does not exist`.
And the argument errors a written constant makes certain: ntile(0) 22014, nth_value(x, 0) 22016, a negative frame
offset 22013 (Spark fails with 42804 or answers).
Only types the annotator knows take part: an untyped operand (a parameter, an unknown column) never raises.
"""

from __future__ import annotations

from sqlglot import exp

from sparkwire import errors

D = exp.DType
INTEGERS = frozenset({D.TINYINT, D.SMALLINT, D.INT, D.BIGINT})
FLOATS = frozenset({D.FLOAT, D.DOUBLE})
NUMBERS = INTEGERS | FLOATS | {D.DECIMAL, D.BIGDECIMAL}
DATETIMES = frozenset({D.DATE, D.TIMESTAMP, D.TIMESTAMPTZ, D.TIMESTAMPLTZ})
PG_NAMES = {
    D.TINYINT: "smallint", D.SMALLINT: "smallint", D.INT: "integer", D.BIGINT: "bigint", D.FLOAT: "real",
    D.DOUBLE: "double precision", D.DECIMAL: "numeric", D.BIGDECIMAL: "numeric", D.BOOLEAN: "boolean",
    D.DATE: "date", D.TIMESTAMP: "timestamp without time zone", D.TIMESTAMPTZ: "timestamp with time zone",
    D.TIMESTAMPLTZ: "timestamp with time zone",
}


def _literal(node: exp.Expr) -> exp.Literal | None:
    while isinstance(node, exp.Paren | exp.Neg):
        node = node.this
    return node if isinstance(node, exp.Literal) else None


def _kind(node: exp.Expr) -> D | None:
    """The PostgreSQL kind of an operand; a written number with a point is numeric, a quoted literal unknown."""
    literal = _literal(node)
    if literal is not None:
        if literal.is_string:
            return None
        return D.INT if literal.this.lstrip("-").isdigit() else D.DECIMAL
    data_type = node.type
    if data_type is None or data_type.this in (D.UNKNOWN, D.NULL):
        return None
    kind: D = data_type.this
    return kind


def _castable(source: D, target: D) -> bool:
    if source == target:
        return True
    if target == D.BOOLEAN:
        return source not in NUMBERS - {D.INT} and source not in DATETIMES
    if source == D.BOOLEAN:
        return target not in NUMBERS - {D.INT} and target not in DATETIMES
    if target in DATETIMES:
        return source not in NUMBERS
    if source in DATETIMES:
        return target not in NUMBERS
    return True


def _check_cast(node: exp.Cast) -> None:
    source, target = _kind(node.this), node.to.this
    if source is None or not isinstance(target, D):
        return
    if source in PG_NAMES and target in PG_NAMES and not _castable(source, target):
        raise errors.CannotCoerce(f"cannot cast type {PG_NAMES[source]} to {PG_NAMES[target]}")


def _check_modulo(node: exp.Mod) -> None:
    left, right = _kind(node.this), _kind(node.expression)
    if left in FLOATS or right in FLOATS:
        names = [PG_NAMES.get(k, "unknown") if k is not None else "unknown" for k in (left, right)]
        raise errors.UndefinedFunction(f"operator does not exist: {names[0]} % {names[1]}")


def _check_aggregate(node: exp.Expr) -> None:
    kind = _kind(node.this) if isinstance(node.this, exp.Expr) else None
    if kind is None or kind not in PG_NAMES:
        return
    name = type(node).__name__.lower()
    numeric_only = isinstance(node, exp.Sum | exp.Avg) and kind not in NUMBERS
    if numeric_only or (isinstance(node, exp.Min | exp.Max) and kind == D.BOOLEAN):
        raise errors.UndefinedFunction(f"function {name}({PG_NAMES[kind]}) does not exist")


def _written_int(node: exp.Expr | None) -> int | None:
    negative = False
    while isinstance(node, exp.Paren | exp.Neg):
        negative ^= isinstance(node, exp.Neg)
        node = node.this
    if not isinstance(node, exp.Literal) or node.is_string or not node.this.isdigit():
        return None
    return -int(node.this) if negative else int(node.this)


def _raise(state: str, message: str) -> None:
    raise errors.PgError.for_sqlstate(state)(message, sqlstate=state)


def _check_window(node: exp.Expr) -> None:
    if isinstance(node, exp.Ntile) and (n := _written_int(node.this)) is not None and n <= 0:
        _raise("22014", "argument of ntile must be greater than zero")
    if isinstance(node, exp.NthValue) and (n := _written_int(node.args.get("offset"))) is not None and n <= 0:
        _raise("22016", "argument of nth_value must be greater than zero")
    if isinstance(node, exp.WindowSpec):
        for side, word in (("start", "starting"), ("end", "ending")):
            offset = _written_int(node.args.get(side))
            if offset is not None and offset < 0:
                _raise("22013", f"frame {word} offset must not be negative")


def type_errors(tree: exp.Expr) -> exp.Expr:
    for node in tree.walk():
        if isinstance(node, exp.Ntile | exp.NthValue | exp.WindowSpec):
            _check_window(node)
        if isinstance(node, exp.Cast) and not isinstance(node, exp.TryCast):
            _check_cast(node)
        elif isinstance(node, exp.Mod):
            _check_modulo(node)
        elif isinstance(node, exp.Round) and node.args.get("decimals") is not None and _kind(node.this) in FLOATS:
            raise errors.UndefinedFunction(
                f"function round({PG_NAMES[_kind(node.this) or D.DOUBLE]}, integer) does not exist"
            )
        elif isinstance(node, exp.Sum | exp.Avg | exp.Min | exp.Max):
            _check_aggregate(node)
    return tree
