package dev.nixexec.job;

import io.agroal.api.AgroalDataSource;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
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

    /**
     * Rows in use by an open transaction are passed over until the next fold, so the fold never
     * waits for a submission or a claim, nor one for the fold for longer than its own short
     * transaction (a connection whose row was folded starts a new one). Each tenant's total row is
     * written in tenant order: two folds at once wait for each other there, never in a cycle.
     */
    static final NamedStatement FOLD = NamedStatement.of("""
            WITH held AS (
                SELECT tenant_id, backend FROM queued_job_counts WHERE backend <> 0 FOR UPDATE SKIP LOCKED
            ), folded AS (
                DELETE FROM queued_job_counts c USING held h
                WHERE c.tenant_id = h.tenant_id AND c.backend = h.backend
                RETURNING c.tenant_id, c.queued
            ), totals AS (
                INSERT INTO queued_job_counts AS c (tenant_id, backend, queued)
                SELECT tenant_id, 0, sum(queued) FROM folded GROUP BY tenant_id ORDER BY tenant_id
                ON CONFLICT (tenant_id, backend) DO UPDATE SET queued = c.queued + excluded.queued
            )
            SELECT count(*) AS rows FROM folded
            """);

    private final DataSource db;

    @Inject
    QueuedCounts(AgroalDataSource db) {
        this((DataSource) db);
    }

    /** On {@code db}'s connections (a test's: the connection of its transaction). */
    QueuedCounts(DataSource db) {
        this.db = db;
    }

    @Scheduled(every = "10s", delayed = "10s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void foldNow() {
        try {
            fold();
        } catch (RuntimeException e) {
            LOG.warnf("cannot fold the tenants' queued counts: %s", e.getMessage());
        }
    }

    /** The queued jobs of all tenants, in the current transaction's snapshot (its own outside one). */
    long ofAllTenants() {
        try (Connection connection = db.getConnection(); var statement = connection.createStatement();
                var rs = statement.executeQuery("SELECT coalesce(sum(queued), 0) FROM queued_job_counts")) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new JobTransitions.SqlFailure(e);
        }
    }

    /**
     * Moves the connections' rows into each tenant's total, in one statement (its own transaction
     * outside one); how many rows it moved.
     */
    long fold() {
        try (Connection connection = db.getConnection()) {
            return FOLD.with(Map.of()).single(connection, rs -> rs.getLong("rows"));
        } catch (SQLException e) {
            throw new JobTransitions.SqlFailure(e);
        }
    }
}
