"""IndexAlreadyExists: a new index whose key list equals an existing index's on the same relation.

Two identical indexes hold the same data twice (memory in Materialize, cache and build time on Spark) and the
second one is never preferred over the first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from sparkwire.notices.base import ActionType, Names
from sparkwire.notices.query import IndexInput, index_key_exprs, index_key_keys, indexes_on
from sparkwire.notices.sqltext import show_list


@dataclass(frozen=True, slots=True)
class IndexAlreadyExists:
    notice_type: ClassVar[str] = "An identical index already exists"
    kind: ClassVar[str] = "index_already_exists"
    action_type: ClassVar[ActionType | None] = None

    index_id: str
    existing_id: str
    on_id: str

    def _on(self, names: Names, redacted: bool) -> str:
        keys = show_list(index_key_exprs(names.item(self.existing_id)), redacted)
        return f"{names.unqualified(self.on_id)}({keys})"

    def message(self, names: Names, redacted: bool) -> str:
        return (
            f"Index {names.qualified(self.index_id)} is identical to {names.qualified(self.existing_id)}, "
            f"which is also defined on {self._on(names, redacted)}."
        )

    def hint(self, names: Names, redacted: bool) -> str:
        return (
            f"Please drop all indexes except the first index created on {self._on(names, redacted)} "
            "and recreate all dependent objects."
        )

    def action(self, names: Names, redacted: bool) -> str | None:
        return None

    def dependencies(self) -> tuple[str, ...]:
        return (self.existing_id, self.on_id)


def detect(source: IndexInput) -> list[IndexAlreadyExists]:
    index = source.index
    if index.on_id is None:
        return []
    keys = (index.is_default_index, index_key_keys(index))
    for other in indexes_on(source.state, index.on_id):
        if other.oid < index.oid and (other.is_default_index, index_key_keys(other)) == keys:
            return [IndexAlreadyExists(index.id, other.id, index.on_id)]
    return []
