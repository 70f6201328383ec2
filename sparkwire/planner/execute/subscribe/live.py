"""mz_internal.mz_subscriptions and mz_subscription_streams as live views over the running subscriptions
(declarations: catalog/subscription_relations.py; the mechanism: compute/live.py).

Contract: `install_subscription_views(engine, registry)` (after the store is installed) makes each relation a view
that reads the registry when queried: nothing is written.
"""

from __future__ import annotations

from sparkwire.catalog.subscription_relations import SUBSCRIPTION_RELATIONS, SUBSCRIPTION_STREAMS, SUBSCRIPTIONS
from sparkwire.compute.live import install_live_view
from sparkwire.engine.duckdb import DuckDBEngine
from sparkwire.planner.execute.subscribe.stream import StreamRegistry


def install_subscription_views(engine: DuckDBEngine, registry: StreamRegistry) -> None:
    relations = {rel.name: rel for rel in SUBSCRIPTION_RELATIONS}
    install_live_view(engine, relations[SUBSCRIPTIONS], registry.subscription_rows)
    install_live_view(engine, relations[SUBSCRIPTION_STREAMS], registry.stream_rows)
