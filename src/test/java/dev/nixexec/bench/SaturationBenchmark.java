package dev.nixexec.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.testing.NixSpy;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.DoubleAdder;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A worker node at saturation and at rest, over HTTP, against bubblewrap run directly in the same
 * JVM run: (1) jobs/s of cached python {@code print(1)} submitted in batches (polled every 0.5 s)
 * and one request each ({@code POST ?wait=30}) by 8 clients, against the same bubblewrap command
 * run by as many threads as the node has slots; (2) CPU per job of the service's JVM, its
 * PostgreSQL and the processes of the runs; (3) one job at a time, kept-alive and new connections.
 * The clients run in this JVM, which is the service: their threads' CPU is taken off the JVM's.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
@WithTestResource(OwnCgroupParent.class)
@Tag("benchmark")
class SaturationBenchmark {

    private static final int JOBS = Integer.getInteger("bench.saturation-jobs", 200);
    private static final int ROUNDS = Integer.getInteger("bench.saturation-rounds", 3);
    /** Jobs run before anything is measured, half of them each way. */
    private static final int WARMUP = Integer.getInteger("bench.warmup", 600);
    private static final int IDLE_RUNS = Integer.getInteger("bench.runs", 40);
    private static final int CLIENTS = 8;
    private static final int BATCH = 100;
    private static final Duration POLL = Duration.ofMillis(500);
    /** How long the service is watched with nothing to do, for what it spends without jobs. */
    private static final Duration AT_REST = Duration.ofSeconds(10);
    /** The unit of /proc's CPU times (USER_HZ). */
    private static final double TICKS_PER_SECOND = 100;
    private static final String KEY = "nx_test_bootstrap_admin_secret";
    private static final String BODY = "{\"language\":\"python\",\"code\":\"print(1)\"}";

    @TestHTTPResource("/v1/jobs")
    URI jobs;

    @Inject
    ObjectMapper json;

    @Inject
    AgroalDataSource db;

    @ConfigProperty(name = "nixexec.node.concurrency")
    int concurrency;

    private final Optional<OwnCgroupParent.Parents> cgroups = OwnCgroupParent.parents();

    /**
     * CPU seconds so far: this JVM's threads, and among them the service's thread that starts the
     * sandbox launchers; the cpuacct of the runs' cgroup parent, which keeps what removed children
     * used: each run's cgroup, {@code launchers}, which holds that thread so that a launcher counts
     * from its spawn on, not only from its joining its run's cgroup, and {@code bare}, which holds
     * the bare runs' client threads; {@code bare}'s own; this JVM's threads in {@code launchers} and
     * in {@code bare} (also those a thread there started, such as the JDK's process reapers, which
     * begin in their starter's cgroup: they are the JVM's, not the runs'); the embedded PostgreSQL
     * (postmaster and its processes, exited ones included); the whole machine's busy and stolen
     * time; the JVM's JIT compiler threads and its garbage collector's. Not the JVM's reaped
     * children: bubblewrap does not wait for its sandbox's init, so the code's CPU never reaches
     * them. NaN without cgroup v1's cpuacct.
     */
    private record Cpu(double jvm, double launcherThread, double parent, double bare, double jvmInLaunchers,
            double jvmInBare, double jit, double gc, double postgres, double machine, double stolen) {
        Cpu minus(Cpu o) {
            return new Cpu(jvm - o.jvm, launcherThread - o.launcherThread, parent - o.parent, bare - o.bare,
                    jvmInLaunchers - o.jvmInLaunchers, jvmInBare - o.jvmInBare, jit - o.jit, gc - o.gc,
                    postgres - o.postgres, machine - o.machine, stolen - o.stolen);
        }

        Cpu plus(Cpu o) {
            return new Cpu(jvm + o.jvm, launcherThread + o.launcherThread, parent + o.parent, bare + o.bare,
                    jvmInLaunchers + o.jvmInLaunchers, jvmInBare + o.jvmInBare, jit + o.jit, gc + o.gc,
                    postgres + o.postgres, machine + o.machine, stolen + o.stolen);
        }

        /** The service's runs: their processes from the spawn of their launcher on. */
        double runs() {
            return parent - bare - jvmInLaunchers;
        }

        /** The bare runs, from their spawn on, the clients' threads (given) left out. */
        double bareRuns(double clients) {
            return bare - jvmInBare - clients;
        }
    }

    /** What a measured stretch did: jobs, wall seconds, CPU, the clients' threads' CPU seconds, and the jobs' own span. */
    private record Phase(int jobs, double seconds, Cpu cpu, double client, double servedSeconds) {
        Phase plus(Phase o) {
            return new Phase(jobs + o.jobs, seconds + o.seconds, cpu.plus(o.cpu), client + o.client,
                    servedSeconds + o.servedSeconds);
        }

        double perSecond() {
            return jobs / seconds;
        }

        /** Milliseconds per job. */
        double ms(double cpuSeconds) {
            return cpuSeconds * 1e3 / jobs;
        }
    }

    private enum Mode {
        BARE, BATCH, WAIT
    }

    private long postmaster;
    /** The service's thread that starts launchers (see {@code LauncherPool}). */
    private Thread launcherParent;

    @Test
    void saturation() throws Exception {
        String firstLoad = load();
        postmaster = postmaster();
        BareHttp setup = new BareHttp(jobs);
        JsonNode first = json.readTree(setup.exchange(BareHttp.request("POST", jobs, "?wait=30", KEY, BODY)));
        setup.close();
        DirectPythonRun direct = DirectPythonRun.in(first.path("environment").path("store_path").asText());
        launcherParent = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("sandbox-launcher-parent")).findFirst().orElseThrow();
        long launcherParentTid = nativeThreadId("sandbox-launche");
        java.util.Map<Mode, List<Phase>> measured = new java.util.EnumMap<>(Mode.class);
        Cpu rest;
        java.time.LocalTime measuredFrom;
        if (cgroups.isPresent()) {
            Files.createDirectory(cgroups.get().cpuacct().resolve("bare"));
            Files.createDirectory(cgroups.get().cpuacct().resolve("launchers"));
            Files.writeString(cgroups.get().cpuacct().resolve("launchers/tasks"), Long.toString(launcherParentTid));
        }
        try {
            // a running service has compiled its paths; the first requests of a fresh JVM run interpreted
            batches(WARMUP / 2);
            waits(WARMUP - WARMUP / 2);
            bare(direct, 50);
            Cpu restStart = cpu();
            Thread.sleep(AT_REST);
            rest = cpu().minus(restStart);
            measuredFrom = java.time.LocalTime.now(java.time.ZoneOffset.UTC).withNano(0);
            for (int r = 0; r < ROUNDS; r++) {
                measured.computeIfAbsent(Mode.BARE, m -> new ArrayList<>()).add(bare(direct, JOBS));
                measured.computeIfAbsent(Mode.BATCH, m -> new ArrayList<>()).add(batches(JOBS));
                measured.computeIfAbsent(Mode.WAIT, m -> new ArrayList<>()).add(waits(JOBS));
            }
        } finally {
            if (cgroups.isPresent()) {
                for (String made : List.of("launchers", "bare")) {
                    for (String thread : jvmThreads(cgroups.get().cpuacct().resolve(made))) {
                        Files.writeString(cgroups.get().ownCpuacct().resolve("tasks"), thread);
                    }
                    OwnCgroupParent.remove(cgroups.get().cpuacct().resolve(made));
                }
            }
        }
        java.time.LocalTime measuredTo = java.time.LocalTime.now(java.time.ZoneOffset.UTC).withNano(0);
        String idle = idleOverhead(direct);

        Phase bare = total(measured.get(Mode.BARE));
        Phase batch = total(measured.get(Mode.BATCH));
        Phase wait = total(measured.get(Mode.WAIT));
        double bareRun = bare.ms(bare.cpu().bareRuns(bare.client()));
        StringBuilder report = new StringBuilder(String.format("""
                Saturation: cached python `print(1)`, %d rounds of %d jobs each way after %d to warm up, node concurrency %d, %d cores;
                rounds measured %s–%s UTC; load before / after: %s / %s; the postmaster's parent: %s; runs' cgroup parent: %s
                | what | jobs/s, all rounds (each round) | vs bare | jobs/s from the jobs' timestamps |
                |---|---|---|---|
                | bare bwrap, %d threads (ProcessBuilder) | %.1f (%s) | 1.00 | — |
                | batches of %d, polled every %d ms | %.1f (%s) | %.2f | %.1f |
                | `POST ?wait=30`, %d clients | %.1f (%s) | %.2f | %.1f |
                """, ROUNDS, JOBS, WARMUP, concurrency, Runtime.getRuntime().availableProcessors(), measuredFrom, measuredTo,
                firstLoad, load(),
                postmasterParent(),
                cgroups.map(p -> p.cpuacct().toString()).orElse("none (no cgroup v1 cpuacct)"),
                concurrency, bare.perSecond(), each(measured.get(Mode.BARE)),
                BATCH, POLL.toMillis(), batch.perSecond(), each(measured.get(Mode.BATCH)), batch.perSecond() / bare.perSecond(),
                batch.jobs() / batch.servedSeconds(),
                CLIENTS, wait.perSecond(), each(measured.get(Mode.WAIT)), wait.perSecond() / bare.perSecond(),
                wait.jobs() / wait.servedSeconds()));
        report.append(String.format("""

                At rest (%d s after the warm-up, nothing to do), ms per s: service JVM %.1f (JIT %.1f, GC %.1f), PostgreSQL %.1f, runs' cgroups %.1f.
                CPU ms per job over the measured rounds:
                | what | batches | `?wait` clients | bare bwrap |
                |---|---|---|---|
                | service JVM, its clients' threads taken off | %.2f | %.2f | — |
                | of which the launcher-starting thread | %.2f | %.2f | — |
                | of which threads in the `launchers` cgroup (that thread, threads it started) | %.2f | %.2f | — |
                | of which the JIT compiler threads / the garbage collector's | %.2f / %.2f | %.2f / %.2f | — |
                | in-JVM clients' threads (not counted) | %.2f | %.2f | %.2f |
                | PostgreSQL (postmaster, its processes, exited ones) | %.2f | %.2f | %.2f |
                | runs' processes from their spawn (launcher chain, bwrap, code; cpuacct) | %.2f | %.2f | %.2f |
                | **total: JVM + PostgreSQL + runs** | **%.2f** | **%.2f** | %.2f |
                | **beside bubblewrap's own run (total − bare run's)** | **%.2f** | **%.2f** | — |
                | the machine's other work / stolen, ms per s of wall time | %.0f / %.0f | %.0f / %.0f | %.0f / %.0f |

                %s""", AT_REST.toSeconds(), rest.jvm() * 1e3 / AT_REST.toSeconds(), rest.jit() * 1e3 / AT_REST.toSeconds(),
                rest.gc() * 1e3 / AT_REST.toSeconds(), rest.postgres() * 1e3 / AT_REST.toSeconds(),
                rest.runs() * 1e3 / AT_REST.toSeconds(),
                batch.ms(batch.cpu().jvm() - batch.client()), wait.ms(wait.cpu().jvm() - wait.client()),
                batch.ms(batch.cpu().launcherThread()), wait.ms(wait.cpu().launcherThread()),
                batch.ms(batch.cpu().jvmInLaunchers()), wait.ms(wait.cpu().jvmInLaunchers()),
                batch.ms(batch.cpu().jit()), batch.ms(batch.cpu().gc()), wait.ms(wait.cpu().jit()), wait.ms(wait.cpu().gc()),
                batch.ms(batch.client()), wait.ms(wait.client()), bare.ms(bare.client()),
                batch.ms(batch.cpu().postgres()), wait.ms(wait.cpu().postgres()), bare.ms(bare.cpu().postgres()),
                batch.ms(batch.cpu().runs()), wait.ms(wait.cpu().runs()), bareRun,
                serviceTotal(batch), serviceTotal(wait), bareRun,
                serviceTotal(batch) - bareRun, serviceTotal(wait) - bareRun,
                othersPerSecond(batch), batch.cpu().stolen() * 1e3 / batch.seconds(),
                othersPerSecond(wait), wait.cpu().stolen() * 1e3 / wait.seconds(),
                othersPerSecond(bare), bare.cpu().stolen() * 1e3 / bare.seconds(), idle));
        System.out.println(report);
        QueueBenchmark.append(report.toString());
    }

    private static Phase total(List<Phase> rounds) {
        return rounds.stream().reduce(Phase::plus).orElseThrow();
    }

    private static String each(List<Phase> rounds) {
        return String.join(", ", rounds.stream().map(p -> String.format("%.1f", p.perSecond())).toList());
    }

    private static double serviceTotal(Phase p) {
        return p.ms(p.cpu().jvm() - p.client() + p.cpu().postgres() + p.cpu().runs());
    }

    /** What the rest of the machine used meanwhile: busy time less this JVM's, the runs' and PostgreSQL's. */
    private static double othersPerSecond(Phase p) {
        return (p.cpu().machine() - p.cpu().jvm() - (p.cpu().parent() - p.cpu().jvmInLaunchers() - p.cpu().jvmInBare())
                - p.cpu().postgres())
                * 1e3 / p.seconds();
    }

    /** The same bubblewrap command on as many threads as the node has slots, {@code count} runs in all. */
    private Phase bare(DirectPythonRun direct, int count) throws Exception {
        AtomicInteger next = new AtomicInteger();
        Cpu before = cpu();
        long start = System.nanoTime();
        Client enter = () -> {
            if (cgroups.isPresent()) {
                Files.writeString(cgroups.get().cpuacct().resolve("bare/tasks"),
                        Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString());
            }
        };
        double client = onThreads(concurrency, enter, () -> {
            while (next.getAndIncrement() < count) {
                direct.timeMs();
            }
        });
        double seconds = (System.nanoTime() - start) / 1e9;
        return new Phase(count, seconds, cpu().minus(before), client, seconds);
    }

    /** {@code count} jobs in batches on one connection, then polled until none is left unfinished. */
    private Phase batches(int count) throws Exception {
        Cpu before = cpu();
        long start = System.nanoTime();
        OffsetDateTime since = OffsetDateTime.now();
        double client = onThreads(1, () -> { }, () -> {
            try (BareHttp http = new BareHttp(jobs)) {
                for (int sent = 0; sent < count; sent += BATCH) {
                    int size = Math.min(BATCH, count - sent);
                    String body = "{\"jobs\":[" + String.join(",", Collections.nCopies(size, BODY)) + "]}";
                    for (JsonNode answer : json.readTree(http.exchange(BareHttp.request("POST", jobs.resolve("/v1/jobs/batch"),
                            "", KEY, body)))) {
                        if (!answer.hasNonNull("id")) {
                            throw new IllegalStateException("a batched job was refused: " + answer);
                        }
                    }
                }
                do {
                    Thread.sleep(POLL);
                } while (!nothingUnfinished(http));
            }
        });
        double seconds = (System.nanoTime() - start) / 1e9;
        Cpu used = cpu().minus(before);
        return new Phase(count, seconds, used, client, served(since, count));
    }

    /**
     * Whether no job is queued, building or running, asked in that order: a job only moves on, so
     * one that was queued at the first question is seen by a later one unless it has ended.
     */
    private boolean nothingUnfinished(BareHttp http) throws IOException {
        for (String status : List.of("queued", "building", "running")) {
            if (!json.readTree(http.exchange(BareHttp.request("GET", jobs, "?status=" + status + "&limit=1", KEY, null)))
                    .path("items").isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /** {@code count} jobs, each its own {@code POST ?wait=30}, by {@value #CLIENTS} clients on kept-alive connections. */
    private Phase waits(int count) throws Exception {
        String request = BareHttp.request("POST", jobs, "?wait=30", KEY, BODY);
        AtomicInteger next = new AtomicInteger();
        Cpu before = cpu();
        long start = System.nanoTime();
        OffsetDateTime since = OffsetDateTime.now();
        double client = onThreads(CLIENTS, () -> { }, () -> {
            try (BareHttp http = new BareHttp(jobs)) {
                while (next.getAndIncrement() < count) {
                    succeeded(json.readTree(http.exchange(request)));
                }
            }
        });
        double seconds = (System.nanoTime() - start) / 1e9;
        Cpu used = cpu().minus(before);
        return new Phase(count, seconds, used, client, served(since, count));
    }

    /**
     * From the first job's creation to the last one's end, read from the jobs themselves (after the
     * measured stretch), all of which must have succeeded: the jobs/s without the client's last poll.
     */
    private double served(OffsetDateTime since, int count) throws IOException {
        List<JsonNode> rows = new ArrayList<>();
        try (BareHttp http = new BareHttp(jobs)) {
            String cursor = null;
            do {
                JsonNode page = json.readTree(http.exchange(BareHttp.request("GET", jobs, "?limit=200&since="
                        + encoded(since.toString()) + (cursor == null ? "" : "&cursor=" + encoded(cursor)), KEY, null)));
                page.path("items").forEach(rows::add);
                cursor = page.path("next_cursor").isTextual() ? page.path("next_cursor").asText() : null;
            } while (cursor != null);
        }
        if (rows.size() != count) {
            throw new IllegalStateException(rows.size() + " jobs since " + since + ", not " + count);
        }
        rows.forEach(SaturationBenchmark::succeeded);
        OffsetDateTime first = rows.stream().map(r -> OffsetDateTime.parse(r.path("created_at").asText()))
                .min(OffsetDateTime::compareTo).orElseThrow();
        OffsetDateTime last = rows.stream().map(r -> OffsetDateTime.parse(r.path("finished_at").asText()))
                .max(OffsetDateTime::compareTo).orElseThrow();
        return Duration.between(first, last).toNanos() / 1e9;
    }

    private static String encoded(String queryValue) {
        return java.net.URLEncoder.encode(queryValue, java.nio.charset.StandardCharsets.UTF_8);
    }

    private static void succeeded(JsonNode job) {
        if (!job.path("status").asText().equals("succeeded")) {
            throw new IllegalStateException("benchmark job did not succeed: " + job);
        }
    }

    /**
     * One job at a time, 50 ms apart, interleaved: {@code POST ?wait=30} on a kept-alive connection,
     * the same on a new connection each, and the bare bubblewrap run (ProcessBuilder from this warm
     * JVM: a posix_spawn of the JDK's small helper, which execs bubblewrap, as cheap as a client's
     * fork and exec).
     */
    private String idleOverhead(DirectPythonRun direct) throws Exception {
        String request = BareHttp.request("POST", jobs, "?wait=30", KEY, BODY);
        double[] keptMs = new double[IDLE_RUNS];
        double[] newMs = new double[IDLE_RUNS];
        double[] bareMs = new double[IDLE_RUNS];
        try (BareHttp kept = new BareHttp(jobs)) {
            for (int i = 0; i < IDLE_RUNS; i++) {
                Thread.sleep(50);
                long t = System.nanoTime();
                succeeded(json.readTree(kept.exchange(request)));
                keptMs[i] = (System.nanoTime() - t) / 1e6;
                Thread.sleep(50);
                t = System.nanoTime();
                try (BareHttp fresh = new BareHttp(jobs)) {
                    succeeded(json.readTree(fresh.exchange(request)));
                }
                newMs[i] = (System.nanoTime() - t) / 1e6;
                Thread.sleep(50);
                bareMs[i] = direct.timeMs();
            }
        }
        return String.format("""
                One job at a time, %d each, interleaved, 50 ms apart:
                | what | p50 | p90 | over bare, p50 |
                |---|---|---|---|
                | `POST ?wait=30`, kept-alive connection (ms) | %.1f | %.1f | %+.1f ms |
                | `POST ?wait=30`, a new connection each (ms) | %.1f | %.1f | %+.1f ms |
                | bare bwrap from this JVM's ProcessBuilder (ms) | %.1f | %.1f | — |
                """, IDLE_RUNS, pct(keptMs, .5), pct(keptMs, .9), pct(keptMs, .5) - pct(bareMs, .5),
                pct(newMs, .5), pct(newMs, .9), pct(newMs, .5) - pct(bareMs, .5), pct(bareMs, .5), pct(bareMs, .9));
    }

    private static double pct(double[] values, double p) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[(int) Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
    }

    @FunctionalInterface
    private interface Client {
        void run() throws Exception;
    }

    /**
     * Runs the client on {@code threads} platform threads at once, each after {@code enter}; the
     * CPU seconds those threads used after {@code enter}.
     */
    private static double onThreads(int threads, Client enter, Client client) throws Exception {
        DoubleAdder cpu = new DoubleAdder();
        AtomicReference<Exception> failure = new AtomicReference<>();
        List<Thread> started = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            started.add(Thread.ofPlatform().start(() -> {
                try {
                    enter.run();
                    long entered = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
                    try {
                        client.run();
                    } finally {
                        cpu.add((ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - entered) / 1e9);
                    }
                } catch (Exception e) {
                    failure.compareAndSet(null, e);
                }
            }));
        }
        for (Thread thread : started) {
            thread.join();
        }
        if (failure.get() != null) {
            throw failure.get();
        }
        return cpu.sum();
    }

    private long postmaster() throws Exception {
        try (Connection c = db.getConnection(); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return Long.parseLong(stat(rs.getLong(1))[1]);
        }
    }

    private String postmasterParent() throws IOException {
        long parent = Long.parseLong(stat(postmaster)[1]);
        return parent == ProcessHandle.current().pid() ? "this JVM" : "pid " + parent + ", not this JVM";
    }

    private Cpu cpu() throws IOException {
        double jvm = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime() / 1e9;
        double launcherThread = launcherParent == null ? 0
                : ManagementFactory.getThreadMXBean().getThreadCpuTime(launcherParent.threadId()) / 1e9;
        double parent = Double.NaN;
        double bare = Double.NaN;
        double jvmInLaunchers = Double.NaN;
        double jvmInBare = Double.NaN;
        if (cgroups.isPresent()) {
            Path made = cgroups.get().cpuacct();
            parent = usage(made);
            boolean madeOwn = Files.isDirectory(made.resolve("bare"));
            bare = madeOwn ? usage(made.resolve("bare")) : 0;
            jvmInLaunchers = madeOwn ? jvmThreadsCpu(made.resolve("launchers")) : 0;
            jvmInBare = madeOwn ? jvmThreadsCpu(made.resolve("bare")) : 0;
        }
        // the postmaster and the processes it started (a backend's end adds its times to the postmaster's),
        // found from the postmaster's own children list, so that no other process on the host is read
        long ticks = ticks(postmaster);
        Path started = Path.of("/proc", Long.toString(postmaster), "task", Long.toString(postmaster), "children");
        for (String backend : Files.readString(started).trim().split(" ")) {
            if (!backend.isEmpty()) {
                ticks += ticks(Long.parseLong(backend));
            }
        }
        String[] all = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
        double machine = (Long.parseLong(all[1]) + Long.parseLong(all[2]) + Long.parseLong(all[3])
                + Long.parseLong(all[6]) + Long.parseLong(all[7])) / TICKS_PER_SECOND;
        return new Cpu(jvm, launcherThread, parent, bare, jvmInLaunchers, jvmInBare,
                jvmThreadsCpu(own(), name -> name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre")),
                jvmThreadsCpu(own(), name -> name.startsWith("GC Thread") || name.startsWith("G1 ")),
                ticks / TICKS_PER_SECOND, machine, Long.parseLong(all[8]) / TICKS_PER_SECOND);
    }

    private static double usage(Path cpuacct) throws IOException {
        return Long.parseLong(Files.readString(cpuacct.resolve("cpuacct.usage")).strip()) / 1e9;
    }

    /** The kernel ids of this JVM's threads in the cgroup. */
    private static List<String> jvmThreads(Path cgroup) throws IOException {
        return Files.readAllLines(cgroup.resolve("tasks")).stream().map(String::strip)
                .filter(tid -> Files.exists(Path.of("/proc/self/task", tid))).toList();
    }

    /** This JVM's threads: their kernel ids. */
    private static List<String> own() throws IOException {
        try (java.util.stream.Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            return tasks.map(task -> task.getFileName().toString()).toList();
        }
    }

    /** CPU seconds of this JVM's threads now in the cgroup. */
    private static double jvmThreadsCpu(Path cgroup) throws IOException {
        return jvmThreadsCpu(jvmThreads(cgroup), name -> true);
    }

    /**
     * CPU seconds of those of these threads whose name (15 characters of it) matches (schedstat:
     * nanoseconds on a CPU); a thread that ended since the last look takes its time with it.
     */
    private static double jvmThreadsCpu(List<String> threads, java.util.function.Predicate<String> name) {
        double seconds = 0;
        for (String tid : threads) {
            try {
                if (!name.test(Files.readString(Path.of("/proc/self/task", tid, "comm")).strip())) {
                    continue;
                }
                seconds += Long.parseLong(Files.readString(Path.of("/proc/self/task", tid, "schedstat")).split(" ")[0]) / 1e9;
            } catch (IOException ended) {
                // the thread ended meanwhile
            }
        }
        return seconds;
    }

    /** The kernel's id of this JVM's one thread whose name begins so (Linux keeps 15 characters of it). */
    private static long nativeThreadId(String shortName) throws IOException {
        try (java.util.stream.Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            List<Path> named = tasks.filter(task -> {
                try {
                    return Files.readString(task.resolve("comm")).strip().equals(shortName);
                } catch (IOException gone) {
                    return false;
                }
            }).toList();
            if (named.size() != 1) {
                throw new IllegalStateException(named.size() + " threads named " + shortName);
            }
            return Long.parseLong(named.get(0).getFileName().toString());
        }
    }

    /** utime + stime + cutime + cstime of the process, 0 when it ended meanwhile. */
    private static long ticks(long pid) {
        try {
            String[] f = stat(pid);
            return Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
        } catch (IOException | RuntimeException gone) {
            return 0;
        }
    }

    /** The fields of /proc/PID/stat from the state on: 0 = state, 1 = ppid, 11 = utime … 14 = cstime. */
    private static String[] stat(long pid) throws IOException {
        String text = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        return text.substring(text.lastIndexOf(')') + 2).split(" ");
    }

    private static String load() throws IOException {
        return Files.readString(Path.of("/proc/loadavg")).strip();
    }
}
