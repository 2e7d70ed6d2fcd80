package dev.nixexec.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.nixexec.execution.ExecutionEngine;
import dev.nixexec.execution.ExecutionRequest;
import dev.nixexec.execution.ExecutionResult;
import dev.nixexec.testing.TestInternet;
import dev.nixexec.testing.Runs;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What a networked run's own network costs (docs/benchmarks.md, "Networked runs"): the start of a
 * cached {@code python print(1)} with and without network, alternated, and a bulk download from
 * {@link TestInternet}'s server through slirp4netns against the same download made directly from
 * the egress namespace the relay sends from. Medians; asserts nothing about speed.
 */
@QuarkusTest
@Tag("benchmark")
@TestProfile(NetworkBenchmark.BehindTestInternet.class)
class NetworkBenchmark {

    public static class BehindTestInternet implements QuarkusTestProfile {
        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(TestInternet.class));
        }
    }

    private static final int RUNS = Integer.getInteger("bench.runs", 30);
    private static final int DOWNLOADS = 7;
    private static final long BYTES = 256L << 20;
    private static final Path REPO = Path.of(System.getProperty("nixexec-test.repo-dir", ".")).toAbsolutePath();
    /** Prints the download's rate in MB/s, timed inside the process that downloads. */
    private static final String DOWNLOAD = """
            import socket, time
            s = socket.create_connection(("%s", 8000))
            start = time.monotonic()
            s.sendall(b"GET /bytes/%d HTTP/1.0\\r\\n\\r\\n")
            total = 0
            while True:
                data = s.recv(1 << 20)
                if not data:
                    break
                total += len(data)
            print(round(total / (time.monotonic() - start) / 1e6))
            """.formatted(TestInternet.WEB, BYTES);

    @Inject
    ExecutionEngine engine;

    @ConfigProperty(name = "nixexec-test.internet.egress")
    String egress;

    @Test
    void measure() throws Exception {
        ExecutionRequest off = new ExecutionRequest("python", "print(1)", List.of(), Map.of(), "", Optional.empty(), false);
        ExecutionRequest on = new ExecutionRequest("python", "print(1)", List.of(), Map.of(), "", Optional.empty(), true);
        assertEquals("1\n", Runs.run(engine, off).stdout().text());
        assertEquals("1\n", Runs.run(engine, on).stdout().text());
        double[] offMs = new double[RUNS];
        double[] onMs = new double[RUNS];
        for (int i = 0; i < RUNS; i++) {
            offMs[i] = timed(off);
            onMs[i] = timed(on);
        }
        ExecutionRequest download = new ExecutionRequest("python", DOWNLOAD, List.of(), Map.of(), "",
                Optional.empty(), true);
        double[] relayed = new double[DOWNLOADS];
        double[] direct = new double[DOWNLOADS];
        for (int i = 0; i < DOWNLOADS; i++) {
            ExecutionResult r = Runs.run(engine, download);
            assertEquals("succeeded", r.status(), r.stderr().text());
            relayed[i] = Double.parseDouble(r.stdout().text().strip());
            direct[i] = Double.parseDouble(directDownload().strip());
        }
        String table = String.join("\n",
                "| networked runs (" + RUNS + " alternated runs, " + DOWNLOADS + " downloads of " + (BYTES >> 20)
                        + " MiB) | median |",
                "|---|---|",
                "| cached `python print(1)`, no network (ms) | " + median(offMs) + " |",
                "| the same with network (ms) | " + median(onMs) + " |",
                "| what the network adds to a run's start (ms) | " + round(median(onMs) - median(offMs)) + " |",
                "| download through slirp4netns (MB/s) | " + median(relayed) + " |",
                "| the same download from the egress namespace directly (MB/s) | " + median(direct) + " |",
                "| ratio | " + round(median(relayed) / median(direct)) + " |");
        System.out.println(table);
        Files.createDirectories(REPO.resolve("target"));
        Files.writeString(REPO.resolve("target/benchmarks-network.md"), table + "\n");
    }

    private double timed(ExecutionRequest request) {
        long start = System.nanoTime();
        ExecutionResult result = Runs.run(engine, request);
        double ms = (System.nanoTime() - start) / 1e6;
        assertEquals("1\n", result.stdout().text(), result.stderr().text());
        return ms;
    }

    private String directDownload() throws Exception {
        Process p = new ProcessBuilder("ip", "netns", "exec", egress, "python3", "-c", DOWNLOAD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
        return out;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return round(sorted.length % 2 == 1 ? sorted[sorted.length / 2]
                : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2);
    }

    private static double round(double value) {
        return Math.round(value * 100) / 100.0;
    }
}
