"""JoinKeyTypeMismatch: an equality join between columns of different types (`a.id = b.id_text`).

To compare an `integer` column with a `text` one (or `numeric` with `double precision`, `date` with
`timestamp`…) Spark inserts an implicit cast on one join key. The cast runs on every row, hides the key from
the input's partitioning and bucketing (forcing a shuffle that matching types would avoid) and can make values
that look equal never match (`'01'` vs `1`, float rounding). Integers of different widths and the string types
are each one family: Spark widens those without changing values, so they are not reported.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from sqlglot import exp

from sparkwire.catalog.objects import Item
from sparkwire.notices.base import ActionType, Names
from sparkwire.notices.query import QueryInput, Scope, conjuncts
from sparkwire.pgtypes.registry import type_by_oid

INTEGERS = frozenset({20, 21, 23})


@dataclass(frozen=True, slots=True)
class JoinKeyTypeMismatch:
    notice_type: ClassVar[str] = "Join key type mismatch"
    kind: ClassVar[str] = "join_key_type_mismatch"
    action_type: ClassVar[ActionType | None] = ActionType.PLAIN_TEXT

    left_id: str
    left_column: str
    right_id: str
    right_column: str

    def _side(self, names: Names, item_id: str, column: str) -> tuple[str, str]:
        found = next(c for c in names.item(item_id).columns if c.name == column)
        return f"{names.qualified(item_id)}.{column}", type_by_oid(found.type_oid).display

    def _sides(self, names: Names) -> tuple[tuple[str, str], tuple[str, str]]:
        return self._side(names, self.left_id, self.left_column), self._side(names, self.right_id, self.right_column)

    def message(self, names: Names, redacted: bool) -> str:
        (left, left_type), (right, right_type) = self._sides(names)
        return (
            f"The join key {left} ({left_type}) is compared with {right} ({right_type}), so Spark casts one side "
            "on every row before it can join them."
        )

    def hint(self, names: Names, redacted: bool) -> str:
        return (
            "The cast hides the key from how the inputs are partitioned, which forces a shuffle, and values that "
            "look equal may not match after it. Join on columns of the same type."
        )

    def action(self, names: Names, redacted: bool) -> str | None:
        (left, left_type), (right, right_type) = self._sides(names)
        return f"Change the type of {right} to {left_type} or of {left} to {right_type}, so both join keys match."

    def dependencies(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((self.left_id, self.right_id)))


def _family(type_oid: int) -> str:
    if type_oid in INTEGERS:
        return "integer"
    return "string" if type_by_oid(type_oid).category == "S" else str(type_oid)


def _typed(scope: Scope, node: exp.Expr) -> tuple[Item, str, int] | None:
    """A column reference as (item, column name, type OID), or None if it is not a resolvable catalog column."""
    if not isinstance(node, exp.Column):
        return None
    relation = scope.owner(node)
    if relation is None or relation.item is None:
        return None
    column = next((c for c in relation.item.columns if c.name == node.name), None)
    return None if column is None else (relation.item, column.name, column.type_oid)


def detect(source: QueryInput) -> list[JoinKeyTypeMismatch]:
    found = []
    for scope in source.scopes:
        if len(scope.relations) < 2:
            continue
        conditions = list(scope.where)
        for join in scope.joins:
            conditions.extend(conjuncts(join.args.get("on")))
        for condition in conditions:
            if not isinstance(condition, exp.EQ):
                continue
            left, right = _typed(scope, condition.this), _typed(scope, condition.expression)
            if left is None or right is None or scope.owner(condition.this) == scope.owner(condition.expression):
                continue
            if _family(left[2]) != _family(right[2]):
                found.append(JoinKeyTypeMismatch(left[0].id, left[1], right[0].id, right[1]))
    return found
