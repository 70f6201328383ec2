"""The maintenance plan of a materialized view: what the planner hands compute to maintain incrementally.

Contract: a `DataflowPlan` is one or more `Branch`es (UNION ALL) of select-project-join over storage tables
(tables and sources), optionally followed by a `Reduce` (GROUP BY with count / sum / avg / min / max, DISTINCT, or
an aggregate without GROUP BY). Every column a branch reads is renamed `i<n>_<column>` (`Input.internal`), so
expressions (sqlglot trees, evaluated by `expressions.py`) name columns unambiguously; `types` maps those names to
PostgreSQL type OIDs. A branch's `outputs` are the view's columns (no Reduce) or the Reduce's group keys followed
by its aggregates' arguments (a `count(*)` has none). `Reduce.columns` says, per view column, whether it is key
`i` or aggregate `j`. `describe()` renders the plan for EXPLAIN and mz_maintenance_plans. The planner builds plans
(planner/planning/dataflow.py); `Maintenance` is the planner's verdict: a plan, or the reason there is none (the
view is then recomputed in the background on its cluster).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sqlglot import exp

AggregateKind = Literal["count", "sum", "avg", "min", "max"]


@dataclass(frozen=True, slots=True)
class Input:
    table_id: str
    columns: tuple[str, ...]  # the storage columns read
    position: int  # n in i<n>_<column>
    name: str  # the relation's name, for EXPLAIN

    def internal(self, column: str) -> str:
        return f"i{self.position}_{column}"


@dataclass(frozen=True, slots=True)
class Branch:
    inputs: tuple[Input, ...]
    join_keys: tuple[tuple[str, str], ...]  # equalities between columns of two inputs (internal names)
    predicate: exp.Expr | None
    outputs: tuple[exp.Expr, ...]


@dataclass(frozen=True, slots=True)
class Aggregate:
    kind: AggregateKind
    argument: int | None  # position of its argument among the branch outputs after the keys; None: count(*)
    type_oid: int  # the argument's type (0 for count(*))


@dataclass(frozen=True, slots=True)
class Reduce:
    keys: int  # the first `keys` branch outputs are the group keys
    aggregates: tuple[Aggregate, ...]
    columns: tuple[tuple[Literal["key", "aggregate"], int], ...]  # per view column
    grouped: bool  # False: an aggregate without GROUP BY (always one row)


@dataclass(frozen=True, slots=True)
class DataflowPlan:
    branches: tuple[Branch, ...]
    reduce: Reduce | None
    types: dict[str, int]

    @property
    def table_ids(self) -> tuple[str, ...]:
        return tuple(sorted({i.table_id for b in self.branches for i in b.inputs}))

    def describe(self) -> list[str]:
        lines: list[str] = []
        if self.reduce is not None:
            r = self.reduce
            aggs = ", ".join(f"{a.kind}({'*' if a.argument is None else '…'})" for a in r.aggregates)
            what = "distinct" if not r.aggregates else aggs
            lines.append(f"Reduce ({'group by ' + str(r.keys) + ' key(s)' if r.grouped else 'one group'}): {what}")
        if len(self.branches) > 1:
            lines.append(f"Union all: {len(self.branches)} branches")
        for branch in self.branches:
            indent = "  " if len(self.branches) > 1 else ""
            if branch.predicate is not None:
                lines.append(f"{indent}Filter: {branch.predicate.sql(dialect='postgres')}")
            if branch.join_keys:
                keys = " AND ".join(f"{a} = {b}" for a, b in branch.join_keys)
                lines.append(f"{indent}Join (delta, inner): {keys}")
            for source in branch.inputs:
                lines.append(f"{indent}Changes of {source.name} (i{source.position})")
        return lines


@dataclass(frozen=True, slots=True)
class Maintenance:
    plan: DataflowPlan | None
    reason: str | None  # why there is no plan (the view is recomputed), None with a plan

    @property
    def strategy(self) -> str:
        return "incremental" if self.plan is not None else "recompute"
