"""mz_internal.mz_source_statuses, mz_source_status_history and mz_source_statistics as live views over the
running sources' health record (declarations: catalog/source_relations.py; the mechanism: compute/live.py).

Contract: `install_source_views(engine, health)` (after the store is installed) makes each relation a view that
reads `health` when queried: nothing is written, nothing waits for ingestion.
"""

from __future__ import annotations

from sparkwire.catalog.source_relations import (
    SOURCE_RELATIONS,
    SOURCE_STATISTICS,
    SOURCE_STATUS_HISTORY,
    SOURCE_STATUSES,
)
from sparkwire.compute.live import install_live_view
from sparkwire.engine.duckdb import DuckDBEngine
from sparkwire.sources.status import SourceHealth


def install_source_views(engine: DuckDBEngine, health: SourceHealth) -> None:
    relations = {rel.name: rel for rel in SOURCE_RELATIONS}
    install_live_view(engine, relations[SOURCE_STATUSES], health.statuses)
    install_live_view(engine, relations[SOURCE_STATUS_HISTORY], health.history)
    install_live_view(engine, relations[SOURCE_STATISTICS], health.statistics_rows)
