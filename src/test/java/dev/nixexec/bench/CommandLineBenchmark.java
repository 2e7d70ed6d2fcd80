package dev.nixexec.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.nixexec.testing.Api;
import dev.nixexec.testing.CommandLine;
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.io.OutputStream;
import java.net.URL;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A client command's wall time ({@code nix-exec list --json}, the target: p50 under 1 s)
 * against the running service, interleaved with its baselines in the same run: a bare JVM start
 * with the client's options ({@code java -version}), the same request by curl, and the command's
 * own start ({@code --help}: no request, no JSON). Needs {@code target/nix-exec}: {@code ./mvnw package -DskipTests} first.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
@Tag("benchmark")
class CommandLineBenchmark {

    private static final int RUNS = Integer.getInteger("bench.runs", 30);

    @TestHTTPResource("/")
    URL base;

    @Test
    void clientCommand() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String key = Api.memberKey("bench-cli");
        Map<String, List<String>> commands = new LinkedHashMap<>();
        commands.put("nix-exec list --json", List.of(CommandLine.COMMAND.toString(), "list", "--json"));
        commands.put("nix-exec --help (no server, no JSON)", List.of(CommandLine.COMMAND.toString(), "--help"));
        // another launcher beside target/nix-exec (e.g. an earlier one), measured in the same run
        String before = System.getProperty("bench.cli.launcher-before");
        if (before != null) {
            commands.put("list --json, launcher before", List.of(before, "list", "--json"));
            commands.put("--help, launcher before", List.of(before, "--help"));
        }
        commands.put("java -version (client JVM options)", List.of(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-Xshare:auto", "-version"));
        commands.put("curl GET /v1/sessions", List.of("curl", "-sf", "-o", "/dev/null", "-H", "Authorization: Bearer " + key,
                base + "v1/sessions"));
        CommandLine cli = CommandLine.against(base.toString(), key);
        Map<String, long[]> micros = new LinkedHashMap<>();
        commands.keySet().forEach(name -> micros.put(name, new long[RUNS]));
        for (int run = -2; run < RUNS; run++) {
            for (Map.Entry<String, List<String>> command : commands.entrySet()) {
                long start = System.nanoTime();
                Process process = cli.start(command.getValue());
                process.getInputStream().transferTo(OutputStream.nullOutputStream());
                assertEquals(0, process.waitFor(), command.getKey() + ": " + new String(process.getErrorStream().readAllBytes()));
                long took = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start);
                if (run >= 0) {
                    micros.get(command.getKey())[run] = took;
                }
            }
        }
        List<String> lines = new ArrayList<>();
        long jvm = percentile(micros.get("java -version (client JVM options)"), 50);
        micros.forEach((name, values) -> lines.add(String.format("%-36s p50 %6.0f ms  p90 %6.0f ms  (%.1f x a bare JVM start)",
                name, percentile(values, 50) / 1000.0, percentile(values, 90) / 1000.0, percentile(values, 50) / (double) jvm)));
        System.out.println("client command, " + RUNS + " runs each, interleaved:\n" + String.join("\n", lines));
    }

    private static long percentile(long[] values, int p) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)];
    }
}
