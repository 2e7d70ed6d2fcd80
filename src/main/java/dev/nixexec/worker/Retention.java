package dev.nixexec.worker;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.attach.ShellRecordings;
import dev.nixexec.audit.AuditLog;
import dev.nixexec.job.JobTransitions;
import dev.nixexec.workspace.SessionWorkspaceExpiry;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * Hourly: deletes what is past the retention (finished jobs with their events, audit records, shell
 * recordings), and idle MCP session workspaces. Each owner deletes its own rows; this decides when.
 */
@ApplicationScoped
public class Retention {

    private static final Logger LOG = Logger.getLogger(Retention.class);

    private final NixExecConfig config;
    private final JobTransitions jobs;
    private final AuditLog audit;
    private final ShellRecordings recordings;
    private final SessionWorkspaceExpiry sessionWorkspaces;
    private final WorkerPool pool;

    Retention(NixExecConfig config, JobTransitions jobs, AuditLog audit, ShellRecordings recordings,
            SessionWorkspaceExpiry sessionWorkspaces, WorkerPool pool) {
        this.config = config;
        this.jobs = jobs;
        this.audit = audit;
        this.recordings = recordings;
        this.sessionWorkspaces = sessionWorkspaces;
        this.pool = pool;
    }

    @Scheduled(every = "1h", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void expire() {
        int deleted = jobs.expire(config.jobs().retention());
        audit.expire(config.jobs().retention());
        recordings.expire(config.jobs().retention());
        if (deleted > 0) {
            LOG.infof("retention: deleted %d finished jobs", deleted);
        }
        int expired = sessionWorkspaces.expire(pool.nodeId());
        if (expired > 0) {
            LOG.infof("retention: deleted %d idle MCP session workspaces", expired);
        }
    }
}
