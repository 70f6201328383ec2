-- DBeaver's PostgreSQL navigator: schemas and relations of a schema with their descriptions.
-- Modeled on dbeaver/dbeaver plugins/org.jkiss.dbeaver.ext.postgresql (PostgreSchema's loaders), not verbatim:
-- re-record with log_statement=all when DBeaver is at hand. `c.*` / `n.*` are compared in shape only
-- (PostgreSQL's storage columns hold per-installation values).

-- query: dbeaver.schemas
-- compare: shape
SELECT n.oid,n.*,d.description FROM pg_catalog.pg_namespace n
LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=n.oid AND d.objsubid=0 AND d.classoid='pg_namespace'::regclass
WHERE n.nspname = '{schema}'
ORDER BY nspname;

-- query: dbeaver.relations
-- compare: shape
SELECT c.oid,c.*,d.description
FROM pg_catalog.pg_class c
LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=c.oid AND d.objsubid=0 AND d.classoid='pg_class'::regclass
WHERE c.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = '{schema}') AND c.relkind not in ('i','I','c')
ORDER BY c.relname;

-- query: dbeaver.columns
-- compare: rows
SELECT c.relname, a.attname, a.attnum, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull,
       pg_catalog.col_description(c.oid, a.attnum) AS description
FROM pg_catalog.pg_attribute a
JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = '{schema}' AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY c.relname, a.attnum;
