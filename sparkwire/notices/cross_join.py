"""CrossJoin: a join stage without an equality key.

Spark can only hash- or sort-merge-join on equality keys. A relation joined without any equality to the
relations before it (a CROSS JOIN, a comma join without a connecting WHERE equality, or a join on `<`, `>`,
`<>`… only) is executed as a cartesian product or a broadcast nested loop join: its cost grows with the
product of the input sizes and the join cannot be partitioned. Inner-join equalities are gathered from the
WHERE clause and every ON clause, so a comma join connected later in the WHERE clause is not reported (Spark
reorders such joins); `USING` and `NATURAL` joins have equality keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from sqlglot import exp

from sparkwire.notices.base import ActionType, Names
from sparkwire.notices.query import QueryInput, Scope, conjuncts


@dataclass(frozen=True, slots=True)
class CrossJoin:
    notice_type: ClassVar[str] = "Cross join"
    kind: ClassVar[str] = "cross_join"
    action_type: ClassVar[ActionType | None] = ActionType.PLAIN_TEXT

    item_id: str | None  # the relation joined without a key (None for a subquery)
    alias: str
    dependency_ids: tuple[str, ...]

    def _joined(self, names: Names) -> str:
        if self.item_id is None:
            return f"subquery {self.alias}"
        name = names.qualified(self.item_id)
        return name if self.alias == names.unqualified(self.item_id) else f"{name} AS {self.alias}"

    def message(self, names: Names, redacted: bool) -> str:
        return (
            f"The join with {self._joined(names)} has no equality condition on the relations joined before it, "
            "so it runs as a cartesian product (a broadcast nested loop join on Spark)."
        )

    def hint(self, names: Names, redacted: bool) -> str:
        return (
            "A cross join's cost grows with the product of its input sizes and it cannot be partitioned. "
            "Join on an equality between the relations if there is one; otherwise shrink the inputs first."
        )

    def action(self, names: Names, redacted: bool) -> str | None:
        return f"Add an equality condition between {self._joined(names)} and the relations joined before it."

    def dependencies(self) -> tuple[str, ...]:
        return self.dependency_ids


def _linked(scope: Scope) -> list[set[int]]:
    """Groups of relation positions connected by equality keys (union-find over the scope's equalities)."""
    parent = list(range(len(scope.relations)))

    def find(p: int) -> int:
        while parent[p] != p:
            p = parent[p]
        return p

    def link(group: frozenset[int]) -> None:
        first, *others = sorted(group)
        for other in others:
            parent[find(other)] = find(first)

    conditions = list(scope.where)
    for position, join in enumerate(scope.joins, start=1):
        conditions.extend(conjuncts(join.args.get("on")))
        if join.args.get("using") or join.args.get("method") == "NATURAL":
            link(frozenset(range(position + 1)))
    for condition in conditions:
        if not isinstance(condition, exp.EQ):
            continue
        left, right = scope.relations_of(condition.this), scope.relations_of(condition.expression)
        if left and right and not left & right:
            link(left | right)
    groups: dict[int, set[int]] = {}
    for position in range(len(parent)):
        groups.setdefault(find(position), set()).add(position)
    return list(groups.values())


def detect(source: QueryInput) -> list[CrossJoin]:
    found = []
    for scope in source.scopes:
        if len(scope.relations) < 2:
            continue
        group_of = {p: min(group) for group in _linked(scope) for p in group}
        for relation in scope.relations[1:]:
            if group_of[relation.position] != relation.position:
                continue  # linked to an earlier relation
            involved = scope.relations[: relation.position + 1]
            deps = tuple(dict.fromkeys(r.item.id for r in involved if r.item is not None))
            item_id = None if relation.item is None else relation.item.id
            found.append(CrossJoin(item_id, relation.alias, deps))
    return found
