package dev.nixexec.job;

import java.util.Optional;

/**
 * This node's free worker slots, offered to jobs submitted on this node: a job that finds nothing
 * else waiting is stored already claimed by this node and handed to the slot after its commit, with
 * no wake-up and no claim statement in between.
 */
public interface LocalSlots {

    /** A free slot held for one submission, if this node runs jobs and has one free. */
    Optional<Slot> take();

    /** One held slot: either runs the job stored as claimed by this node, or is released unused. */
    interface Slot {

        String nodeId();

        /** Runs a job stored as claimed by this node; called once its submission committed. */
        void run(ClaimedJob job);

        void release();
    }
}
