package dev.nixexec.mcp;

import dev.nixexec.job.JobEvents;
import dev.nixexec.job.JobService;
import dev.nixexec.job.JobWaits;
import dev.nixexec.tenant.Caller;
import io.quarkiverse.mcp.server.Cancellation;
import io.quarkiverse.mcp.server.McpLog;
import io.quarkiverse.mcp.server.Progress;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.UUID;

/**
 * What a {@code run_code} call does with the events of its job, as {@link JobWaits} follows it:
 * they become progress notifications (status changes and output, when the client gave a progress
 * token) and log notifications (the output as it appears); a {@code notifications/cancelled} for
 * the call cancels the job. The job goes on when the wait is up; its output so far is kept for the
 * "still running" answer.
 */
final class JobFollow implements JobWaits.Follower {

    /** How often a quiet job is re-checked for a cancelled call; bounds how late a cancel lands. */
    static final Duration CANCEL_CHECK = Duration.ofMillis(250);

    private final JobService jobs;
    private final Caller caller;
    private final UUID jobId;
    private final Progress progress;
    private final McpLog log;
    private final Cancellation cancellation;
    private final OutputSoFar output = new OutputSoFar();
    private boolean cancelSent;

    JobFollow(JobService jobs, Caller caller, UUID jobId, Progress progress, McpLog log, Cancellation cancellation) {
        this.jobs = jobs;
        this.caller = caller;
        this.jobId = jobId;
        this.progress = progress;
        this.log = log;
        this.cancellation = cancellation;
    }

    @Override
    public void event(JobEvents.Event event) {
        boolean output = event.kind().equals("stdout") || event.kind().equals("stderr");
        this.output.add(event);
        progress.token().ifPresent(token -> progress.notificationBuilder()
                .setProgress(event.seq())
                .setMessage(output ? event.kind() + ": " + event.data().length() + " characters"
                        : "job " + jobId + " " + event.data())
                .build().sendAndForget());
        if (output) {
            // A JsonObject reaches the client as an object; any other value would be sent as a string.
            log.send(McpLog.LogLevel.INFO, new JsonObject().put("job_id", jobId.toString())
                    .put("stream", event.kind()).put("text", event.data()));
        }
    }

    /** What the job printed while it was followed. */
    OutputSoFar output() {
        return output;
    }

    /** A cancelled call cancels the job, once; following goes on until the job ends as cancelled. */
    @Override
    public boolean keepFollowing() {
        if (!cancelSent && cancellation.check().isRequested()) {
            jobs.cancel(caller, jobId);
            cancelSent = true;
        }
        return true;
    }
}
