package dev.nixexec.mcp;

import static dev.nixexec.testing.Api.key;
import static dev.nixexec.testing.Api.tenant;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.NixSpy;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkiverse.mcp.server.test.McpAssured;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The session tools over Streamable HTTP with bearer keys: a session created, commands run in it
 * (an argv, a script, run_code with session), its files kept between them, listed, destroyed.
 * Real keys, real nix (the offline fixture), real bubblewrap. Each call is a round trip of its own:
 * the calls of one {@code when()} go out together.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class McpSessionToolsTest {

    static String text(ToolResponse response) {
        return response.content().get(0).asText().text();
    }

    @Test
    void aSessionIsCreatedUsedListedAndDestroyed() {
        String tenant = tenant("mcp-s");
        String member = key(tenant, "member");
        try (var client = McpAssured.newStreamableClient().setAdditionalHeaders(McpToolsTest.bearer(member)).build()
                .connect()) {
            client.when()
                    .toolsList(page -> {
                        assertTrue(page.findByName("list_sessions").annotations().orElseThrow().readOnlyHint());
                        assertTrue(page.findByName("destroy_session").annotations().orElseThrow().destructiveHint());
                        assertTrue(page.findByName("run_code").inputSchema().getJsonObject("properties")
                                .containsKey("session"));
                    })
                    .thenAssertResults();
            client.when()
                    .toolsCall("create_session", Map.of("packages", List.of("hello"), "name", "agent-box"), r -> {
                        assertFalse(r.isError(), text(r));
                        assertTrue(text(r).startsWith("Session agent-box "), text(r));
                        assertTrue(text(r).contains(": ready, packages hello"), text(r));
                    })
                    .thenAssertResults();
            client.when()
                    .toolsCall("exec_in_session", Map.of("session", "agent-box", "command", List.of("hello")), r -> {
                        assertFalse(r.isError(), text(r));
                        assertTrue(text(r).contains("--- stdout ---\nHello, world!\n"), text(r));
                    })
                    .thenAssertResults();
            client.when()
                    .toolsCall("run_code", Map.of("session", "agent-box", "language", "bash",
                            "code", "echo kept > /workspace/note"), r -> assertFalse(r.isError(), text(r)))
                    .thenAssertResults();
            client.when()
                    .toolsCall("exec_in_session", Map.of("session", "agent-box", "code", "cat /workspace/note"), r -> {
                        assertFalse(r.isError(), text(r));
                        assertTrue(text(r).contains("--- stdout ---\nkept\n"), text(r));
                    })
                    .thenAssertResults();
            client.when()
                    .toolsCall("run_code", Map.of("session", "agent-box", "language", "bash", "code", "true",
                            "packages", List.of("jq")), r -> {
                        assertTrue(r.isError());
                        assertTrue(text(r).contains("a session brings its own packages and files"), text(r));
                    })
                    .thenAssertResults();
            client.when()
                    .toolsCall("list_sessions", Map.of(), r -> assertTrue(text(r).contains("Session agent-box"), text(r)))
                    .thenAssertResults();
            client.when()
                    .toolsCall("destroy_session", Map.of("session", "agent-box"), r -> assertFalse(r.isError(), text(r)))
                    .thenAssertResults();
            client.when()
                    .toolsCall("exec_in_session", Map.of("session", "agent-box", "command", List.of("hello")), r -> {
                        assertTrue(r.isError());
                        assertTrue(text(r).contains("was destroyed"), text(r));
                    })
                    .thenAssertResults();
            client.when()
                    .toolsCall("list_sessions", Map.of(), r -> assertEquals("No sessions.", text(r)))
                    .thenAssertResults();
        }
        String auditor = key(tenant, "auditor");
        try (var client = McpAssured.newStreamableClient().setAdditionalHeaders(McpToolsTest.bearer(auditor)).build()
                .connect()) {
            client.when()
                    .toolsList(page -> {
                        List<String> names = page.tools().stream().map(McpAssured.ToolInfo::name).toList();
                        assertTrue(names.contains("list_sessions"), names.toString());
                        assertFalse(names.contains("create_session") || names.contains("exec_in_session")
                                || names.contains("destroy_session"), names.toString());
                    })
                    .thenAssertResults();
            client.when()
                    .toolsCall("create_session", Map.of(), r -> {
                        assertTrue(r.isError());
                        assertTrue(text(r).contains("create_session"), text(r));
                    })
                    .thenAssertResults();
        }
    }
}
