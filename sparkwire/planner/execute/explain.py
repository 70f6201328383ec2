"""EXPLAIN: the path a query takes, as the lines of one text column named "QUERY PLAN" (PostgreSQL's shape).

Contract: `explain_text(route, state)` renders one of the closed set of routes:
- `FastPathRoute(plan)` — answered from a resident index without Spark:
      Fast path: lookup in index materialize.public.t_a_idx on t(a)
        Lookup values: (1), (3)            # `$n` for parameters, one tuple per key
        Project: a, b AS name              # only when not every column in order
        Limit: 10                          # only with LIMIT
      Used Indexes:
        - materialize.public.t_a_idx (lookup)
- `ScanRoute(plan)` — every row of one table read from storage's files without Spark (scan_path.py), or of a
  materialized view from its maintained contents (`Maintained contents: …`):
      Storage scan: materialize.public.t
        Project: a, b AS name              # only when not every column in order
        Limit: 10                          # only with LIMIT
- `SparkRoute(spark_sql, spark_plan, resident)` — a Spark job: `Spark: <Spark SQL>`, one line per materialized
  view read from memory (`resident`: item ids) with how it is maintained (`maintained_lines`), then `Spark plan:`
  and Spark's own plan text, indented.
- `DuckDBRoute(sql)` — builtin relations only (or none): `DuckDB (introspection store)`, then the SQL if given.
`explain_table(lines)` is the statement's result: a text column "QUERY PLAN", one row per line.
`explain_json(route, state)` is the route as the "Plan" object of EXPLAIN (FORMAT JSON): `{"Node Type": "Fast Path"
| "Storage Scan" | "Spark" | "DuckDB", …}` with the same facts as the text (index, key, lookup values, projection,
limit; Spark SQL, materialized views read from memory, Spark's plan as its lines; the DuckDB SQL).
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from sparkwire.catalog import CatalogState
from sparkwire.catalog.objects import Item
from sparkwire.planner.execute.fast_path import FastPathPlan
from sparkwire.planner.execute.scan_path import ScanPlan
from sparkwire.planner.planning.dataflow import maintenance

QUERY_PLAN = "QUERY PLAN"


@dataclass(frozen=True, slots=True)
class FastPathRoute:
    plan: FastPathPlan


@dataclass(frozen=True, slots=True)
class ScanRoute:
    plan: ScanPlan


@dataclass(frozen=True, slots=True)
class SparkRoute:
    spark_sql: str
    spark_plan: str
    resident: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DuckDBRoute:
    sql: str | None = None


Route = FastPathRoute | ScanRoute | SparkRoute | DuckDBRoute


def maintained_lines(item: Item, state: CatalogState) -> list[str]:
    """How a materialized view a query reads is kept current (planner/planning/dataflow.py)."""
    name = state.qualified_name(item)
    found = maintenance(item, state)
    if found.plan is None:
        return [f"Reads materialized view {name} from memory, maintained by recompute: {found.reason}"]
    return [f"Reads materialized view {name} from memory, maintained incrementally:"] + [
        f"  {line}" for line in found.plan.describe()
    ]


def explain_text(route: Route, state: CatalogState) -> list[str]:
    match route:
        case FastPathRoute(plan):
            return _fast_path(plan, state)
        case ScanRoute(plan):
            relation = state.items[plan.relation_id]
            shape = _shape(plan.output, plan.limit, relation)
            if plan.maintained:
                return [f"Maintained contents: {state.qualified_name(relation)}", *shape]
            return [f"Storage scan: {state.qualified_name(relation)}", *shape]
        case SparkRoute(spark_sql, spark_plan, resident):
            lines = [f"Spark: {' '.join(spark_sql.split())}"]
            for i in resident:
                lines += maintained_lines(state.items[i], state)
            return [*lines, "Spark plan:", *(f"  {line}" for line in spark_plan.rstrip().splitlines())]
        case DuckDBRoute(sql):
            return ["DuckDB (introspection store)", *([f"  {' '.join(sql.split())}"] if sql else [])]


def _fast_path(plan: FastPathPlan, state: CatalogState) -> list[str]:
    index = state.qualified_name(state.items[plan.index_id])
    relation = state.items[plan.relation_id]
    lines = [f"Fast path: lookup in index {index} on {relation.name}({', '.join(plan.key_columns)})"]
    if plan.key_columns:
        values = ", ".join(f"({', '.join(value.sql for value in row)})" for row in plan.rows)
        lines.append(f"  Lookup values: {values or '(none)'}")
    lines += _shape(plan.output, plan.limit, relation)
    return [*lines, "Used Indexes:", f"  - {index} (lookup)"]


def _shape(output: tuple[tuple[str, str], ...], limit: int | None, relation: Item) -> list[str]:
    lines = []
    if output != tuple((c.name, c.name) for c in relation.columns):
        lines.append(f"  Project: {', '.join(_outputs(output))}")
    if limit is not None:
        lines.append(f"  Limit: {limit}")
    return lines


def _outputs(output: tuple[tuple[str, str], ...]) -> list[str]:
    return [column if column == name else f"{column} AS {name}" for column, name in output]


def explain_json(route: Route, state: CatalogState) -> dict[str, object]:
    match route:
        case FastPathRoute(plan):
            relation = state.items[plan.relation_id]
            return {
                "Node Type": "Fast Path",
                "Index": state.qualified_name(state.items[plan.index_id]),
                "Relation": state.qualified_name(relation),
                "Key": list(plan.key_columns),
                "Lookup Values": [[value.sql for value in row] for row in plan.rows],
                "Output": _outputs(plan.output),
                "Limit": plan.limit,
            }
        case ScanRoute(plan):
            return {
                "Node Type": "Maintained Contents" if plan.maintained else "Storage Scan",
                "Relation": state.qualified_name(state.items[plan.relation_id]),
                "Output": _outputs(plan.output),
                "Limit": plan.limit,
            }
        case SparkRoute(spark_sql, spark_plan, resident):
            return {
                "Node Type": "Spark",
                "Spark SQL": " ".join(spark_sql.split()),
                "Materialized Views From Memory": [state.qualified_name(state.items[i]) for i in resident],
                "Spark Plan": spark_plan.rstrip().splitlines(),
            }
        case DuckDBRoute(sql):
            return {"Node Type": "DuckDB", "Store": "introspection", "SQL": " ".join(sql.split()) if sql else None}


def explain_table(lines: list[str]) -> pa.Table:
    return pa.table({QUERY_PLAN: pa.array(lines, pa.string())})
