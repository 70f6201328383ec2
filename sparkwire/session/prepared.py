"""Prepared statements: the session's named plans, from the protocol's Parse or SQL PREPARE, and their re-planning.

Contract: `statement(name)` / `portal(name)` look a prepared statement or portal up (26000 / 34000 with PostgreSQL's
wording for the unnamed ones). `current_plan(prepared)` is the statement's plan, re-made when the schema or
search_path changed since it was planned, as PostgreSQL re-plans: the parameter types stay those the client was told
at Parse, and once the client has seen the result fields a re-plan that changes them fails (0A000) — every time,
since the statement keeps its old plan. `describe_prepared(prepared)` describes a statement once per plan (queries
and DML only, whose description depends on nothing else). `run(stmt)` executes SQL PREPARE (42P05 if the name is
taken), EXECUTE (its arguments cast to the parameter types and evaluated by the engine; 42601 on a count mismatch)
and DEALLOCATE [ALL]. Describing and running a plan are the dispatcher's (`describe`, `run_plan` callables), so that
this module stays below it.
"""

from __future__ import annotations

from collections.abc import Callable

import pyarrow as pa

from sparkwire import errors as e
from sparkwire.api import CommandComplete, Field, Result
from sparkwire.pgtypes.registry import parse_type_name
from sparkwire.planner.grammar import utility as u
from sparkwire.planner.planning.plan import Plan
from sparkwire.session.lifecycle import Lifecycle
from sparkwire.session.plans import PlanCache
from sparkwire.session.portals import Formats, Portal, Prepared
from sparkwire.session.state import SessionState

Describe = Callable[[Plan], tuple[Field, ...] | None]
RunPlan = Callable[[Plan, tuple[object, ...], Formats, int | None], Result]


class PreparedStatements:
    def __init__(self, state: SessionState, life: Lifecycle, plans: PlanCache, describe: Describe) -> None:
        self._s = state
        self._life = life
        self._plans = plans
        self._describe = describe

    def statement(self, name: str) -> Prepared:
        found = self._s.statements.get(name)
        if found is None:
            if name:
                raise e.InvalidSqlStatementName(f'prepared statement "{name}" does not exist')
            raise e.InvalidSqlStatementName("unnamed prepared statement does not exist")
        return found

    def portal(self, name: str) -> Portal:
        found = self._s.portals.get(name)
        if found is None:
            if name:
                raise e.InvalidCursorName(f'portal "{name}" does not exist')
            raise e.InvalidCursorName("unnamed portal does not exist")
        return found

    def add(self, name: str, sql: str, declared: tuple[int, ...]) -> None:
        generation = self._s.schema.value  # before planning: a concurrent schema change re-plans at first use
        plan = self._plans.plan_one(sql, declared)
        self._s.statements[name] = Prepared(plan, sql, generation, search_path=self._s.ctx.search_path)

    def current_plan(self, prepared: Prepared) -> Plan:
        generation, search_path = self._s.schema.value, self._s.ctx.search_path
        if prepared.generation == generation and prepared.search_path == search_path:
            return prepared.plan
        declared = tuple(oid for oid, _ in prepared.plan.param_types)
        plan = self._plans.plan_one(prepared.sql, declared)
        fields = self._describe(plan)
        if prepared.described and fields != prepared.fields:
            raise e.FeatureNotSupported("cached plan must not change result type")
        prepared.plan, prepared.generation, prepared.search_path = plan, generation, search_path
        prepared.fields, prepared.described = fields, plan.kind in ("query", "dml")
        return plan

    def describe_prepared(self, prepared: Prepared) -> tuple[Field, ...] | None:
        if prepared.described:
            return prepared.fields
        fields = self._describe(prepared.plan)
        if prepared.plan.kind in ("query", "dml"):
            prepared.fields, prepared.described = fields, True
        return fields

    def run(self, stmt: u.Utility, formats: Formats, limit: int | None, run_plan: RunPlan) -> Result:
        statements = self._s.statements
        match stmt:
            case u.Prepare(name=name, param_types=types, query=query):
                if name in statements:
                    raise e.DuplicatePreparedStatement(f'prepared statement "{name}" already exists')
                self.add(name, query, tuple(parse_type_name(t)[0].oid for t in types))
                return CommandComplete("PREPARE")
            case u.ExecutePrepared(name=name, args=args):
                plan = self.current_plan(self.statement(name))
                if len(args) != len(plan.param_types):
                    raise e.SyntaxError(
                        f'wrong number of parameters for prepared statement "{name}"',
                        detail=f"Expected {len(plan.param_types)} parameters but got {len(args)}.",
                    )
                return run_plan(plan, self._evaluate_args(plan, args), formats, limit)
            case u.Deallocate(name=None):
                self._s.statements = {k: v for k, v in statements.items() if not k}
                return CommandComplete("DEALLOCATE ALL")
            case u.Deallocate(name=str(name)):
                if name not in statements:
                    raise e.InvalidSqlStatementName(f'prepared statement "{name}" does not exist')
                del statements[name]
                return CommandComplete("DEALLOCATE")
        raise AssertionError(stmt)

    def _evaluate_args(self, plan: Plan, args: tuple[str, ...]) -> tuple[object, ...]:
        if not args:
            return ()
        casts = ", ".join(f"CAST(({a}) AS {t[1]})" for a, t in zip(args, plan.param_types, strict=True))
        probe = self._plans.plan_probe(f"SELECT {casts}")
        self._life.prepare_engine()
        with self._life.running():
            _, batches = self._s.engine.query(probe.duck())
            table = pa.Table.from_batches(list(batches))
        return tuple(table.column(i)[0].as_py() for i in range(table.num_columns))
