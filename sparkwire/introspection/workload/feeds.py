"""The side feeds of workload introspection, started and stopped together by the planner's service.

Contract: `WorkloadFeeds(engine, spark, refreshes, state, snapshot, lineage, applications)` (after `store.install`)
starts the live Spark work feed (`spark_jobs.SparkJobsFeed`, reading `engine.spark_status.SparkStatusReader(spark)`
and the replicas' own applications, `applications()`: pool → engine) and the freshness
feed (`freshness.FreshnessFeed` over `refreshes`), each on its own daemon thread with its own DuckDB connection, and
installs the live mz_spark_health view (`spark_health.SparkHealthView`, no thread);
`spark_jobs` is the feed progress notices read. `close()` stops both (before Spark stops and the store closes).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from sparkwire.catalog import CatalogState
from sparkwire.engine.duckdb import DuckDBEngine
from sparkwire.engine.spark import SparkEngine
from sparkwire.engine.spark_status import SparkStatusReader
from sparkwire.introspection.workload.freshness import FreshnessFeed, Lineage, RefreshLog
from sparkwire.introspection.workload.spark_health import SparkHealthView
from sparkwire.introspection.workload.spark_jobs import SparkJobsFeed
from sparkwire.storage import Snapshot


class WorkloadFeeds:
    def __init__(
        self,
        engine: DuckDBEngine,
        spark: SparkEngine,
        refreshes: RefreshLog,
        state: Callable[[], CatalogState],
        snapshot: Callable[[], Snapshot],
        lineage: Lineage,
        applications: Callable[[], Mapping[str, SparkEngine]] = dict,
    ) -> None:
        self.spark_health = SparkHealthView(engine, spark)
        self.spark_jobs = SparkJobsFeed(engine, SparkStatusReader(spark).read, applications=applications)
        self.freshness = FreshnessFeed(engine, refreshes, state, snapshot, lineage)
        self.spark_jobs.start()
        self.freshness.start()

    def close(self) -> None:
        self.spark_jobs.close()
        self.freshness.close()
