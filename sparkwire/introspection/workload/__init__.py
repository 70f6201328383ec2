"""Workload introspection fed from the side (issue 14): live Spark jobs and stages, progress notices, and the
freshness of materialized views and indexes. Each writer holds its own DuckDB connection and runs on its own daemon
thread, so an introspection query never waits for Spark and a statement never waits for a writer."""
