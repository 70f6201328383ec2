"""PostgreSQL's words for catalog objects and the errors about them, in one place.

Contract: pure functions from object kinds and names to nouns ("materialized view"), descriptions ("view v")
and the `PgError` PostgreSQL raises for a duplicate or missing name, with its wording (`relation "t" already
exists`).
"""

from __future__ import annotations

from dataclasses import dataclass

from sparkwire.catalog.objects import RELATION_KINDS, ObjectRef
from sparkwire.errors import (
    DuplicateDatabase,
    DuplicateFunction,
    DuplicateObject,
    DuplicateSchema,
    DuplicateTable,
    PgError,
    UndefinedFunction,
    UndefinedObject,
    UndefinedTable,
)

_NOUNS: dict[str, str] = {
    "materialized-view": "materialized view",
    "func": "function",
}


def noun(kind: str) -> str:
    """The word PostgreSQL/Materialize uses for an item kind: "table", "materialized view", "function", …"""
    return _NOUNS.get(kind, kind)


def with_article(word: str) -> str:
    """ "a table", "an index"."""
    return f"an {word}" if word[0] in "aeiou" else f"a {word}"


def namespace_noun(kind: str) -> str:
    """The noun used in "already exists" / "does not exist" messages: every relation kind is a "relation"."""
    return "relation" if kind in RELATION_KINDS else noun(kind)


def duplicate_item(kind: str, name: str) -> PgError:
    message = f'{namespace_noun(kind)} "{name}" already exists'
    if kind in RELATION_KINDS:
        return DuplicateTable(message)
    if kind == "func":
        return DuplicateFunction(message)
    return DuplicateObject(message)


def undefined_item(kind: str | None, name: str) -> PgError:
    """`relation "s.t" does not exist` (kind None means any relation)."""
    if kind is None or kind in RELATION_KINDS:
        return UndefinedTable(f'relation "{name}" does not exist')
    if kind == "func":
        return UndefinedFunction(f'function "{name}" does not exist')
    return UndefinedObject(f'{noun(kind)} "{name}" does not exist')


@dataclass(frozen=True, slots=True)
class AlreadyExists:
    """A create op whose name is taken: an error, or with IF NOT EXISTS a NOTICE (`notice_message`)."""

    kind: str  # "database", "schema" or an item kind
    name: str
    existing: ObjectRef

    @property
    def message(self) -> str:
        return f'{namespace_noun(self.kind)} "{self.name}" already exists'

    @property
    def notice_message(self) -> str:
        return f"{self.message}, skipping"

    def error(self) -> PgError:
        if self.kind == "database":
            return DuplicateDatabase(self.message)
        if self.kind == "schema":
            return DuplicateSchema(self.message)
        return duplicate_item(self.kind, self.name)
