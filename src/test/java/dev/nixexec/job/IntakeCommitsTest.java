package dev.nixexec.job;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** Group commit's hand-over between submitters, without a database: each unit's work is the test's. */
class IntakeCommitsTest {

    /** Runs each batch as it is: the transaction is not what is tested here. */
    private final IntakeCommits commits = new IntakeCommits() {
        @Override
        <T> T inNewTransaction(Supplier<T> work) {
            return work.get();
        }
    };

    /** A unit that says when it runs, then holds its writer until {@code release} opens. */
    private static IntakeCommits.Unit<String> held(String result, CountDownLatch running, CountDownLatch release) {
        return wrote -> {
            wrote.run();
            running.countDown();
            try {
                assertTrue(release.await(30, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            return result;
        };
    }

    private Thread submit(IntakeCommits.Unit<String> unit, AtomicReference<String> answer) {
        return Thread.ofPlatform().start(() -> answer.set(commits.store(unit)));
    }

    /** Parked for its answer or a place, or waiting on a unit's latch: not running. */
    private static boolean parked(Thread thread) {
        Thread.State state = thread.getState();
        return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING;
    }

    private static void awaitParked(Thread thread) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!parked(thread)) {
            assertTrue(System.nanoTime() < deadline, thread + " never parked: " + thread.getState());
            Thread.sleep(5);
        }
    }

    /**
     * A submitter whose submission another writer is storing waits for it, even with a writer's
     * place free: taking the place finds nothing to write, and doing that in a loop kept the
     * carriers of virtual threads busy enough that the writer itself never ran again.
     */
    @Test
    void aSubmitterWhoseSubmissionAnotherWriterHoldsWaitsInsteadOfSpinning() throws Exception {
        CountDownLatch aRuns = new CountDownLatch(1);
        CountDownLatch aGoes = new CountDownLatch(1);
        CountDownLatch bRuns = new CountDownLatch(1);
        CountDownLatch bGoes = new CountDownLatch(1);
        CountDownLatch dRuns = new CountDownLatch(1);
        CountDownLatch dGoes = new CountDownLatch(1);
        List<AtomicReference<String>> answers = List.of(new AtomicReference<>(), new AtomicReference<>(),
                new AtomicReference<>(), new AtomicReference<>());
        // two writers busy: A alone, then B alone
        Thread a = submit(held("A", aRuns, aGoes), answers.get(0));
        assertTrue(aRuns.await(10, TimeUnit.SECONDS));
        Thread b = submit(held("B", bRuns, bGoes), answers.get(1));
        assertTrue(bRuns.await(10, TimeUnit.SECONDS));
        // C and D queue behind them and are written together once A is stored; D holds that batch
        Thread c = submit(wrote -> "C", answers.get(2));
        awaitParked(c);
        Thread d = submit(held("D", dRuns, dGoes), answers.get(3));
        awaitParked(d);
        aGoes.countDown();
        assertTrue(dRuns.await(10, TimeUnit.SECONDS));
        // B stored: a place is free, and C's or D's submitter, whichever is not writing, has nothing to take
        bGoes.countDown();
        b.join(10_000);
        // one writes (held in D's unit), the other waits for it
        for (Thread submitter : List.of(c, d)) {
            awaitParked(submitter);
        }
        await().during(Duration.ofMillis(250)).atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertTrue(parked(c), "C's submitter " + c.getState());
            assertTrue(parked(d), "D's submitter " + d.getState());
        });
        dGoes.countDown();
        for (Thread submitter : List.of(a, b, c, d)) {
            submitter.join(10_000);
        }
        assertEquals(List.of("A", "B", "C", "D"), answers.stream().map(AtomicReference::get).toList());
    }

    /** Submissions that waited while both places were taken are written in batches of up to {@link IntakeCommits#MAX_BATCH}. */
    @Test
    void aBatchHoldsUpToMaxBatchSubmissions() throws Exception {
        ThreadLocal<int[]> units = new ThreadLocal<>();
        List<Integer> sizes = Collections.synchronizedList(new ArrayList<>());
        IntakeCommits counting = new IntakeCommits() {
            @Override
            <T> T inNewTransaction(Supplier<T> work) {
                units.set(new int[1]);
                T result = work.get();
                sizes.add(units.get()[0]);
                return result;
            }
        };
        CountDownLatch aRuns = new CountDownLatch(1);
        CountDownLatch bRuns = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> submitters = new ArrayList<>();
        for (CountDownLatch runs : List.of(aRuns, bRuns)) {
            IntakeCommits.Unit<String> held = held("held", runs, go);
            submitters.add(Thread.ofPlatform().start(() -> counting.store(wrote -> {
                units.get()[0]++;
                return held.store(wrote);
            })));
            assertTrue(runs.await(10, TimeUnit.SECONDS));
        }
        int waiting = IntakeCommits.MAX_BATCH + 8;
        for (int i = 0; i < waiting; i++) {
            Thread submitter = Thread.ofPlatform().start(() -> counting.store(wrote -> units.get()[0]++));
            awaitParked(submitter);
            submitters.add(submitter);
        }
        go.countDown();
        for (Thread submitter : submitters) {
            submitter.join(10_000);
        }
        assertEquals(2 + waiting, sizes.stream().mapToInt(Integer::intValue).sum(), "batches " + sizes);
        assertEquals(IntakeCommits.MAX_BATCH, sizes.stream().mapToInt(Integer::intValue).max().orElseThrow(),
                "batches " + sizes);
    }

    /**
     * A writer stores its own submission: it must not leave itself a wake-up, which would cut short
     * the next park of whatever its thread does after (a wait with a deadline, say).
     */
    @Test
    void aStoredSubmissionLeavesNoWakeUpOnItsOwnThread() throws Exception {
        AtomicReference<Long> parkedNanos = new AtomicReference<>();
        Thread submitter = Thread.ofPlatform().start(() -> {
            commits.store(wrote -> "A");
            long start = System.nanoTime();
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
            parkedNanos.set(System.nanoTime() - start);
        });
        submitter.join(10_000);
        assertTrue(parkedNanos.get() >= TimeUnit.MILLISECONDS.toNanos(150),
                "the park after a store returned after " + parkedNanos.get() / 1_000_000 + " ms");
    }

    /**
     * Many submitters on virtual threads, as the service's requests are: each gets its own answer,
     * no more than {@link IntakeCommits#WRITERS} batches are written at once, and no submitter is
     * left waiting (a wake-up lost between a writer leaving its place and a waiter parking would
     * hang here).
     */
    @Test
    void everySubmitterOfABusyIntakeGetsItsOwnAnswer() throws Exception {
        int submitters = 64;
        int each = 1000;
        AtomicInteger writingNow = new AtomicInteger();
        AtomicInteger mostAtOnce = new AtomicInteger();
        List<String> wrong = Collections.synchronizedList(new ArrayList<>());
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int t = 0; t < submitters; t++) {
                int submitter = t;
                threads.submit(() -> {
                    for (int i = 0; i < each; i++) {
                        String mine = submitter + "/" + i;
                        String answer = commits.store(wrote -> {
                            mostAtOnce.accumulateAndGet(writingNow.incrementAndGet(), Math::max);
                            Thread.yield();
                            writingNow.decrementAndGet();
                            return mine;
                        });
                        if (!answer.equals(mine)) {
                            wrong.add(mine + " answered " + answer);
                        }
                    }
                });
            }
            threads.shutdown();
            assertTrue(threads.awaitTermination(60, TimeUnit.SECONDS), "submitters still waiting");
        }
        assertEquals(List.of(), wrong);
        assertTrue(mostAtOnce.get() <= IntakeCommits.WRITERS, "batches written at once: " + mostAtOnce.get());
    }
}
