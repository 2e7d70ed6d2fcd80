package dev.nixexec.job;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The one wait for a job, under REST {@code ?wait}, the event streams (REST and the UI) and MCP.
 * It listens to the job's notifications ({@link JobNotifications}) from before the first read,
 * so a change between a read and the wait cannot go unheard. Between reads that found nothing
 * new it waits for a wake-up, at most {@code recheck} (a notification may be missed while the
 * listener reconnects) and never past the deadline. A job that ends in a transaction of this node
 * is handed over as it was stored ({@link #endedHere}), so it need not be read back.
 */
public final class JobWatch implements AutoCloseable {

    /** What a read found: the wait is over, there is more to read at once, or nothing new (wait for a wake-up). */
    enum Next { DONE, AGAIN, WAIT }

    /** One read of the job, saying what comes next. */
    @FunctionalInterface
    interface Step {
        Next read();
    }

    private final UUID id;
    private final Semaphore woken = new Semaphore(0);
    private final AtomicReference<JobView> endedHere = new AtomicReference<>();
    private final List<JobNotifications.Watch> subscriptions;

    private JobWatch(UUID id, JobNotifications notifications, boolean everyChange) {
        this.id = id;
        JobNotifications.Watch end = notifications.watchEnd(id, job -> {
            job.ifPresent(endedHere::set);
            woken.release();
        });
        this.subscriptions = everyChange ? List.of(end, notifications.watch(id, woken::release)) : List.of(end);
    }

    /** For tests of the loop alone: woken only by {@link #wake}. */
    JobWatch(UUID id) {
        this.id = id;
        this.subscriptions = List.of();
    }

    /** Woken by the job's end only: for a wait that reads the job itself. */
    static JobWatch ofEnd(JobNotifications notifications, UUID id) {
        return new JobWatch(id, notifications, false);
    }

    /** Woken by every change of the job (and its end): for a follower of its events. */
    static JobWatch ofChanges(JobNotifications notifications, UUID id) {
        return new JobWatch(id, notifications, true);
    }

    public UUID id() {
        return id;
    }

    /** The job as stored when it ended on this node, once it has. */
    Optional<JobView> endedHere() {
        return Optional.ofNullable(endedHere.get());
    }

    void wake() {
        woken.release();
    }

    /**
     * Reads until a read says {@link Next#DONE} (true) or the deadline passes (false). {@code first}
     * says whether to read at once ({@link Next#AGAIN}) or to wait for a wake-up first
     * ({@link Next#WAIT}: what the caller holds is as new as it gets, e.g. it has just submitted
     * the job).
     */
    boolean until(WaitDeadline deadline, Duration recheck, Next first, Step step) throws InterruptedException {
        Next next = first;
        while (next != Next.DONE) {
            long left = deadline.nanosLeft();
            if (left <= 0) {
                return false;
            }
            if (next == Next.WAIT) {
                woken.tryAcquire(Math.min(left, recheck.toNanos()), TimeUnit.NANOSECONDS);
                woken.drainPermits();
            }
            next = step.read();
        }
        return true;
    }

    @Override
    public void close() {
        subscriptions.forEach(JobNotifications.Watch::close);
    }
}
