// pgjdbc DatabaseMetaData against sparkwire, run by tests/test_client_jdbc_metadata.py against sparkwire and
// against PostgreSQL 15 on the same DDL (a table t with an index, a view v, a materialized view mv in one schema).
// Usage: java -cp postgresql.jar:. JdbcMetadata <jdbc-url> <user> <schema>
// Prints one "key=value" line per check (rows joined by ';', columns by '|'); a check that throws prints
// "key!=<exception>" and the program goes on, so one run shows every difference.

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

public final class JdbcMetadata {
    private JdbcMetadata() {}

    private interface Rows {
        ResultSet get() throws Exception;
    }

    private static void dump(String key, Rows rows, String... columns) {
        try (ResultSet rs = rows.get()) {
            List<String> out = new ArrayList<>();
            while (rs.next()) {
                List<String> cells = new ArrayList<>();
                for (String column : columns) {
                    cells.add(String.valueOf(rs.getObject(column)));
                }
                out.add(String.join("|", cells));
            }
            System.out.println(key + "=" + String.join(";", out));
        } catch (Exception e) {
            System.out.println(key + "!=" + e);
        }
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String user = args[1];
        String schema = args[2];
        try (Connection conn = DriverManager.getConnection(url, user, "")) {
            DatabaseMetaData md = conn.getMetaData();
            System.out.println("catalog=" + conn.getCatalog());
            dump("catalogs", md::getCatalogs, "TABLE_CAT");
            dump("schemas", () -> md.getSchemas(null, schema), "TABLE_SCHEM");
            dump("all_schemas", md::getSchemas, "TABLE_SCHEM");
            dump("tables", () -> md.getTables(null, schema, "%", null),
                 "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE", "REMARKS");
            dump("tables_only", () -> md.getTables(null, schema, "%", new String[] {"TABLE"}), "TABLE_NAME");
            dump("views_only", () -> md.getTables(null, schema, "%", new String[] {"VIEW"}), "TABLE_NAME");
            dump("matviews_only", () -> md.getTables(null, schema, "%", new String[] {"MATERIALIZED VIEW"}),
                 "TABLE_NAME");
            dump("columns", () -> md.getColumns(null, schema, "t", "%"),
                 "COLUMN_NAME", "DATA_TYPE", "TYPE_NAME", "COLUMN_SIZE", "DECIMAL_DIGITS", "NULLABLE",
                 "ORDINAL_POSITION", "IS_NULLABLE", "IS_AUTOINCREMENT", "COLUMN_DEF");
            dump("view_columns", () -> md.getColumns(null, schema, "v", "%"),
                 "COLUMN_NAME", "DATA_TYPE", "TYPE_NAME", "NULLABLE");
            dump("primary_keys", () -> md.getPrimaryKeys(null, schema, "t"), "COLUMN_NAME", "KEY_SEQ");
            dump("index_info", () -> md.getIndexInfo(null, schema, "t", false, true),
                 "INDEX_NAME", "NON_UNIQUE", "TYPE", "ORDINAL_POSITION", "COLUMN_NAME", "ASC_OR_DESC");
            Set<String> wanted = Set.of("bool", "int2", "int4", "int8", "float8", "numeric", "text", "varchar",
                                        "bpchar", "date", "timestamp", "timestamptz", "jsonb", "uuid", "bytea");
            try (ResultSet rs = md.getTypeInfo()) {
                List<String> out = new ArrayList<>();
                while (rs.next()) {
                    if (wanted.contains(rs.getString("TYPE_NAME"))) {
                        out.add(rs.getString("TYPE_NAME") + "|" + rs.getInt("DATA_TYPE") + "|"
                                + rs.getInt("PRECISION") + "|" + rs.getShort("NULLABLE") + "|"
                                + rs.getBoolean("CASE_SENSITIVE") + "|" + rs.getShort("SEARCHABLE"));
                    }
                }
                out.sort(null);
                System.out.println("type_info=" + String.join(";", out));
            } catch (Exception e) {
                System.out.println("type_info!=" + e);
            }
        }
    }
}
