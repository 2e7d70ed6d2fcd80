package dev.nixexec.mcp;

import static dev.nixexec.testing.Api.memberKey;
import static dev.nixexec.testing.JsonBody.read;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.NixSpy;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkiverse.mcp.server.test.McpAssured.McpAssert;
import io.quarkiverse.mcp.server.test.McpAssured.McpTestClient;
import io.quarkiverse.mcp.server.test.McpAssured;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.core.MultiMap;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The MCP tools over Streamable HTTP with bearer keys: real keys, real nix, real bubblewrap. SSE
 * runs the same conversation in {@link McpLocalModeTest}: the 1.13 test client sends only Basic
 * credentials on its SSE GET, never additional headers.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class McpToolsTest {

    String memberA;
    String memberB;

    static Function<JsonObject, MultiMap> bearer(String key) {
        return message -> MultiMap.caseInsensitiveMultiMap().add("Authorization", "Bearer " + key);
    }

    static String text(ToolResponse response) {
        return response.content().get(0).asText().text();
    }

    @BeforeEach
    void keys() {
        memberA = memberKey("mcp-a");
        memberB = memberKey("mcp-b");
    }

    @Test
    void streamableHttp() {
        try (var client = McpAssured.newStreamableClient().setAdditionalHeaders(bearer(memberA)).build().connect()) {
            exercise(client);
        }
    }

    @Test
    void noOrUnknownKeyIsRefused() {
        McpAssured.newStreamableClient().setExpectConnectFailure(r -> assertEquals(401, r.statusCode())).build().connect();
        McpAssured.newStreamableClient().setAdditionalHeaders(bearer("nx_not_a_key"))
                .setExpectConnectFailure(r -> assertEquals(401, r.statusCode())).build().connect();
        McpAssured.newSseClient().setExpectSseConnectionFailure().build().connect();
        given().contentType("application/json").body("{}").post("/mcp").then().statusCode(401);
        given().get("/mcp/sse").then().statusCode(401);
    }

    @Test
    void anotherTenantsJobIsNotFound() {
        String id = read(given().header("Authorization", "Bearer " + memberA).contentType("application/json")
                .body(Map.of("language", "bash", "code", "sleep 30")).post("/v1/jobs")
                .then().statusCode(201).extract().asString(), "id");
        try (var client = McpAssured.newStreamableClient().setAdditionalHeaders(bearer(memberB)).build().connect()) {
            client.when()
                    .toolsCall("get_job", Map.of("job_id", id), r -> {
                        assertTrue(r.isError());
                        assertEquals("no job " + id, text(r));
                    })
                    .toolsCall("cancel_job", Map.of("job_id", id), r -> {
                        assertTrue(r.isError());
                        assertEquals("no job " + id, text(r));
                    })
                    .toolsCall("list_jobs", Map.of(), r -> assertFalse(text(r).contains(id)))
                    .thenAssertResults();
        }
        try (var client = McpAssured.newStreamableClient().setAdditionalHeaders(bearer(memberA)).build().connect()) {
            client.when()
                    .toolsCall("cancel_job", Map.of("job_id", id), r -> {
                        assertFalse(r.isError());
                        assertTrue(text(r).startsWith("Job " + id + ": "), text(r));
                    })
                    .toolsCall("list_jobs", Map.of("limit", 5), r -> assertTrue(text(r).contains(id), text(r)))
                    .thenAssertResults();
        }
    }

    /** nix-exec's host files are the local mode's alone: with keys on, one line, and no job. */
    @Test
    void hostFilesAreRefusedWithKeysOn() {
        String key = memberKey("mcp-host-files");
        try (var client = McpAssured.newStreamableClient().setAdditionalHeaders(bearer(key)).build().connect()) {
            client.when()
                    .toolsCall("run_code", Map.of("language", "bash", "code", "cat /etc/hostname",
                            "files", List.of("/etc/hostname")), r -> {
                        assertTrue(r.isError());
                        assertEquals("files: files and writable_files mount host paths, which only the single-user "
                                + "local mode does (keys are on here): put the files in a workspace instead "
                                + "(write_workspace_file)", text(r));
                    })
                    .toolsCall("submit_job", Map.of("language", "bash", "code", "true",
                            "writable_files", List.of("/tmp")), r -> {
                        assertTrue(r.isError());
                        assertTrue(text(r).startsWith("writable_files: files and writable_files mount host paths"), text(r));
                    })
                    .toolsCall("list_jobs", Map.of(), r -> assertEquals("No jobs.", text(r)))
                    .thenAssertResults();
        }
    }

    /**
     * Every tool says what it does to its world ({@code readOnlyHint}, {@code destructiveHint},
     * {@code idempotentHint}, {@code openWorldHint}), and the job tools the schema of their
     * structured result. The read-only ones are what an auditor's session lists.
     */
    @Test
    void everyToolIsAnnotated() {
        // name: read-only, destructive, idempotent, open world
        Map<String, List<Boolean>> expected = Map.ofEntries(
                Map.entry("run_code", List.of(false, true, false, true)),
                Map.entry("submit_job", List.of(false, true, false, true)),
                Map.entry("exec_in_session", List.of(false, true, false, true)),
                Map.entry("get_job", List.of(true, false, true, false)),
                Map.entry("cancel_job", List.of(false, true, true, false)),
                Map.entry("list_jobs", List.of(true, false, true, false)),
                Map.entry("list_languages", List.of(true, false, true, false)),
                Map.entry("list_profiles", List.of(true, false, true, false)),
                Map.entry("search_packages", List.of(true, false, true, false)),
                Map.entry("create_session", List.of(false, false, false, false)),
                Map.entry("list_sessions", List.of(true, false, true, false)),
                Map.entry("destroy_session", List.of(false, true, true, false)),
                Map.entry("list_workspace_files", List.of(true, false, true, false)),
                Map.entry("read_workspace_file", List.of(true, false, true, false)),
                Map.entry("write_workspace_file", List.of(false, true, true, false)));
        try (var client = McpAssured.newStreamableClient().setAdditionalHeaders(bearer(memberA)).build().connect()) {
            client.when().toolsList(page -> {
                assertEquals(expected.keySet(), page.tools().stream().map(McpAssured.ToolInfo::name)
                        .collect(Collectors.toSet()));
                for (McpAssured.ToolInfo tool : page.tools()) {
                    var hints = tool.annotations().orElseThrow(() -> new AssertionError(tool.name() + " has no annotations"));
                    assertEquals(expected.get(tool.name()), List.of(hints.readOnlyHint(), hints.destructiveHint(),
                            hints.idempotentHint(), hints.openWorldHint()), tool.name());
                }
                for (String name : List.of("run_code", "submit_job", "get_job", "cancel_job", "exec_in_session")) {
                    JsonObject schema = page.findByName(name).outputSchema();
                    assertEquals("object", schema.getString("type"), name);
                    assertTrue(schema.getJsonArray("required").contains("exit_code"), name + ": " + schema);
                }
            }).thenAssertResults();
        }
    }

    /**
     * MCP Tasks (2025-11-25) are not served (docs/mcp.md): even to a client that offers them and
     * speaks that version, initialize announces tools but no {@code tasks} capability.
     */
    @Test
    void noTasksCapabilityIsAnnounced() {
        String init = """
                {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",
                "capabilities":{"tasks":{}},"clientInfo":{"name":"tasks-check","version":"1"}}}""";
        String body = given().header("Authorization", "Bearer " + memberA)
                .header("Accept", "application/json, text/event-stream").contentType("application/json").body(init)
                .post("/mcp").then().statusCode(200).extract().asString();
        // a JSON body, or the same message as one SSE event
        String message = body.strip().startsWith("{") ? body : body.lines().filter(l -> l.startsWith("data:"))
                .map(l -> l.substring(5)).findFirst().orElseThrow(() -> new AssertionError(body));
        JsonObject capabilities = new JsonObject(message).getJsonObject("result").getJsonObject("capabilities");
        assertTrue(capabilities.containsKey("tools"), capabilities.encode());
        assertFalse(capabilities.containsKey("tasks"), capabilities.encode());
    }

    /** The same conversation on any transport. */
    static <A extends McpAssert<A>> void exercise(McpTestClient<A, ?> client) {
        client.when()
                .toolsList(page -> {
                    assertEquals(List.of("cancel_job", "create_session", "destroy_session", "exec_in_session", "get_job",
                            "list_jobs", "list_languages", "list_profiles", "list_sessions", "list_workspace_files",
                            "read_workspace_file", "run_code", "search_packages", "submit_job", "write_workspace_file"),
                            page.tools().stream().map(McpAssured.ToolInfo::name).sorted().toList());
                    JsonObject language = page.findByName("run_code").inputSchema()
                            .getJsonObject("properties").getJsonObject("language");
                    assertEquals(List.of("python", "bash", "node", "haskell", "lua", "ruby", "perl", "octave"),
                            language.getJsonArray("enum").getList());
                    assertTrue(page.findByName("run_code").inputSchema().getJsonObject("properties")
                            .getJsonObject("packages").getString("description").contains("python3Packages.numpy"));
                })
                .toolsCall("run_code", Map.of("language", "python", "code", "print(1)"), r -> {
                    assertFalse(r.isError(), text(r));
                    assertTrue(text(r).startsWith("Exit code: 0\n--- stdout ---\n1\n--- stderr ---\n"), text(r));
                    assertTrue(text(r).endsWith(": succeeded"), text(r));
                })
                .toolsCall("run_code", Map.of("language", "bash", "code", "echo oops >&2; exit 3"), r -> {
                    assertTrue(r.isError());
                    assertTrue(text(r).contains("Exit code: 3\n"), text(r));
                    assertTrue(text(r).contains("--- stderr ---\noops\n"), text(r));
                })
                .toolsCall("run_code", Map.of("language", "cobol", "code", "DISPLAY 1"), r -> {
                    assertTrue(r.isError());
                    assertTrue(text(r).startsWith("language: "), text(r));
                    assertFalse(text(r).contains("\n"), text(r));
                })
                .toolsCall("list_languages", Map.of(), r -> assertTrue(text(r).contains("python3Packages"), text(r)))
                .thenAssertResults();
    }
}
