package dev.nixexec.job;

import java.util.Locale;
import java.util.Optional;

/**
 * {@code queued → building → running → succeeded | failed | timed_out | cancelled | error}. Every
 * move between them is a transition of {@link JobTransitions}; for each state, which ones move a
 * job in and which move it out.
 */
public enum JobStatus {

    /**
     * Waiting for a worker. In: {@code insert} (a submission not handed to a local slot),
     * {@code giveBack} (its node shut down before the code started), {@code reap} (its node stopped
     * heartbeating before the code started, attempts left). Out: {@code claim} (to building),
     * {@code cancel} (to cancelled).
     */
    QUEUED,
    /**
     * Claimed by a node, which gets the job's Nix environment ready; the lease runs. In:
     * {@code claim}, or {@code insert} with the hand-off to a free slot of the submitting node.
     * Out: {@code start} (to running), {@code finish} (an error before the code ran, or cancelled),
     * {@code giveBack} and {@code reap} (to queued, or to error/worker_lost with no attempts left,
     * or cancelled). {@code cancel} only flags it.
     */
    BUILDING,
    /**
     * The code runs in its sandbox; from here it is never retried. In: {@code start}. Out:
     * {@code finish} (to any end), {@code reap} (to error/worker_lost, or cancelled). {@code cancel}
     * only flags it; the node then kills the sandbox and finishes it cancelled.
     */
    RUNNING,
    /** The code exited 0. In: {@code finish}. Terminal: only retention deletes it. */
    SUCCEEDED,
    /** The code exited non-zero or was killed by a signal. In: {@code finish}. Terminal. */
    FAILED,
    /** The code ran past its timeout and was killed. In: {@code finish}. Terminal. */
    TIMED_OUT,
    /**
     * Cancelled by its tenant. In: {@code cancel} (a queued job), {@code finish} (a flagged job's
     * run ended other than succeeded), {@code reap} (a flagged job whose node was lost). Terminal.
     */
    CANCELLED,
    /**
     * The platform could not run it ({@code error.code}: bad package, build or sandbox failure,
     * {@code worker_shutdown}, {@code worker_lost}…). In: {@code finish}, {@code reap}. Terminal.
     */
    ERROR;

    /** Its wire and column value, made once: statuses are named on every job's read and write. */
    private final String id = name().toLowerCase(Locale.ROOT);

    public String id() {
        return id;
    }

    public boolean terminal() {
        return ordinal() >= SUCCEEDED.ordinal();
    }

    public static Optional<JobStatus> byId(String id) {
        for (JobStatus status : values()) {
            if (status.id.equals(id)) {
                return Optional.of(status);
            }
        }
        return Optional.empty();
    }
}
