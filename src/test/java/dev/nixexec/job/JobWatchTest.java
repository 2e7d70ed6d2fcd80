package dev.nixexec.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The one wait loop (REST {@code ?wait}, event streams, MCP) without notifications: reads when
 * told, waits only after a read that found nothing new, re-reads after {@code recheck} when no
 * wake-up comes, and stops at the deadline.
 */
class JobWatchTest {

    private static final Duration LONG = Duration.ofHours(1);
    private static final Duration BOUND = Duration.ofSeconds(20);

    private final JobWatch watch = new JobWatch(UUID.randomUUID());

    /** A step that answers the given outcomes in turn and counts its reads. */
    private static final class Script implements JobWatch.Step {
        final Deque<JobWatch.Next> answers;
        final AtomicInteger reads = new AtomicInteger();

        Script(JobWatch.Next... answers) {
            this.answers = new ArrayDeque<>(List.of(answers));
        }

        @Override
        public JobWatch.Next read() {
            reads.incrementAndGet();
            return answers.pop();
        }
    }

    @Test
    void readsAtOnceWhenAskedToAndStopsWhenAReadSaysDone() throws InterruptedException {
        Script step = new Script(JobWatch.Next.DONE);
        assertTrue(watch.until(WaitDeadline.after(LONG), LONG, JobWatch.Next.AGAIN, step));
        assertEquals(1, step.reads.get());
    }

    @Test
    void moreToReadIsReadWithoutWaiting() {
        Script step = new Script(JobWatch.Next.AGAIN, JobWatch.Next.AGAIN, JobWatch.Next.DONE);
        // a wait here would last the hour of recheck: the bound fails the test instead
        assertTimeoutPreemptively(BOUND, () -> assertTrue(watch.until(WaitDeadline.after(LONG), LONG,
                JobWatch.Next.AGAIN, step)));
        assertEquals(3, step.reads.get());
    }

    @Test
    void aWakeUpEndsTheWaitBeforeTheRecheck() {
        Script step = new Script(JobWatch.Next.DONE);
        watch.wake(); // heard before the wait began: not lost
        assertTimeoutPreemptively(BOUND, () -> assertTrue(watch.until(WaitDeadline.after(LONG), LONG,
                JobWatch.Next.WAIT, step)));
        assertEquals(1, step.reads.get());
    }

    @Test
    void aWakeUpFromAnotherThreadEndsTheWait() {
        Script step = new Script(JobWatch.Next.WAIT, JobWatch.Next.DONE);
        JobWatch.Step wakingAfterFirstRead = () -> {
            JobWatch.Next next = step.read();
            if (next == JobWatch.Next.WAIT) {
                Thread.ofVirtual().start(watch::wake);
            }
            return next;
        };
        assertTimeoutPreemptively(BOUND, () -> assertTrue(watch.until(WaitDeadline.after(LONG), LONG,
                JobWatch.Next.AGAIN, wakingAfterFirstRead)));
        assertEquals(2, step.reads.get());
    }

    @Test
    void withoutAWakeUpItReadsAgainAfterTheRecheck() {
        Script step = new Script(JobWatch.Next.WAIT, JobWatch.Next.WAIT, JobWatch.Next.DONE);
        assertTimeoutPreemptively(BOUND, () -> assertTrue(watch.until(WaitDeadline.after(LONG), Duration.ofMillis(1),
                JobWatch.Next.WAIT, step)));
        assertEquals(3, step.reads.get());
    }

    @Test
    void aPassedDeadlineEndsTheWaitWithoutARead() throws InterruptedException {
        AtomicLong clock = new AtomicLong();
        WaitDeadline deadline = WaitDeadline.after(Duration.ofMillis(5), clock::get);
        clock.addAndGet(Duration.ofMillis(5).toNanos());
        Script step = new Script();
        assertFalse(watch.until(deadline, LONG, JobWatch.Next.AGAIN, step));
        assertEquals(0, step.reads.get());
    }

    @Test
    void theDeadlineIsCheckedBeforeEveryRead() throws InterruptedException {
        AtomicLong clock = new AtomicLong();
        WaitDeadline deadline = WaitDeadline.after(Duration.ofMillis(25), clock::get);
        AtomicInteger reads = new AtomicInteger();
        // each read takes 10 ms of the test's clock and finds nothing new
        JobWatch.Step slow = () -> {
            reads.incrementAndGet();
            clock.addAndGet(Duration.ofMillis(10).toNanos());
            return JobWatch.Next.WAIT;
        };
        assertFalse(watch.until(deadline, Duration.ofMillis(1), JobWatch.Next.AGAIN, slow));
        assertEquals(3, reads.get());
    }

    @Test
    void noDeadlineWaitsUntilDone() throws InterruptedException {
        Script step = new Script(JobWatch.Next.WAIT, JobWatch.Next.DONE);
        assertTrue(watch.until(WaitDeadline.NONE, Duration.ofMillis(1), JobWatch.Next.AGAIN, step));
        assertEquals(2, step.reads.get());
    }
}
