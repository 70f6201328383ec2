"""The introspection store: sparkwire's builtin catalog relations (pg_catalog, …) hosted in DuckDB.

`store` creates and fills the relations, `functions` holds the catalog functions clients call (to_regtype,
format_type, …) as engine UDFs, and `rewrite` is the sqlglot pass that points PostgreSQL SQL at them.
"""
