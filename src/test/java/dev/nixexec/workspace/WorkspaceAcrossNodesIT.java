package dev.nixexec.workspace;

import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.memberKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.ApiOnlyNode;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * A workspace lives in PostgreSQL, not on a node: this process takes requests and runs nothing;
 * one worker process (the packaged service, role {@code worker}, a state directory of its own)
 * runs a job that writes a file and stops; a second worker process, with another state directory,
 * runs the job that reads it. The packaged service is the one {@code ./mvnw verify} built in its
 * package phase, before this integration test runs.
 */
@QuarkusTest
@TestProfile(ApiOnlyNode.class)
class WorkspaceAcrossNodesIT {

    static final Path REPO = Path.of(System.getProperty("nixexec-test.repo-dir", ".")).toAbsolutePath();
    static final Path RUNNER = REPO.resolve("target/quarkus-app/quarkus-run.jar");

    @ConfigProperty(name = "quarkus.datasource.jdbc.url")
    String url;

    @ConfigProperty(name = "quarkus.datasource.username")
    String user;

    @ConfigProperty(name = "quarkus.datasource.password")
    String password;

    @Test
    void aSecondWorkerProcessReadsWhatTheFirstWrote() throws Exception {
        packagedService();
        String key = memberKey("nodes");
        String ws = as(key).body(Map.of("name", "shared")).post("/v1/workspaces").then().statusCode(201)
                .extract().path("id");

        JsonPath wrote = runOn("ws-node-a", key, Map.of("language", "bash", "workspace", ws,
                "code", "echo \"written on $(cat /etc/hostname 2>/dev/null || echo a sandbox)\" > note.txt; "
                        + "mkdir -p out; printf 'from node a' > out/a.txt"));
        assertEquals("succeeded", wrote.getString("status"), wrote.prettify());
        assertEquals("ws-node-a", wrote.getString("node_id"));
        assertEquals("out/a.txt", wrote.getString("artifacts[0].name"));

        JsonPath read = runOn("ws-node-b", key, Map.of("language", "bash", "workspace", ws,
                "code", "cat out/a.txt; echo; ls"));
        assertEquals("succeeded", read.getString("status"), read.prettify());
        assertEquals("ws-node-b", read.getString("node_id"));
        assertEquals("from node a\nnote.txt\nout\n", read.getString("stdout"));
        assertEquals("from node a", as(key).get(wrote.getString("artifacts[0].url")).asString());
    }

    /** Starts a worker process, runs one job on it (nothing else can run it), and stops the process. */
    private JsonPath runOn(String node, String key, Map<String, Object> job) throws Exception {
        Path state = REPO.resolve("target/test-state/" + node);
        List<String> argv = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dnixexec.db-url=" + url, "-Dquarkus.datasource.username=" + user,
                "-Dquarkus.datasource.password=" + password, "-Dnixexec.node.role=worker", "-Dnixexec.node.id=" + node,
                "-Dnixexec.state-dir=" + state, "-Dquarkus.http.port=0", "-Dnixexec.jobs.heartbeat=1s",
                "-Dnixexec.executor.nixpkgs-url=path:" + REPO.resolve("nix/testing/nixpkgs"),
                "-Dnixexec.executor.substituters=none", "-Dnixexec.executor.nix-options=sandbox=false",
                "-jar", RUNNER.toString()));
        Path log = Files.createDirectories(state).resolve("worker.log");
        Process worker = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            String id = as(key).body(job).post("/v1/jobs").then().statusCode(201).extract().path("id");
            // waits shorter than the test client's read timeout, in rounds: a busy machine starts a worker slowly
            JsonPath result = as(key).get("/v1/jobs/" + id + "?wait=20").then().statusCode(200).extract().jsonPath();
            for (int i = 0; i < 12 && !terminal(result.getString("status")); i++) {
                result = as(key).get("/v1/jobs/" + id + "?wait=20").then().statusCode(200).extract().jsonPath();
            }
            assertTrue(terminal(result.getString("status")), "worker log:\n" + Files.readString(log));
            return result;
        } finally {
            worker.destroy();
            if (!worker.waitFor(30, TimeUnit.SECONDS)) {
                worker.destroyForcibly().waitFor();
            }
        }
    }

    private static boolean terminal(String status) {
        return List.of("succeeded", "failed", "timed_out", "cancelled", "error").contains(status);
    }

    /** The packaged service (target/quarkus-app), no older than the compiled classes: the worker processes run this code. */
    private static void packagedService() throws IOException {
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
