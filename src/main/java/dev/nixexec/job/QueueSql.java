package dev.nixexec.job;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The queue's one way to its tables ({@code jobs}, {@code job_events}, {@code queued_job_counts},
 * {@code nodes}): the named statements of {@code jobs.sql}, parsed once, run on the current
 * transaction's plain JDBC connection (the JTA one's, shared with Hibernate; a database test's own).
 */
final class QueueSql {

    private static final Map<String, NamedStatement> STATEMENTS = NamedStatement.file(QueueSql.class, "jobs.sql");

    private QueueSql() {
    }

    static NamedStatement statement(String name) {
        NamedStatement statement = STATEMENTS.get(name);
        if (statement == null) {
            throw new IllegalStateException("no statement " + name + " in jobs.sql");
        }
        return statement;
    }

    static <T> List<T> query(DataSource db, String name, Map<String, ?> values, NamedStatement.Row<T> row) {
        return run(db, c -> statement(name).with(values).query(c, row));
    }

    static <T> T single(DataSource db, String name, Map<String, ?> values, NamedStatement.Row<T> row) {
        return run(db, c -> statement(name).with(values).single(c, row));
    }

    static int update(DataSource db, String name, Map<String, ?> values) {
        return run(db, c -> statement(name).with(values).update(c));
    }

    @FunctionalInterface
    interface Work<T> {
        T apply(Connection connection) throws SQLException;
    }

    /** On the current transaction's connection (closing the handle leaves it to the transaction). */
    static <T> T run(DataSource db, Work<T> work) {
        try (Connection connection = db.getConnection()) {
            return work.apply(connection);
        } catch (SQLException e) {
            throw new JobTransitions.SqlFailure(e);
        }
    }
}
