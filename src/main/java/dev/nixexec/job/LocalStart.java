package dev.nixexec.job;

import dev.nixexec.tenant.TenantPolicy;
import java.util.Optional;

/**
 * One submission's hold on a free slot of this node ({@link LocalSlots}) and its run started before
 * the commit ({@link PendingSubmission}): offered to the statement ({@link #node}), told how the job
 * was stored ({@link #stored}), closed whatever happened.
 */
final class LocalStart implements AutoCloseable {

    private Optional<LocalSlots.Slot> slot;
    private PendingSubmission pending;
    private TenantPolicy earlyPolicy;
    private boolean handedOver;

    LocalStart(Optional<LocalSlots.Slot> slot) {
        this.slot = slot;
    }

    boolean hasSlot() {
        return slot.isPresent();
    }

    /** Starts the run of {@code job} before the commit; false when this node no longer runs jobs. */
    boolean startEarly(ClaimedJob job, TenantPolicy policy) {
        PendingSubmission early = new PendingSubmission();
        // from here the slot is the run's to give back, whatever happens
        handedOver = true;
        if (!slot.orElseThrow().runPending(job, early)) {
            slot = Optional.empty();
            return false;
        }
        pending = early;
        earlyPolicy = policy;
        return true;
    }

    /** The node the statement may store the job as claimed by: not one whose early run has another policy. */
    Optional<String> node(TenantPolicy policy) {
        return earlyPolicy != null && !earlyPolicy.equals(policy) ? Optional.empty()
                : slot.map(LocalSlots.Slot::nodeId);
    }

    /** After the commit: the job as claimed by this node, if it was; its run goes on, or starts now. */
    void stored(Optional<ClaimedJob> claimedHere) {
        if (pending != null) {
            pending.decide(claimedHere.isPresent());
        } else if (claimedHere.isPresent()) {
            handedOver = true;
            slot.orElseThrow().run(claimedHere.get());
        }
    }

    /** Not stored as this node's (a no-op once decided): the early run gives its slot back, an unused one is released. */
    @Override
    public void close() {
        if (pending != null) {
            pending.decide(false);
        }
        if (!handedOver) {
            slot.ifPresent(LocalSlots.Slot::release);
        }
    }
}
