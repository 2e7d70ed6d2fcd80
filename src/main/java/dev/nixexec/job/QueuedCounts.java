package dev.nixexec.job;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
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

    private final DataSource db;
    /** Queued jobs of all tenants as last counted (at most once a second: a round trip) plus this node's submissions since. */
    private long queuedEstimate;
    private long queuedCountedAt = System.nanoTime() - 2_000_000_000L;
    /** This node's submissions since a count beside them began; -1: none is running. */
    private long submittedWhileCounting = -1;

    /** On the service's DataSource, or a database test's own transaction's. */
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
        return QueueSql.single(db, "QueuedOfAllTenants", Map.of(), rs -> rs.getLong("queued"));
    }

    /**
     * The queued jobs of all tenants, as last counted plus this node's submissions since (each call
     * is one); counted again, in the caller's transaction, when that reaches {@code max}.
     */
    synchronized long estimateOfAllTenants(long max) {
        long now = System.nanoTime();
        if (queuedEstimate >= max) {
            // a refusal is never decided on an estimate
            queuedEstimate = ofAllTenants();
            queuedCountedAt = now;
        } else if (now - queuedCountedAt > 1_000_000_000L && submittedWhileCounting < 0) {
            queuedCountedAt = now;
            submittedWhileCounting = 0;
            Thread.ofVirtual().name("queued-count").start(this::countQueued);
        }
        if (submittedWhileCounting >= 0) {
            submittedWhileCounting++;
        }
        return queuedEstimate++;
    }

    /**
     * Counts the queued jobs beside the submissions; those of this node while it counted are added,
     * whether or not the count saw them: an estimate too high only makes the next one count at once.
     */
    private void countQueued() {
        long counted = -1;
        try {
            counted = QuarkusTransaction.requiringNew().call(this::ofAllTenants);
        } catch (RuntimeException e) {
            // the estimate stays as it is; the next submission after a second counts again
        } finally {
            synchronized (this) {
                if (counted >= 0) {
                    queuedEstimate = counted + submittedWhileCounting;
                }
                submittedWhileCounting = -1;
            }
        }
    }

    /**
     * Moves the connections' rows into each tenant's total, in one statement (its own transaction
     * outside one); how many rows it moved.
     */
    long fold() {
        return QueueSql.single(db, "FoldQueuedCounts", Map.of(), rs -> rs.getLong("rows"));
    }
}
