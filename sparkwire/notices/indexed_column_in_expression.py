"""IndexedColumnInExpression: a literal equality on a function of an indexed column (`lower(x) = 'a'`).

An index on `t(x)` is looked up by values of `x`. Wrapping the column in a function or cast hides it from the
lookup: Spark cannot use the index (nor partition pruning or pushed-down filters on `x`) and scans every row of
`t`, evaluating the function on each. Reported when an index has the bare column in its key, no index has the
expression in its key, and no index serves the query's literal equalities exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from sqlglot import exp

from sparkwire.notices.base import ActionType, Names
from sparkwire.notices.query import QueryInput, index_key_exprs, unserved_lookups
from sparkwire.notices.sqltext import expression_key, show, show_list


@dataclass(frozen=True, slots=True)
class IndexedColumnInExpression:
    notice_type: ClassVar[str] = "Indexed column wrapped in an expression"
    kind: ClassVar[str] = "indexed_column_in_expression"
    action_type: ClassVar[ActionType | None] = ActionType.SQL_STATEMENTS

    index_id: str
    on_id: str
    expression: exp.Expr
    column: exp.Expr
    values: tuple[exp.Expr, ...]

    def message(self, names: Names, redacted: bool) -> str:
        keys = show_list(index_key_exprs(names.item(self.index_id)), redacted)
        shown = show(self.expression, redacted)
        if len(self.values) == 1:
            equality = f"{shown} = {show(self.values[0], redacted)}"
        else:
            equality = f"{shown} IN ({show_list(self.values, redacted)})"
        return (
            f"Index {names.qualified(self.index_id)} on {names.unqualified(self.on_id)}({keys}) cannot be used for "
            f"the literal equality `{equality}` because it wraps the indexed column {show(self.column, redacted)} "
            "in an expression."
        )

    def hint(self, names: Names, redacted: bool) -> str:
        return (
            "Compare the indexed column itself, or create an index on the expression: "
            f"({show(self.expression, redacted)})."
        )

    def action(self, names: Names, redacted: bool) -> str | None:
        return f"CREATE INDEX ON {names.unqualified(self.on_id)}({show(self.expression, redacted)});"

    def dependencies(self) -> tuple[str, ...]:
        return (self.index_id, self.on_id)


def detect(source: QueryInput) -> list[IndexedColumnInExpression]:
    found = []
    for lookup in unserved_lookups(source):
        constraints = lookup.constraints
        indexed = {k for _, keys in lookup.indexes for k in keys}
        for position, (expression, key) in enumerate(zip(constraints.exprs, constraints.keys, strict=True)):
            columns = list(expression.find_all(exp.Column))
            if isinstance(expression, exp.Column) or len(columns) != 1 or key in indexed:
                continue
            column_key = expression_key(columns[0])
            index = next((index for index, keys in lookup.indexes if column_key in keys), None)
            if index is None:
                continue
            values = tuple(dict.fromkeys(row[position] for row in constraints.rows))
            found.append(IndexedColumnInExpression(index.id, lookup.item.id, expression, columns[0], values))
    return found
