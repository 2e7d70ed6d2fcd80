package dev.nixexec.bench;

import dev.nixexec.sandbox.BwrapArguments;
import dev.nixexec.sandbox.Limits;
import dev.nixexec.sandbox.Specs;
import dev.nixexec.sandbox.StoreMount;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The end-to-end benchmarks' baseline: python {@code print(1)} in the environment, by the same
 * bubblewrap argv the service builds, run directly (no service, launcher, cgroup or uid switch).
 * Used by {@link LatencyBenchmark} and by {@code src/test/latency-ab/AbClient.java}.
 */
public final class DirectPythonRun {

    private final List<String> argv;

    private DirectPythonRun(List<String> argv) {
        this.argv = argv;
    }

    /** Writes the code and {@code /etc} files into a new temporary directory and builds the argv. */
    public static DirectPythonRun in(String environmentPath) throws IOException {
        Path dir = Files.createTempDirectory("bench");
        Files.createDirectories(dir.resolve("code"));
        Files.writeString(dir.resolve("code/main.py"), "print(1)");
        Files.createDirectories(dir.resolve("etc"));
        for (Map.Entry<String, String> f : BwrapArguments.etcFiles(java.util.List.of("10.0.2.3")).entrySet()) {
            Files.writeString(dir.resolve("etc").resolve(f.getKey()), f.getValue());
        }
        Limits limits = new Limits(Duration.ofSeconds(30), 512L << 20, 256, 0, 100L << 20, 64L << 20, 256L << 20, 1 << 20);
        return new DirectPythonRun(Specs.bwrapArgv(Path.of("/usr/bin/bwrap"), Specs.fresh(environmentPath,
                List.of(), "main.py", new byte[0], List.of("python3"), Map.of(), new byte[0], limits, false),
                dir.resolve("code"), dir.resolve("etc"), StoreMount.WHOLE_STORE));
    }

    /** One run, its output read to the end: milliseconds. */
    public double timeMs() throws IOException, InterruptedException {
        long t = System.nanoTime();
        ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(true);
        builder.environment().clear();
        Process p = builder.start();
        p.getInputStream().readAllBytes();
        p.waitFor();
        return (System.nanoTime() - t) / 1e6;
    }
}
