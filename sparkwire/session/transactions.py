"""The transaction state machine of one session, mapped onto the session's storage write transaction.

States: idle (autocommit: each statement its own engine transaction), implicit (a multi-statement simple query
or an extended-protocol sequence up to Sync: one transaction, opened lazily at the first write so that
read-only round trips cost no BEGIN/COMMIT), explicit (BEGIN … COMMIT/ROLLBACK) and explicit-failed ('E':
after an error only ROLLBACK, ROLLBACK TO or COMMIT-which-rolls-back are accepted; the session enforces that).

Savepoints by replay: the engine has no savepoints, and an engine error may abort its whole transaction. So the
session records every successful write of an open block as a replayable action (`record`), and a savepoint
remembers how many had been recorded. ROLLBACK TO rolls the engine transaction back, begins a new one and
replays the writes made before the savepoint: the writes after it are undone and the transaction is usable
again, as in PostgreSQL. The replay runs on a newer snapshot, so a write whose outcome depends on data other
sessions committed meanwhile (or on now()/random()) may differ from the original; if a replayed write fails,
ROLLBACK TO fails and the transaction stays failed. RELEASE pops the savepoint and those after it.

Schema changes: `ddl_executed()` bumps the process-wide `SchemaGeneration` at once and again when the block ends
or rolls back to a savepoint (see schema_generation.py).

`end(committed)` closes the engine transaction and returns True when a transaction block ended (the session
then ends SET LOCAL values and non-holdable cursors).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from sparkwire import errors as e
from sparkwire.api import TransactionStatus
from sparkwire.session.schema_generation import SchemaGeneration

Replay = Callable[[], object]


class EngineTransaction(Protocol):
    """What a block maps onto: the session's storage write transaction (planner/execute/write_txn.py)."""

    def begin(self) -> None: ...
    def commit(self) -> None: ...
    def rollback(self) -> None: ...


@dataclass(frozen=True, slots=True)
class _Savepoint:
    name: str
    writes: int  # how many recorded writes precede it


class Transactions:
    def __init__(self, engine: EngineTransaction, schema: SchemaGeneration) -> None:
        self._engine = engine
        self._schema = schema
        self._ran_ddl = False  # this block executed DDL: its end changes what other sessions see
        self.mode = "idle"  # "idle" | "implicit" | "explicit"
        self.failed = False
        self._engine_open = False
        self._savepoints: list[_Savepoint] = []
        self._writes: list[Replay] = []
        self.started_at: dt.datetime | None = None  # when the open block began: now() in it; None when idle

    @property
    def status(self) -> TransactionStatus:
        if self.mode != "explicit":
            return "I"
        return "E" if self.failed else "T"

    @property
    def in_block(self) -> bool:
        return self.mode == "explicit"

    @property
    def holds_snapshot(self) -> bool:
        """The engine transaction of a block is open: reads see the engine as of its start (and its writes)."""
        return self._engine_open

    @property
    def in_transaction(self) -> bool:
        """Inside a transaction that SET values would be rolled back with."""
        return self.mode != "idle"

    def start_implicit(self) -> None:
        if self.mode == "idle":
            self.mode = "implicit"
            self.started_at = dt.datetime.now(dt.UTC)

    def before_write(self) -> None:
        """A statement that may write is about to run: open the engine transaction of the block if needed."""
        if self.mode != "idle" and not self._engine_open:
            self._engine.begin()
            self._engine_open = True

    def record(self, replay: Replay) -> None:
        """A write succeeded inside a block: keep how to redo it, for ROLLBACK TO SAVEPOINT."""
        if self.mode != "idle":
            self._writes.append(replay)

    def begin(self) -> None:
        """BEGIN: an implicit block becomes explicit (PostgreSQL folds earlier statements in)."""
        if self.mode == "idle" or not self._engine_open:
            self._engine.begin()
            self._engine_open = True
        if self.mode == "idle":
            self.started_at = dt.datetime.now(dt.UTC)
        self.mode = "explicit"

    def end(self, committed: bool) -> bool:
        """Commit (or roll back) and return to idle; True if a block (implicit or explicit) was open."""
        was_open = self.mode != "idle"
        engine_open, self._engine_open = self._engine_open, False
        self.mode = "idle"
        self.started_at = None
        self.failed = False
        self._savepoints.clear()
        self._writes.clear()
        try:
            if engine_open:
                if committed:
                    self._engine.commit()
                else:
                    self._engine.rollback()
        finally:
            if self._ran_ddl:
                self._ran_ddl = False
                self._schema.bump()
        return was_open

    def ddl_executed(self) -> None:
        """A DDL statement ran: cached plans everywhere may be stale now, and again when this block ends."""
        self._schema.bump()
        if self.mode != "idle":
            self._ran_ddl = True

    def fail(self) -> None:
        """An error happened: an explicit block goes to 'E'; an implicit block rolls back at once."""
        if self.mode == "explicit":
            self.failed = True
        elif self.mode == "implicit":
            self.end(committed=False)

    # ---- savepoints ---------------------------------------------------------------------------------------

    def savepoint(self, name: str) -> None:
        if self.mode != "explicit":
            raise e.NoActiveSqlTransaction("SAVEPOINT can only be used in transaction blocks")
        self._savepoints.append(_Savepoint(name, len(self._writes)))

    def _find(self, name: str) -> int:
        for i in range(len(self._savepoints) - 1, -1, -1):
            if self._savepoints[i].name == name:
                return i
        raise e.InvalidSavepointSpecification(f'savepoint "{name}" does not exist')

    def release(self, name: str) -> None:
        if self.mode != "explicit":
            raise e.NoActiveSqlTransaction("RELEASE SAVEPOINT can only be used in transaction blocks")
        del self._savepoints[self._find(name) :]

    def rollback_to(self, name: str) -> None:
        if self.mode != "explicit":
            raise e.NoActiveSqlTransaction("ROLLBACK TO SAVEPOINT can only be used in transaction blocks")
        index = self._find(name)
        savepoint = self._savepoints[index]
        self.failed = True  # until the replay has succeeded
        if self._ran_ddl:
            self._schema.bump()  # DDL after the savepoint is undone (and earlier DDL replayed)
        self._engine.rollback()
        self._engine.begin()
        self._engine_open = True
        del self._writes[savepoint.writes :]
        for replay in self._writes:
            replay()
        del self._savepoints[index + 1 :]
        self.failed = False
