package dev.nixexec.job;

import java.util.Optional;

/**
 * This node's free worker slots, offered to jobs submitted on this node: a job that finds nothing
 * else waiting is stored already claimed by this node and runs in the slot, with no wake-up and no
 * claim statement in between. A job without files or session starts its run before its submission
 * commits ({@link Slot#runPending}); the others are handed over after the commit ({@link Slot#run}).
 */
public interface LocalSlots {

    /** A free slot held for one submission, if this node runs jobs and has one free. */
    Optional<Slot> take();

    /** One held slot: either runs the job stored as claimed by this node, or is released unused. */
    interface Slot {

        String nodeId();

        /** Runs a job stored as claimed by this node; called once its submission committed. */
        void run(ClaimedJob job);

        /**
         * Runs a job whose submission is about to store it as claimed by this node, before that
         * commits: its sandbox is set up meanwhile, and what needs the job stored waits for
         * {@code pending}. From here the slot is the run's to give back. False when this node no
         * longer runs jobs: the slot is released and nothing runs.
         */
        boolean runPending(ClaimedJob job, PendingSubmission pending);

        void release();
    }
}
