package dev.nixexec.job;

import java.util.UUID;

/**
 * A job whose node stopped renewing its lease, and what becomes of it: the reaper's decision, kept
 * apart from its SQL. A requested cancel wins; a job whose code never started is queued again
 * until its attempts are used up; one whose code started ends {@code error}/{@code worker_lost},
 * so user code runs at most once.
 */
public record ExpiredLease(UUID id, String nodeId, JobStatus status, int attempt, int maxAttempts,
        boolean cancelRequested) {

    /** What the reaper makes of the job: its next status, and for an error the message. */
    public record Verdict(JobStatus status, String errorMessage) {
    }

    public Verdict verdict() {
        if (cancelRequested) {
            return new Verdict(JobStatus.CANCELLED, null);
        }
        if (status == JobStatus.BUILDING && attempt < maxAttempts) {
            return new Verdict(JobStatus.QUEUED, null);
        }
        return new Verdict(JobStatus.ERROR, status == JobStatus.RUNNING
                ? "the node running the job stopped responding; the job is not retried because its code had started"
                : "the job's node stopped responding " + attempt + " times before its code started");
    }
}
