"""The analyzed shape of a view's query that pg_get_viewdef prints: range table entries, targets, sort keys, FROM
items (relations, subqueries, joins, each with the columns `*` expands to) and SELECT / set-operation levels — the
part of PostgreSQL's Query tree that ruleutils.c reads. Built by `deparse._Analyzer`, printed by
`deparse_print.Printer`; frozen dataclasses, nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass

from sparkwire.catalog.relations.deparse_nodes import Node, Var


@dataclass(frozen=True, slots=True)
class Rte:
    refname: str
    columns: tuple[tuple[str, int], ...]  # (name, type OID)


@dataclass(frozen=True, slots=True)
class Target:
    node: Node
    name: str | None  # None: printed without AS (an unnamed column of a subquery in an expression)


@dataclass(frozen=True, slots=True)
class Sort:
    node: Node
    desc: bool
    nulls_first: bool


Columns = tuple[tuple[str, Var], ...]  # a FROM item's columns as `*` expands them


@dataclass(frozen=True, slots=True)
class FromRelation:
    sql: str
    alias: str | None
    columns: Columns


@dataclass(frozen=True, slots=True)
class FromSubquery:
    query: Query
    alias: str
    columns: Columns


@dataclass(frozen=True, slots=True)
class FromJoin:
    kind: str  # JOIN, LEFT JOIN, RIGHT JOIN, FULL JOIN, CROSS JOIN
    left: FromItem
    right: FromItem
    on: Node | None
    using: tuple[str, ...]
    columns: Columns


FromItem = FromRelation | FromSubquery | FromJoin


@dataclass(frozen=True, slots=True)
class SelectQuery:
    distinct: bool
    targets: tuple[Target, ...]
    from_items: tuple[FromItem, ...]
    where: Node | None
    group: tuple[Node, ...]
    having: Node | None
    order: tuple[Sort, ...]
    offset: Node | None
    limit: Node | None


@dataclass(frozen=True, slots=True)
class SetOpQuery:
    op: str
    all: bool
    left: Query
    right: Query


Query = SelectQuery | SetOpQuery
