"""Transaction control statements and the transaction rules every other statement checks.

Contract: `TransactionControl.run(stmt)` executes BEGIN / START TRANSACTION (isolation and access mode into the
transaction_* variables; inside a block: WARNING 25001 and nothing else), COMMIT / ROLLBACK (outside a block:
WARNING 25P01; a COMMIT of a failed block rolls back and says ROLLBACK), SAVEPOINT, RELEASE and ROLLBACK TO over
the session's `Transactions` (transactions.py). `end(committed)` ends the current transaction: storage commit or
abort, transaction-scoped variables settled, and every portal closed but WITH HOLD cursors. `check_not_failed(plan)`
is 25P02 for anything but COMMIT / ROLLBACK / ROLLBACK TO in a failed block; `check_writable(verb)` is 25006 in a
read-only transaction (or session default).
"""

from __future__ import annotations

from sparkwire import errors as e
from sparkwire.api import CommandComplete, Result
from sparkwire.planner.grammar import utility as u
from sparkwire.planner.planning.plan import Plan
from sparkwire.session.lifecycle import Lifecycle
from sparkwire.session.state import SessionState


class TransactionControl:
    def __init__(self, state: SessionState, life: Lifecycle) -> None:
        self._s = state
        self._life = life

    def check_not_failed(self, plan: Plan) -> None:
        if self._s.tx.failed and not isinstance(plan.utility, u.TRANSACTION_CONTROL):
            raise e.InFailedSqlTransaction(
                "current transaction is aborted, commands ignored until end of transaction block"
            )

    def check_writable(self, verb: str) -> None:
        variables, tx = self._s.vars, self._s.tx
        read_only = variables.get("transaction_read_only" if tx.in_block else "default_transaction_read_only")
        if read_only == "on":
            raise e.ReadOnlySqlTransaction(f"cannot execute {verb} in a read-only transaction")

    def end(self, committed: bool) -> None:
        try:
            self._life.prepare_engine()
            self._s.tx.end(committed)
        finally:
            self._s.vars.end_transaction(committed)
            self._s.close_portals(keep_held=True)

    def run(self, stmt: u.Utility) -> Result:
        tx, life, variables = self._s.tx, self._life, self._s.vars
        match stmt:
            case u.Begin(isolation=isolation, read_only=read_only, tag=tag):
                if tx.in_block:
                    life.notify("there is already a transaction in progress", sqlstate="25001")
                    return CommandComplete(tag)
                life.prepare_engine()
                with life.running():
                    tx.begin()
                default_ro = variables.get("default_transaction_read_only")
                variables.set_internal(
                    "transaction_isolation", isolation or variables.get("default_transaction_isolation")
                )
                ro = default_ro if read_only is None else ("on" if read_only else "off")
                variables.set_internal("transaction_read_only", ro)
                return CommandComplete(tag)
            case u.Commit() | u.Rollback():
                verb = "COMMIT" if isinstance(stmt, u.Commit) else "ROLLBACK"
                if not tx.in_block:
                    life.notify("there is no transaction in progress", sqlstate="25P01")
                    if tx.mode == "implicit":
                        self.end(committed=verb == "COMMIT")
                        tx.start_implicit()
                    return CommandComplete(verb)
                commit = verb == "COMMIT" and not tx.failed
                with life.running():
                    self.end(committed=commit)
                return CommandComplete("COMMIT" if commit else "ROLLBACK")
            case u.Savepoint(name=name):
                tx.savepoint(name)
                return CommandComplete("SAVEPOINT")
            case u.Release(name=name):
                tx.release(name)
                return CommandComplete("RELEASE")
            case u.RollbackTo(name=name):
                life.prepare_engine()
                with life.running():
                    tx.rollback_to(name)
                return CommandComplete("ROLLBACK")
        raise AssertionError(stmt)
