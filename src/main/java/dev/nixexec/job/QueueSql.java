package dev.nixexec.job;

import dev.nixexec.database.NamedStatement;
import dev.nixexec.database.SqlFile;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The queue's one way to its tables ({@code jobs}, {@code job_events}, {@code queued_job_counts},
 * {@code nodes}): the named statements of {@code jobs.sql}.
 */
final class QueueSql {

    private static final SqlFile STATEMENTS = SqlFile.of(QueueSql.class, "jobs.sql");

    private QueueSql() {
    }

    static NamedStatement statement(String name) {
        return STATEMENTS.statement(name);
    }

    static <T> List<T> query(DataSource db, String name, Map<String, ?> values, NamedStatement.Row<T> row) {
        return STATEMENTS.query(db, name, values, row);
    }

    static <T> T single(DataSource db, String name, Map<String, ?> values, NamedStatement.Row<T> row) {
        return STATEMENTS.single(db, name, values, row);
    }

    static int update(DataSource db, String name, Map<String, ?> values) {
        return STATEMENTS.update(db, name, values);
    }
}
