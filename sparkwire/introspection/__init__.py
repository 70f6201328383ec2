"""The introspection store: sparkwire's builtin catalog relations (pg_catalog, information_schema, mz_catalog)
hosted in DuckDB.

`relations` lists them (declared in `catalog.builtins_*`), `tables` lays them out in DuckDB, `store` creates and
fills them at start, `listener` keeps the catalog-defined ones in step with the durable catalog inside its
transactions, `functions` holds the catalog functions clients call (to_regtype, format_type, …) as engine UDFs,
and `rewrite` is the sqlglot pass that points PostgreSQL SQL at them.
"""
