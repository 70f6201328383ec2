"""Sources (seeds 001 and 002): upstream readers that turn the outside world into definite collections.

`reader` is the contract between an upstream reader (a load generator, a PostgreSQL replication stream) and the
ingestion that lands its batches in storage, one shared reader per upstream.
"""
