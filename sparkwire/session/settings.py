"""Session settings statements: SET / RESET / SET TRANSACTION / SHOW of variables, ALTER SYSTEM, DISCARD.

Contract: `run(stmt, formats, limit)` applies SET, RESET and SET TRANSACTION to the session's variables
(`planner/statements/set_show.py` holds their rules: LOCAL only inside a block, WARNINGs as PostgreSQL gives them),
answers SHOW name | ALL as rows (SET cluster to a cluster that does not exist is accepted with Materialize's
NOTICE), commits ALTER SYSTEM SET / RESET to the catalog (superusers only; 25001 inside a
block) and executes DISCARD ALL (25001 inside a block: variables reset, prepared statements and portals dropped,
plans forgotten), DISCARD PLANS and the DISCARD forms that have nothing to drop here (TEMP, SEQUENCES).
"""

from __future__ import annotations

import contextlib

from sparkwire import errors as e
from sparkwire.api import CommandComplete, Notice, Result, Rows
from sparkwire.planner.execute.streams import RowSource
from sparkwire.planner.grammar import utility as u
from sparkwire.planner.statements.set_show import ALTER_SYSTEM, alter_system_ops, apply_setting, show
from sparkwire.session.lifecycle import Lifecycle
from sparkwire.session.plans import PlanCache
from sparkwire.session.portals import Formats
from sparkwire.session.state import SessionState


class Settings:
    def __init__(self, state: SessionState, life: Lifecycle, plans: PlanCache) -> None:
        self._s = state
        self._life = life
        self._plans = plans

    def run(self, stmt: u.Utility, formats: Formats, limit: int | None) -> Result:
        s = self._s
        match stmt:
            case u.ShowVariable():
                fields, batches = show(stmt, s.vars)
                source = RowSource(iter(batches), contextlib.nullcontext)
                return Rows(fields, source.take(limit), formats(len(fields)), tag="SHOW")  # as PostgreSQL: no count
            case u.SetVariable() | u.ResetVariable() | u.SetTransaction():
                result = apply_setting(
                    stmt, s.vars, in_block=s.tx.in_block, in_transaction=s.tx.in_transaction, warn=self._life.notify
                )
                if isinstance(stmt, u.SetVariable) and stmt.name.strip().lower() == "cluster":
                    self._warn_missing_cluster()
                return result
            case u.AlterSystem():
                s.data.transact(alter_system_ops(stmt, s.data.state, s.role_id, in_block=s.tx.in_block))
                return CommandComplete(ALTER_SYSTEM)
            case u.Discard(what=what):
                return self._discard(what)
        raise AssertionError(stmt)

    def _warn_missing_cluster(self) -> None:
        """Materialize's NOTICE for SET cluster to a cluster that does not exist (the statements that need it fail
        later); `current_object_missing_warnings = off` silences it."""
        s = self._s
        name = s.vars.get("cluster")
        if s.vars.get("current_object_missing_warnings") != "on" or s.data.state.cluster_by_name(name) is not None:
            return
        s.notices(
            Notice(
                message=f'cluster "{name}" does not exist',
                hint="Create the cluster with CREATE CLUSTER or pick an extant cluster with SET CLUSTER = name. "
                "List available clusters with SHOW CLUSTERS.",
            )
        )

    def _discard(self, what: str) -> Result:
        s = self._s
        if what == "ALL":
            if s.tx.in_block:
                raise e.ActiveSqlTransaction("DISCARD ALL cannot run inside a transaction block")
            s.vars.reset_all()
            s.statements.clear()
            s.close_portals()
        if what in ("ALL", "PLANS"):
            self._plans.clear()
        return CommandComplete(f"DISCARD {'TEMP' if what == 'TEMPORARY' else what}")
