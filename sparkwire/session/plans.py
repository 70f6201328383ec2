"""The session's plan cache: statement text → its plans, so a repeated statement is parsed, translated and
classified once.

Contract: `plans(sql, declared)` splits `sql` into statements and plans each (`planning.plan.plan_statement`),
keyed by (sql, declared parameter type OIDs, the session's facts, whose search path decides what bare names mean),
least recently used evicted past `PLAN_CACHE_BYTES` (each entry counts its statement text plus `PLAN_ENTRY_BYTES`;
a plan's trees grow with its text, so a few large INSERT … VALUES statements cannot pin hundreds of megabytes; a
statement larger than the whole budget is not cached).
A statement batch longer than `MAX_STATEMENT_BATCH_SIZE` bytes is refused before it is parsed, as Materialize
does: 54000 `statement batch size cannot exceed 976.6 KiB`. A plan holds
inferred types and fields, so when any session changed the schema (the shared `SchemaGeneration` moved) the cache
and the user-data router's plans are dropped first. A 42601 in the n-th statement reports its position from the
start of the whole query string, as PostgreSQL does. `plan_one(sql, declared)` is for Parse and PREPARE: one
statement (42601 "cannot insert multiple commands into a prepared statement" otherwise), or the empty plan.
`clear()` is DISCARD PLANS.
"""

from __future__ import annotations

from cachetools import LRUCache

from sparkwire import errors as e
from sparkwire.engine.base import Column
from sparkwire.planner.grammar.split import split_statements
from sparkwire.planner.planning.plan import Plan, plan_statement
from sparkwire.planner.translate.duckdb import SessionContext
from sparkwire.planner.translate.literal_templates import LiteralTemplates
from sparkwire.session.state import SessionState

PLAN_ENTRY_BYTES = 2048
PLAN_CACHE_BYTES = 512 * PLAN_ENTRY_BYTES  # 512 short statements
MAX_STATEMENT_BATCH_SIZE = 1_000_000  # Materialize's limit, in bytes of UTF-8


def _entry_size(plans: tuple[Plan, ...]) -> int:
    return PLAN_ENTRY_BYTES + sum(len(plan.sql) for plan in plans)


def check_statement_size(sql: str) -> None:
    if len(sql) > MAX_STATEMENT_BATCH_SIZE // 4 and len(sql.encode()) > MAX_STATEMENT_BATCH_SIZE:
        raise e.ProgramLimitExceeded(
            f"statement batch size cannot exceed {MAX_STATEMENT_BATCH_SIZE / 1024:.1f} KiB",
            detail=f"The statement batch is {len(sql.encode())} bytes long.",
        )


class PlanCache:
    def __init__(self, state: SessionState, templates: LiteralTemplates) -> None:
        self._s = state
        self._templates = templates
        self._cache: LRUCache[tuple[str, tuple[int, ...], SessionContext], tuple[Plan, ...]] = LRUCache(
            PLAN_CACHE_BYTES, getsizeof=_entry_size
        )
        self._generation = state.schema.value  # the schema generation the cache was built at

    def describe_sql(self, sql: str) -> list[Column]:
        return self._s.engine.describe(sql)

    def plans(self, sql: str, declared: tuple[int, ...] = ()) -> tuple[Plan, ...]:
        check_statement_size(sql)
        ctx = self._s.ctx  # a plan holds what names resolved to under the session's search_path
        key = (sql, declared, ctx)
        generation = self._s.schema.value
        if generation != self._generation:
            self._cache.clear()  # some session changed the schema: inferred types and fields may be stale
            self._s.user.forget_plans()
            self._generation = generation
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        planned: list[Plan] = []
        end = 0
        for piece in split_statements(sql):
            offset = sql.find(piece, end)
            end = offset + len(piece)
            try:
                planned.append(
                    plan_statement(piece, ctx, declared, self.describe_sql, self._templates, generation)
                )
            except e.PgError as err:
                if err.position is not None:
                    err.position += offset  # PostgreSQL counts from the start of the whole query string
                raise
        plans = tuple(planned)
        if _entry_size(plans) <= PLAN_CACHE_BYTES:
            self._cache[key] = plans
        return plans

    def plan_one(self, sql: str, declared: tuple[int, ...] = ()) -> Plan:
        plans = self.plans(sql, declared)
        if len(plans) > 1:
            raise e.SyntaxError("cannot insert multiple commands into a prepared statement")
        return plans[0] if plans else plan_statement("", self._s.ctx, (), self.describe_sql)

    def plan_probe(self, sql: str) -> Plan:
        """A one-off plan the session makes for itself (not cached), e.g. EXECUTE's argument casts."""
        return plan_statement(sql, self._s.ctx, (), self.describe_sql)

    def clear(self) -> None:
        self._cache.clear()
