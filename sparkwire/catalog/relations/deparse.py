"""PostgreSQL 15's deparsing of view definitions (pg_get_viewdef) and column defaults (pg_get_expr on adbin).

Contract: `view_definition_text(state, view, pretty)` is what PostgreSQL's `pg_get_viewdef(oid, pretty)` returns
for the view or materialized view: the query of its create_sql (parsed with sqlglot's postgres dialect) laid out
as ruleutils.c lays it out — a leading space, `SELECT` targets one per line (the rest indented 4), `   FROM`,
joins `     JOIN u ON …` / `USING (…)`, `  WHERE`, `  GROUP BY`, ` HAVING`, `  ORDER BY`, ` OFFSET`, ` LIMIT`,
set operations, subqueries in FROM and in expressions (IN / EXISTS / scalar / ANY / ALL, correlated or not), a
trailing `;` — with columns qualified by their range variable, `*` expanded from the catalog, an alias printed
only when it differs from the column's own name (the view's column names are the catalog's), relations
unqualified in `public` and schema-qualified elsewhere (PostgreSQL's default search_path), and the constants,
implicit casts and parentheses PostgreSQL prints (deparse_nodes.py, deparse_typing.py). This module analyzes
the query into `deparse_model`; `deparse_print` lays it out. Non-pretty mode
(pg_views.definition, pg_matviews.definition, information_schema.views, `pg_get_viewdef(oid)`) parenthesizes
every operator expression, pretty mode only where needed. CURRENT_TIMESTAMP prints as `now()` (the stored SQL
spells both alike). A shape outside what is reproduced exactly (window functions, CTEs, builtin relations, types
or functions the typer does not know, a range variable name reused in a nested level, …) falls back to the query
as written, database qualifiers removed and `public.` dropped; so does anything the analysis trips on, as a
catalog query must never fail on a view's text.
Results are memoized per (view item, pretty, wrap): items are immutable, and what a view reads (its relations' names
and column types) cannot change while the view exists without rewriting the view's own create_sql.

`default_text(text, type_oid)` is pg_get_expr(adbin, adrelid) of a column DEFAULT written as `text`: the literal
typed as the column (`'x'::text`, `'y'::character varying`, `0`, `'-1'::integer`, `now()`, `(1 + 2)`), the text
as written when the expression is outside the typer's set; `column_default(column)` is that for a catalog column,
None for no default and for `DEFAULT NULL`, which PostgreSQL does not store at all (`is_null_default`).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from functools import lru_cache

import sqlglot
from cachetools import LRUCache
from sqlglot import exp
from sqlglot.errors import SqlglotError

from sparkwire.catalog.objects import Column, Item
from sparkwire.catalog.relations.deparse_model import (
    Columns,
    FromItem,
    FromJoin,
    FromRelation,
    FromSubquery,
    Query,
    Rte,
    SelectQuery,
    SetOpQuery,
    Sort,
    Target,
)
from sparkwire.catalog.relations.deparse_nodes import (
    TEXT,
    UNKNOWN,
    Buf,
    Const,
    Func,
    Node,
    SubLink,
    Var,
    render,
)
from sparkwire.catalog.relations.deparse_print import Printer
from sparkwire.catalog.relations.deparse_typing import Scope, Typer, Unsupported, coerce
from sparkwire.catalog.relations.relation import quote_ident, view_definition
from sparkwire.catalog.state import CatalogState

_RELATION_KINDS = frozenset({"table", "source", "view", "materialized-view"})
_VISIBLE_SCHEMAS = frozenset({"public", "pg_catalog"})


@dataclass(slots=True)
class _Level:
    """One query level being analyzed: its range variables and the refnames of it and its finished children."""

    rtes: list[Rte]
    names: set[str]
    merged: dict[str, Var] = field(default_factory=dict)  # USING columns: what an unqualified name means


class _Analyzer:
    """Resolves one view's query against the catalog into the structures above. Range variable names must be
    unique along each chain of nested levels (PostgreSQL would print renamed ones, `t_1`)."""

    def __init__(self, state: CatalogState, view: Item) -> None:
        self.state = state
        schema = state.schemas[view.schema_id]
        self.database_id = schema.database_id
        self.database = None if schema.database_id is None else state.databases[schema.database_id].name
        self.schema = schema.name
        self.stack: list[_Level] = []

    def query(self, e: exp.Expression, outer: Scope | None = None, sublink: bool = False) -> Query:
        if isinstance(e, exp.Subquery) and not e.alias:
            return self.query(e.this, outer, sublink)
        if isinstance(e, exp.Union | exp.Intersect | exp.Except):
            if any(e.args.get(k) for k in ("order", "limit", "offset", "by_name", "side", "kind", "on")):
                raise Unsupported("set operation modifiers")
            op = {exp.Union: "UNION", exp.Intersect: "INTERSECT", exp.Except: "EXCEPT"}[type(e)]
            left, right = self.query(e.this, outer, sublink), self.query(e.expression, outer, sublink)
            return SetOpQuery(op, not e.args.get("distinct"), left, right)
        if isinstance(e, exp.Select):
            level = _Level([], set())
            self.stack.append(level)
            try:
                return self.select(e, level.rtes, outer, sublink)
            finally:
                self.stack.pop()
                if self.stack:
                    self.stack[-1].names.update(level.names)
        raise Unsupported(type(e).__name__)

    def _subquery(self, e: exp.Expression, scope: Scope) -> tuple[object, tuple[int, ...]]:
        query = self.query(e, scope, sublink=True)
        return query, tuple(t for _, t in _columns_of(query))

    def _typer(self, rtes: list[Rte], outer: Scope | None) -> Typer:
        scope = _scope(rtes, outer, self.stack[-1].merged)
        return Typer(scope, subquery=lambda e: self._subquery(e, scope))

    def select(self, e: exp.Select, rtes: list[Rte], outer: Scope | None, sublink: bool) -> SelectQuery:
        unsupported = ("with_", "with", "windows", "qualify", "locks", "sample", "kind", "into", "distribute", "sort")
        distinct = e.args.get("distinct")
        if any(e.args.get(k) for k in unsupported) or (distinct is not None and distinct.args.get("on")):
            raise Unsupported("select clause")
        from_items = self._from(e, rtes, outer)
        typer = self._typer(rtes, outer)
        targets = self._targets(e, rtes, from_items, typer, sublink)
        where = e.args.get("where")
        having = e.args.get("having")
        group = e.args.get("group")
        if group is not None and any(group.args.get(k) for k in ("grouping_sets", "cube", "rollup", "totals")):
            raise Unsupported("grouping sets")
        return SelectQuery(
            distinct=e.args.get("distinct") is not None,
            targets=targets,
            from_items=from_items,
            where=None if where is None else typer.boolean(where.this),
            group=tuple(self._group_item(g, targets, typer) for g in (group.expressions if group else [])),
            having=None if having is None else typer.boolean(having.this),
            order=tuple(
                self._sort(o, targets, typer) for o in (e.args["order"].expressions if e.args.get("order") else [])
            ),
            offset=self._count(e.args.get("offset"), typer),
            limit=self._count(e.args.get("limit"), typer),
        )

    def _count(self, clause: exp.Expression | None, typer: Typer) -> Node | None:
        if clause is None:
            return None
        if clause.args.get("expressions") or clause.expression is None:
            raise Unsupported("LIMIT shape")
        node = typer.node(clause.expression)
        if not isinstance(node, Const) or node.value is None:
            raise Unsupported("LIMIT value")
        return node

    def _from(self, e: exp.Select, rtes: list[Rte], outer: Scope | None) -> tuple[FromItem, ...]:
        from_ = e.args.get("from_") or e.args.get("from")
        if from_ is None:
            if e.args.get("joins"):
                raise Unsupported("joins without FROM")
            return ()
        items: list[FromItem] = [self._item(from_.this, rtes)]
        for join in e.args.get("joins") or []:
            if join.args.get("method") or join.args.get("global_"):
                raise Unsupported("join shape")
            side, kind = (join.side or "").upper(), (join.kind or "").upper()
            right = self._item(join.this, rtes)
            on = join.args.get("on")
            using = tuple(u.name for u in join.args.get("using") or [])
            if using:
                if on is not None or kind not in ("", "INNER", "OUTER"):
                    raise Unsupported("USING shape")
                items[-1] = self._using(f"{side} JOIN".strip(), items[-1], right, using)
                continue
            if not side and not kind and on is None:
                items.append(right)
                continue
            if kind not in ("", "INNER", "OUTER", "CROSS") or (kind == "CROSS") != (on is None and not side):
                raise Unsupported(f"join {kind}")
            name = "CROSS JOIN" if kind == "CROSS" else f"{side} JOIN".strip()
            if on is None and side:
                raise Unsupported("outer join without ON")
            condition = None if on is None else self._typer(rtes, outer).boolean(on)
            items[-1] = FromJoin(name, items[-1], right, condition, (), (*items[-1].columns, *right.columns))
        return tuple(items)

    def _using(self, kind: str, left: FromItem, right: FromItem, using: tuple[str, ...]) -> FromJoin:
        """A USING join: each merged column is the left input's (the right's for RIGHT JOIN, the bare name for FULL
        JOIN, whose value is either side's); `*` lists the merged columns first."""
        merged: list[tuple[str, Var]] = []
        for name in using:
            sides = [[var for n, var in side.columns if n == name] for side in (left, right)]
            if any(len(found) != 1 for found in sides) or sides[0][0].type != sides[1][0].type:
                raise Unsupported("USING column")
            left_var, right_var = sides[0][0], sides[1][0]
            chosen = {"RIGHT JOIN": right_var, "FULL JOIN": Var(None, name, left_var.type)}.get(kind, left_var)
            merged.append((name, chosen))
            self.stack[-1].merged[name] = chosen
        rest = tuple((n, v) for side in (left, right) for n, v in side.columns if n not in using)
        return FromJoin(kind, left, right, None, using, (*merged, *rest))

    def _item(self, e: exp.Expression, rtes: list[Rte]) -> FromItem:
        alias = e.args.get("alias")
        if alias is not None and alias.columns:
            raise Unsupported("column aliases")
        alias_name = alias.name if alias is not None else None
        if isinstance(e, exp.Subquery):
            if not alias_name:
                raise Unsupported("unaliased subquery")
            query = self.query(e.this)
            rte = Rte(alias_name, tuple((n or "?column?", t) for n, t in _columns_of(query)))
            self._add(rte)
            return FromSubquery(query, alias_name, _rte_columns(rte))
        if not isinstance(e, exp.Table) or not isinstance(e.this, exp.Identifier):
            raise Unsupported("FROM item")
        item = self._relation(e)
        rte = Rte(alias_name or item.name, tuple((c.name, c.type_oid) for c in item.columns))
        self._add(rte)
        schema = self.state.schemas[item.schema_id].name
        name = (
            quote_ident(item.name) if schema in _VISIBLE_SCHEMAS else f"{quote_ident(schema)}.{quote_ident(item.name)}"
        )
        return FromRelation(name, alias_name if alias_name not in (None, item.name) else None, _rte_columns(rte))

    def _relation(self, table: exp.Table) -> Item:
        if table.catalog and table.catalog != self.database:
            raise Unsupported("another database")
        schema = self.state.find_schema(self.database_id, table.db or self.schema)
        item = None if schema is None or schema.is_builtin else self.state.find_item(schema.id, table.name)
        if item is None or item.kind not in _RELATION_KINDS:
            raise Unsupported(f"relation {table.sql()}")
        return item

    def _add(self, rte: Rte) -> None:
        level = self.stack[-1]
        outer = (r.refname for ancestor in self.stack[:-1] for r in ancestor.rtes)
        if rte.refname in level.names or rte.refname in outer:
            raise Unsupported("duplicate range variable")
        level.rtes.append(rte)
        level.names.add(rte.refname)

    def _targets(
        self, e: exp.Select, rtes: list[Rte], from_items: tuple[FromItem, ...], typer: Typer, sublink: bool
    ) -> tuple[Target, ...]:
        targets: list[Target] = []
        for projection in e.expressions:
            if isinstance(projection, exp.Star) or (
                isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star)
            ):
                qualifier = projection.table if isinstance(projection, exp.Column) else ""
                chosen = (
                    [_rte_columns(r) for r in rtes if r.refname == qualifier]
                    if qualifier
                    else [item.columns for item in from_items]
                )
                if not chosen or projection.args.get("except") or projection.args.get("replace"):
                    raise Unsupported("star")
                targets.extend(Target(var, name) for columns in chosen for name, var in columns)
                continue
            value = projection.this if isinstance(projection, exp.Alias) else projection
            node = typer.node(value)
            node = coerce(node, TEXT) if node.type == UNKNOWN else node
            name: str | None = projection.alias if isinstance(projection, exp.Alias) else _column_name(node)
            targets.append(Target(node, None if sublink and name == "?column?" else name))
        return tuple(targets)

    def _by_target(self, e: exp.Expression, targets: tuple[Target, ...], prefer_alias: bool) -> Node | None:
        if isinstance(e, exp.Literal) and not e.is_string and e.this.isdigit():
            position = int(e.this)
            if not 1 <= position <= len(targets):
                raise Unsupported("position")
            return targets[position - 1].node
        if prefer_alias and isinstance(e, exp.Column) and not e.table:
            named = [t.node for t in targets if t.name == e.name]
            return named[0] if len(named) == 1 else None
        return None

    def _group_item(self, e: exp.Expression, targets: tuple[Target, ...], typer: Typer) -> Node:
        found = self._by_target(e, targets, prefer_alias=False)
        if found is not None:
            return found
        try:
            return typer.node(e)
        except Unsupported:
            alias = self._by_target(e, targets, prefer_alias=True)
            if alias is None:
                raise
            return alias

    def _sort(self, e: exp.Ordered, targets: tuple[Target, ...], typer: Typer) -> Sort:
        found = self._by_target(e.this, targets, prefer_alias=True)
        node = found if found is not None else typer.node(e.this)
        return Sort(node, bool(e.args.get("desc")), bool(e.args.get("nulls_first")))


def _rte_columns(rte: Rte) -> Columns:
    return tuple((name, Var(rte.refname, name, type_oid)) for name, type_oid in rte.columns)


def _scope(rtes: list[Rte], outer: Scope | None, merged: dict[str, Var]) -> Scope:
    """Column resolution in a level's range variables (an unqualified USING column is the merged one), then
    (correlated references) in the enclosing levels."""

    def resolve(qualifier: str | None, column: str) -> Var:
        if qualifier is None and column in merged:
            return merged[column]
        candidates = [r for r in rtes if qualifier is None or r.refname == qualifier]
        found = [(r.refname, t) for r in candidates for n, t in r.columns if n == column]
        if not found and outer is not None and (qualifier is None or not candidates):
            return outer(qualifier, column)
        if len(found) != 1:
            raise Unsupported(f"column {qualifier}.{column}")
        return Var(found[0][0], column, found[0][1])

    return resolve


def _column_name(node: Node) -> str:
    """FigureColname: a column's own name, a function's name, else ?column?."""
    if isinstance(node, Var):
        return node.column
    if isinstance(node, Func):
        return node.name.rstrip("()").lower()
    if isinstance(node, SubLink) and node.kind in ("EXISTS", "EXPR"):
        first = _columns_of(node.query)[0][0] if isinstance(node.query, SelectQuery | SetOpQuery) else None
        return "exists" if node.kind == "EXISTS" else first or "?column?"
    return "?column?"


def _columns_of(query: Query) -> tuple[tuple[str | None, int], ...]:
    while isinstance(query, SetOpQuery):
        query = query.left
    return tuple((t.name, t.node.type) for t in query.targets)


_CACHE: LRUCache[tuple[Item, bool, int], str] = LRUCache(1 << 14)
_CACHE_LOCK = threading.Lock()


def view_definition_text(state: CatalogState, view: Item, pretty: bool, wrap: int = 0) -> str:
    """pg_get_viewdef(view, pretty) as PostgreSQL 15 prints it (pg_get_viewdef(view, wrap_column): pretty with
    `wrap`), or the query as written when not reproducible."""
    key = (view, pretty, wrap)
    with _CACHE_LOCK:
        found = _CACHE.get(key)
    if found is None:
        found = _deparse(state, view, pretty, wrap)
        with _CACHE_LOCK:
            _CACHE[key] = found
    return found


def _deparse(state: CatalogState, view: Item, pretty: bool, wrap: int = 0) -> str:
    try:
        body = sqlglot.parse_one(view_definition(view.create_sql).rstrip(";"), read="postgres")
        if not isinstance(body, exp.Expression):
            raise Unsupported("not a query")
        query = _Analyzer(state, view).query(body)
        printer = Printer(pretty, wrap)
        buf = Buf(0, printer.sublink)
        printer.query(query, buf, [c.name for c in view.columns])
        return buf.text + ";"
    except Exception:  # the contract: any shape not reproduced falls back, a catalog query never fails on it
        return " " + _as_written(view.create_sql)


def _as_written(create_sql: str) -> str:
    """The view's query as written, without database qualifiers and without `public.`."""
    query = view_definition(create_sql)
    try:
        tree = sqlglot.parse_one(query.rstrip(";"), read="postgres")
    except SqlglotError:
        return query
    for table in tree.find_all(exp.Table):
        table.set("catalog", None)
        if table.db == "public":
            table.set("db", None)
    return tree.sql(dialect="postgres") + ";"


_NOW = re.compile(r"\bnow\s*\(", re.IGNORECASE)


def _parse_default(text: str) -> exp.Expression | None:
    try:
        parsed = sqlglot.parse_one(text, read="postgres")
    except SqlglotError:
        return None
    return parsed if isinstance(parsed, exp.Expression) else None


def is_null_default(text: str) -> bool:
    """`DEFAULT NULL` (PostgreSQL stores no default for it)."""
    parsed = _parse_default(text)
    while isinstance(parsed, exp.Paren):
        parsed = parsed.this
    return isinstance(parsed, exp.Null)


def column_default(column: Column) -> str | None:
    """pg_get_expr of the column's pg_attrdef row; None when PostgreSQL stores no default (none, or NULL)."""
    if column.default is None:
        return None
    return _column_default(column.default, column.type_oid)


@lru_cache(maxsize=1 << 14)
def _column_default(text: str, type_oid: int) -> str | None:
    return None if is_null_default(text) else default_text(text, type_oid)


def default_text(text: str, type_oid: int) -> str:
    """pg_get_expr(adbin, adrelid) of `DEFAULT text` on a column of type `type_oid`."""
    parsed = _parse_default(text)
    if parsed is None:
        return text.strip()

    def no_columns(qualifier: str | None, column: str) -> Var:
        raise Unsupported("column in a default")

    try:
        node = Typer(no_columns, "now()" if _NOW.search(text) else "CURRENT_TIMESTAMP").node(parsed)
        if node.type == UNKNOWN:
            node = coerce(node, type_oid)
        buf = Buf()
        render(node, buf, False, False)
    except Exception:  # as for views: the text as written rather than a failing catalog query
        return text.strip()
    return buf.text
