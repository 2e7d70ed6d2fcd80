package dev.nixexec.worker;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.job.JobQueue;
import dev.nixexec.workspace.SessionWorkspaceExpiry;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/** Hourly: deletes finished jobs and audit records past the retention, and idle MCP session workspaces. */
@ApplicationScoped
public class Retention {

    private static final Logger LOG = Logger.getLogger(Retention.class);

    private final NixExecConfig config;
    private final JobQueue queue;
    private final SessionWorkspaceExpiry sessionWorkspaces;
    private final WorkerPool pool;

    Retention(NixExecConfig config, JobQueue queue, SessionWorkspaceExpiry sessionWorkspaces, WorkerPool pool) {
        this.config = config;
        this.queue = queue;
        this.sessionWorkspaces = sessionWorkspaces;
        this.pool = pool;
    }

    @Scheduled(every = "1h", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void expire() {
        int deleted = queue.expire(config.jobs().retention());
        if (deleted > 0) {
            LOG.infof("retention: deleted %d finished jobs", deleted);
        }
        int expired = sessionWorkspaces.expire(pool.nodeId());
        if (expired > 0) {
            LOG.infof("retention: deleted %d idle MCP session workspaces", expired);
        }
    }
}
