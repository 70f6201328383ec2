"""The maintenance plan of a materialized view: an incremental dataflow (compute/dataflow/) when its query has a
shape and expressions compute can maintain exactly, else the reason it is recomputed (docs/continual.md).

Contract: `maintenance(item, state)` parses the view's stored definition, resolves its relations as the view's own
schema does, and returns a `Maintenance`: a `DataflowPlan` for a SELECT [DISTINCT] over tables and sources joined
by column equalities (JOIN … ON, or FROM a, b WHERE …), filtered by a WHERE in the expression subset
(compute/dataflow/expressions.py), with a GROUP BY whose keys are such expressions and whose aggregates are
count(*) / count(x) / sum / avg / min / max of a column, or a UNION ALL of such selects without aggregates.
Anything else (outer joins, subqueries, HAVING, ORDER BY / LIMIT, window functions, DISTINCT aggregates, views as
inputs, float or unconstrained-numeric sums) has no plan; `reason` says which construct, in words EXPLAIN and
the CREATE notice show. `contents_schema(item, found)` is the Arrow schema maintained contents have.
"""

from __future__ import annotations

import pyarrow as pa
from sqlglot import exp

from sparkwire import errors as e
from sparkwire.catalog import CatalogState
from sparkwire.catalog.objects import Item
from sparkwire.compute.dataflow.expressions import INT_TYPES, TEXT_TYPES, unsupported
from sparkwire.compute.dataflow.plan import Aggregate, AggregateKind, Branch, DataflowPlan, Input, Maintenance, Reduce
from sparkwire.pgtypes.mapping import arrow_type_for_pg
from sparkwire.planner.bind.resolve import Names, user_relations
from sparkwire.planner.grammar.ddl import CreateView, parse_materialize_ddl
from sparkwire.planner.translate.duckdb import parse

_AGGREGATES: dict[type[exp.Expr], AggregateKind] = {
    exp.Count: "count", exp.Sum: "sum", exp.Avg: "avg", exp.Min: "min", exp.Max: "max",
}  # fmt: skip
_ORDERED_TYPES = INT_TYPES | TEXT_TYPES | {16, 1082, 1083, 1114, 1184}  # exact equality and order on Arrow
_FORBIDDEN: tuple[tuple[type[exp.Expr], str], ...] = (
    (exp.Subquery, "a subquery"),
    (exp.Window, "a window function"),
    (exp.Lateral, "LATERAL"),
    (exp.Unnest, "UNNEST"),
    (exp.Placeholder, "a parameter"),
)


class _Unsupported(Exception):
    pass


def contents_schema(item: Item, found: Maintenance) -> pa.Schema:
    """Each column's Arrow type; a numeric sum or avg keeps its exact text, whatever typmod the view's column was
    described with (PostgreSQL's avg has as many digits as its division gives: 5/6 has 20)."""
    reduce = found.plan.reduce if found.plan is not None else None
    fields = []
    for n, column in enumerate(item.columns):
        arrow = arrow_type_for_pg(column.type_oid, column.typmod)
        if reduce is not None and column.type_oid == 1700 and reduce.columns[n][0] == "aggregate":
            arrow = pa.string()
        fields.append(pa.field(column.name, arrow))
    return pa.schema(fields)


def maintenance(item: Item, state: CatalogState) -> Maintenance:
    try:
        statement = parse_materialize_ddl(item.create_sql)
        if not isinstance(statement, CreateView):
            return Maintenance(None, "its definition is not a query")
        schema = state.schemas[item.schema_id]
        database = state.databases[schema.database_id or ""]
        names = Names(database=database.name, search_path=tuple(dict.fromkeys((schema.name, "public"))))
        return Maintenance(_Planner(state, names, item).plan(parse(statement.query)), None)
    except _Unsupported as why:
        return Maintenance(None, str(why))
    except e.PgError as err:
        return Maintenance(None, f"its definition could not be planned ({err.message})")


class _Planner:
    def __init__(self, state: CatalogState, names: Names, item: Item) -> None:
        self._state = state
        self._names = names
        self._item = item
        self._types: dict[str, int] = {}
        self._positions = 0

    def plan(self, query: exp.Expr) -> DataflowPlan:
        for node_type, what in _FORBIDDEN:
            if query.find(node_type) is not None:
                raise _Unsupported(f"it uses {what}")
        if query.args.get("with") or query.args.get("with_"):
            raise _Unsupported("it uses WITH")
        if isinstance(query, exp.Union):
            selects = self._union(query)
            branches = tuple(self._branch(s, aggregate=False)[0] for s in selects)
            return DataflowPlan(branches, None, self._types)
        if not isinstance(query, exp.Select):
            raise _Unsupported(f"it is a {query.key.upper()}")
        branch, reduce = self._branch(query, aggregate=True)
        return DataflowPlan((branch,), reduce, self._types)

    def _union(self, node: exp.Expr) -> list[exp.Select]:
        if isinstance(node, exp.Union):
            if node.args.get("distinct") or not isinstance(node, exp.Union) or type(node) is not exp.Union:
                raise _Unsupported("it uses UNION (distinct), INTERSECT or EXCEPT")
            if node.args.get("order") or node.args.get("limit"):
                raise _Unsupported("it uses ORDER BY or LIMIT")
            return [*self._union(node.left), *self._union(node.right)]
        if isinstance(node, exp.Subquery):
            return self._union(node.this)
        if not isinstance(node, exp.Select):
            raise _Unsupported(f"a branch is a {node.key.upper()}")
        return [node]

    # ---- one SELECT ----------------------------------------------------------------------------------------

    def _inputs(self, select: exp.Select) -> tuple[list[Input], dict[str, Input], list[exp.Expr]]:
        """The select's relations (tables and sources only), by alias, and the join conditions (conjuncts)."""
        from_ = select.args.get("from") or select.args.get("from_")
        if from_ is None:
            raise _Unsupported("it reads no relation")
        nodes: list[exp.Expr] = [from_.this, *from_.expressions]
        conditions: list[exp.Expr] = []
        for join in select.args.get("joins") or []:
            side, kind = (join.side or "").upper(), (join.kind or "").upper()
            if side or kind not in ("", "INNER", "CROSS"):
                raise _Unsupported(f"it uses a {' '.join(p for p in (side, kind) if p)} JOIN")
            if join.args.get("using"):
                raise _Unsupported("it uses JOIN … USING")
            nodes.append(join.this)
            if join.args.get("on") is not None:
                conditions.extend(
                    join.args["on"].flatten() if isinstance(join.args["on"], exp.And) else [join.args["on"]]
                )
        resolved = {id(node): item for node, item in user_relations(select, self._state, self._names)}
        inputs: list[Input] = []
        by_alias: dict[str, Input] = {}
        for node in nodes:
            if not isinstance(node, exp.Table) or id(node) not in resolved:
                raise _Unsupported("it reads a catalog relation, a function or a subquery")
            item = resolved[id(node)]
            if item.kind not in ("table", "source"):
                raise _Unsupported(
                    f"it reads the {item.kind.replace('-', ' ')} {item.name} (inputs must be tables or sources)"
                )
            source = Input(item.id, tuple(c.name for c in item.columns), self._positions, item.name)
            self._positions += 1
            for column in item.columns:
                self._types[source.internal(column.name)] = column.type_oid
            alias = node.alias_or_name
            if alias in by_alias:
                raise _Unsupported(f"the name {alias} is used twice")
            by_alias[alias] = source
            inputs.append(source)
        self._input_items = {s.position: self._state.items[s.table_id] for s in inputs}
        return inputs, by_alias, conditions

    def _rewrite(self, node: exp.Expr, by_alias: dict[str, Input]) -> exp.Expr:
        def column(found: exp.Expr) -> exp.Expr:
            if not isinstance(found, exp.Column) or isinstance(found.this, exp.Star):
                return found
            if found.table:
                source = by_alias.get(found.table)
                if source is None or found.name not in source.columns:
                    raise _Unsupported(f"the column {found.sql()} is not a column of its inputs")
                return exp.column(source.internal(found.name))
            owners = [s for s in by_alias.values() if found.name in s.columns]
            if len(owners) != 1:
                raise _Unsupported(f"the column {found.name} is ambiguous or unknown")
            return exp.column(owners[0].internal(found.name))

        return node.copy().transform(column)

    def _check(self, node: exp.Expr) -> exp.Expr:
        why = unsupported(node, self._types)
        if why is not None:
            raise _Unsupported(f"it uses {why}")
        return node

    def _items(self, select: exp.Select, by_alias: dict[str, Input]) -> list[exp.Expr]:
        items: list[exp.Expr] = []
        for item in select.expressions:
            node = item.this if isinstance(item, exp.Alias) else item
            if isinstance(node, exp.Star) or (isinstance(node, exp.Column) and isinstance(node.this, exp.Star)):
                sources = [by_alias[node.table]] if isinstance(node, exp.Column) and node.table else by_alias.values()
                items.extend(exp.column(s.internal(c)) for s in sources for c in s.columns)
            else:
                items.append(self._rewrite(node, by_alias))
        if len(items) != len(self._item.columns):
            raise _Unsupported("its columns could not be matched to its select list")
        return items

    def _branch(self, select: exp.Select, aggregate: bool) -> tuple[Branch, Reduce | None]:
        for clause, what in (("having", "HAVING"), ("order", "ORDER BY"), ("limit", "LIMIT"), ("offset", "OFFSET")):
            if select.args.get(clause):
                raise _Unsupported(f"it uses {what}")
        distinct = select.args.get("distinct")
        if distinct is not None and distinct.args.get("on"):
            raise _Unsupported("it uses DISTINCT ON")
        inputs, by_alias, conditions = self._inputs(select)
        where = select.args.get("where")
        if where is not None:
            conditions.extend(where.this.flatten() if isinstance(where.this, exp.And) else [where.this])
        keys: list[tuple[str, str]] = []
        rest: list[exp.Expr] = []
        for condition in (self._rewrite(c, by_alias) for c in conditions):
            if isinstance(condition, exp.EQ) and all(
                isinstance(s, exp.Column) for s in (condition.left, condition.right)
            ):
                left, right = condition.left.name, condition.right.name
                if left.split("_", 1)[0] != right.split("_", 1)[0] and self._joinable(left, right):
                    keys.append((left, right))
                    continue
            rest.append(self._check(condition))
        self._connected(inputs, keys)
        predicate = exp.and_(*rest) if rest else None
        items = self._items(select, by_alias)
        group = select.args.get("group")
        has_aggregates = any(node.find(*_AGGREGATES) is not None for node in items)
        if not aggregate and (group or has_aggregates or distinct):
            raise _Unsupported("a UNION ALL branch aggregates")
        if not (group or has_aggregates or distinct):
            outputs = tuple(self._check(node) for node in items)
            return Branch(tuple(inputs), tuple(keys), predicate, outputs), None
        return self._reduce(inputs, keys, predicate, items, group, by_alias, bool(distinct))

    def _joinable(self, left: str, right: str) -> bool:
        a, b = self._types[left], self._types[right]
        return (a in INT_TYPES and b in INT_TYPES) or (a == b and a in _ORDERED_TYPES)

    def _connected(self, inputs: list[Input], keys: list[tuple[str, str]]) -> None:
        joined = {inputs[0].position}
        for source in inputs[1:]:
            prefix = f"i{source.position}_"
            linked = any(
                (a.startswith(prefix) and any(b.startswith(f"i{p}_") for p in joined))
                or (b.startswith(prefix) and any(a.startswith(f"i{p}_") for p in joined))
                for a, b in keys
            )
            if not linked:
                raise _Unsupported("it joins without an equality between columns (a cross join)")
            joined.add(source.position)

    def _reduce(
        self,
        inputs: list[Input],
        join_keys: list[tuple[str, str]],
        predicate: exp.Expr | None,
        items: list[exp.Expr],
        group: exp.Group | None,
        by_alias: dict[str, Input],
        distinct: bool,
    ) -> tuple[Branch, Reduce]:
        if distinct and any(node.find(*_AGGREGATES) is not None for node in items):
            raise _Unsupported("it uses DISTINCT with aggregates")
        group_keys = [self._group_key(g, items, by_alias) for g in (group.expressions if group else [])]
        if distinct:
            group_keys = list(items)
        keys: list[exp.Expr] = []
        for key in group_keys:
            if key not in keys:
                keys.append(self._key(key))
        aggregates: list[Aggregate] = []
        arguments: list[exp.Expr] = []
        columns: list[tuple[str, int]] = []
        for node in items:
            kind = _AGGREGATES.get(type(node))
            if kind is None:
                if node not in keys:
                    raise _Unsupported(f"the output {node.sql()} is neither a group key nor an aggregate")
                columns.append(("key", keys.index(node)))
                continue
            aggregates.append(self._aggregate(node, kind, arguments))
            columns.append(("aggregate", len(aggregates) - 1))
        reduce = Reduce(len(keys), tuple(aggregates), tuple(columns), grouped=bool(keys) or distinct)  # type: ignore[arg-type]
        return Branch(tuple(inputs), tuple(join_keys), predicate, (*keys, *arguments)), reduce

    def _group_key(self, node: exp.Expr, items: list[exp.Expr], by_alias: dict[str, Input]) -> exp.Expr:
        if isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit():
            ordinal = int(node.this)
            if not 1 <= ordinal <= len(items):
                raise _Unsupported("a GROUP BY position is out of range")
            return items[ordinal - 1]
        if (
            isinstance(node, exp.Column)
            and not node.table
            and not any(node.name in s.columns for s in by_alias.values())
        ):
            names = [c.name for c in self._item.columns]
            if node.name in names:
                return items[names.index(node.name)]
        return self._rewrite(node, by_alias)

    def _key(self, node: exp.Expr) -> exp.Expr:
        self._check(node)
        if isinstance(node, exp.Column) and self._types[node.name] not in _ORDERED_TYPES:
            raise _Unsupported(f"it groups by a column of type oid {self._types[node.name]} (equality is not exact)")
        if node.find(*_AGGREGATES) is not None:
            raise _Unsupported("it groups by an aggregate")
        return node

    def _aggregate(self, node: exp.Expr, kind: AggregateKind, arguments: list[exp.Expr]) -> Aggregate:
        if isinstance(node.this, exp.Distinct) or node.args.get("distinct"):
            raise _Unsupported(f"it uses {kind}(DISTINCT …)")
        argument = node.this
        if kind == "count" and (argument is None or isinstance(argument, exp.Star)):
            return Aggregate("count", None, 0)
        if kind == "count":
            arguments.append(self._check(argument))
            return Aggregate("count", len(arguments) - 1, 0)
        if not isinstance(argument, exp.Column):
            raise _Unsupported(f"it aggregates {kind}() over an expression (only over a column)")
        oid = self._types[argument.name]
        if kind in ("sum", "avg"):
            exact = oid in INT_TYPES or (oid == 1700 and self._decimal(argument.name))
            if not exact:
                raise _Unsupported(
                    f"it uses {kind}() over a column of type oid {oid} (only integers and numeric(p, s))"
                )
        elif oid not in _ORDERED_TYPES:
            raise _Unsupported(f"it uses {kind}() over a column of type oid {oid}")
        arguments.append(argument)
        return Aggregate(kind, len(arguments) - 1, oid)

    def _decimal(self, internal: str) -> bool:
        position, column = internal[1:].split("_", 1)
        item = self._input_items[int(position)]
        found = next(c for c in item.columns if c.name == column)
        return bool(pa.types.is_decimal(arrow_type_for_pg(found.type_oid, found.typmod)))
