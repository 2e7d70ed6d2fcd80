package dev.nixexec.config;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The packaged service, stopped as systemd stops it (SIGTERM) after a job: a clean stop logs
 * nothing above INFO. It logged "Running a shutdown task failed" (ERROR), "EntityManagerFactory is
 * closed" and pool WARNs, because the embedded database was stopped by a JVM shutdown hook that ran
 * beside Quarkus's own, before the workers, the scheduler and Hibernate were done with it.
 */
class GracefulStopIT {

    static final Path REPO = Path.of(System.getProperty("nixexec-test.repo-dir", ".")).toAbsolutePath();

    @Test
    void aStopAfterWorkLogsNothingAboveInfoAndTheDatabaseStopsLast() throws Exception {
        Path runner = REPO.resolve("target/quarkus-app/quarkus-run.jar");
        assertTrue(Files.exists(runner), runner + " is missing: run this test with ./mvnw verify");
        Path state = REPO.resolve("target/test-state/graceful-stop");
        if (Files.exists(state)) {
            try (var old = Files.walk(state)) {
                old.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        List<String> argv = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dnixexec.state-dir=" + state, "-Dquarkus.http.port=" + port, "-Dquarkus.http.host=127.0.0.1",
                "-Dnixexec.auth.bootstrap-admin-key=nx_graceful_stop_key",
                "-Dnixexec.executor.nixpkgs-url=path:" + REPO.resolve("nix/testing/nixpkgs"),
                "-Dnixexec.executor.substituters=none", "-Dnixexec.executor.nix-options=sandbox=false",
                "-jar", runner.toString()));
        Path log = Files.createDirectories(state).resolve("service.log");
        Process service = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            HttpClient http = HttpClient.newHttpClient();
            URI base = URI.create("http://127.0.0.1:" + port);
            await().atMost(Duration.ofMinutes(2)).ignoreExceptions().until(() -> http.send(
                    HttpRequest.newBuilder(base.resolve("/q/health/live")).build(), HttpResponse.BodyHandlers.discarding())
                    .statusCode() == 200);
            HttpResponse<String> job = http.send(HttpRequest.newBuilder(base.resolve("/v1/jobs?wait=60"))
                    .header("Authorization", "Bearer nx_graceful_stop_key").header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"language\":\"bash\",\"code\":\"echo worked\"}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertTrue(job.body().contains("\"stdout\":\"worked\\n\""), job.body());
        } finally {
            service.destroy(); // SIGTERM
            assertTrue(service.waitFor(60, TimeUnit.SECONDS), "the service did not stop");
        }
        String output = Files.readString(log);
        List<String> loud = output.lines().filter(line -> line.matches("^\\d\\d:\\d\\d:\\d\\d,\\d{3} (WARN|ERROR) .*")).toList();
        // The loud lines alone lead the message: the whole log is too long for a CI excerpt.
        assertEquals(List.of(), loud, String.join("\n", loud) + "\n--- the whole log ---\n" + output);
        assertTrue(output.contains("nix-exec stopped"), output);
        try (var files = Files.walk(state)) {
            assertFalse(files.anyMatch(f -> f.getFileName().toString().equals("postmaster.pid")),
                    "the embedded database was left running");
        }
    }
}
