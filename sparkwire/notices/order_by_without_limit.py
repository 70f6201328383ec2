"""OrderByWithoutLimit: ORDER BY without LIMIT in a view definition or a subquery.

A view, a materialized view or a subquery is a set: the order of its rows is not kept by whatever reads it, so
the ORDER BY has no visible effect. Spark still executes it as a global sort, which shuffles every row into
range partitions each time the result is computed. Only the outermost ORDER BY of a SELECT orders what a
client sees; an ORDER BY with LIMIT/FETCH/OFFSET picks rows and is meaningful.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from sqlglot import exp

from sparkwire.notices.base import ActionType, Names
from sparkwire.notices.query import QueryInput
from sparkwire.notices.sqltext import show


@dataclass(frozen=True, slots=True)
class OrderByWithoutLimit:
    notice_type: ClassVar[str] = "ORDER BY without LIMIT"
    kind: ClassVar[str] = "order_by_without_limit"
    action_type: ClassVar[ActionType | None] = ActionType.PLAIN_TEXT

    order: exp.Order

    def message(self, names: Names, redacted: bool) -> str:
        return (
            f"`{show(self.order, redacted)}` without LIMIT in a view or subquery does not order the rows its "
            "readers see, but Spark still sorts them with a full shuffle."
        )

    def hint(self, names: Names, redacted: bool) -> str:
        return "Order the outermost query that reads the rows instead, or add a LIMIT if you want the first rows."

    def action(self, names: Names, redacted: bool) -> str | None:
        return "Remove the ORDER BY clause from the definition and re-create the object."

    def dependencies(self) -> tuple[str, ...]:
        return ()


def _unlimited_order(query: exp.Expr) -> exp.Order | None:
    order = query.args.get("order")
    if not isinstance(order, exp.Order) or any(query.args.get(k) for k in ("limit", "fetch", "offset")):
        return None
    return order


def detect(source: QueryInput) -> list[OrderByWithoutLimit]:
    root = source.normalized
    queries = [q for q in root.find_all(exp.Query) if q is not root or source.is_definition]
    return [OrderByWithoutLimit(order) for q in queries if (order := _unlimited_order(q)) is not None]
