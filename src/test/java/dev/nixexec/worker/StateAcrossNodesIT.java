package dev.nixexec.worker;

import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.memberKey;
import static dev.nixexec.testing.JsonBody.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * A session's files and a workspace live in PostgreSQL, not on a node: this process takes
 * requests and runs nothing; one worker process (the packaged service, role {@code worker}, a
 * state directory of its own) builds a session and runs an exec that writes its /workspace,
 * /home/sandbox and /cache, runs a job that writes a workspace, and stops; a second worker
 * process, with another state directory, runs what reads them. Both stories share the two worker
 * processes: each start of the packaged service is a JVM's worth of the suite's time. Run with
 * {@code ./mvnw verify} (the packaged service is built in its package phase).
 */
@QuarkusTest
@TestProfile(ApiOnlyNode.class)
class StateAcrossNodesIT {

    @ConfigProperty(name = "quarkus.datasource.jdbc.url")
    String url;

    @ConfigProperty(name = "quarkus.datasource.username")
    String user;

    @ConfigProperty(name = "quarkus.datasource.password")
    String password;

    @Test
    void aSecondWorkerProcessSeesWhatTheFirstWroteInASessionAndAWorkspace() throws Exception {
        String key = memberKey("state-nodes");
        String ws = read(as(key).body(Map.of("name", "shared")).post("/v1/workspaces").then().statusCode(201)
                .extract().asString(), "id");

        record Written(String session, JsonPath workspaceJob) {
        }
        Written written = on("state-node-a", () -> {
            JsonPath session = as(key).body(Map.of("packages", List.of("hello"), "name", "travels"))
                    .post("/v1/sessions?wait=20").then().statusCode(201).extract().jsonPath();
            // a fresh worker process starts and builds first: wait for the build job in rounds
            for (int i = 0; i < 6 && session.getString("status").equals("building"); i++) {
                as(key).get("/v1/jobs/" + session.getString("build_job_id") + "?wait=30").then().statusCode(200);
                session = as(key).get("/v1/sessions/travels").then().statusCode(200).extract().jsonPath();
            }
            assertEquals("ready", session.getString("status"), session.prettify());
            JsonPath exec = exec(key, "travels", List.of("bash", "-c",
                    "echo one > /workspace/a; echo two > ~/b; echo three > /cache/c; hello > /workspace/h"));
            assertEquals("succeeded", exec.getString("status"), exec.prettify());
            assertEquals("state-node-a", exec.getString("node_id"));

            JsonPath job = run(key, Map.of("language", "bash", "workspace", ws,
                    "code", "echo \"written on $(cat /etc/hostname 2>/dev/null || echo a sandbox)\" > note.txt; "
                            + "mkdir -p out; printf 'from node a' > out/a.txt"));
            assertEquals("succeeded", job.getString("status"), job.prettify());
            assertEquals("state-node-a", job.getString("node_id"));
            assertEquals("out/a.txt", job.getString("artifacts[0].name"));
            return new Written(session.getString("id"), job);
        });

        on("state-node-b", () -> {
            JsonPath exec = exec(key, written.session(), List.of("bash", "-c",
                    "cat /workspace/a /home/sandbox/b /cache/c /workspace/h"));
            assertEquals("succeeded", exec.getString("status"), exec.prettify());
            assertEquals("state-node-b", exec.getString("node_id"));
            assertEquals("one\ntwo\nthree\nHello, world!\n", exec.getString("stdout"));

            JsonPath job = run(key, Map.of("language", "bash", "workspace", ws, "code", "cat out/a.txt; echo; ls"));
            assertEquals("succeeded", job.getString("status"), job.prettify());
            assertEquals("state-node-b", job.getString("node_id"));
            assertEquals("from node a\nnote.txt\nout\n", job.getString("stdout"));
            return null;
        });
        assertEquals("from node a", as(key).get(written.workspaceJob().getString("artifacts[0].url")).asString());
    }

    private static JsonPath exec(String key, String session, List<String> command) {
        JsonPath job = as(key).body(Map.of("command", command)).post("/v1/sessions/" + session + "/exec?wait=20")
                .then().extract().jsonPath();
        return untilEnded(key, job);
    }

    private static JsonPath run(String key, Map<String, Object> job) {
        String id = read(as(key).body(job).post("/v1/jobs").then().statusCode(201).extract().asString(), "id");
        return untilEnded(key, as(key).get("/v1/jobs/" + id + "?wait=20").then().statusCode(200).extract().jsonPath());
    }

    /** Waits shorter than the test client's read timeout, in rounds: a busy machine starts a worker slowly. */
    private static JsonPath untilEnded(String key, JsonPath job) {
        for (int i = 0; i < 12 && !WorkerProcesses.terminal(job.getString("status")); i++) {
            job = as(key).get("/v1/jobs/" + job.getString("id") + "?wait=20").then().statusCode(200).extract().jsonPath();
        }
        assertTrue(WorkerProcesses.terminal(job.getString("status")), job.prettify());
        return job;
    }

    private <T> T on(String node, Callable<T> work) throws Exception {
        return WorkerProcesses.on(node, new WorkerProcesses.Database(url, user, password), work);
    }
}
