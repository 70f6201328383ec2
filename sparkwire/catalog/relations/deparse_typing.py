"""sqlglot expressions → the typed trees of deparse_nodes.py, resolved as PostgreSQL 15's parse analysis does.

Contract: `Typer(scope).node(expression)` resolves column references in `scope` (a callable from (qualifier,
column) to a `Var`), types literals (an integer literal is int4, else int8, else numeric; a decimal literal
numeric; a string literal `unknown` until an operator or cast resolves it; `-literal` folds into one negative
constant as gram.y does) and resolves operators and functions for a small, exactly known set of types: the
integer, numeric and float family, text / varchar / bpchar, boolean, date and timestamps. Coercions follow
PostgreSQL: cross-type integer and float operators need none, otherwise the lower type of a numeric family is cast
implicitly (`(t.id)::numeric`), varchar is relabeled to text, an unknown literal takes the other side's type (text
for varchar). Functions: count / sum / avg / min / max, upper / lower / length, abs, round, COALESCE, CASE, IN
lists (`= ANY (ARRAY[…])`, one value a plain `=`), NOT IN / NOT LIKE / NOT BETWEEN as PostgreSQL rewrites them,
CURRENT_DATE / LOCALTIMESTAMP / CURRENT_USER / SESSION_USER, and subqueries through the `subquery` callback
(SubLink nodes). `coerce(node, type)` resolves an unknown literal as `type` (a default expression's). Anything
outside that set raises `Unsupported`, and callers fall back to the SQL as written.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from decimal import Decimal

from sqlglot import exp

from sparkwire.catalog.relations.deparse_nodes import (
    BOOL,
    BPCHAR,
    DATE,
    FLOAT4,
    FLOAT8,
    INT2,
    INT4,
    INT8,
    INTERVAL,
    NUMERIC,
    TEXT,
    TIMESTAMP,
    TIMESTAMPTZ,
    UNKNOWN,
    VARCHAR,
    AnyOp,
    BoolOp,
    Case,
    Cast,
    Const,
    Func,
    Node,
    NullTest,
    Op,
    SubLink,
    Var,
)
from sparkwire.errors import PgError
from sparkwire.pgtypes.registry import parse_type_name, type_by_oid


class Unsupported(Exception):
    """A shape the deparser does not reproduce exactly; the caller falls back."""


Scope = Callable[[str | None, str], Var]
Subquery = Callable[[exp.Expression], tuple[object, tuple[int, ...]]]

_INTEGERS = (INT2, INT4, INT8)
_FLOATS = (FLOAT4, FLOAT8)
_NUMBERS = (*_INTEGERS, NUMERIC, *_FLOATS)  # in implicit-cast order
_STRINGS = (TEXT, VARCHAR, BPCHAR)
_KNOWN = frozenset({*_NUMBERS, *_STRINGS, BOOL, DATE, TIMESTAMP, TIMESTAMPTZ, INTERVAL})

_COMPARISONS: dict[type[exp.Expression], str] = {
    exp.EQ: "=",
    exp.NEQ: "<>",
    exp.LT: "<",
    exp.LTE: "<=",
    exp.GT: ">",
    exp.GTE: ">=",
}
_ARITHMETIC: dict[type[exp.Expression], str] = {exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/", exp.Mod: "%"}
_LIKES: dict[type[exp.Expression], tuple[str, str]] = {exp.Like: ("~~", "!~~"), exp.ILike: ("~~*", "!~~*")}


def integer_type(value: int) -> int:
    if -(2**31) <= value < 2**31:
        return INT4
    return INT8 if -(2**63) <= value < 2**63 else NUMERIC


def _number(text: str, negative: bool) -> Const:
    if re.fullmatch(r"\d+", text):
        value = -int(text) if negative else int(text)
        return Const(str(value), integer_type(value))
    if re.fullmatch(r"\d*\.\d*", text) and text != ".":
        whole, _, fraction = text.partition(".")
        digits = f"{int(whole or '0')}.{fraction}" if fraction else str(int(whole or "0"))
        return Const(("-" if negative else "") + digits, NUMERIC)
    if re.fullmatch(r"(\d+\.?\d*|\.\d+)[eE][+-]?\d+", text):  # numeric input and output: positional notation
        return Const(format(Decimal(("-" if negative else "") + text), "f"), NUMERIC)
    raise Unsupported(f"number {text}")


def _literal_as(value: str, type_oid: int) -> Const:
    """An `unknown` string literal read as `type_oid` (the type's input then output function)."""
    if type_oid in _STRINGS or type_oid == UNKNOWN:
        return Const(value, TEXT if type_oid == UNKNOWN else type_oid)
    if type_oid in _INTEGERS and re.fullmatch(r"\s*-?\d+\s*", value):
        return Const(str(int(value)), type_oid)
    if type_oid == NUMERIC and re.fullmatch(r"-?\d+(\.\d+)?", value):
        return Const(str(Decimal(value)), NUMERIC)
    if type_oid == BOOL and value.strip().lower() in ("true", "false"):
        return Const(value.strip().lower(), BOOL)
    if type_oid == DATE and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        try:
            datetime.date.fromisoformat(value)
        except ValueError:
            raise Unsupported(f"date {value}") from None
        return Const(value, DATE)
    if type_oid == TIMESTAMP and re.fullmatch(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?", value):
        try:
            parsed = datetime.datetime.fromisoformat(value)
        except ValueError:
            raise Unsupported(f"timestamp {value}") from None
        text = parsed.strftime("%Y-%m-%d %H:%M:%S") + (
            f".{parsed.microsecond:06d}".rstrip("0") if parsed.microsecond else ""
        )
        return Const(text, TIMESTAMP)
    if _canonical(value, type_oid):
        return Const(value, type_oid)
    raise Unsupported(f"literal of type {type_oid}")


_JSONB, _UUID = 3802, 2950
_UUID_TEXT = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _canonical(value: str, type_oid: int) -> bool:
    """Whether the literal is already its type's output text: `{}` of an array or jsonb, `[]`, a lowercase uuid."""
    try:
        is_array = type_by_oid(type_oid).is_array
    except PgError:
        return False
    if value == "{}":
        return is_array or type_oid == _JSONB
    return (value == "[]" and type_oid == _JSONB) or (type_oid == _UUID and bool(_UUID_TEXT.fullmatch(value)))


def _implicit_kind(source: int, target: int) -> str | None:
    """The node of PostgreSQL's implicit cast from `source` to `target`, None if there is none we know."""
    if source in _NUMBERS and target in _NUMBERS and _NUMBERS.index(source) < _NUMBERS.index(target):
        return "func"
    if source == VARCHAR and target == TEXT:
        return "relabel"
    if source == BPCHAR and target == TEXT:
        return "func"
    if (source, target) in ((DATE, TIMESTAMP), (DATE, TIMESTAMPTZ), (TIMESTAMP, TIMESTAMPTZ)):
        return "func"
    return None


def coerce(node: Node, target: int) -> Node:
    """The node as `target`: unknown literals become constants of it, other types get an implicit cast."""
    if node.type == target:
        return node
    if isinstance(node, Const) and node.type == UNKNOWN:
        return Const(None, target) if node.value is None else _literal_as(node.value, target)
    kind = _implicit_kind(node.type, target)
    if kind is None:
        raise Unsupported(f"no implicit cast from {node.type} to {target}")
    return Cast(node, target, implicit=True, kind=kind)


def _common(types: list[int]) -> int:
    """The common type of operands (select_common_type over the families we know)."""
    known = [t for t in types if t != UNKNOWN]
    if not known:
        return TEXT
    if all(t == known[0] for t in known):
        return known[0]
    if all(t in _NUMBERS for t in known):
        return max(known, key=_NUMBERS.index)
    if all(t in _STRINGS for t in known):
        return TEXT
    raise Unsupported(f"no common type of {types}")


def _arithmetic_type(left: int, right: int) -> int:
    if left in _INTEGERS and right in _INTEGERS:
        return max(left, right, key=_INTEGERS.index)
    if left in _FLOATS and right in _FLOATS:
        return FLOAT4 if left == right == FLOAT4 else FLOAT8
    raise Unsupported("arithmetic types")


def binary(name: str, left: Node, right: Node) -> Op:
    """A binary operator as PostgreSQL resolves it over the types we know."""
    lt, rt = left.type, right.type
    comparison = name in ("=", "<>", "<", ">", "<=", ">=")
    if lt == UNKNOWN and rt == UNKNOWN:
        left, right = coerce(left, TEXT), coerce(right, TEXT)
    elif lt == UNKNOWN or rt == UNKNOWN:
        known = rt if lt == UNKNOWN else lt
        target = TEXT if known == VARCHAR else known
        left, right = coerce(left, target), coerce(right, target)
    lt, rt = left.type, right.type
    if name == "||":
        if lt not in _STRINGS or rt not in _STRINGS:
            raise Unsupported("|| operands")
        return Op(name, (coerce(left, TEXT), coerce(right, TEXT)), TEXT)
    if name in ("~~", "!~~", "~~*", "!~~*"):
        if lt == rt == BPCHAR:
            return Op(name, (left, right), BOOL)
        if lt not in _STRINGS or rt not in _STRINGS:
            raise Unsupported("LIKE operands")
        return Op(name, (coerce(left, TEXT), coerce(right, TEXT)), BOOL)
    if (lt in _INTEGERS and rt in _INTEGERS) or (lt in _FLOATS and rt in _FLOATS):
        if comparison:
            return Op(name, (left, right), BOOL)
        if name == "%" and (lt in _FLOATS or rt in _FLOATS):
            raise Unsupported("float %")
        return Op(name, (left, right), _arithmetic_type(lt, rt))
    if lt in _STRINGS and rt in _STRINGS and not comparison:
        raise Unsupported("string arithmetic")
    if lt == rt == BPCHAR and comparison:
        return Op(name, (left, right), BOOL)
    common = _common([lt, rt])
    if not comparison and common not in _NUMBERS:
        raise Unsupported(f"operator {name} on {common}")
    if comparison and common not in _KNOWN:
        raise Unsupported(f"comparison of {common}")
    return Op(name, (coerce(left, common), coerce(right, common)), BOOL if comparison else common)


def _sum_type(arg: int) -> int:
    if arg in (INT2, INT4):
        return INT8
    if arg in (INT8, NUMERIC):
        return NUMERIC
    if arg in _FLOATS:
        return arg
    raise Unsupported("sum type")


def _avg_type(arg: int) -> int:
    if arg in (*_INTEGERS, NUMERIC):
        return NUMERIC
    if arg in _FLOATS:
        return FLOAT8
    raise Unsupported("avg type")


def _same_type(arg: int) -> int:
    if arg not in _KNOWN:
        raise Unsupported("min/max type")
    return TEXT if arg == VARCHAR else arg


_AGGREGATES: dict[type[exp.Expression], tuple[str, Callable[[int], int]]] = {
    exp.Sum: ("sum", _sum_type),
    exp.Avg: ("avg", _avg_type),
    exp.Min: ("min", _same_type),
    exp.Max: ("max", _same_type),
}
_TEXT_FUNCTIONS: dict[type[exp.Expression], tuple[str, int]] = {
    exp.Upper: ("upper", TEXT),
    exp.Lower: ("lower", TEXT),
    exp.Length: ("length", INT4),
}


_NAME = 19
# SQLValueFunction: printed as its keyword.
_SQL_VALUE_FUNCTIONS: dict[type[exp.Expression], tuple[str, int]] = {
    exp.CurrentDate: ("CURRENT_DATE", DATE),
    exp.Localtimestamp: ("LOCALTIMESTAMP", TIMESTAMP),
    exp.CurrentUser: ("CURRENT_USER", _NAME),
    exp.SessionUser: ("SESSION_USER", _NAME),
}


def cast_type(to: exp.DataType) -> tuple[int, int]:
    """(type OID, typmod) of a CAST target, for the types the deparser knows."""
    try:
        pgtype, typmod = parse_type_name(to.sql(dialect="postgres"))
    except Exception as error:
        raise Unsupported(f"type {to.sql()}") from error
    if pgtype.oid not in _KNOWN:
        raise Unsupported(f"type {pgtype.oid}")
    return pgtype.oid, typmod


def _cast_kind(source: int, target: int) -> str:
    if (source, target) in ((VARCHAR, TEXT), (TEXT, VARCHAR)):
        return "relabel"
    if source in _STRINGS or target in _STRINGS:
        return "io"
    return "func"


class Typer:
    """Builds typed nodes of the expressions of one query level; `now` is how CURRENT_TIMESTAMP prints;
    `subquery` analyzes a subquery of an expression (as a child level of this one) into (query, column types)."""

    def __init__(self, scope: Scope, now: str = "now()", subquery: Subquery | None = None) -> None:
        self.scope = scope
        self.now = now
        self.subquery = subquery

    def _sublink(self, kind: str, query: exp.Expression, test: Node | None = None, op: str = "=") -> SubLink:
        if self.subquery is None:
            raise Unsupported("subquery")
        analyzed, types = self.subquery(query.this if isinstance(query, exp.Subquery) else query)
        if kind == "EXISTS":
            return SubLink(kind, None, None, analyzed, BOOL)
        if len(types) != 1:
            raise Unsupported("subquery of several columns")
        if test is None:
            return SubLink(kind, None, None, analyzed, types[0])
        compared = binary(op, test, Const(None, types[0]))  # a coercion of the subquery's side is not printed
        return SubLink(kind, compared.args[0], op, analyzed, BOOL)

    def node(self, e: exp.Expression) -> Node:
        if isinstance(e, exp.Paren):
            return self.node(e.this)
        if isinstance(e, exp.Column):
            if isinstance(e.this, exp.Star):
                raise Unsupported("star outside a target list")
            return self.scope(e.table or None, e.name)
        if isinstance(e, exp.Literal):
            return _number(e.this, False) if not e.is_string else Const(e.this, UNKNOWN)
        if isinstance(e, exp.Neg) and isinstance(e.this, exp.Literal) and not e.this.is_string:
            return _number(e.this.this, True)
        if isinstance(e, exp.Boolean):
            return Const("true" if e.this else "false", BOOL)
        if isinstance(e, exp.Null):
            return Const(None, UNKNOWN)
        if type(e) in _COMPARISONS and isinstance(e.expression, exp.Any | exp.All):
            kind = "ANY" if isinstance(e.expression, exp.Any) else "ALL"
            if not isinstance(e.expression.this, exp.Subquery | exp.Select | exp.SetOperation):
                raise Unsupported("ANY of an array")
            return self._sublink(kind, e.expression.this, self.node(e.this), _COMPARISONS[type(e)])
        if type(e) in _COMPARISONS:
            return binary(_COMPARISONS[type(e)], self.node(e.this), self.node(e.expression))
        if type(e) in _ARITHMETIC:
            if isinstance(e, exp.Div) and not e.args.get("typed"):
                raise Unsupported("division")
            return binary(_ARITHMETIC[type(e)], self.node(e.this), self.node(e.expression))
        if isinstance(e, exp.DPipe):
            return binary("||", self.node(e.this), self.node(e.expression))
        if type(e) in _LIKES:
            name = _LIKES[type(e)][1 if e.args.get("negate") else 0]
            return binary(name, self.node(e.this), self.node(e.expression))
        if isinstance(e, exp.Neg):
            arg = self.node(e.this)
            if arg.type not in _NUMBERS:
                raise Unsupported("negation")
            return Op("-", (arg,), arg.type)
        return self._compound(e)

    def _compound(self, e: exp.Expression) -> Node:
        if isinstance(e, exp.And | exp.Or):
            kind = "AND" if isinstance(e, exp.And) else "OR"
            return BoolOp(kind, (*self._flat(e.this, type(e)), *self._flat(e.expression, type(e))))
        if isinstance(e, exp.Not):
            return self._not(e.this)
        if isinstance(e, exp.Is) and isinstance(e.expression, exp.Null):
            return NullTest(self.node(e.this), bool(e.args.get("negate")))
        if isinstance(e, exp.Between):
            if e.args.get("symmetric"):
                raise Unsupported("BETWEEN SYMMETRIC")
            value = self.node(e.this)
            low = binary(">=", value, self.node(e.args["low"]))
            return BoolOp("AND", (low, binary("<=", value, self.node(e.args["high"]))))
        if isinstance(e, exp.In):
            return self._in(e, negated=False)
        if isinstance(e, exp.Exists):
            return self._sublink("EXISTS", e.this)
        if isinstance(e, exp.Subquery) and not e.alias:
            return self._sublink("EXPR", e)
        if isinstance(e, exp.Cast):
            return self._cast(e)
        if isinstance(e, exp.Case):
            return self._case(e)
        return self._function(e)

    def _flat(self, e: exp.Expression, kind: type[exp.Expression]) -> list[Node]:
        """AND / OR chains are one BoolExpr with every operand (as PostgreSQL's parser flattens them)."""
        if type(e) is kind:
            return [*self._flat(e.this, kind), *self._flat(e.expression, kind)]
        return [self.boolean(e)]

    def boolean(self, e: exp.Expression) -> Node:
        node = self.node(e)
        return coerce(node, BOOL) if node.type in (BOOL, UNKNOWN) else _reject("boolean operand")

    def _not(self, e: exp.Expression) -> Node:
        """`NOT x` as sqlglot writes it: an unparenthesized `NOT a IN (…)` / `NOT a BETWEEN …` is NOT IN / NOT
        BETWEEN (which PostgreSQL reads as `<> ALL` and `a < low OR a > high`), anything else a NOT."""
        if isinstance(e, exp.In):
            return self._in(e, negated=True)
        if isinstance(e, exp.Between) and not e.args.get("symmetric"):
            value = self.node(e.this)
            low = binary("<", value, self.node(e.args["low"]))
            return BoolOp("OR", (low, binary(">", value, self.node(e.args["high"]))))
        return BoolOp("NOT", (self.boolean(e),))

    def _in(self, e: exp.In, *, negated: bool) -> Node:
        query = e.args.get("query")
        if query is not None:
            link = self._sublink("ANY", query, self.node(e.this))
            return BoolOp("NOT", (link,)) if negated else link
        if not e.expressions:
            raise Unsupported("IN shape")
        left = self.node(e.this)
        elements = [self.node(x) for x in e.expressions]
        if len(elements) == 1:  # transformAExprIn: one value is a plain comparison
            return binary("<>" if negated else "=", left, elements[0])
        if not all(isinstance(x, Const) for x in elements):
            raise Unsupported("IN list of expressions")
        common = _common([left.type, *(x.type for x in elements)])
        if left.type == VARCHAR or common not in _KNOWN or (left.type != UNKNOWN and left.type != common):
            raise Unsupported("IN list types")
        return AnyOp(
            "<>" if negated else "=", coerce(left, common), tuple(coerce(x, common) for x in elements), not negated
        )

    def _cast(self, e: exp.Cast) -> Node:
        target, typmod = cast_type(e.to)
        arg = self.node(e.this)
        if isinstance(arg, Const) and arg.type == UNKNOWN:
            const = Const(None, target) if arg.value is None else _literal_as(arg.value, target)
            if typmod != -1:
                raise Unsupported("typed literal with a typmod")
            return const
        if arg.type == target and typmod == -1:
            return arg
        return Cast(arg, target, typmod, kind=_cast_kind(arg.type, target))

    def _case(self, e: exp.Case) -> Node:
        if e.this is not None:
            raise Unsupported("simple CASE")
        conditions = [self.boolean(when.this) for when in e.args.get("ifs") or []]
        results = [self.node(when.args["true"]) for when in e.args.get("ifs") or []]
        default = self.node(e.args["default"]) if e.args.get("default") is not None else Const(None, UNKNOWN)
        common = _common([r.type for r in (*results, default)])
        whens = tuple((c, coerce(r, common)) for c, r in zip(conditions, results, strict=True))
        return Case(whens, coerce(default, common), common)

    def _function(self, e: exp.Expression) -> Node:
        if isinstance(e, exp.Count):
            arg = e.this
            if isinstance(arg, exp.Star):
                return Func("count", (), INT8, star=True, aggregate=True)
            distinct = isinstance(arg, exp.Distinct)
            if distinct and len(arg.expressions) != 1:
                raise Unsupported("count of several")
            value = self.node(arg.expressions[0] if distinct else arg)
            return Func(
                "count",
                (coerce(value, TEXT) if value.type == UNKNOWN else value,),
                INT8,
                distinct=distinct,
                aggregate=True,
            )
        if type(e) in _AGGREGATES:
            name, result_of = _AGGREGATES[type(e)]
            if isinstance(e.this, exp.Distinct):
                raise Unsupported("DISTINCT aggregate")
            value = self.node(e.this)
            typed = value if value.type != VARCHAR else coerce(value, TEXT)
            return Func(name, (typed,), result_of(typed.type), aggregate=True)
        if type(e) in _TEXT_FUNCTIONS:
            name, result = _TEXT_FUNCTIONS[type(e)]
            value = self.node(e.this)
            return Func(name, (value if value.type == BPCHAR and name == "length" else coerce(value, TEXT),), result)
        if isinstance(e, exp.Abs):
            value = self.node(e.this)
            if value.type not in _NUMBERS:
                raise Unsupported("abs type")
            return Func("abs", (value,), value.type)
        if isinstance(e, exp.Round):
            return self._round(e)
        if isinstance(e, exp.Coalesce):
            values = [self.node(x) for x in (e.this, *e.expressions)]
            common = _common([v.type for v in values])
            return Func("COALESCE", tuple(coerce(v, common) for v in values), common)
        if isinstance(e, exp.CurrentTimestamp) and not e.args:
            return Func(self.now, (), TIMESTAMPTZ, keyword=True)
        keyword = _SQL_VALUE_FUNCTIONS.get(type(e))
        if keyword is not None and not e.args:
            return Func(keyword[0], (), keyword[1], keyword=True)
        raise Unsupported(type(e).__name__)

    def _round(self, e: exp.Round) -> Node:
        """round(numeric[, int]) and round(double precision); integers would resolve through a cast."""
        value = self.node(e.this)
        digits = e.args.get("decimals")
        if value.type != NUMERIC and not (value.type == FLOAT8 and digits is None):
            raise Unsupported("round type")
        if digits is None:
            return Func("round", (value,), value.type)
        places = self.node(digits)
        if places.type != INT4:
            raise Unsupported("round places")
        return Func("round", (value, places), NUMERIC)


def _reject(what: str) -> Node:
    raise Unsupported(what)
