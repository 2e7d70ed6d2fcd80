package dev.nixexec.job;

/**
 * Submissions whose verdict a test gives itself, for tests outside this package that hand a run
 * to a local slot as {@link JobService#submit} does ({@link LocalSlots.Slot#runPending}).
 */
public final class PendingSubmissions {

    private PendingSubmissions() {
    }

    /** A submission not decided yet: its run waits where it must. */
    public static PendingSubmission undecided() {
        return new PendingSubmission();
    }

    /** Decides it as JobService does: whether it stored the job as this node's. */
    public static void decide(PendingSubmission pending, boolean claimedHere) {
        pending.decide(claimedHere);
    }
}
