"""sparkwire: a PostgreSQL-wire-compatible SQL server."""
