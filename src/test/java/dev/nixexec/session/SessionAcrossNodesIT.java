package dev.nixexec.session;

import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.memberKey;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.nixexec.testing.ApiOnlyNode;
import dev.nixexec.testing.WorkerProcesses;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
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

    @ConfigProperty(name = "quarkus.datasource.jdbc.url")
    String url;

    @ConfigProperty(name = "quarkus.datasource.username")
    String user;

    @ConfigProperty(name = "quarkus.datasource.password")
    String password;

    @Test
    void aSecondWorkerProcessSeesWhatTheFirstWroteInTheSession() throws Exception {
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
        for (int i = 0; i < 6 && !WorkerProcesses.terminal(job.getString("status")); i++) {
            job = as(key).get("/v1/jobs/" + job.getString("id") + "?wait=30").then().statusCode(200).extract().jsonPath();
        }
        return job;
    }

    private <T> T on(String node, Callable<T> work) throws Exception {
        return WorkerProcesses.on(node, new WorkerProcesses.Database(url, user, password), work);
    }
}
