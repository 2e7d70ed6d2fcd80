package dev.nixexec.job;

import dev.nixexec.tenant.TenantPolicy;
import java.util.Optional;

/**
 * One submission's part of this node's free slots ({@link LocalSlots}): the slot it holds, if any,
 * and the run it started before its commit ({@link PendingSubmission}). The submission offers the
 * slot's node to its statement ({@link #node}), says how it was stored ({@link #stored}), and
 * closes it whatever happened: a run started early that did not get the job writes nothing and
 * gives its slot back, and a slot no run took is released.
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

    /**
     * Starts the run of {@code job}, under {@code policy}, before the submission commits: its sandbox
     * is set up meanwhile, and it builds and starts nothing before {@link #stored} says the job is
     * this node's. False when this node no longer runs jobs (the slot is gone).
     */
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

    /**
     * The node whose free slot the submission's statement may store the job as claimed by: none
     * without a slot, nor when a run started early under another policy than the one checked now.
     */
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

    /** Not stored as this node's (a no-op once decided): the early run gives the slot back; an untaken slot is released. */
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
