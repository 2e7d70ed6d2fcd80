package dev.nixexec.workspace;

import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.memberKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.ApiOnlyNode;
import dev.nixexec.testing.WorkerProcesses;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import java.util.List;
import java.util.Map;
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

    @ConfigProperty(name = "quarkus.datasource.jdbc.url")
    String url;

    @ConfigProperty(name = "quarkus.datasource.username")
    String user;

    @ConfigProperty(name = "quarkus.datasource.password")
    String password;

    @Test
    void aSecondWorkerProcessReadsWhatTheFirstWrote() throws Exception {
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
        return WorkerProcesses.on(node, new WorkerProcesses.Database(url, user, password), () -> {
            String id = as(key).body(job).post("/v1/jobs").then().statusCode(201).extract().path("id");
            // waits shorter than the test client's read timeout, in rounds: a busy machine starts a worker slowly
            JsonPath result = as(key).get("/v1/jobs/" + id + "?wait=20").then().statusCode(200).extract().jsonPath();
            for (int i = 0; i < 12 && !WorkerProcesses.terminal(result.getString("status")); i++) {
                result = as(key).get("/v1/jobs/" + id + "?wait=20").then().statusCode(200).extract().jsonPath();
            }
            assertTrue(WorkerProcesses.terminal(result.getString("status")), result.prettify());
            return result;
        });
    }
}
