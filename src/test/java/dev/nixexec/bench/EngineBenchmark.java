package dev.nixexec.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.nix.EnvironmentCache;
import dev.nixexec.nix.EnvironmentRequest;
import dev.nixexec.nix.Language;
import dev.nixexec.nix.PackageName;
import dev.nixexec.sandbox.BwrapArguments;
import dev.nixexec.sandbox.Limits;
import dev.nixexec.sandbox.SandboxSpec;
import dev.nixexec.sandbox.Specs;
import dev.nixexec.sandbox.StoreMount;
import dev.nixexec.sandbox.StoreViewTiming;
import dev.nixexec.execution.ExecutionEngine;
import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.execution.ExecutionResult;
import dev.nixexec.testing.Runs;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Medians over repeated runs on this machine: run with {@code ./mvnw test -Pbenchmark}; the table
 * is printed and written to target/benchmarks.md. Not a timed test: it asserts nothing about speed.
 */
@QuarkusTest
@Tag("benchmark")
class EngineBenchmark {

    private static final int RUNS = Integer.getInteger("bench.runs", 40);
    private static final long GAP_MS = 50;
    private static final Path REPO = Path.of(System.getProperty("nixexec-test.repo-dir", ".")).toAbsolutePath();
    private static final Limits LIMITS = new Limits(Duration.ofSeconds(30), 512L << 20, 256, 0, 100L << 20,
            64L << 20, 256L << 20, 1 << 20);

    @Inject
    ExecutionEngine engine;

    @Inject
    EnvironmentCache cache;

    @Inject
    ObjectMapper json;

    private final List<String> rows = new ArrayList<>();

    @Test
    void measure() throws Exception {
        String bwrap = which("bwrap");

        // (a) cached python3 -c 'print(1)' through the engine vs the same bwrap command directly.
        ExecutionRequest print = ExecutionRequest.of("python", "print(1)");
        ExecutionResult warm = Runs.run(engine, print);
        assertEquals("1\n", warm.stdout().text());
        String env = warm.environment().orElseThrow().storePath();
        double[] engineMs = time(() -> Runs.run(engine, print));
        double[] engineBackToBack = time(() -> Runs.run(engine, print), 0);
        Path job = Files.createTempDirectory("bench");
        Files.createDirectories(job.resolve("code"));
        Files.writeString(job.resolve("code/main.py"), "print(1)");
        Files.createDirectories(job.resolve("etc"));
        for (Map.Entry<String, String> f : BwrapArguments.etcFiles(java.util.List.of("10.0.2.3")).entrySet()) {
            Files.writeString(job.resolve("etc").resolve(f.getKey()), f.getValue());
        }
        SandboxSpec spec = Specs.fresh(env, List.of(), "main.py", new byte[0], List.of("python3"), Map.of(),
                new byte[0], LIMITS, false);
        List<String> direct = Specs.bwrapArgv(Path.of(bwrap), spec, job.resolve("code"), job.resolve("etc"),
                StoreMount.WHOLE_STORE);
        double[] directMs = time(() -> exec(direct));
        double[] directBackToBack = time(() -> exec(direct), 0);
        row("(a) engine, cached python `print(1)`", engineMs, directMs);
        row("(a) same bwrap argv run directly", directMs, directMs);
        row("(a) engine, back to back", engineBackToBack, directBackToBack);
        row("(a) direct, back to back", directBackToBack, directBackToBack);

        // (b) the cache-hit lookup the engine does before every run.
        EnvironmentRequest request = EnvironmentRequest.of(Language.PYTHON, List.<PackageName>of());
        int lookups = 20_000;
        double[] lookupUs = new double[lookups];
        for (int i = 0; i < lookups; i++) {
            long t = System.nanoTime();
            cache.get(request);
            lookupUs[i] = (System.nanoTime() - t) / 1000.0;
        }
        rows.add(String.format("| (b) cache-hit lookup (µs) | %.1f | %.1f | — |", median(lookupUs), percentile(lookupUs, 0.9)));

        // (c) sandbox start-up for a 1-, a ~200- and a 500-path closure: the whole store, the
        // closure's prepared view (the default) and one bind per path, interleaved run by run.
        String busybox = build("busybox");
        List<String> one = List.of(busybox);
        String many = build("manyPaths");
        List<String> twoHundred = new ArrayList<>(closure(many));
        twoHundred.add(busybox);
        List<String> fiveHundred = new ArrayList<>(closure(build("manyMorePaths")));
        fiveHundred.add(busybox);
        Path views = Files.createTempDirectory("store-view-bench");
        Map<String, List<String>> startUps = new java.util.LinkedHashMap<>();
        for (List<String> closure : List.of(one, twoHundred, fiveHundred)) {
            SandboxSpec start = Specs.fresh(busybox, closure, "main.sh", new byte[0], List.of("true"), Map.of(),
                    new byte[0], LIMITS, false);
            // the view's preparation, once per closure in the service: timed cold, a few times
            int files = countFiles(closure);
            double[] prepareMs = new double[5];
            for (int i = 0; i < prepareMs.length; i++) {
                Path view = views.resolve("prepared-" + i);
                long t = System.nanoTime();
                StoreViewTiming.build(view, closure);
                prepareMs[i] = (System.nanoTime() - t) / 1e6;
                StoreViewTiming.remove(view);
            }
            rows.add(String.format("| (c) view preparation (once per closure), %d-path closure, %d files (ms) | %.1f | %.1f | — |",
                    closure.size(), files, median(prepareMs), percentile(prepareMs, 0.9)));
            StoreMount view = StoreViewTiming.build(views.resolve("view-" + closure.size()), closure);
            Map<String, StoreMount> mounts = new java.util.LinkedHashMap<>();
            mounts.put("whole-store", StoreMount.WHOLE_STORE);
            mounts.put("closure view (default)", view);
            mounts.put("one bind per path (before)", new StoreMount.EachPath(closure));
            for (Map.Entry<String, StoreMount> mount : mounts.entrySet()) {
                List<String> argv = new ArrayList<>(Specs.bwrapArgv(Path.of(bwrap), start, job.resolve("code"),
                        job.resolve("etc"), mount.getValue()));
                argv.removeLast();
                startUps.put(closure.size() + "-path closure, " + mount.getKey(), argv);
            }
        }
        Map<String, double[]> startUpMs = timeInterleaved(startUps);
        startUpMs.forEach((name, ms) -> rows.add(String.format("| (c) sandbox start-up, %s (ms) | %.1f | %.1f | — |",
                name, median(ms), percentile(ms, 0.9))));
        for (List<String> closure : List.of(one, twoHundred, fiveHundred)) {
            StoreViewTiming.remove(views.resolve("view-" + closure.size()));
        }
        Files.delete(views);
        report();
    }

    private interface Action {
        void run() throws Exception;
    }

    private static double[] time(Action action) throws Exception {
        return time(action, GAP_MS);
    }

    /**
     * Runs separated by an untimed gap, as requests arrive in a service, so that work a run leaves
     * behind (the launcher pool refilling) does not land on the next run's clock.
     */
    private static double[] time(Action action, long gapMs) throws Exception {
        for (int i = 0; i < 3; i++) {
            action.run();
        }
        double[] ms = new double[RUNS];
        for (int i = 0; i < RUNS; i++) {
            Thread.sleep(gapMs);
            long t = System.nanoTime();
            action.run();
            ms[i] = (System.nanoTime() - t) / 1e6;
        }
        return ms;
    }

    /** Each command once per round, round after round, so that the machine's load falls on all alike. */
    private static Map<String, double[]> timeInterleaved(Map<String, List<String>> commands) throws Exception {
        for (List<String> argv : commands.values()) {
            for (int i = 0; i < 3; i++) {
                exec(argv);
            }
        }
        Map<String, double[]> ms = new java.util.LinkedHashMap<>();
        commands.keySet().forEach(name -> {
            ms.put(name + ", from a waiting launcher", new double[RUNS]);
            ms.put(name + ", spawned by the JVM", new double[RUNS]);
        });
        for (int i = 0; i < RUNS; i++) {
            for (Map.Entry<String, List<String>> command : commands.entrySet()) {
                Process launcher = waitingLauncher(command.getValue());
                Thread.sleep(GAP_MS);
                long t = System.nanoTime();
                go(launcher);
                ms.get(command.getKey() + ", from a waiting launcher")[i] = (System.nanoTime() - t) / 1e6;
                Thread.sleep(GAP_MS);
                t = System.nanoTime();
                exec(command.getValue());
                ms.get(command.getKey() + ", spawned by the JVM")[i] = (System.nanoTime() - t) / 1e6;
            }
        }
        return ms;
    }

    /**
     * The command behind a shell that waits for one line on its stdin and then execs it: as in the
     * service, whose launchers (LauncherPool) for the configured limits are started ahead of demand
     * and exec bubblewrap when their run arrives, so the JVM's own process start (a fork and two
     * execs) is not on the run's path. Timed from the line to the end of bubblewrap.
     */
    private static Process waitingLauncher(List<String> argv) throws IOException {
        List<String> command = new ArrayList<>(List.of("/bin/sh", "-c", "read -r go && exec \"$@\"", "sh"));
        command.addAll(argv);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().clear();
        return builder.start();
    }

    private static void go(Process launcher) throws IOException, InterruptedException {
        launcher.getOutputStream().write('\n');
        launcher.getOutputStream().close();
        awaitSuccess(launcher);
    }

    private static int countFiles(List<String> closure) throws IOException {
        int files = 0;
        for (String path : closure) {
            try (var all = Files.walk(Path.of(path))) {
                files += (int) all.count();
            }
        }
        return files;
    }

    private static void exec(List<String> argv) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(true);
        builder.environment().clear();
        awaitSuccess(builder.start());
    }

    private static void awaitSuccess(Process p) throws IOException, InterruptedException {
        byte[] out = p.getInputStream().readAllBytes();
        if (p.waitFor() != 0) {
            throw new IllegalStateException("benchmark command failed: " + new String(out, StandardCharsets.UTF_8));
        }
    }

    private void row(String name, double[] ms, double[] baseline) {
        rows.add(String.format("| %s (ms) | %.1f | %.1f | %.2f× (+%.1f ms) |", name, median(ms), percentile(ms, 0.9),
                median(ms) / median(baseline), median(ms) - median(baseline)));
    }

    private void report() throws IOException {
        StringBuilder table = new StringBuilder();
        table.append("Measured ").append(Instant.now()).append(" on ").append(Runtime.getRuntime().availableProcessors())
                .append(" cores, ").append(RUNS).append(" runs each after 3 warm-ups, ").append(GAP_MS)
                .append(" ms apart unless \"back to back\"\n\n")
                .append("| what | p50 | p90 | vs direct |\n|---|---|---|---|\n");
        rows.forEach(r -> table.append(r).append('\n'));
        System.out.println(table);
        Files.writeString(REPO.resolve("target/benchmarks.md"), table.toString());
    }

    private String build(String attribute) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(which("nix"), "build", "--extra-experimental-features", "nix-command flakes",
                "--option", "substituters", "", "--option", "sandbox", "false", "--json", "--no-link",
                "path:" + REPO.resolve("nix/testing/nixpkgs") + "#" + attribute).redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        JsonNode result = json.readTree(p.getInputStream().readAllBytes());
        p.waitFor();
        return result.path(0).path("outputs").path("out").asText();
    }

    private List<String> closure(String path) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(which("nix-store"), "--query", "--requisites", path).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return Arrays.stream(out.split("\n")).filter(s -> !s.isBlank()).toList();
    }

    private static String which(String tool) {
        for (String dir : System.getenv("PATH").split(":")) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return Path.of(dir, tool).toString();
            }
        }
        throw new IllegalStateException(tool + " not on PATH");
    }

    private static double median(double[] values) {
        return percentile(values, 0.5);
    }

    private static double percentile(double[] values, double p) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[(int) Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
    }
}
