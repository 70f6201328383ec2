"""IndexTooWideForLiteralConstraints: literal equalities bind some but not all key columns of an index.

An index lookup needs a value for every key expression. When a view or query filters a relation with literal
equalities (`x = 5`) that cover only part of an index's key (`(x, y)`), and no index has a key made only of
constrained expressions, the lookup is impossible and the whole relation is scanned. An index whose key
exactly matches the literal equalities turns the scan into a point lookup.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from sqlglot import exp

from sparkwire.notices.base import ActionType, Names
from sparkwire.notices.query import QueryInput, Row, index_key_exprs, unserved_lookups
from sparkwire.notices.sqltext import show, show_list


@dataclass(frozen=True, slots=True)
class IndexTooWideForLiteralConstraints:
    notice_type: ClassVar[str] = "Index too wide for literal constraints"
    kind: ClassVar[str] = "index_too_wide_for_literal_constraints"
    action_type: ClassVar[ActionType | None] = ActionType.SQL_STATEMENTS

    index_id: str
    on_id: str
    usable: tuple[exp.Expr, ...]  # the constrained expressions that are in the index key, in key order
    values: tuple[Row, ...]  # the literal rows, projected on `usable`
    recommended_key: tuple[exp.Expr, ...]

    def message(self, names: Names, redacted: bool) -> str:
        keys = show_list(index_key_exprs(names.item(self.index_id)), redacted)
        return (
            f"Index {names.qualified(self.index_id)} on {names.unqualified(self.on_id)}({keys}) "
            f"is too wide to use for literal equalities `{self._equalities(redacted)}`."
        )

    def _equalities(self, redacted: bool) -> str:
        if len(self.usable) == 1:
            column = show(self.usable[0], redacted)
            if len(self.values) == 1:
                return f"{column} = {show(self.values[0][0], redacted)}"
            return f"{column} IN ({', '.join(show(row[0], redacted) for row in self.values)})"
        if len(self.values) == 1:
            pairs = zip(self.usable, self.values[0], strict=True)
            return " AND ".join(f"{show(e, redacted)} = {show(v, redacted)}" for e, v in pairs)
        rows = ", ".join(f"({show_list(row, redacted)})" for row in self.values)
        return f"({show_list(self.usable, redacted)}) IN ({rows})"

    def hint(self, names: Names, redacted: bool) -> str:
        return (
            "If your literal equalities filter out many rows, create an index whose key exactly matches your "
            f"literal equalities: ({show_list(self.recommended_key, redacted)})."
        )

    def action(self, names: Names, redacted: bool) -> str | None:
        return f"CREATE INDEX ON {names.unqualified(self.on_id)}({show_list(self.recommended_key, redacted)});"

    def dependencies(self) -> tuple[str, ...]:
        return (self.index_id, self.on_id)


def detect(source: QueryInput) -> list[IndexTooWideForLiteralConstraints]:
    found = []
    for lookup in unserved_lookups(source):
        constraints = lookup.constraints
        bound = set(constraints.keys)
        wide = [(index, keys) for index, keys in lookup.indexes if bound & set(keys)]
        if not wide:
            continue
        index, keys = max(wide, key=lambda pair: (len(bound & set(pair[1])), -len(pair[1]), -pair[0].oid))
        positions = [constraints.keys.index(k) for k in keys if k in bound]
        values = dict.fromkeys(tuple(row[p] for p in positions) for row in constraints.rows)
        rest = [p for p in range(len(constraints.keys)) if p not in positions]
        found.append(
            IndexTooWideForLiteralConstraints(
                index_id=index.id,
                on_id=lookup.item.id,
                usable=tuple(constraints.exprs[p] for p in positions),
                values=tuple(values),
                recommended_key=tuple(constraints.exprs[p] for p in positions + rest),
            )
        )
    return found
