package dev.nixexec.bench;

import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.job.ClaimedJob;
import dev.nixexec.job.JobTransitions;
import dev.nixexec.job.JobService;
import dev.nixexec.job.JobStatus;
import dev.nixexec.job.Outcome;
import dev.nixexec.job.Submission;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.Role;
import dev.nixexec.tenant.TenantPolicy;
import dev.nixexec.tenant.Tenants;
import dev.nixexec.testing.ApiOnlyNode;
import dev.nixexec.testing.NixSpy;
import dev.nixexec.worker.ResultWriter;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
    /** Jobs submitted, claimed and finished before the measured round. */
    private static final int WARMUP = Integer.getInteger("bench.queue-warmup", 15000);
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

    @Inject
    AgroalDataSource db;

    /**
     * CPU seconds used so far by this JVM and by the embedded PostgreSQL (its postmaster and the
     * processes it started), the seconds the JIT compilers worked, and the machine's CPU seconds
     * that other processes used and that the hypervisor stole. On a machine shared with other work,
     * jobs per CPU second compare two runs better than jobs per second of wall time, and the last
     * two tell a slow run's cause when it is visible from inside.
     */
    private record Cpu(double jvm, double postgres, double compiling, double others, double stolen) {
        Cpu minus(Cpu earlier) {
            return new Cpu(jvm - earlier.jvm, postgres - earlier.postgres, compiling - earlier.compiling,
                    others - earlier.others, stolen - earlier.stolen);
        }
    }

    private Cpu cpu() throws Exception {
        double jvm = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime() / 1e9;
        long backend;
        try (Connection c = db.getConnection(); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            backend = rs.getLong(1);
        }
        long postmaster = Long.parseLong(stat(backend)[3]);
        long ticks = 0;
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path proc : procs) {
                long pid = Long.parseLong(proc.getFileName().toString());
                try {
                    String[] f = stat(pid);
                    if (pid == postmaster || Long.parseLong(f[3]) == postmaster) {
                        // utime, stime, and those of children it waited for (exited backends)
                        ticks += Long.parseLong(f[13]) + Long.parseLong(f[14]) + Long.parseLong(f[15]) + Long.parseLong(f[16]);
                    }
                } catch (IOException | RuntimeException gone) {
                    // the process ended meanwhile
                }
            }
        }
        // the JIT compilers' time is the JVM's too: after a short warm-up they were still at work
        double compiling = ManagementFactory.getCompilationMXBean().getTotalCompilationTime() / 1e3;
        // the machine's: what every process used (user, nice, system, irq, softirq), less this JVM's
        // and PostgreSQL's, is what other work took from the run; steal, what the hypervisor did
        String[] all = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
        double busy = (Long.parseLong(all[1]) + Long.parseLong(all[2]) + Long.parseLong(all[3])
                + Long.parseLong(all[6]) + Long.parseLong(all[7])) / 100.0;
        double postgres = ticks / 100.0;
        return new Cpu(jvm, postgres, compiling, busy - jvm - postgres, Long.parseLong(all[8]) / 100.0);
    }

    /** The fields of /proc/PID/stat from the state on (index 0 = state, 1 = ppid … as stat(5) minus 2). */
    private static String[] stat(long pid) throws IOException {
        String text = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        String[] rest = text.substring(text.lastIndexOf(')') + 2).split(" ");
        String[] fields = new String[rest.length + 2];
        System.arraycopy(rest, 0, fields, 2, rest.length);
        return fields;
    }

    /** What one round measured: submissions, then claims and finishes of all of them. */
    private record Round(double submitSeconds, Cpu submitCpu, int done, double claimSeconds, Cpu claimCpu,
            long claimNanos, long finishNanos, int batches, int emptyClaims) {
    }

    @Test
    void throughput() throws Exception {
        Submission noop = Submission.of(ExecutionRequest.of("bash", "true"));
        if (WARMUP > 0) {
            // a running service has compiled its paths: a first round in a fresh JVM measures the
            // compiler's work too (its threads' CPU is the JVM's); after 5,000 jobs C2 still took
            // a sixth of the samples of the claims (perf), after 15,000 a twentieth
            round(callers(), noop, WARMUP);
        }
        String load = Files.readString(Path.of("/proc/loadavg")).strip();
        Round r = round(callers(), noop, JOBS);
        String report = String.format("""
                Queue (no-op runner), %d jobs over 4 tenants after %d to warm up, %d claimers, batches of %d, %d cores, embedded PostgreSQL 17:
                | what | figure |
                |---|---|
                | submit (JobService, %d concurrent callers, group commit) | %.0f jobs/s |
                | claim + finish | %.0f jobs/s (%.0f per core) |
                | per batch: claim / finish of its jobs (mean) | %.1f / %.1f ms |
                | claims that found no job | %d (of %d) |
                | submit: CPU ms per job, JVM / PostgreSQL | %.3f / %.3f |
                | claim + finish: CPU ms per job, JVM / PostgreSQL | %.3f / %.3f |
                | JIT compilation during submit / claim + finish | %.0f / %.0f ms |
                | CPU other processes took / the hypervisor stole, during submit · claim + finish | %.0f / %.0f · %.0f / %.0f ms per s |
                | load average before the run | %s |
                """, JOBS, WARMUP, CLAIMERS, BATCH, Runtime.getRuntime().availableProcessors(), SUBMITTERS,
                JOBS / r.submitSeconds(), r.done() / r.claimSeconds(),
                r.done() / r.claimSeconds() / Runtime.getRuntime().availableProcessors(),
                r.claimNanos() / 1e6 / Math.max(1, r.batches()), r.finishNanos() / 1e6 / Math.max(1, r.batches()),
                r.emptyClaims(), r.emptyClaims() + r.batches(),
                r.submitCpu().jvm() * 1e3 / JOBS, r.submitCpu().postgres() * 1e3 / JOBS,
                r.claimCpu().jvm() * 1e3 / Math.max(1, r.done()), r.claimCpu().postgres() * 1e3 / Math.max(1, r.done()),
                r.submitCpu().compiling() * 1e3, r.claimCpu().compiling() * 1e3,
                r.submitCpu().others() * 1e3 / r.submitSeconds(), r.submitCpu().stolen() * 1e3 / r.submitSeconds(),
                r.claimCpu().others() * 1e3 / r.claimSeconds(), r.claimCpu().stolen() * 1e3 / r.claimSeconds(), load);
        System.out.println(report);
        append(report);
    }

    /** Four tenants of their own, each allowed all of a round's jobs queued. */
    private Caller[] callers() {
        Caller[] callers = new Caller[4];
        for (int t = 0; t < callers.length; t++) {
            UUID id = tenants.create("bench-" + UUID.randomUUID().toString().substring(0, 8),
                    new TenantPolicy(null, null, null, null, null, null, Math.max(JOBS, WARMUP), 100_000), null).id;
            callers[t] = new Caller(id, null, Role.MEMBER);
        }
        return callers;
    }

    /** Submits {@code count} jobs, then claims and finishes them all. */
    private Round round(Caller[] callers, Submission noop, int count) throws Exception {
        Cpu cpu0 = cpu();
        long submitStart = System.nanoTime();
        AtomicInteger next = new AtomicInteger();
        List<Thread> submitters = new java.util.ArrayList<>();
        for (int s = 0; s < SUBMITTERS; s++) {
            submitters.add(Thread.ofVirtual().start(() -> {
                for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                    jobs.submit(callers[i % callers.length], noop, null);
                }
            }));
        }
        for (Thread submitter : submitters) {
            submitter.join();
        }
        double submitSeconds = (System.nanoTime() - submitStart) / 1e9;
        Cpu submitCpu = cpu().minus(cpu0);
        Cpu cpu1 = cpu();

        AtomicInteger done = new AtomicInteger();
        AtomicLong claimNanos = new AtomicLong();
        AtomicLong finishNanos = new AtomicLong();
        AtomicInteger batches = new AtomicInteger();
        AtomicInteger emptyClaims = new AtomicInteger();
        CountDownLatch finished = new CountDownLatch(CLAIMERS);
        long start = System.nanoTime();
        long deadline = start + TimeUnit.MINUTES.toNanos(5);
        for (int c = 0; c < CLAIMERS; c++) {
            String node = "bench-node-" + c;
            Thread.ofVirtual().start(() -> {
                try {
                    // until every job is done: a claimer that found the queue's head held by the
                    // others stopped early before, so fewer claimers than asked were measured
                    while (done.get() < count && System.nanoTime() < deadline) {
                        long t0 = System.nanoTime();
                        List<ClaimedJob> batch = transitions.claim(node, BATCH, BATCH);
                        long t1 = System.nanoTime();
                        if (batch.isEmpty()) {
                            emptyClaims.incrementAndGet();
                            // as a worker would wait for a wake-up
                            Thread.sleep(1);
                        }
                        // Each claimed job ends on its own thread, as runs do on a worker.
                        List<Thread> runs = batch.stream().map(job -> Thread.ofVirtual().start(() -> {
                            if (results.write(node, new JobTransitions.Finish(job.id(), job.attempt(), new Outcome(JobStatus.SUCCEEDED, 0,
                                    null, false, null, 0L, "", "", 0, 0, false, false, null, null, null), List.of()))) {
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
        if (done.get() != count) {
            throw new AssertionError(done.get() + " of " + count + " jobs finished in 5 minutes");
        }
        return new Round(submitSeconds, submitCpu, done.get(), seconds, cpu().minus(cpu1), claimNanos.get(),
                finishNanos.get(), batches.get(), emptyClaims.get());
    }

    static void append(String text) throws IOException {
        Path out = Path.of(System.getProperty("nixexec-test.repo-dir", "."), "target", "benchmarks.md");
        Files.writeString(out, text + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }
}
