package dev.nixexec.job;

import java.util.concurrent.CompletableFuture;

/**
 * A job handed to a local slot before its submission commits ({@link LocalSlots.Slot#runPending}),
 * so that its sandbox is set up while the submission is stored. Whatever needs the job stored
 * (building an environment, recording "started", which opens the run's gate, storing an end) waits
 * for {@link #awaitStored}: true once the submission committed the job as claimed by this node;
 * false when it did not (refused, rolled back, queued instead, or an earlier job of its idempotency
 * key), and then the run writes nothing and gives its slot back.
 */
public final class PendingSubmission {

    private final CompletableFuture<Boolean> stored = new CompletableFuture<>();

    PendingSubmission() {
    }

    /** Waits for the submission's outcome: whether it committed the job as claimed by this node. */
    public boolean awaitStored() {
        // not interruptible: the submission always decides (JobService.submit, finally)
        return stored.join();
    }

    /** The first decision counts: {@code claimedHere} after the commit, false on any failure before. */
    void decide(boolean claimedHere) {
        stored.complete(claimedHere);
    }
}
