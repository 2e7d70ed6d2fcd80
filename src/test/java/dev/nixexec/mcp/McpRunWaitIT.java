package dev.nixexec.mcp;

import static dev.nixexec.testing.Api.memberKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.NixSpy;
import dev.nixexec.testing.ShortWaits;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkiverse.mcp.server.test.McpAssured;
import io.quarkiverse.mcp.server.test.McpAssured.McpStreamableTestClient;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code run_code} whose job outlasts the call's wait ({@code nixexec.mcp.run-wait}, short here):
 * the answer is the "still running" one with the output the call followed so far, and the status
 * line after a separator; the job goes on and is read with {@code get_job}. (McpJobResultsTest
 * covers the same answer from {@code get_job}, whose output so far is read from the stored events.)
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
@TestProfile(ShortWaits.class)
class McpRunWaitIT {

    @BeforeAll
    static void patientClient() {
        Awaitility.setDefaultTimeout(Duration.ofSeconds(120));
    }

    @AfterAll
    static void usualClient() {
        Awaitility.reset();
    }

    @Test
    void runCodeOutlastingItsWaitAnswersWithTheOutputSoFar() {
        try (McpStreamableTestClient client = McpAssured.newStreamableClient()
                .setAdditionalHeaders(McpToolsTest.bearer(memberKey("mcp-run-wait"))).build().connect()) {
            // bash's environment built first, so the wait below is the job's own, not a build's
            assertFalse(call(client, "run_code", Map.of("language", "bash", "code", "true")).isError());

            ToolResponse running = call(client, "run_code", Map.of("language", "bash",
                    "code", "echo started; echo warming >&2; sleep 120"));
            assertFalse(running.isError(), McpToolsTest.text(running));
            String id = McpJobResultsTest.structured(running).getString("id");
            assertEquals("running", McpJobResultsTest.structured(running).getString("status"));
            assertEquals("Still running: call get_job with this job_id (and a wait) for the result.\n"
                    + "--- stdout so far ---\nstarted\n--- stderr so far ---\nwarming\n---\nJob " + id + ": running",
                    McpToolsTest.text(running));

            call(client, "cancel_job", Map.of("job_id", id));
            ToolResponse ended = call(client, "get_job", Map.of("job_id", id, "wait", 30));
            assertTrue(McpToolsTest.text(ended).endsWith("\n---\nJob " + id + ": cancelled"), McpToolsTest.text(ended));
        }
    }

    private static ToolResponse call(McpStreamableTestClient client, String tool, Map<String, Object> arguments) {
        AtomicReference<ToolResponse> response = new AtomicReference<>();
        client.when().toolsCall(tool, arguments, (Consumer<ToolResponse>) response::set).thenAssertResults();
        return response.get();
    }
}
