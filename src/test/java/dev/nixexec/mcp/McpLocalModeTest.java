package dev.nixexec.mcp;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.LocalMode;
import dev.nixexec.testing.NixSpy;
import io.quarkiverse.mcp.server.test.McpAssured;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Local single-user mode: MCP over SSE and Streamable HTTP with no key at all. */
@QuarkusTest
@TestProfile(LocalMode.class)
@WithTestResource(NixSpy.class)
class McpLocalModeTest {

    @Test
    void sse() {
        try (var client = McpAssured.newSseClient().build().connect()) {
            McpToolsTest.exercise(client);
        }
    }

    /** The SSE transport's POSTs ({@code /mcp/messages/<id>}) leave null arguments out too ({@link McpNullArgumentsTest}). */
    @Test
    void sseNullArguments() {
        try (var client = McpAssured.newSseClient().build().connect()) {
            client.when()
                    .toolsCall("get_job", McpNullArgumentsTest.withNulls(Map.of("job_id", UUID.randomUUID().toString()), "wait"),
                            r -> assertTrue(McpToolsTest.text(r).startsWith("no job "), McpToolsTest.text(r)))
                    .toolsCall("get_job", McpNullArgumentsTest.withNulls(Map.of(), "job_id"),
                            McpNullArgumentsTest.refusedNaming("job_id"))
                    .thenAssertResults();
        }
    }

    @Test
    void streamableHttpWithoutKey() {
        String unknown = UUID.randomUUID().toString();
        try (var client = McpAssured.newStreamableClient().build().connect()) {
            client.when()
                    .toolsCall("get_job", Map.of("job_id", unknown), r -> assertTrue(r.isError()))
                    .toolsCall("get_job", Map.of("job_id", "not-an-id"), r -> assertTrue(r.isError()))
                    .thenAssertResults();
        }
    }
}
