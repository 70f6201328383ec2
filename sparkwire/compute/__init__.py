"""COMPUTE (seed 001): clusters and their replicas mapped onto Spark, and the one controller that runs and tracks
work on them (seed 003: view maintenance and index building now, source ingestion later, one machinery).

- `pools.py`: a replica is a FAIR scheduler pool (`<cluster id>.<replica id>`) whose weight and minShare come from
  its size (catalog/sizes.py); declared in fairscheduler.xml for the next start and created at once in the running
  SparkContext.
- `controller.py`: `ClusterController`, which pool a statement or a maintained object's refresh runs in, what runs
  where now, the replicas' history since the server started, and their status and utilization.
- `live.py`: mz_internal.mz_cluster_replica_statuses and mz_cluster_replica_utilization as live views over the
  controller.
- `dataflow/`: materialized views (and indexes) maintained in the background as their inputs change.

Docs: docs/clusters.md.
"""
