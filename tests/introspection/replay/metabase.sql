-- Metabase's PostgreSQL driver: table sync (describe-database) and its version probe.
-- source: metabase/metabase src/metabase/driver/postgres.clj (describe-syncable-tables), as replayed by
-- PostgreSQL-compatible servers' test suites

-- query: metabase.describe_tables
-- compare: rows
SELECT
    n.nspname AS schema,
    c.relname AS name,
    CASE c.relkind
        WHEN 'r' THEN 'TABLE'
        WHEN 'p' THEN 'PARTITIONED TABLE'
        WHEN 'v' THEN 'VIEW'
        WHEN 'f' THEN 'FOREIGN TABLE'
        WHEN 'm' THEN 'MATERIALIZED VIEW'
        ELSE NULL
    END AS type,
    d.description AS description,
    stat.n_live_tup AS estimated_row_count
FROM pg_catalog.pg_class AS c
     INNER JOIN pg_catalog.pg_namespace AS n ON c.relnamespace = n.oid
     LEFT JOIN pg_catalog.pg_description AS d ON ((c.oid = d.objoid)
                                                 AND (d.objsubid = 0))
                                                 AND (d.classoid = 'pg_class'::regclass)
     LEFT JOIN pg_stat_user_tables AS stat ON (n.nspname = stat.schemaname)
                                              AND (c.relname = stat.relname)
WHERE ((((c.relnamespace = n.oid) AND (n.nspname !~ 'information_schema'))
          AND (n.nspname != 'pg_catalog'))
          AND (c.relkind IN ('r', 'p', 'v', 'f', 'm')))
      AND (n.nspname IN ('{schema}'))
ORDER BY type ASC, schema ASC, name ASC;
