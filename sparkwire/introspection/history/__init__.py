"""The workload history (issue 14, seed 000): statement executions, sessions and lifecycle events, written from the
side into a durable DuckDB database in the data directory and read through the introspection store's mz_internal
views. `records` holds what a statement hands over, `sqltext` how its text is kept (hash, truncation, redaction),
`database` the durable tables and the store's views over them, `log` the writer thread that batches it all."""
