"""ruleutils.c's get_query_def for the analyzed query (`deparse_model`): pg_get_viewdef's layout of SELECT lists,
FROM items and joins, WHERE / GROUP BY / HAVING / ORDER BY / OFFSET / LIMIT, set operations and sublinks, in pretty
and non-pretty mode, into a `deparse_nodes.Buf`. Used by `deparse.view_definition_text`.
"""

from __future__ import annotations

from sparkwire.catalog.relations.deparse_model import (
    FromItem,
    FromJoin,
    FromRelation,
    FromSubquery,
    Query,
    SelectQuery,
    SetOpQuery,
)
from sparkwire.catalog.relations.deparse_nodes import Buf, Cast, Const, Func, Node, Var, render, render_const
from sparkwire.catalog.relations.deparse_typing import Unsupported
from sparkwire.catalog.relations.relation import quote_ident

_STD, _JOIN, _VAR = 8, 4, 4


class Printer:
    """get_query_def and friends over the analyzed query; `wrap` is the wrap column (0: every target and FROM item
    on its own line, as pg_get_viewdef(oid[, pretty]) prints them)."""

    def __init__(self, pretty: bool, wrap: int) -> None:
        self.pretty = pretty
        self.wrap = wrap

    def overflows(self, buf: Buf, text: str) -> bool:
        """Whether `text` appended to the current line of `buf` would pass the wrap column."""
        return len(buf.text) - (buf.text.rfind("\n") + 1) + len(text) > self.wrap

    def query(self, q: Query, buf: Buf, names: list[str] | None) -> None:
        saved = buf.level
        if isinstance(q, SelectQuery):
            self.select(q, buf, names)
        else:
            self.setop(q, buf, names)
        buf.level = saved

    def sublink(self, query: object, buf: Buf) -> None:
        """A SubLink's query, at the current indentation level, its columns named by their own names."""
        if not isinstance(query, SelectQuery | SetOpQuery):
            raise TypeError(f"not a query: {query!r}")
        self.query(query, buf, None)

    def select(self, q: SelectQuery, buf: Buf, names: list[str] | None) -> None:
        buf.level += _STD
        buf.add(" SELECT" + (" DISTINCT" if q.distinct else ""))
        self.targets(q, buf, names)
        for i, item in enumerate(q.from_items):
            if i == 0:
                buf.context_keyword(" FROM ", -_STD, _STD, 2)
                self.from_item(item, buf)
                continue
            buf.add(", ")
            sub = buf.sub()
            self.from_item(item, sub)
            if sub.text.startswith("\n"):
                buf.trim()
            elif self.overflows(buf, sub.text):
                buf.context_keyword("", -_STD, _STD, _VAR)
            buf.add(sub.text)
        if q.where is not None:
            buf.context_keyword(" WHERE ", -_STD, _STD, 1)
            render(q.where, buf, self.pretty, False)
        if q.group:
            buf.context_keyword(" GROUP BY ", -_STD, _STD, 1)
            for i, node in enumerate(q.group):
                buf.add(", " if i else "")
                self.sort_expression(node, buf)
        if q.having is not None:
            buf.context_keyword(" HAVING ", -_STD, _STD, 0)
            render(q.having, buf, self.pretty, False)
        if q.order:
            buf.context_keyword(" ORDER BY ", -_STD, _STD, 1)
            for i, sort in enumerate(q.order):
                buf.add(", " if i else "")
                self.sort_expression(sort.node, buf)
                if sort.desc:
                    buf.add(" DESC" + ("" if sort.nulls_first else " NULLS LAST"))
                elif sort.nulls_first:
                    buf.add(" NULLS FIRST")
        for keyword, count in ((" OFFSET ", q.offset), (" LIMIT ", q.limit)):
            if count is not None:
                buf.context_keyword(keyword, -_STD, _STD, 0)
                render(count, buf, self.pretty, False)

    def targets(self, q: SelectQuery, buf: Buf, names: list[str] | None) -> None:
        if names is not None and len(names) != len(q.targets):
            raise Unsupported("column count")
        multiline = False
        for i, target in enumerate(q.targets):
            buf.add(", " if i else " ")
            sub = buf.sub()
            render(target.node, sub, self.pretty, True)
            name: str | None = names[i] if names is not None else target.name
            own = target.node.column if isinstance(target.node, Var) else None
            text = sub.text + ("" if name is None or own == name else f" AS {quote_ident(name)}")
            if text.startswith("\n"):
                buf.trim()
            elif i and (multiline or self.overflows(buf, text)):
                buf.context_keyword("", -_STD, _STD, _VAR)
            multiline = "\n" in text.lstrip("\n")
            buf.add(text)

    def sort_expression(self, node: Node, buf: Buf) -> None:
        """get_rule_sortgroupclause: constants labeled, function-like expressions parenthesized."""
        if isinstance(node, Const):
            render_const(node, buf, 1)
            return
        if isinstance(node, Var):
            render(node, buf, self.pretty, True)
            return
        function_like = (isinstance(node, Func) and not node.keyword and node.name != "COALESCE") or (
            isinstance(node, Cast) and node.kind == "func"
        )
        paren = self.pretty or function_like
        buf.add("(" if paren else "")
        render(node, buf, self.pretty, True)
        buf.add(")" if paren else "")

    def from_item(self, item: FromItem, buf: Buf) -> None:
        if isinstance(item, FromRelation):
            buf.add(item.sql + (f" {quote_ident(item.alias)}" if item.alias else ""))
        elif isinstance(item, FromSubquery):
            buf.add("(")
            self.query(item.query, buf, None)
            buf.add(f") {quote_ident(item.alias)}")
        else:
            paren_right = self.pretty and isinstance(item.right, FromJoin)
            buf.add("" if self.pretty else "(")
            self.from_item(item.left, buf)
            buf.context_keyword(f" {item.kind} ", -_STD, _STD, _JOIN)
            buf.add("(" if paren_right else "")
            self.from_item(item.right, buf)
            buf.add(")" if paren_right else "")
            if item.using:
                buf.add(f" USING ({', '.join(quote_ident(name) for name in item.using)})")
            elif item.on is not None:
                buf.add(" ON " + ("" if self.pretty else "("))
                render(item.on, buf, self.pretty, False)
                buf.add("" if self.pretty else ")")
            buf.add("" if self.pretty else ")")

    def setop(self, q: SetOpQuery, buf: Buf, names: list[str] | None) -> None:
        """get_setop_query."""
        left_paren = isinstance(q.left, SetOpQuery) and (q.left.op, q.left.all) != (q.op, q.all)
        if left_paren:
            buf.add("(")
            buf.context_keyword("", _STD, 0, 0)
        self.setop_input(q.left, buf, names)
        if left_paren:
            buf.context_keyword(") ", -_STD, 0, 0)
        else:
            buf.context_keyword("", 0, 0, 0)
        buf.add(q.op + " " + ("ALL " if q.all else ""))
        right_paren = isinstance(q.right, SetOpQuery)
        indent = _STD if right_paren else 0
        buf.add("(" if right_paren else "")
        buf.context_keyword("", indent, 0, 0)
        self.setop_input(q.right, buf, names)
        buf.level -= indent
        if right_paren:
            buf.context_keyword(")", 0, 0, 0)

    def setop_input(self, q: Query, buf: Buf, names: list[str] | None) -> None:
        if isinstance(q, SetOpQuery):
            self.setop(q, buf, names)
            return
        paren = bool(q.order or q.offset or q.limit)
        buf.add("(" if paren else "")
        self.query(q, buf, names)
        buf.add(")" if paren else "")
