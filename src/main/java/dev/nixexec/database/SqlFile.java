package dev.nixexec.database;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The named statements of one SQL resource ({@link NamedStatement#file}), parsed once and run on
 * the current transaction's plain JDBC connection (the JTA one's, shared with Hibernate; a database
 * test's own).
 */
public final class SqlFile {

    private final String resource;
    private final Map<String, NamedStatement> statements;

    private SqlFile(String resource, Map<String, NamedStatement> statements) {
        this.resource = resource;
        this.statements = statements;
    }

    /** The statements of the resource {@code resource} beside {@code owner}. */
    public static SqlFile of(Class<?> owner, String resource) {
        return new SqlFile(resource, NamedStatement.file(owner, resource));
    }

    public NamedStatement statement(String name) {
        NamedStatement statement = statements.get(name);
        if (statement == null) {
            throw new IllegalStateException("no statement " + name + " in " + resource);
        }
        return statement;
    }

    public <T> List<T> query(DataSource db, String name, Map<String, ?> values, NamedStatement.Row<T> row) {
        return run(db, c -> statement(name).with(values).query(c, row));
    }

    public <T> T single(DataSource db, String name, Map<String, ?> values, NamedStatement.Row<T> row) {
        return run(db, c -> statement(name).with(values).single(c, row));
    }

    public int update(DataSource db, String name, Map<String, ?> values) {
        return run(db, c -> statement(name).with(values).update(c));
    }

    @FunctionalInterface
    public interface Work<T> {
        T apply(Connection connection) throws SQLException;
    }

    /** On the current transaction's connection (closing the handle leaves it to the transaction). */
    public static <T> T run(DataSource db, Work<T> work) {
        try (Connection connection = db.getConnection()) {
            return work.apply(connection);
        } catch (SQLException e) {
            throw new SqlFailure(e);
        }
    }

    /** A statement failed (a persistence failure, as Hibernate's would be). */
    public static final class SqlFailure extends jakarta.persistence.PersistenceException {
        SqlFailure(SQLException cause) {
            super(cause.getMessage(), cause);
        }
    }
}
