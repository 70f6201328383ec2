"""The notice interface: what every optimizer notice type implements, and the name resolver it renders with.

Contract: a *raw* notice is what a detection pass emits. It is a frozen dataclass holding catalog ids and
sqlglot expressions (literal values included), never names or rendered text, and it implements `RawNotice`:
class attributes `notice_type` (the human name stored in mz_optimizer_notices.notice_type), `kind` (the snake
name used by `SET enable_notices_for_<kind>` and by the docs page `docs/notices/<kind>.md`) and `action_type`
(`ActionType` or None); methods `message`, `hint`, `action` (None when the type has no action) and
`dependencies` (the catalog ids that must exist for the notice to stay valid). Every text method takes a
`Names` (catalog ids -> names, from the `CatalogState` the notice is rendered against) and `redacted`: when
True, every literal is written as █ (U+2588); names are never redacted. Rendering into the stored form lives
in `sparkwire.notices.render`.
"""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar, Protocol

from sparkwire.catalog.objects import Item
from sparkwire.catalog.state import CatalogState

DOCS_DIR = "docs/notices"


class ActionType(StrEnum):
    """How to read a notice's action: a runnable SQL snippet or plain (markdown) text."""

    SQL_STATEMENTS = "sql_statements"
    PLAIN_TEXT = "plain_text"


class Names:
    """Catalog ids -> the names notices print, resolved against one `CatalogState`."""

    def __init__(self, state: CatalogState) -> None:
        self.state = state

    def item(self, item_id: str) -> Item:
        return self.state.items[item_id]

    def qualified(self, item_id: str) -> str:
        """`materialize.public.t_idx2`."""
        return self.state.qualified_name(self.state.items[item_id])

    def unqualified(self, item_id: str) -> str:
        return self.state.items[item_id].name


class RawNotice(Protocol):
    """One notice as a detection pass emits it (see the module docstring)."""

    notice_type: ClassVar[str]
    kind: ClassVar[str]
    action_type: ClassVar[ActionType | None]

    def message(self, names: Names, redacted: bool) -> str: ...

    def hint(self, names: Names, redacted: bool) -> str: ...

    def action(self, names: Names, redacted: bool) -> str | None: ...

    def dependencies(self) -> tuple[str, ...]: ...


def docs_path(kind: str) -> str:
    """The docs page of a notice kind, relative to the repository root."""
    return f"{DOCS_DIR}/{kind}.md"
