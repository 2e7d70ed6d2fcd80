package dev.nixexec.session;

import dev.nixexec.job.JobReads;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * On every node, every minute: destroys the sessions whose idle time ran out ({@code expires_at}
 * passed), with their files, as {@link IdleSession} decides; sessions are locked while a node
 * handles them, so two nodes never expire one twice.
 */
@ApplicationScoped
public class SessionExpiry {

    private static final Logger LOG = Logger.getLogger(SessionExpiry.class);
    /** Sessions handled in one transaction. */
    private static final int BATCH = 100;

    private final SessionRepository repository;
    private final SessionService sessions;
    private final JobReads reads;

    SessionExpiry(SessionRepository repository, SessionService sessions, JobReads reads) {
        this.repository = repository;
        this.sessions = sessions;
        this.reads = reads;
    }

    @Scheduled(every = "1m", delayed = "30s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void scheduled() {
        try {
            int expired = expire();
            if (expired > 0) {
                LOG.infof("destroyed %d idle sessions", expired);
            }
        } catch (RuntimeException e) {
            LOG.warnf("session expiry failed, trying again next minute: %s", e.getMessage());
        }
    }

    /** One pass: the sessions whose idle time ran out, each kept or destroyed; how many were destroyed. */
    public int expire() {
        return QuarkusTransaction.requiringNew().call(() -> {
            int destroyed = 0;
            for (SessionRepository.Row row : repository.expired(BATCH)) {
                IdleSession idle = new IdleSession(row, reads.unfinishedOfSession(row.tenantId(), row.id()).size());
                switch (idle.verdict()) {
                    case KEEP -> repository.touch(row.id());
                    case DESTROY -> {
                        sessions.destroyNow(row, null, "session_expired");
                        destroyed++;
                    }
                }
            }
            return destroyed;
        });
    }
}
