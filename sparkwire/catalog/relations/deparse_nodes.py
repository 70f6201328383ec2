"""Typed expression trees as PostgreSQL's parser leaves them, and how PostgreSQL 15's ruleutils prints them.

Contract: the nodes mirror the parse-analysis nodes ruleutils.c deparses — `Var`, `Const`, `Op` (OpExpr),
`BoolOp`, `NullTest`, `Func` (FuncExpr / Aggref, and CoalesceExpr / SQL value functions by their spelling),
`Cast` (explicit, or implicit: an implicit coercion PostgreSQL's parser added), `Case`, `AnyOp`
(ScalarArrayOpExpr over an ARRAY[…]), `SubLink` — each with its result type OID. `Buf` is ruleutils' output
buffer with its indentation level, `context_keyword` (appendContextKeyword) and the printer of a SubLink's query;
`render(node, buf, …)` appends the node as `get_rule_expr` does: non-pretty mode wraps every operator, boolean,
null-test and cast expression in its own parentheses, pretty mode (PRETTYFLAG_PAREN) adds them only where
`_is_simple` (isSimpleNode) says a child needs them; `show_implicit` decides whether an implicit coercion prints
as a cast (it does under operators, function arguments and target entries, not at the top of a WHERE clause or a
default expression). Constants print as get_const_expr: int4 and float-looking numerics bare unless negative,
booleans as true/false, everything else quoted with a `::type` label. Building these trees from SQL is
deparse_typing.py's job.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sparkwire.catalog.relations.relation import quote_ident
from sparkwire.pgtypes.registry import format_type

BOOL, INT8, INT2, INT4, TEXT = 16, 20, 21, 23, 25
FLOAT4, FLOAT8, UNKNOWN = 700, 701, 705
BPCHAR, VARCHAR, DATE, TIMESTAMP, TIMESTAMPTZ, INTERVAL, NUMERIC = 1042, 1043, 1082, 1114, 1184, 1186, 1700


@dataclass(frozen=True, slots=True)
class Var:
    refname: str | None  # None: a FULL JOIN's merged USING column, printed by its bare name
    column: str
    type: int


@dataclass(frozen=True, slots=True)
class Const:
    value: str | None  # the type's output text; None is NULL
    type: int
    typmod: int = -1


@dataclass(frozen=True, slots=True)
class Op:
    name: str
    args: tuple[Node, ...]  # one (prefix) or two
    type: int


@dataclass(frozen=True, slots=True)
class BoolOp:
    kind: str  # AND, OR, NOT
    args: tuple[Node, ...]
    type: int = BOOL


@dataclass(frozen=True, slots=True)
class NullTest:
    arg: Node
    negated: bool
    type: int = BOOL


@dataclass(frozen=True, slots=True)
class Func:
    name: str
    args: tuple[Node, ...]
    type: int
    star: bool = False  # count(*)
    distinct: bool = False
    keyword: bool = False  # printed as is, without parentheses (CURRENT_DATE)
    aggregate: bool = False


@dataclass(frozen=True, slots=True)
class Cast:
    """A coercion: `kind` is PostgreSQL's node for it — `func` (FuncExpr), `relabel` (RelabelType, binary
    coercible) or `io` (CoerceViaIO) — which decides whether pretty mode parenthesizes it."""

    arg: Node
    type: int
    typmod: int = -1
    implicit: bool = False
    kind: str = "func"


@dataclass(frozen=True, slots=True)
class Case:
    whens: tuple[tuple[Node, Node], ...]
    default: Node
    type: int


@dataclass(frozen=True, slots=True)
class AnyOp:
    """`left op ANY (ARRAY[…])` (IN lists), or ALL (NOT IN)."""

    name: str
    left: Node
    elements: tuple[Node, ...]
    use_or: bool
    type: int = BOOL


@dataclass(frozen=True, slots=True)
class SubLink:
    """A subquery in an expression: EXISTS, `test op ANY/ALL (query)` (IN is `= ANY`), or a scalar (EXPR)
    subquery. `query` is the analyzed query, printed through the buffer's `print_query`."""

    kind: str  # EXISTS, ANY, ALL, EXPR
    test: Node | None
    op: str | None
    query: object
    type: int


Node = Var | Const | Op | BoolOp | NullTest | Func | Cast | Case | AnyOp | SubLink
QueryPrinter = Callable[[object, "Buf"], None]


class Buf:
    """ruleutils' StringInfo plus its indentation level (PRETTYFLAG_INDENT is always on for view definitions)."""

    def __init__(self, level: int = 0, print_query: QueryPrinter | None = None) -> None:
        self.text = ""
        self.level = level
        self.print_query = print_query

    def sub(self) -> Buf:
        """A new buffer in the same context (level, query printer), for text placed after inspection."""
        return Buf(self.level, self.print_query)

    def add(self, text: str) -> None:
        self.text += text

    def trim(self) -> None:
        """removeStringInfoSpaces."""
        self.text = self.text.rstrip(" ")

    def context_keyword(self, word: str, before: int, after: int, plus: int) -> None:
        """appendContextKeyword: a new line indented to the level (adjusted by `before`) plus `plus`."""
        self.level += before
        self.trim()
        self.add("\n" + " " * (max(self.level, 0) + plus) + word)
        self.level = max(self.level + after, 0)


_ARITHMETIC_LOW, _ARITHMETIC_HIGH = "+-", "*/%"


def _binary_name(node: Node) -> str | None:
    return node.name if isinstance(node, Op) and len(node.args) == 2 else None


def _is_simple(node: Node, parent: Node) -> bool:
    """isSimpleNode for PRETTYFLAG_PAREN: whether `node` needs no parentheses as an argument of `parent`."""
    if isinstance(node, Var | Const | Func | Case):
        return True
    if isinstance(node, Op) and isinstance(parent, Op):
        op, parent_op = _binary_name(node), _binary_name(parent)
        if op is None or parent_op is None or op[0] not in "+-*/%" or parent_op[0] not in "+-*/%":
            return False
        if op[0] in _ARITHMETIC_HIGH and parent_op[0] in _ARITHMETIC_LOW:
            return True
        if op[0] in _ARITHMETIC_LOW and parent_op[0] in _ARITHMETIC_HIGH:
            return False
        return node is parent.args[0]
    if isinstance(node, Op | NullTest | SubLink):
        return isinstance(parent, BoolOp | Func | Case)
    if isinstance(node, BoolOp):
        if isinstance(parent, BoolOp):
            return parent.kind in ("AND", "OR") if node.kind in ("NOT", "AND") else parent.kind == "OR"
        return isinstance(parent, Func | Case)
    if isinstance(node, Cast):
        return node.kind == "func" or (node.kind == "relabel" and _is_simple(node.arg, node))
    return False  # ScalarArrayOpExpr and the nodes isSimpleNode does not know


def type_label(type_oid: int, typmod: int = -1) -> str:
    return format_type(type_oid, typmod)


def render_const(const: Const, buf: Buf, showtype: int = 0) -> None:
    """get_const_expr: showtype -1 never labels, 0 labels unless the literal reads back as its type, 1 always."""
    if const.value is None:
        buf.add("NULL" + ("" if showtype < 0 else "::" + type_label(const.type, const.typmod)))
        return
    value, needlabel = const.value, False
    if const.type == INT4 and not value.startswith("-"):
        buf.add(value)
    elif const.type == NUMERIC and value[0].isdigit() and any(c in value for c in ".eE"):
        buf.add(value)
        needlabel = const.typmod >= 0
    elif const.type == BOOL:
        buf.add(value)
    else:
        buf.add("'" + value.replace("'", "''") + "'")
        needlabel = const.type != UNKNOWN
    if showtype > 0 or (showtype == 0 and needlabel):
        buf.add("::" + type_label(const.type, const.typmod))


def _paren(node: Node, buf: Buf, pretty: bool, parent: Node, show_implicit: bool) -> None:
    """get_rule_expr_paren."""
    need = pretty and not _is_simple(node, parent)
    buf.add("(" if need else "")
    render(node, buf, pretty, show_implicit)
    buf.add(")" if need else "")


def _open(buf: Buf, pretty: bool) -> None:
    buf.add("" if pretty else "(")


def _close(buf: Buf, pretty: bool) -> None:
    buf.add("" if pretty else ")")


def render(node: Node, buf: Buf, pretty: bool, show_implicit: bool = True) -> None:
    """get_rule_expr."""
    match node:
        case Var():
            buf.add(("" if node.refname is None else quote_ident(node.refname) + ".") + quote_ident(node.column))
        case Const():
            render_const(node, buf)
        case Op():
            _open(buf, pretty)
            if len(node.args) == 2:
                _paren(node.args[0], buf, pretty, node, True)
                buf.add(f" {node.name} ")
                _paren(node.args[1], buf, pretty, node, True)
            else:
                buf.add(f"{node.name} ")
                _paren(node.args[0], buf, pretty, node, True)
            _close(buf, pretty)
        case BoolOp():
            _open(buf, pretty)
            if node.kind == "NOT":
                buf.add("NOT ")
                _paren(node.args[0], buf, pretty, node, False)
            else:
                for i, arg in enumerate(node.args):
                    buf.add(f" {node.kind} " if i else "")
                    _paren(arg, buf, pretty, node, False)
            _close(buf, pretty)
        case NullTest():
            _open(buf, pretty)
            _paren(node.arg, buf, pretty, node, True)
            buf.add(" IS NOT NULL" if node.negated else " IS NULL")
            _close(buf, pretty)
        case Func():
            _render_func(node, buf, pretty)
        case Cast():
            _render_cast(node, buf, pretty, show_implicit)
        case Case():
            _render_case(node, buf, pretty)
        case SubLink():
            _render_sublink(node, buf, pretty)
        case AnyOp():
            _open(buf, pretty)
            _paren(node.left, buf, pretty, node, True)
            buf.add(f" {node.name} {'ANY' if node.use_or else 'ALL'} (ARRAY[")
            for i, element in enumerate(node.elements):
                buf.add(", " if i else "")
                render(element, buf, pretty)
            buf.add("])")
            _close(buf, pretty)


def _render_sublink(node: SubLink, buf: Buf, pretty: bool) -> None:
    """get_sublink_expr: the subquery starts at the current indentation level."""
    if buf.print_query is None:
        raise ValueError("a subquery needs a query printer")
    buf.add("(")
    if node.test is not None:
        render(node.test, buf, pretty)
    if node.kind == "EXISTS":
        buf.add("EXISTS ")
    elif node.kind == "ANY":
        buf.add(" IN " if node.op == "=" else f" {node.op} ANY ")
    elif node.kind == "ALL":
        buf.add(f" {node.op} ALL ")
    nested = node.kind != "EXPR"
    buf.add("(" if nested else "")
    level = buf.level
    buf.print_query(node.query, buf)
    buf.level = level
    buf.add("))" if nested else ")")


def _render_func(node: Func, buf: Buf, pretty: bool) -> None:
    if node.keyword:
        buf.add(node.name)
        return
    buf.add(node.name + "(" + ("DISTINCT " if node.distinct else "") + ("*" if node.star else ""))
    for i, arg in enumerate(node.args):
        buf.add(", " if i else "")
        render(arg, buf, pretty)
    buf.add(")")


def _render_cast(node: Cast, buf: Buf, pretty: bool, show_implicit: bool) -> None:
    """get_coercion_expr; an implicit coercion prints only its argument unless `show_implicit`."""
    if node.implicit and not show_implicit:
        _paren(node.arg, buf, pretty, node, False)
        return
    arg = node.arg
    if isinstance(arg, Const) and arg.type == node.type and arg.typmod == -1:
        render_const(arg, buf, -1)
    else:
        _open(buf, pretty)
        _paren(arg, buf, pretty, node, False)
        _close(buf, pretty)
    buf.add("::" + type_label(node.type, node.typmod))


def _render_case(node: Case, buf: Buf, pretty: bool) -> None:
    buf.context_keyword("CASE", 0, 4, 0)
    for condition, result in node.whens:
        buf.context_keyword("WHEN ", 0, 0, 0)
        render(condition, buf, pretty, False)
        buf.add(" THEN ")
        render(result, buf, pretty)
    buf.context_keyword("ELSE ", 0, 0, 0)
    render(node.default, buf, pretty)
    buf.context_keyword("END", -4, 0, 0)
