package dev.nixexec.database;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * SQL text with named parameters ({@code :node}), run on a plain {@link Connection}: the text stays
 * readable as SQL and a parameter is bound by name wherever it occurs. A {@code ::} cast, quoted
 * text and comments are left alone. Parsed once; its JDBC text never changes, so the driver
 * prepares it once per connection.
 */
public final class NamedStatement {

    /** Reads one row of a result; the result set is positioned on it. */
    @FunctionalInterface
    public interface Row<T> {
        T read(ResultSet rs) throws SQLException;
    }

    /** Sent ahead of a statement {@link #plannedOnce}, in the same round trip. */
    private static final String PLAN_ONCE = "SET LOCAL plan_cache_mode TO force_generic_plan;\n";

    /** Sent ahead of a statement {@link #withPlainIndexScans}, in the same round trip. */
    private static final String PLAIN_INDEX_SCANS = "SET LOCAL enable_bitmapscan TO off;\n";

    private final String jdbc;
    private final List<String> names;

    private NamedStatement(String jdbc, List<String> names) {
        this.jdbc = jdbc;
        this.names = List.copyOf(names);
    }

    /**
     * The same statement, planned once per connection for any values instead of afresh for each
     * execution's: for a statement whose plan does not depend on its values (the intake's, the
     * claim's) planning would cost more than running (docs/benchmarks.md). The setting goes ahead
     * of the statement in its round trip and holds for the rest of its transaction, whose later
     * lookups by key plan the same either way.
     */
    public NamedStatement plannedOnce() {
        return new NamedStatement(PLAN_ONCE + jdbc, names);
    }

    /**
     * The same statement, planned without bitmap scans. A bitmap scan never marks the index
     * entries of rows that are dead to every transaction, so each run of the statement visits
     * every such row again until a vacuum removes it; a plain index scan marks each one the first
     * time and later scans pass over it. For a scan of a partial index whose rows leave it at a
     * high rate (jobs_active, every job that ended) that is the difference between the rows in the
     * index and every row that was in it since the last vacuum. The setting holds for the rest of
     * the statement's transaction; a claim's and a finish's end with the statement.
     */
    public NamedStatement withPlainIndexScans() {
        return new NamedStatement(PLAIN_INDEX_SCANS + jdbc, names);
    }

    /**
     * The statements of the SQL resource {@code resource} beside {@code owner}, each begun by a
     * {@code -- name: Name} line. {@code {Name}} in a block stands for that block's text (a fragment
     * several statements share); whole-line comments document the file and are not sent.
     */
    public static Map<String, NamedStatement> file(Class<?> owner, String resource) {
        String text;
        try (InputStream in = Objects.requireNonNull(owner.getResourceAsStream(resource), resource)) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> blocks = new LinkedHashMap<>();
        String name = null;
        for (String line : text.split("\n")) {
            if (line.startsWith(NAME)) {
                name = line.substring(NAME.length()).strip();
            } else if (name != null && !line.isBlank() && !line.stripLeading().startsWith("--")) {
                blocks.merge(name, line, (sql, more) -> sql + "\n" + more);
            }
        }
        Map<String, NamedStatement> statements = new HashMap<>();
        blocks.forEach((block, sql) -> statements.put(block, of(expand(sql, blocks))));
        return Map.copyOf(statements);
    }

    private static final String NAME = "-- name:";

    private static final Pattern REFERENCE = Pattern.compile("\\{([A-Za-z]+)}");

    private static String expand(String sql, Map<String, String> blocks) {
        return REFERENCE.matcher(sql).replaceAll(m -> {
            String block = blocks.get(m.group(1));
            if (block == null) {
                throw new IllegalStateException("no block " + m.group(1) + " for " + m.group());
            }
            return Matcher.quoteReplacement(expand(block, blocks));
        });
    }

    public static NamedStatement of(String sql) {
        StringBuilder jdbc = new StringBuilder(sql.length());
        List<String> names = new ArrayList<>();
        int i = 0;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"') {
                int end = sql.indexOf(c, i + 1);
                end = end < 0 ? sql.length() : end + 1;
                jdbc.append(sql, i, end);
                i = end;
            } else if (c == '-' && sql.startsWith("--", i)) {
                int end = sql.indexOf('\n', i);
                end = end < 0 ? sql.length() : end;
                jdbc.append(sql, i, end);
                i = end;
            } else if (c == ':' && sql.startsWith("::", i)) {
                jdbc.append("::");
                i += 2;
            } else if (c == ':' && i + 1 < sql.length() && isNameStart(sql.charAt(i + 1))) {
                int end = i + 1;
                while (end < sql.length() && isNamePart(sql.charAt(end))) {
                    end++;
                }
                names.add(sql.substring(i + 1, end));
                jdbc.append('?');
                i = end;
            } else {
                jdbc.append(c);
                i++;
            }
        }
        return new NamedStatement(jdbc.toString(), names);
    }

    private static boolean isNameStart(char c) {
        return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    private static boolean isNamePart(char c) {
        return isNameStart(c) || (c >= '0' && c <= '9');
    }

    /** The parameters' values by name; every name of the statement must be given (a null is a value). */
    public Bound with(Map<String, ?> values) {
        return new Bound(values);
    }

    /** A builder of values, for statements with more parameters than {@link Map#of} takes. */
    public static Values values() {
        return new Values();
    }

    public static final class Values {
        private final Map<String, Object> values = new HashMap<>();

        public Values set(String name, Object value) {
            values.put(name, value);
            return this;
        }

        public Map<String, Object> map() {
            return values;
        }
    }

    public final class Bound {
        private final Map<String, ?> values;

        private Bound(Map<String, ?> values) {
            for (String name : names) {
                if (!values.containsKey(name)) {
                    throw new IllegalArgumentException("no value for :" + name);
                }
            }
            this.values = values;
        }

        public <T> List<T> query(Connection connection, Row<T> row) throws SQLException {
            try (PreparedStatement statement = prepare(connection)) {
                // past the settings sent ahead of the statement (plannedOnce, withPlainIndexScans), which answer no rows
                boolean rows = statement.execute();
                while (!rows && statement.getUpdateCount() != -1) {
                    rows = statement.getMoreResults();
                }
                if (!rows) {
                    throw new IllegalStateException("the statement answered no rows");
                }
                try (ResultSet rs = statement.getResultSet()) {
                    List<T> read = new ArrayList<>();
                    while (rs.next()) {
                        read.add(row.read(rs));
                    }
                    return read;
                }
            }
        }

        /** Runs a statement that answers no rows; how many rows it changed. */
        public int update(Connection connection) throws SQLException {
            try (PreparedStatement statement = prepare(connection)) {
                return statement.executeUpdate();
            }
        }

        /** The one row the statement answers. */
        public <T> T single(Connection connection, Row<T> row) throws SQLException {
            List<T> rows = query(connection, row);
            if (rows.size() != 1) {
                throw new IllegalStateException("expected one row, got " + rows.size());
            }
            return rows.get(0);
        }

        private PreparedStatement prepare(Connection connection) throws SQLException {
            PreparedStatement statement = connection.prepareStatement(jdbc);
            try {
                for (int i = 0; i < names.size(); i++) {
                    statement.setObject(i + 1, values.get(names.get(i)));
                }
                return statement;
            } catch (SQLException | RuntimeException e) {
                statement.close();
                throw e;
            }
        }
    }
}
