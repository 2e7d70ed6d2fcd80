package dev.nixexec.job;

import dev.nixexec.config.AfterCommit;
import dev.nixexec.tenant.TenantCache;
import io.agroal.api.AgroalDataSource;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.function.Consumer;
import org.jboss.logging.Logger;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * PostgreSQL LISTEN/NOTIFY across the fleet: a submitted job wakes idle workers, a change to a job
 * wakes whoever waits for or follows it, a cancel reaches the node running it. Notifications are
 * sent inside the transaction that makes the change, so they arrive only if it commits. Everyone
 * also polls slowly, in case a notification is missed while reconnecting. A job that ends in a
 * transaction of this node is handed to this node's waiters as stored, once it commits, so a
 * request waiting on the node that ran its job neither waits for the notification nor reads the
 * job back.
 */
@ApplicationScoped
public class JobNotifications {

    private static final Logger LOG = Logger.getLogger(JobNotifications.class);
    static final String SUBMITTED = "nixexec_submitted";
    static final String CHANGED = "nixexec_job";
    static final String CANCEL = "nixexec_cancel";
    /** A job ended: sent besides {@link #CHANGED}, which followers (and nodes before this channel) hear. */
    static final String ENDED = "nixexec_job_end";

    private final AgroalDataSource dataSource;
    private final AfterCommit afterCommit;
    private final TenantCache tenantCache;
    private final Set<Runnable> submitted = new CopyOnWriteArraySet<>();
    private final Map<UUID, Set<Runnable>> changed = new ConcurrentHashMap<>();
    private final Map<UUID, Set<Consumer<Optional<JobView>>>> ends = new ConcurrentHashMap<>();
    private final Set<Consumer<UUID>> cancels = new CopyOnWriteArraySet<>();
    private volatile boolean stopped;
    private volatile Thread listener;

    public JobNotifications(AgroalDataSource dataSource, AfterCommit afterCommit, TenantCache tenantCache) {
        this.dataSource = dataSource;
        this.afterCommit = afterCommit;
        this.tenantCache = tenantCache;
    }

    /** From the start: the tenant cache keeps entries only while this node hears their changes. */
    void start(@Observes StartupEvent event) {
        ensureListening();
    }

    /**
     * For a transaction that ends these jobs (and notifies every node of it itself): hands the jobs
     * to this node's waiters once it commits.
     */
    void handOverOnCommit(List<JobView> jobs) {
        if (jobs.isEmpty()) {
            return;
        }
        afterCommit.run(() -> jobs.forEach(job -> runEnds(job.id(), Optional.of(job))));
    }

    public void onSubmitted(Runnable action) {
        submitted.add(action);
        ensureListening();
    }

    /**
     * A job was just committed on this node: its idle workers here need not wait for the
     * notification to come back from the database (other nodes still get it).
     */
    void submittedHere() {
        submitted.forEach(Runnable::run);
    }

    public void onCancel(Consumer<UUID> action) {
        cancels.add(action);
        ensureListening();
    }

    /** A subscription to one job's changes; closing it cannot fail. */
    public interface Watch extends AutoCloseable {
        @Override
        void close();
    }

    /** Calls {@code action} whenever the job changes, until the returned handle is closed ({@link JobWatch}). */
    Watch watch(UUID jobId, Runnable action) {
        changed.computeIfAbsent(jobId, id -> new CopyOnWriteArraySet<>()).add(action);
        ensureListening();
        return () -> changed.computeIfPresent(jobId, (id, actions) -> {
            actions.remove(action);
            return actions.isEmpty() ? null : actions;
        });
    }

    /**
     * Calls {@code action} when the job ends: with the job as stored when it ended on this node,
     * empty when another node's notification said so. Until the returned handle is closed.
     */
    Watch watchEnd(UUID jobId, Consumer<Optional<JobView>> action) {
        ends.computeIfAbsent(jobId, id -> new CopyOnWriteArraySet<>()).add(action);
        ensureListening();
        return () -> ends.computeIfPresent(jobId, (id, actions) -> {
            actions.remove(action);
            return actions.isEmpty() ? null : actions;
        });
    }

    void stop(@Observes ShutdownEvent event) {
        stopped = true;
        Thread thread = listener;
        if (thread != null) {
            // Not interrupted: that closes the socket it waits on under the pool, which then warns of a
            // closed connection on every stop. It sees the flag within its 500 ms wait and gives the
            // connection back before the pool closes.
            try {
                thread.join(java.time.Duration.ofSeconds(2));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private synchronized void ensureListening() {
        if (listener == null && !stopped) {
            // A platform thread: it spends its life in timed waits for notifications, which over a
            // Unix socket (the embedded database, the NixOS module's local one) wait in a selector,
            // and a selector would hold a virtual thread's carrier all that time.
            listener = Thread.ofPlatform().daemon().name("pg-listen").start(this::listen);
        }
    }

    private void listen() {
        while (!stopped) {
            try (Connection connection = dataSource.getConnection()) {
                connection.setAutoCommit(true);
                try (Statement statement = connection.createStatement()) {
                    statement.execute("LISTEN " + SUBMITTED + "; LISTEN " + CHANGED + "; LISTEN " + ENDED
                            + "; LISTEN " + CANCEL + "; LISTEN " + TenantCache.CHANNEL);
                }
                tenantCache.hearing(true);
                PGConnection pg = connection.unwrap(PGConnection.class);
                try {
                    while (!stopped) {
                        PGNotification[] notifications = pg.getNotifications(500);
                        if (notifications != null) {
                            for (PGNotification n : notifications) {
                                dispatchOne(n);
                            }
                        }
                    }
                } finally {
                    unlisten(connection);
                }
            } catch (SQLException | RuntimeException e) {
                tenantCache.hearing(false);
                if (!stopped) {
                    LOG.warnf("listening for job notifications failed, retrying: %s", e.getMessage());
                    try {
                        Thread.sleep(500);
                    } catch (InterruptedException interrupted) {
                        return;
                    }
                }
            }
        }
    }

    /**
     * The connection goes back to the pool: still listening, it would be sent every notification
     * while idle there and keep them for whoever borrows it next.
     */
    private static void unlisten(Connection connection) {
        try (Statement statement = connection.createStatement()) {
            statement.execute("UNLISTEN *");
        } catch (SQLException e) {
            LOG.debugf("UNLISTEN failed (the pool drops a broken connection): %s", e.getMessage());
        }
    }

    /**
     * A notification the node cannot use (a payload naming no job: anyone with the database can
     * send one) or whose action fails is skipped; failing the listener for it would lose every
     * notification that arrives while it reconnects.
     */
    private void dispatchOne(PGNotification n) {
        try {
            dispatch(n.getName(), n.getParameter());
        } catch (RuntimeException e) {
            LOG.warnf(e, "ignoring a notification on %s", n.getName());
        }
    }

    private void dispatch(String channel, String payload) {
        switch (channel) {
            case SUBMITTED -> submitted.forEach(Runnable::run);
            case CHANGED -> {
                // one notification may name several jobs, comma-separated (as earlier versions sent a claim's batch)
                for (String id : payload.split(",")) {
                    Set<Runnable> actions = changed.get(UUID.fromString(id));
                    if (actions != null) {
                        actions.forEach(Runnable::run);
                    }
                }
            }
            case ENDED -> runEnds(UUID.fromString(payload), Optional.empty());
            case CANCEL -> cancels.forEach(c -> c.accept(UUID.fromString(payload)));
            case TenantCache.CHANNEL -> tenantCache.changed();
            default -> LOG.debugf("ignoring notification on %s", channel);
        }
    }

    private void runEnds(UUID id, Optional<JobView> job) {
        Set<Consumer<Optional<JobView>>> actions = ends.get(id);
        if (actions != null) {
            actions.forEach(a -> a.accept(job));
        }
    }
}
