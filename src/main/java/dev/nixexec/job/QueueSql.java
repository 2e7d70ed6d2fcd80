package dev.nixexec.job;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The queue's one way to its tables ({@code jobs}, {@code job_events}, {@code queued_job_counts}):
 * the named statements of {@code jobs.sql}, parsed once, run on the current transaction's plain
 * JDBC connection, with rows read by column name.
 */
final class QueueSql {

    static final NamedStatement.Statements STATEMENTS = NamedStatement.file(QueueSql.class, "jobs.sql");

    private QueueSql() {
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
