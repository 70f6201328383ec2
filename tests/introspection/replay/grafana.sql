-- Grafana's PostgreSQL data source: the metadata queries of its query builder and variable editor.
-- source: grafana/grafana public/app/plugins/datasource/grafana-postgresql-datasource/postgresMetaQuery.ts

-- query: grafana.version
-- compare: shape
SELECT current_setting('server_version_num')::int/100 as version;

-- query: grafana.timescaledb
-- compare: rows
SELECT extversion FROM pg_extension WHERE extname = 'timescaledb';

-- query: grafana.show_schemas
-- compare: fixture_rows
SELECT schema_name AS "name"
    FROM information_schema.schemata
    WHERE schema_name NOT IN ('information_schema', 'pg_catalog', 'pg_toast', '_timescaledb_cache',
                              '_timescaledb_catalog', '_timescaledb_internal', '_timescaledb_config',
                              'timescaledb_information', 'timescaledb_experimental')
    ORDER BY schema_name;

-- query: grafana.show_tables_in_schema
-- compare: rows
SELECT quote_ident(table_name) AS "table"
      FROM information_schema.tables
      WHERE quote_ident(table_schema) = '{schema}'
      ORDER BY 1;

-- query: grafana.table_columns
-- compare: rows
SELECT quote_ident(column_name) AS "column", data_type AS "type"
    FROM information_schema.columns
    WHERE
      CASE WHEN array_length(parse_ident('{schema}.t'),1) = 2
        THEN quote_ident(table_schema) = (parse_ident('{schema}.t'))[1]
          AND quote_ident(table_name) = (parse_ident('{schema}.t'))[2]
        ELSE quote_ident(table_name) = '{schema}.t'
      END;
