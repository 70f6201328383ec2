"""`x::numeric` (no precision) on Spark with PostgreSQL's values: each keeps its own scale.

Contract: `numeric_casts(tree, results_as_text)` rewrites a type-annotated, PostgreSQL-parsed tree in place (called
by translate/spark.py after the numeric quotients). The printer turns an unconstrained numeric into DECIMAL(38, 10),
which pads every value to 10 decimals (PostgreSQL: `salary::numeric` keeps salary's 2) and cannot hold 1e30.
- a numeric(p, s) value (a column, a numeric expression Spark types DECIMAL(p, s)) is left as it is: its scale is
  PostgreSQL's;
- an integer is DECIMAL(20, 0); a number written in the query (`1.50::numeric`) its own DECIMAL(p, s);
- a float8 / real that leaves the engine for a client (a result projection, `results_as_text`) is
  `sw_float_numeric(x, 15 | 6)` (engine/pg_functions.py): PostgreSQL's float8_numeric / float4_numeric, the float
  read back from `%.15g` / `%.6g`, as exact text with its own scale (result columns of type numeric without a
  typmod keep a text value as it is); ORDER BY on that projection sorts by the number. Elsewhere the cast stays.
`chosen_scales(tree, results_as_text)`: COALESCE / GREATEST / LEAST over numerics of different scales (an
integer or a numeric(p, s) column, a written number) return the chosen argument with its own scale in
PostgreSQL (`coalesce(n2, -1)` prints -1, not -1.00); where such a call is a result projection it is the chosen
argument's text (the first non-NULL one, or the first equal to Spark's greatest / least), as a numeric's text.
So is lag / lead(x, n, default) with a default of another scale (`lag(salary, 2, 0)` prints 0 where there is no
row, not 0.00).
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from sqlglot import exp

from sparkwire.engine.pg_functions import FLOAT_NUMERIC
from sparkwire.planner.translate import numeric_types as nt

_T = exp.DataType.Type
_INTEGERS = frozenset({_T.TINYINT, _T.SMALLINT, _T.INT, _T.BIGINT})
_FLOAT_DIGITS = {_T.DOUBLE: 15, _T.FLOAT: 6}


def _decimal_type(precision: int, scale: int) -> exp.DataType:
    return exp.DataType.build(f"decimal({max(precision, 1)}, {scale})")


def _typed_cast(node: exp.Expr, target: exp.DataType) -> exp.Cast:
    cast = exp.Cast(this=node, to=target)
    cast.type = target.copy()
    return cast


def _literal_decimal(node: exp.Expr) -> exp.DataType | None:
    literal = node
    while isinstance(literal, exp.Paren | exp.Neg):
        literal = literal.this
    if not isinstance(literal, exp.Literal) or literal.is_string:
        return None
    try:
        value = Decimal(literal.this)
    except InvalidOperation:
        return None
    exponent = value.as_tuple().exponent
    if not isinstance(exponent, int):
        return None
    scale = max(-exponent, 0)
    digits = len(value.as_tuple().digits) + max(exponent, 0)
    if digits > 38 or scale > 38:
        return None
    return _decimal_type(max(digits, scale + 1), scale)


def _rewrite(node: exp.Cast, results_as_text: bool) -> None:
    source = node.this
    kind = source.type.this if source.type is not None else None
    written = _literal_decimal(source)
    if written is not None:
        node.set("to", written)
        node.type = written.copy()
    elif kind == _T.DECIMAL and source.type is not None and source.type.expressions:
        node.replace(source)
    elif kind in _INTEGERS:
        target = _decimal_type(20, 0)
        node.set("to", target)
        node.type = target.copy()
    elif kind in _FLOAT_DIGITS and results_as_text and nt.leaves_as_text(node):
        digits = exp.Literal.number(_FLOAT_DIGITS[kind])
        call = exp.Anonymous(
            this=FLOAT_NUMERIC, expressions=[_typed_cast(source.copy(), exp.DataType.build("double")), digits]
        )
        nt.order_by_value(node, source.copy())  # a float sorts as its numeric does
        node.replace(nt.named_as_postgres(node, call))


def numeric_casts(tree: exp.Expr, results_as_text: bool) -> exp.Expr:
    for node in list(tree.find_all(exp.Cast)):
        if node.to.this == _T.DECIMAL and not node.to.expressions and not isinstance(node, exp.TryCast):
            _rewrite(node, results_as_text)
    return tree


_CHOICES = (exp.Coalesce, exp.Greatest, exp.Least)


def _scale_and_text(arg: exp.Expr) -> tuple[int, exp.Expr] | None:
    """The display scale of a choice's argument and its text as PostgreSQL prints it; None when not a numeric."""
    written = _literal_decimal(arg)
    if written is not None:
        scale = int(written.expressions[1].name)
        return scale, exp.Literal.string(arg.sql("postgres").replace(" ", ""))
    kind = arg.type.this if arg.type is not None else None
    if kind == _T.DECIMAL and arg.type is not None and len(arg.type.expressions) == 2:
        return int(arg.type.expressions[1].name), exp.cast(arg.copy(), "text")
    if kind in _INTEGERS:
        return 0, exp.cast(arg.copy(), "text")
    return None


def _chosen_text(node: exp.Expr, args: list[exp.Expr], texts: list[exp.Expr]) -> exp.Expr:
    if isinstance(node, exp.Coalesce):
        conditions: list[exp.Expr] = [exp.Not(this=exp.Is(this=a.copy(), expression=exp.Null())) for a in args]
    else:
        value = type(node)(this=args[0].copy(), expressions=[a.copy() for a in args[1:]])
        conditions = [exp.EQ(this=a.copy(), expression=value.copy()) for a in args]
    return exp.Case(ifs=[exp.If(this=c, true=t) for c, t in zip(conditions, texts, strict=True)])


def _shifted_text(window: exp.Window) -> exp.Expr | None:
    """lag/lead(x, n, default) OVER w as PostgreSQL prints it where x and the default have different scales: x's
    text where the n-th row exists (NULL for a NULL x), the default's own text where it does not."""
    call = window.this
    if not isinstance(call, exp.Lag | exp.Lead) or call.args.get("default") is None:
        return None
    value, default = call.this, call.args["default"]
    found = [_scale_and_text(value), _scale_and_text(default)]
    if found[0] is None or found[1] is None or found[0][0] == found[1][0]:
        return None
    offset = call.args.get("offset") or exp.Literal.number(1)
    shifted, exists = window.copy(), window.copy()
    shifted.set("this", type(call)(this=value.copy(), offset=offset.copy()))
    exists.set("this", type(call)(this=exp.true(), offset=offset.copy(), default=exp.false()))
    text = exp.cast(shifted, "text")
    return exp.Case(ifs=[exp.If(this=exists, true=text)], default=found[1][1])


def chosen_scales(tree: exp.Expr, results_as_text: bool) -> exp.Expr:
    if not results_as_text:
        return tree
    for window in list(tree.find_all(exp.Window)):
        if not nt.leaves_as_text(window) or nt.ordered_by(window):  # Spark sorts by no window expression
            continue
        chosen = _shifted_text(window)  # integers and numerics of two scales: numeric (Spark may type it smallint)
        if chosen is not None:
            window.replace(nt.named_as_postgres(window, chosen))
    for node in list(tree.find_all(*_CHOICES)):
        if not nt.leaves_as_text(node) or node.type is None or node.type.this != _T.DECIMAL:
            continue
        args = [node.this, *node.expressions]
        found = [_scale_and_text(a) for a in args]
        if any(f is None for f in found) or len({f[0] for f in found if f is not None}) < 2:
            continue
        texts = [f[1] for f in found if f is not None]
        nt.order_by_value(node, node.copy())
        node.replace(nt.named_as_postgres(node, _chosen_text(node, args, texts)))
    return tree
