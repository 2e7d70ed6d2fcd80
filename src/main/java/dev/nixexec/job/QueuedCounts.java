package dev.nixexec.job;

import io.agroal.api.AgroalDataSource;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Map;
import javax.sql.DataSource;
import org.jboss.logging.Logger;

/**
 * The tenants' queued counts ({@code queued_job_counts}, kept by triggers on {@code jobs}: see
 * migration V38). Each connection adds to rows of its own, so a tenant's rows grow with the
 * connections that moved its jobs; the fold moves them into one row per tenant, so a submission's
 * sum reads a few rows. Every node folds every ten seconds; folds of several nodes at once are safe.
 */
@ApplicationScoped
class QueuedCounts {

    private static final Logger LOG = Logger.getLogger(QueuedCounts.class);

    private static final NamedStatement FOLD = QueueSql.STATEMENTS.get("FoldQueuedCounts");
    private static final NamedStatement OF_ALL_TENANTS = QueueSql.STATEMENTS.get("QueuedOfAllTenants");

    private final DataSource db;

    @Inject
    QueuedCounts(AgroalDataSource db) {
        this((DataSource) db);
    }

    /** On {@code db}'s connections (a test's: the connection of its transaction). */
    QueuedCounts(DataSource db) {
        this.db = db;
    }

    @Scheduled(every = "10s", delayed = "10s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void foldNow() {
        try {
            fold();
        } catch (RuntimeException e) {
            LOG.warnf("cannot fold the tenants' queued counts: %s", e.getMessage());
        }
    }

    /** The queued jobs of all tenants, in the current transaction's snapshot (its own outside one). */
    long ofAllTenants() {
        return QueueSql.run(db, c -> OF_ALL_TENANTS.with(Map.of()).single(c, rs -> rs.getLong("queued")));
    }

    /**
     * Moves the connections' rows into each tenant's total, in one statement (its own transaction
     * outside one); how many rows it moved.
     */
    long fold() {
        return QueueSql.run(db, c -> FOLD.with(Map.of()).single(c, rs -> rs.getLong("rows")));
    }
}
