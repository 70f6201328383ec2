"""mz_internal.mz_materialized_view_maintenance as a live view over the maintainers (its declaration:
catalog/maintenance_relations.py), installed like the cluster relations (compute/live.py): a query reads the
maintainers at the moment it runs, nothing is written.
"""

from __future__ import annotations

from sparkwire.catalog.maintenance_relations import MAINTENANCE_RELATIONS
from sparkwire.compute.dataflow.maintainer import Maintainers
from sparkwire.compute.live import install_live_view
from sparkwire.engine.duckdb import DuckDBEngine


def _rows(maintainers: Maintainers) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for m in sorted((m for m in maintainers.all() if m.obj.kind == "materialized-view"), key=lambda m: m.obj.id):
        plan = m.obj.maintenance.plan
        error = m.error if m.error is not None and not m.paused else None
        rows.append(
            {
                "object_id": m.obj.id,
                "strategy": m.obj.maintenance.strategy,
                "reason": m.obj.maintenance.reason,
                "plan": "\n".join(plan.describe()) if plan is not None else None,
                "hydrated": m.hydrated,
                "paused": m.paused,
                "steps": m.steps,
                "last_step_ms": m.last_step_seconds * 1000,
                "frontier": m.ts,
                "input_rows": m.input_rows,
                "error": str(error).splitlines()[0] if error is not None else None,
            }
        )
    return rows


def install_maintenance_view(engine: DuckDBEngine, maintainers: Maintainers) -> None:
    install_live_view(engine, MAINTENANCE_RELATIONS[0], lambda: _rows(maintainers))
