package dev.nixexec.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A wait's deadline on a clock the test moves. */
class WaitDeadlineTest {

    private final AtomicLong now = new AtomicLong(1_000_000);

    @Test
    void aWaitIsCappedAtTheServiceMaximum() {
        assertEquals(Duration.ofSeconds(60), WaitDeadline.capped(Duration.ofMinutes(5), Duration.ofSeconds(60)));
        assertEquals(Duration.ofSeconds(5), WaitDeadline.capped(Duration.ofSeconds(5), Duration.ofSeconds(60)));
        assertEquals(Duration.ofSeconds(60), WaitDeadline.capped(Duration.ofSeconds(60), Duration.ofSeconds(60)));
    }

    @Test
    void whatIsLeftShrinksWithTheClockAndNeverGoesBelowZero() {
        WaitDeadline deadline = WaitDeadline.after(Duration.ofMillis(100), now::get);
        assertEquals(Duration.ofMillis(100), deadline.left());
        now.addAndGet(Duration.ofMillis(40).toNanos());
        assertEquals(Duration.ofMillis(60).toNanos(), deadline.nanosLeft());
        now.addAndGet(Duration.ofMillis(60).toNanos());
        assertEquals(0, deadline.nanosLeft());
        now.addAndGet(Duration.ofMillis(1).toNanos());
        assertTrue(deadline.nanosLeft() < 0);
        assertEquals(Duration.ZERO, deadline.left());
    }

    @Test
    void noDeadlineNeverPasses() {
        assertEquals(Long.MAX_VALUE, WaitDeadline.NONE.nanosLeft());
    }
}
