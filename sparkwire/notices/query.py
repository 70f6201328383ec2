"""Detection inputs and the query analysis the notice passes share.

Contract:
- `IndexInput(state, index_id)`: a CREATE INDEX pass input; `state` already contains the index.
- `QueryInput(tree, state, database, search_path, is_definition)`: a SELECT (or the query of a view or
  materialized view when `is_definition`) as a sqlglot tree. Table references are resolved against `state`
  the way the planner resolves them (qualified or through the search path; CTE names and unknown names stay
  unresolved). Identifiers are case-normalized on a private copy; the caller's tree is not modified.
- `QueryInput.scopes`: one `Scope` per SELECT in the tree (outermost first) with its FROM/JOIN relations, the
  conjuncts of its WHERE and join conditions, and column ownership (a qualified column belongs to the relation
  of that alias; an unqualified one to the only relation whose catalog columns include it, or to the only
  relation in scope).
- `Scope.literal_constraints`: per relation, the literal equalities of the WHERE clause (`x = 5`,
  `5 = x`, `y IN (4, 8)`, `(y, z) IN ((2, 3), (5, 7))`, `x = 1 OR x = 2`, `(a = 1 AND b = 2) OR (…)`),
  combined across conjuncts as Materialize does: the key is every constrained expression, the rows are the
  cross product of the values.
- `indexes_on(state, item_id)`: the indexes defined on an item, oldest first.
- `unserved_lookups(source)`: the literal-equality lookups on indexed relations that no index serves.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from sqlglot import exp
from sqlglot.optimizer.normalize_identifiers import normalize_identifiers

from sparkwire.catalog.objects import Item
from sparkwire.catalog.state import CatalogState
from sparkwire.errors import PgError
from sparkwire.notices.sqltext import DIALECT, expression_key, parse_expression

Row = tuple[exp.Expr, ...]


@dataclass(frozen=True, slots=True)
class IndexInput:
    state: CatalogState
    index_id: str

    @property
    def index(self) -> Item:
        return self.state.items[self.index_id]


@dataclass(frozen=True, slots=True)
class Relation:
    """One FROM/JOIN entry: its alias (or name), its catalog item (None for subqueries, CTEs, unknown names)."""

    position: int
    alias: str
    item: Item | None


@dataclass(frozen=True, slots=True)
class LiteralConstraints:
    """Literal equalities binding `exprs` (comparison keys in `keys`) of one relation to the values in `rows`."""

    relation: Relation
    exprs: tuple[exp.Expr, ...]
    keys: tuple[str, ...]
    rows: tuple[Row, ...]


def indexes_on(state: CatalogState, item_id: str) -> list[Item]:
    found = (state.items[i] for i in state.direct_dependents(item_id))
    return sorted((i for i in found if i.kind == "index" and i.on_id == item_id), key=lambda i: i.oid)


def index_key_exprs(index: Item) -> tuple[exp.Expr, ...]:
    return tuple(parse_expression(k) for k in index.keys)


def index_key_keys(index: Item) -> tuple[str, ...]:
    return _key_keys(index.keys)


@lru_cache(maxsize=1024)
def _key_keys(keys: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(expression_key(parse_expression(k)) for k in keys)


def is_literal(node: exp.Expr) -> bool:
    if isinstance(node, exp.Neg | exp.Cast | exp.Paren):
        return is_literal(node.this)
    return isinstance(node, exp.Literal | exp.Boolean)


def conjuncts(condition: exp.Expr | None) -> list[exp.Expr]:
    if condition is None:
        return []
    if isinstance(condition, exp.Paren):
        return conjuncts(condition.this)
    if isinstance(condition, exp.And):
        return [*conjuncts(condition.this), *conjuncts(condition.expression)]
    return [condition]


def _disjuncts(condition: exp.Expr) -> list[exp.Expr]:
    if isinstance(condition, exp.Paren):
        return _disjuncts(condition.this)
    if isinstance(condition, exp.Or):
        return [*_disjuncts(condition.this), *_disjuncts(condition.expression)]
    return [condition]


@dataclass
class Scope:
    select: exp.Select
    relations: tuple[Relation, ...]
    _by_alias: dict[str, Relation] = field(init=False)

    def __post_init__(self) -> None:
        self._by_alias = {r.alias: r for r in self.relations}

    def owner(self, column: exp.Column) -> Relation | None:
        if column.table:
            return self._by_alias.get(column.table)
        having = [
            r for r in self.relations if r.item is not None and any(c.name == column.name for c in r.item.columns)
        ]
        if len(having) == 1:
            return having[0]
        return self.relations[0] if len(self.relations) == 1 else None

    def relations_of(self, expression: exp.Expr) -> frozenset[int] | None:
        """The positions of the relations `expression` reads; None if it has a subquery or an unowned column."""
        if expression.find(exp.Select) is not None:
            return None
        owners: set[int] = set()
        for column in expression.find_all(exp.Column):
            relation = self.owner(column)
            if relation is None:
                return None
            owners.add(relation.position)
        return frozenset(owners)

    @property
    def where(self) -> list[exp.Expr]:
        where = self.select.args.get("where")
        return conjuncts(where.this if where is not None else None)

    @property
    def joins(self) -> list[exp.Join]:
        return list(self.select.args.get("joins") or [])

    def _single_relation(self, expression: exp.Expr) -> Relation | None:
        owners = self.relations_of(expression)
        if owners is None or len(owners) != 1 or expression.find(exp.AggFunc) is not None:
            return None
        return self.relations[next(iter(owners))]

    def _equalities(self, condition: exp.Expr) -> tuple[Relation, list[exp.Expr], list[Row]] | None:
        """`condition` as literal equalities over one relation: (relation, exprs, rows), or None."""
        if isinstance(condition, exp.Paren):
            return self._equalities(condition.this)
        if isinstance(condition, exp.EQ):
            left, right = condition.this, condition.expression
            if is_literal(left) and not is_literal(right):
                left, right = right, left
            relation = self._single_relation(left)
            if relation is None or not is_literal(right):
                return None
            return relation, [left], [(right,)]
        if isinstance(condition, exp.In) and not condition.args.get("query"):
            target = condition.this
            exprs = list(target.expressions) if isinstance(target, exp.Tuple) else [target]
            rows: list[Row] = []
            for value in condition.expressions:
                row = tuple(value.expressions) if isinstance(value, exp.Tuple) else (value,)
                if len(row) != len(exprs) or not all(is_literal(v) for v in row):
                    return None
                rows.append(row)
            relation = self._single_relation(target)
            return None if relation is None or not rows else (relation, exprs, rows)
        if isinstance(condition, exp.Or):
            return self._disjunction(_disjuncts(condition))
        return None

    def _disjunction(self, branches: list[exp.Expr]) -> tuple[Relation, list[exp.Expr], list[Row]] | None:
        """`(a = 1 AND b = 2) OR (a = 3 AND b = 4)`: every branch binds the same expressions of one relation."""
        relation: Relation | None = None
        exprs: list[exp.Expr] = []
        keys: list[str] = []
        rows: list[Row] = []
        for number, branch in enumerate(branches):
            bound: dict[str, exp.Expr] = {}
            for part in conjuncts(branch):
                found = self._equalities(part)
                if found is None or len(found[2]) != 1:
                    return None
                part_relation, part_exprs, (row,) = found
                if relation is None:
                    relation = part_relation
                if part_relation != relation:
                    return None
                for e, v in zip(part_exprs, row, strict=True):
                    key = expression_key(e)
                    if number == 0 and key not in bound:
                        keys.append(key)
                        exprs.append(e)
                    bound.setdefault(key, v)
            if set(bound) != set(keys):
                return None
            rows.append(tuple(bound[k] for k in keys))
        return None if relation is None else (relation, exprs, rows)

    def indexed(self, state: CatalogState) -> bool:
        """Whether any relation of the scope has an index (the index passes have nothing to do otherwise)."""
        return any(r.item is not None and indexes_on(state, r.item.id) for r in self.relations)

    @cached_property
    def literal_constraints(self) -> list[LiteralConstraints]:
        merged: dict[int, tuple[list[exp.Expr], list[str], list[Row]]] = {}
        for condition in self.where:
            found = self._equalities(condition)
            if found is None:
                continue
            relation, exprs, rows = found
            keys = [expression_key(e) for e in exprs]
            have_exprs, have_keys, have_rows = merged.setdefault(relation.position, ([], [], [()]))
            if any(k in have_keys for k in keys):
                continue
            have_exprs.extend(exprs)
            have_keys.extend(keys)
            have_rows[:] = [a + b for a, b in itertools.product(have_rows, rows)]
        return [
            LiteralConstraints(self.relations[pos], tuple(exprs), tuple(keys), _distinct(rows))
            for pos, (exprs, keys, rows) in sorted(merged.items())
        ]


def _distinct(rows: list[Row]) -> tuple[Row, ...]:
    return tuple(dict.fromkeys(rows))  # sqlglot expressions hash and compare structurally


@dataclass(frozen=True)
class QueryInput:
    tree: exp.Expr
    state: CatalogState
    database: str
    search_path: tuple[str, ...]
    is_definition: bool = False

    @cached_property
    def normalized(self) -> exp.Expr:
        return normalize_identifiers(self.tree.copy(), dialect=DIALECT)

    @cached_property
    def scopes(self) -> list[Scope]:
        cte_names = {cte.alias for cte in self.normalized.find_all(exp.CTE)}
        scopes = []
        for select in self.normalized.find_all(exp.Select, bfs=True):
            sources = []
            from_ = select.args.get("from_")
            if from_ is not None:
                sources.append(from_.this)
            sources.extend(join.this for join in select.args.get("joins") or [])
            relations = tuple(
                Relation(pos, source.alias_or_name, self._resolve(source, cte_names))
                for pos, source in enumerate(sources)
            )
            scopes.append(Scope(select, relations))
        return scopes

    def _resolve(self, source: exp.Expr, cte_names: set[str]) -> Item | None:
        if not isinstance(source, exp.Table) or (not source.db and source.name in cte_names):
            return None
        try:
            return self.state.lookup_item(
                source.name,
                current_database=self.database,
                search_path=self.search_path,
                schema=source.db or None,
                database=source.catalog or None,
            )
        except PgError:
            return None


@dataclass(frozen=True, slots=True)
class UnservedLookup:
    """Literal equalities on a relation that has indexes, none of whose keys they bind completely."""

    constraints: LiteralConstraints
    item: Item
    indexes: tuple[tuple[Item, tuple[str, ...]], ...]  # (index, the comparison keys of its key), oldest first


def unserved_lookups(source: QueryInput) -> Iterator[UnservedLookup]:
    """The literal-equality lookups of `source` that no index serves: what the index notices look at."""
    for scope in source.scopes:
        if not scope.indexed(source.state):
            continue
        for constraints in scope.literal_constraints:
            item = constraints.relation.item
            if item is None:
                continue
            on_item = indexes_on(source.state, item.id)
            indexes = tuple((index, index_key_keys(index)) for index in on_item if index.keys)
            if any(set(keys) <= set(constraints.keys) for _, keys in indexes):
                continue  # an index serves the lookup
            yield UnservedLookup(constraints, item, indexes)
