// JDBC smoke test for sparkwire, run by tests/test_client_jdbc.py against sparkwire and against PostgreSQL 15.
// Usage: java -cp postgresql.jar:. JdbcSmoke <jdbc-url> <user> <table-name>
// Prints one "key=value" line per check; the Python test compares them. A check that throws prints
// "key!=<exception>" and the program goes on with the next check, so one run shows every difference.

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.Date;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

public final class JdbcSmoke {
    private JdbcSmoke() {}

    private interface Check {
        void run() throws Exception;
    }

    private static void out(String key, Object value) {
        System.out.println(key + "=" + value);
    }

    private static void check(String key, Check body) {
        try {
            body.run();
        } catch (Exception e) {
            String message = String.valueOf(e.getMessage()).split("\n")[0];
            System.out.println(key + "!=" + e.getClass().getSimpleName() + ": " + message);
        }
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String table = args[2];
        Properties props = new Properties();
        props.setProperty("user", args[1]);
        try (Connection conn = DriverManager.getConnection(url, props)) {
            out("product", conn.getMetaData().getDatabaseProductName());
            out("major", conn.getMetaData().getDatabaseMajorVersion());

            check("simple", () -> {
                try (Statement st = conn.createStatement();
                     ResultSet rs = st.executeQuery("SELECT 1 AS one, 'two' AS two")) {
                    ResultSetMetaData md = rs.getMetaData();
                    rs.next();
                    out("simple", rs.getInt(1) + "," + rs.getString(2) + "," + md.getColumnName(1) + ":"
                        + md.getColumnTypeName(1) + "," + md.getColumnName(2) + ":" + md.getColumnTypeName(2));
                }
            });

            check("create", () -> {
                try (Statement st = conn.createStatement()) {
                    st.execute("CREATE TABLE " + table + " (id int4, name text, amount numeric(12,2),"
                        + " at timestamp, day date, flag bool, big int8, ratio float8)");
                }
            });

            // prepared statements with typed setters; run enough times to pass prepareThreshold (5)
            check("insert", () -> {
                String insert = "INSERT INTO " + table + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
                try (PreparedStatement ps = conn.prepareStatement(insert)) {
                    int total = 0;
                    for (int i = 1; i <= 7; i++) {
                        ps.setInt(1, i);
                        ps.setString(2, "name " + i);
                        ps.setBigDecimal(3, new BigDecimal(i + ".25"));
                        ps.setTimestamp(4, Timestamp.valueOf("2024-01-0" + i + " 10:11:12.123456"));
                        ps.setDate(5, Date.valueOf("2024-02-0" + i));
                        ps.setBoolean(6, i % 2 == 0);
                        ps.setLong(7, 10_000_000_000L * i);
                        ps.setDouble(8, i / 4.0);
                        total += ps.executeUpdate();
                    }
                    out("insert", total);
                }
            });
            check("insert_nulls", () -> {
                String insert = "INSERT INTO " + table + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
                try (PreparedStatement ps = conn.prepareStatement(insert)) {
                    ps.setInt(1, 8);
                    ps.setNull(2, Types.VARCHAR);
                    ps.setNull(3, Types.NUMERIC);
                    ps.setNull(4, Types.TIMESTAMP);
                    ps.setNull(5, Types.DATE);
                    ps.setNull(6, Types.BOOLEAN);
                    ps.setNull(7, Types.BIGINT);
                    ps.setNull(8, Types.DOUBLE);
                    out("insert_nulls", ps.executeUpdate());
                }
            });

            // executeBatch: several Parse/Bind/Execute then one Sync
            check("batch", () -> {
                String insert = "INSERT INTO " + table + " (id, name) VALUES (?, ?)";
                try (PreparedStatement ps = conn.prepareStatement(insert)) {
                    for (int i = 100; i < 110; i++) {
                        ps.setInt(1, i);
                        ps.setString(2, "batch " + i);
                        ps.addBatch();
                    }
                    int total = 0;
                    int[] counts = ps.executeBatch();
                    for (int c : counts) {
                        total += c;
                    }
                    out("batch", counts.length + "," + total);
                }
            });

            check("rows", () -> {
                String select = "SELECT id, name, amount, at, day, flag, big, ratio FROM " + table
                    + " WHERE id <= ? ORDER BY id";
                try (PreparedStatement ps = conn.prepareStatement(select)) {
                    for (int run = 0; run < 6; run++) {  // the later runs use a named server-side statement
                        ps.setInt(1, 8);
                        try (ResultSet rs = ps.executeQuery()) {
                            List<String> rows = new ArrayList<>();
                            while (rs.next()) {
                                rows.add(rs.getInt(1) + "|" + rs.getString(2) + "|" + rs.getBigDecimal(3) + "|"
                                    + rs.getTimestamp(4) + "|" + rs.getDate(5) + "|" + rs.getObject(6) + "|"
                                    + rs.getObject(7) + "|" + rs.getObject(8));
                            }
                            out("rows" + run, String.join(";", rows));
                        }
                    }
                }
            });

            // fetch size with autocommit off: Execute with a row limit, PortalSuspended, Execute again
            check("fetchsize", () -> {
                conn.setAutoCommit(false);
                try (PreparedStatement ps = conn.prepareStatement(
                        "SELECT i FROM generate_series(1, 95) i ORDER BY i")) {
                    ps.setFetchSize(10);
                    long sum = 0;
                    int count = 0;
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            sum += rs.getLong(1);
                            count++;
                        }
                    }
                    out("fetchsize", count + "," + sum);
                } finally {
                    conn.rollback();
                    conn.setAutoCommit(true);
                }
            });

            // rollback really rolls back
            check("after_rollback", () -> {
                conn.setAutoCommit(false);
                try (Statement st = conn.createStatement()) {
                    st.executeUpdate("DELETE FROM " + table);
                    conn.rollback();
                    try (ResultSet rs = st.executeQuery("SELECT count(*) FROM " + table)) {
                        rs.next();
                        out("after_rollback", rs.getLong(1));
                    }
                } finally {
                    conn.rollback();
                    conn.setAutoCommit(true);
                }
            });

            // errors carry SQLSTATE and leave the connection usable
            try (Statement st = conn.createStatement()) {
                st.executeQuery("SELECT * FROM no_such_table_jdbc");
                out("error", "none");
            } catch (SQLException e) {
                out("error", e.getSQLState());
            }
            try (PreparedStatement ps = conn.prepareStatement("SELECT 10 / ?")) {
                ps.setInt(1, 0);
                ps.executeQuery();
                out("error2", "none");
            } catch (SQLException e) {
                out("error2", e.getSQLState());
            }
            check("after_error", () -> {
                try (Statement st = conn.createStatement();
                     ResultSet rs = st.executeQuery("SELECT 'still usable'")) {
                    rs.next();
                    out("after_error", rs.getString(1));
                }
            });

            check("drop", () -> {
                try (Statement st = conn.createStatement()) {
                    st.execute("DROP TABLE " + table);
                }
            });
        }
    }
}
