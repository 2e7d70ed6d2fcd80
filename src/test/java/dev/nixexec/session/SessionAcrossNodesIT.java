package dev.nixexec.session;

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
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * A session's files live in PostgreSQL, not on a node: this process takes requests and runs
 * nothing; one worker process (the packaged service, role {@code worker}, a state directory of its
 * own) builds the session and runs an exec that writes /workspace, /home/sandbox and /cache, and
 * stops; a second worker process, with another state directory, runs the exec that reads them.
 * Run with {@code ./mvnw verify} (the packaged service is built in its package phase).
 */
@QuarkusTest
@TestProfile(ApiOnlyNode.class)
class SessionAcrossNodesIT {

    static final Path REPO = Path.of(System.getProperty("nixexec-test.repo-dir", ".")).toAbsolutePath();
    static final Path RUNNER = REPO.resolve("target/quarkus-app/quarkus-run.jar");

    @ConfigProperty(name = "quarkus.datasource.jdbc.url")
    String url;

    @ConfigProperty(name = "quarkus.datasource.username")
    String user;

    @ConfigProperty(name = "quarkus.datasource.password")
    String password;

    @Test
    void aSecondWorkerProcessSeesWhatTheFirstWroteInTheSession() throws Exception {
        packagedService();
        String key = memberKey("session-nodes");
        String id = on("session-node-a", () -> {
            JsonPath session = as(key).body(Map.of("packages", List.of("hello"), "name", "travels"))
                    .post("/v1/sessions?wait=20").then().statusCode(201).extract().jsonPath();
            // a fresh worker process starts and builds first: wait for the build job in rounds
            for (int i = 0; i < 6 && session.getString("status").equals("building"); i++) {
                as(key).get("/v1/jobs/" + session.getString("build_job_id") + "?wait=30").then().statusCode(200);
                session = as(key).get("/v1/sessions/travels").then().statusCode(200).extract().jsonPath();
            }
            assertEquals("ready", session.getString("status"), session.prettify());
            JsonPath wrote = exec(key, "travels", List.of("bash", "-c",
                    "echo one > /workspace/a; echo two > ~/b; echo three > /cache/c; hello > /workspace/h"));
            assertEquals("succeeded", wrote.getString("status"), wrote.prettify());
            assertEquals("session-node-a", wrote.getString("node_id"));
            return session.getString("id");
        });
        JsonPath read = on("session-node-b", () -> exec(key, id, List.of("bash", "-c",
                "cat /workspace/a /home/sandbox/b /cache/c /workspace/h")));
        assertEquals("succeeded", read.getString("status"), read.prettify());
        assertEquals("session-node-b", read.getString("node_id"));
        assertEquals("one\ntwo\nthree\nHello, world!\n", read.getString("stdout"));
    }

    private static JsonPath exec(String key, String session, List<String> command) {
        JsonPath job = as(key).body(Map.of("command", command)).post("/v1/sessions/" + session + "/exec?wait=20")
                .then().extract().jsonPath();
        for (int i = 0; i < 6 && !terminal(job.getString("status")); i++) {
            job = as(key).get("/v1/jobs/" + job.getString("id") + "?wait=30").then().statusCode(200).extract().jsonPath();
        }
        return job;
    }

    /** Starts a worker process, does {@code work} while it runs (nothing else runs jobs), and stops it. */
    private <T> T on(String node, Callable<T> work) throws Exception {
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
