package dev.nixexec.testing;

import io.quarkus.hibernate.orm.PersistenceUnitExtension;
import java.util.ArrayList;
import java.util.List;
import org.hibernate.resource.jdbc.spi.StatementInspector;

/**
 * Every SQL statement Hibernate prepares on this thread while {@link #during} runs, so a test can
 * count a call's queries (a list is one query, not one per row). Other threads (workers, other
 * requests) are not recorded, so their queries cannot blur the count.
 */
@PersistenceUnitExtension
public class StatementRecorder implements StatementInspector {

    private static final ThreadLocal<List<String>> RECORDING = new ThreadLocal<>();

    @Override
    public String inspect(String sql) {
        List<String> statements = RECORDING.get();
        if (statements != null) {
            statements.add(sql);
        }
        return sql;
    }

    /** The statements {@code call} made on this thread, in order. */
    public static List<String> during(Runnable call) {
        List<String> statements = new ArrayList<>();
        RECORDING.set(statements);
        try {
            call.run();
        } finally {
            RECORDING.remove();
        }
        return statements;
    }
}
