package dev.nixexec.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Worker processes of the packaged service (target/quarkus-app) beside a test's API-only node
 * ({@link ApiOnlyNode}), on the test's database: what runs a job or a session's command on
 * "another node". Each has a state directory of its own under target/test-state.
 */
public final class WorkerProcesses {

    static final Path REPO = Path.of(System.getProperty("nixexec-test.repo-dir", ".")).toAbsolutePath();
    static final Path RUNNER = REPO.resolve("target/quarkus-app/quarkus-run.jar");

    /** The test's database, as its own configuration names it. */
    public record Database(String url, String user, String password) {
    }

    private WorkerProcesses() {
    }

    /** Starts worker {@code node}, does {@code work} while it runs (nothing else runs jobs), and stops it. */
    public static <T> T on(String node, Database db, Callable<T> work) throws Exception {
        requirePackagedService();
        Path state = REPO.resolve("target/test-state/" + node);
        List<String> argv = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        // the test JVMs' compiler flags (pom.xml's test.jvm.jit): a worker lives as briefly as they do
        argv.addAll(List.of(System.getProperty("nixexec-test.jvm-options", "").split(" +")).stream()
                .filter(option -> !option.isEmpty()).toList());
        argv.addAll(List.of("-Dnixexec.db-url=" + db.url(), "-Dquarkus.datasource.username=" + db.user(),
                "-Dquarkus.datasource.password=" + db.password(), "-Dnixexec.node.role=worker",
                "-Dnixexec.node.id=" + node, "-Dnixexec.state-dir=" + state, "-Dquarkus.http.port=0",
                "-Dnixexec.jobs.heartbeat=1s", "-Dnixexec.executor.nixpkgs-url=path:" + REPO.resolve("nix/testing/nixpkgs"),
                "-Dnixexec.executor.substituters=none", "-Dnixexec.executor.nix-options=sandbox=false",
                "-jar", RUNNER.toString()));
        Path log = Files.createDirectories(state).resolve("worker.log");
        Process worker = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            return work.call();
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\nworker log:\n" + Files.readString(log), e);
        } finally {
            worker.destroy();
            if (!worker.waitFor(30, TimeUnit.SECONDS)) {
                worker.destroyForcibly().waitFor();
            }
        }
    }

    public static boolean terminal(String status) {
        return List.of("succeeded", "failed", "timed_out", "cancelled", "error").contains(status);
    }

    /** The packaged service, no older than the compiled classes: the worker processes run this code. */
    private static void requirePackagedService() throws IOException {
        Path app = REPO.resolve("target/quarkus-app/app");
        assertTrue(Files.exists(RUNNER) && Files.isDirectory(app), RUNNER + " is missing: run this test with ./mvnw verify");
        assertTrue(newest(app).compareTo(newest(REPO.resolve("target/classes"))) >= 0,
                "target/quarkus-app is older than target/classes: run this test with ./mvnw verify");
    }

    private static FileTime newest(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.map(p -> {
                try {
                    return Files.getLastModifiedTime(p);
                } catch (IOException e) {
                    return FileTime.fromMillis(0);
                }
            }).max(FileTime::compareTo).orElse(FileTime.fromMillis(0));
        }
    }
}
