package dev.nixexec.worker;

import java.time.Duration;
import java.time.Instant;

/**
 * When this node may judge other nodes' leases. Leases are compared with the database's clock, so
 * after the database stalled (every node's heartbeat held up) or its clock jumped, every lease
 * looks expired at once, healthy ones included. The reaper therefore acts only after this node
 * has been in prompt, steady contact with the database for a whole lease: long enough for every
 * healthy owner to have renewed its leases first. A dead node's jobs are taken back at most one
 * lease later than they would be otherwise.
 */
final class ReapGate {

    /** A database clock that moved this much more or less than ours between two contacts jumped. */
    private static final Duration CLOCK_JUMP = Duration.ofSeconds(1);

    private final long leaseNanos;
    private final long intervalNanos;
    private long steadySince = -1;
    private long lastContact = -1;
    private long lastOffset;

    ReapGate(Duration lease, Duration heartbeat) {
        this.leaseNanos = lease.toNanos();
        this.intervalNanos = heartbeat.toNanos();
    }

    /**
     * A database round trip that began at {@code startedNanos} and ended at {@code endedNanos}
     * (System.nanoTime) and read the database's clock as {@code databaseNow}.
     */
    synchronized void contact(long startedNanos, long endedNanos, Instant databaseNow) {
        long databaseNanos = databaseNow.getEpochSecond() * 1_000_000_000L + databaseNow.getNano();
        long offset = databaseNanos - endedNanos;
        boolean slow = endedNanos - startedNanos > intervalNanos;
        boolean late = lastContact >= 0 && startedNanos - lastContact > 3 * intervalNanos;
        boolean jumped = lastContact >= 0
                && Math.abs(offset - lastOffset) > CLOCK_JUMP.toNanos() + (endedNanos - startedNanos);
        if (steadySince < 0 || slow || late || jumped) {
            steadySince = endedNanos;
        }
        lastContact = endedNanos;
        lastOffset = offset;
    }

    /** A round trip that failed: contact is lost until the next one succeeds. */
    synchronized void lost() {
        steadySince = -1;
    }

    synchronized boolean mayReap(long nowNanos) {
        return steadySince >= 0 && nowNanos - steadySince >= leaseNanos;
    }
}
