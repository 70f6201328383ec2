"""EqualsNull: `=`, `<>` or `!=` against a literal NULL, also through IN, NOT IN and NULLIF.

A comparison with NULL is NULL whatever the other side is, so `x = NULL` never matches a row, `x NOT IN (1,
NULL)` never matches a row either, and `NULLIF(x, NULL)` is just `x`. The author almost always meant
`IS NULL` / `IS NOT NULL`. Reported once per query.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from sqlglot import exp

from sparkwire.notices.base import ActionType, Names
from sparkwire.notices.query import QueryInput


@dataclass(frozen=True, slots=True)
class EqualsNull:
    notice_type: ClassVar[str] = "Comparison with NULL"
    kind: ClassVar[str] = "equals_null"
    action_type: ClassVar[ActionType | None] = None

    def message(self, names: Names, redacted: bool) -> str:
        return "Comparison with NULL using `=`, `<>`, or `!=` always evaluates to NULL."

    def hint(self, names: Names, redacted: bool) -> str:
        return "Use `IS NULL` or `IS NOT NULL` instead."

    def action(self, names: Names, redacted: bool) -> str | None:
        return None

    def dependencies(self) -> tuple[str, ...]:
        return ()


def _is_null(node: exp.Expr) -> bool:
    return isinstance(node, exp.Null) or (isinstance(node, exp.Paren) and _is_null(node.this))


def _compares_with_null(node: exp.Expr) -> bool:
    if isinstance(node, exp.EQ | exp.NEQ | exp.Nullif):
        return _is_null(node.this) or _is_null(node.expression)
    if isinstance(node, exp.In):
        return any(_is_null(value) for value in node.expressions)
    return False


def detect(source: QueryInput) -> list[EqualsNull]:
    return [EqualsNull()] if any(_compares_with_null(n) for n in source.normalized.walk()) else []
