package dev.nixexec.mcp;

import dev.nixexec.job.JobEvents;
import dev.nixexec.job.JobNotifications;
import dev.nixexec.job.JobService;
import dev.nixexec.job.JobView;
import dev.nixexec.tenant.Caller;
import io.quarkiverse.mcp.server.Cancellation;
import io.quarkiverse.mcp.server.McpLog;
import io.quarkiverse.mcp.server.Progress;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Follows one job for a {@code run_code} call: its stored events (any node may run it) become
 * progress notifications (status changes and output, when the client gave a progress token) and
 * log notifications (the output as it appears); a {@code notifications/cancelled} for the call
 * cancels the job. Made before the job is submitted, so that no change goes unheard: it reads
 * the events only when told of one. Ends when the job does or the wait is up; the job goes on in
 * either case.
 */
final class JobFollow implements AutoCloseable {

    /** How often a quiet job is re-checked for a cancelled call; bounds how late a cancel lands. */
    private static final Duration CANCEL_CHECK = Duration.ofMillis(250);

    private final JobService jobs;
    private final Caller caller;
    private final UUID jobId;
    private final Progress progress;
    private final McpLog log;
    private final Cancellation cancellation;
    private final Semaphore changed = new Semaphore(0);
    private final AtomicReference<JobView> endedHere = new AtomicReference<>();
    private final JobNotifications.Watch changes;
    private final JobNotifications.Watch end;

    JobFollow(JobService jobs, Caller caller, UUID jobId, Progress progress, McpLog log, Cancellation cancellation) {
        this.jobs = jobs;
        this.caller = caller;
        this.jobId = jobId;
        this.progress = progress;
        this.log = log;
        this.cancellation = cancellation;
        this.changes = jobs.watch(jobId, changed::release);
        this.end = jobs.watchEnd(jobId, job -> {
            job.ifPresent(endedHere::set);
            changed.release();
        });
    }

    /** The job when it ended, or as it is when {@code wait} is up. */
    JobView until(Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        int seq = 0;
        boolean caughtUp = true;
        boolean cancelSent = false;
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return jobs.get(caller, jobId);
            }
            if (caughtUp) {
                changed.tryAcquire(Math.min(left, CANCEL_CHECK.toNanos()), TimeUnit.NANOSECONDS);
                changed.drainPermits();
            }
            List<JobEvents.Event> events = jobs.eventsWithoutResult(caller, jobId, seq);
            for (JobEvents.Event event : events) {
                seq = event.seq();
                if (event.kind().equals("result")) {
                    return endedHere.get() != null ? endedHere.get() : jobs.get(caller, jobId);
                }
                report(event);
            }
            caughtUp = events.size() < JobEvents.PAGE;
            if (!cancelSent && cancellation.check().isRequested()) {
                jobs.cancel(caller, jobId);
                cancelSent = true;
            }
        }
    }

    @Override
    public void close() {
        changes.close();
        end.close();
    }

    private void report(JobEvents.Event event) {
        boolean output = event.kind().equals("stdout") || event.kind().equals("stderr");
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
}
