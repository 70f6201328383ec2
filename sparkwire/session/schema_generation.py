"""A process-wide count of schema changes, so that every session knows when its cached plans may be stale.

Plans embed what name resolution saw when they were made: parameter types inferred from table columns, result
fields, the translated SQL. A session caches plans by SQL text and prepared statements keep theirs, so a DDL
statement in one session must invalidate what every other session cached. The rule: `bump()` when DDL executes,
and again when a transaction that executed DDL ends (commit or rollback) or rolls back to a savepoint — the moments
at which what other sessions can see changes. A session compares `value` with the generation its cache was built
at and re-plans when they differ. Bumping too often only costs a re-plan; missing a bump would serve wrong plans.
"""

from __future__ import annotations

import threading


class SchemaGeneration:
    def __init__(self) -> None:
        self._value = 0
        self._lock = threading.Lock()

    @property
    def value(self) -> int:
        return self._value

    def bump(self) -> None:
        with self._lock:
            self._value += 1
