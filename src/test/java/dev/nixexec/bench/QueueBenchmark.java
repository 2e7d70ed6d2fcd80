package dev.nixexec.bench;

import dev.nixexec.job.ClaimedJob;
import dev.nixexec.job.JobTransitions;
import dev.nixexec.job.JobService;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.Role;
import dev.nixexec.tenant.TenantPolicy;
import dev.nixexec.tenant.Tenants;
import dev.nixexec.testing.ApiOnlyNode;
import dev.nixexec.testing.NixSpy;
import dev.nixexec.worker.ResultWriter;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Queue throughput with a no-op runner: claimers take jobs with the real claim query and finish
 * them at once with the real finish path (result, events, audit, notify), so the figure is the
 * queue's own cost. This is a benchmark mode in the test tree only; the service has no no-op runner.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
@TestProfile(ApiOnlyNode.class)
@Tag("benchmark")
class QueueBenchmark {

    private static final int JOBS = Integer.getInteger("bench.queue-jobs", 5000);
    private static final int CLAIMERS = Integer.getInteger("bench.queue-claimers", 4);
    private static final int BATCH = Integer.getInteger("bench.queue-batch", 32);
    /** Concurrent callers of submit, as an API node serves many requests at once. */
    private static final int SUBMITTERS = 8;

    @Inject
    JobService jobs;

    @Inject
    JobTransitions transitions;

    @Inject
    ResultWriter results;

    @Inject
    Tenants tenants;

    @Test
    void throughput() throws Exception {
        Caller[] callers = new Caller[4];
        for (int t = 0; t < callers.length; t++) {
            UUID id = tenants.create("bench-" + UUID.randomUUID().toString().substring(0, 8),
                    new TenantPolicy(null, null, null, null, null, null, JOBS, 100_000), null).id;
            callers[t] = new Caller(id, null, Role.MEMBER);
        }
        JobService.Submission noop = new JobService.Submission("bash", "true", List.of(), Map.of(), "", Optional.empty(),
                false, Map.of());
        long submitStart = System.nanoTime();
        AtomicInteger next = new AtomicInteger();
        List<Thread> submitters = new java.util.ArrayList<>();
        for (int s = 0; s < SUBMITTERS; s++) {
            submitters.add(Thread.ofVirtual().start(() -> {
                for (int i = next.getAndIncrement(); i < JOBS; i = next.getAndIncrement()) {
                    jobs.submit(callers[i % callers.length], noop, null);
                }
            }));
        }
        for (Thread submitter : submitters) {
            submitter.join();
        }
        double submitSeconds = (System.nanoTime() - submitStart) / 1e9;

        AtomicInteger done = new AtomicInteger();
        AtomicLong claimNanos = new AtomicLong();
        AtomicLong finishNanos = new AtomicLong();
        AtomicInteger batches = new AtomicInteger();
        CountDownLatch finished = new CountDownLatch(CLAIMERS);
        long start = System.nanoTime();
        for (int c = 0; c < CLAIMERS; c++) {
            String node = "bench-node-" + c;
            Thread.ofVirtual().start(() -> {
                try {
                    int idle = 0;
                    while (idle < 3) {
                        long t0 = System.nanoTime();
                        List<ClaimedJob> batch = transitions.claim(node, BATCH, BATCH);
                        long t1 = System.nanoTime();
                        idle = batch.isEmpty() ? idle + 1 : 0;
                        // Each claimed job ends on its own thread, as runs do on a worker.
                        List<Thread> runs = batch.stream().map(job -> Thread.ofVirtual().start(() -> {
                            if (results.write(node, new JobTransitions.Finish(job.id(), job.attempt(), new JobTransitions.Outcome("succeeded", 0,
                                    null, false, null, 0L, "", "", 0, 0, false, false, null, null), List.of()))) {
                                done.incrementAndGet();
                            }
                        })).toList();
                        for (Thread run : runs) {
                            run.join();
                        }
                        if (!batch.isEmpty()) {
                            claimNanos.addAndGet(t1 - t0);
                            finishNanos.addAndGet(System.nanoTime() - t1);
                            batches.incrementAndGet();
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    finished.countDown();
                }
            });
        }
        finished.await();
        double seconds = (System.nanoTime() - start) / 1e9;
        String report = String.format("""
                Queue (no-op runner), %d jobs over 4 tenants, %d claimers, batches of %d, %d cores, embedded PostgreSQL 17:
                | what | figure |
                |---|---|
                | submit (JobService, one transaction each, %d concurrent callers) | %.0f jobs/s |
                | claim + finish | %.0f jobs/s (%.0f per core) |
                | per batch: claim / finish of its jobs (mean) | %.1f / %.1f ms |
                """, JOBS, CLAIMERS, BATCH, Runtime.getRuntime().availableProcessors(), SUBMITTERS, JOBS / submitSeconds,
                done.get() / seconds, done.get() / seconds / Runtime.getRuntime().availableProcessors(),
                claimNanos.get() / 1e6 / Math.max(1, batches.get()), finishNanos.get() / 1e6 / Math.max(1, batches.get()));
        System.out.println(report);
        append(report);
    }

    static void append(String text) throws IOException {
        Path out = Path.of(System.getProperty("nixexec-test.repo-dir", "."), "target", "benchmarks.md");
        Files.writeString(out, text + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }
}
