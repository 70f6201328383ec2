"""IndexKeyEmpty: `CREATE INDEX … ON t ()`.

An index with an empty key puts every row under one key: all of it lands in one partition (one worker thread
in Materialize, one Spark task), so the index cannot be used for lookups and skews its cluster.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from sparkwire.notices.base import ActionType, Names
from sparkwire.notices.query import IndexInput


@dataclass(frozen=True, slots=True)
class IndexKeyEmpty:
    notice_type: ClassVar[str] = "Empty index key"
    kind: ClassVar[str] = "index_key_empty"
    action_type: ClassVar[ActionType | None] = ActionType.PLAIN_TEXT

    index_id: str

    def message(self, names: Names, redacted: bool) -> str:
        return (
            "Empty index key. The index will be completely skewed to one worker thread, "
            "which can lead to performance problems."
        )

    def hint(self, names: Names, redacted: bool) -> str:
        return (
            "CREATE DEFAULT INDEX is almost always better than an index with an empty key. "
            "(Except for cross joins with big inputs, which are better to avoid anyway.)"
        )

    def action(self, names: Names, redacted: bool) -> str | None:
        return "Drop the enclosing index and re-create it using `CREATE DEFAULT INDEX ON` instead."

    def dependencies(self) -> tuple[str, ...]:
        return ()


def detect(source: IndexInput) -> list[IndexKeyEmpty]:
    index = source.index
    return [IndexKeyEmpty(index.id)] if not index.keys and not index.is_default_index else []
