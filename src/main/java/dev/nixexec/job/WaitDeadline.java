package dev.nixexec.job;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * When a wait ends, on a monotonic clock ({@link System#nanoTime} but in tests); {@link #NONE} for
 * a follower that ends only with the job or when it stops itself.
 */
record WaitDeadline(LongSupplier clock, long at, boolean endless) {

    static final WaitDeadline NONE = new WaitDeadline(System::nanoTime, 0, true);

    static WaitDeadline after(Duration wait) {
        return after(wait, System::nanoTime);
    }

    static WaitDeadline after(Duration wait, LongSupplier clock) {
        return new WaitDeadline(clock, clock.getAsLong() + wait.toNanos(), false);
    }

    /** A requested wait, at most {@code max} (the service's {@code nixexec.jobs.max-wait}). */
    static Duration capped(Duration wait, Duration max) {
        return wait.compareTo(max) > 0 ? max : wait;
    }

    /** Nanoseconds left, zero or less once it has passed. */
    long nanosLeft() {
        return endless ? Long.MAX_VALUE : at - clock.getAsLong();
    }

    /** What is left, never negative. */
    Duration left() {
        return Duration.ofNanos(Math.max(0, nanosLeft()));
    }
}
