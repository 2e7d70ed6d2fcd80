package dev.nixexec.mcp;

import static dev.nixexec.testing.Api.memberKey;
import static dev.nixexec.mcp.McpToolsTest.bearer;
import static dev.nixexec.mcp.McpToolsTest.text;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.NixSpy;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkiverse.mcp.server.test.McpAssured;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Many agent frameworks send {@code null} for the optional arguments they do not set: that is
 * "not given", as leaving them out is; a {@code null} for a required one is refused in one line
 * naming it. Each used to be the JSON-RPC error -32603 on every tool with {@link ArgumentShapes}.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class McpNullArgumentsTest {

    /** The arguments with the given names set to {@code null} ({@code Map.of} takes no nulls). */
    static Map<String, Object> withNulls(Map<String, Object> given, String... nulls) {
        Map<String, Object> arguments = new HashMap<>(given);
        for (String name : nulls) {
            arguments.put(name, null);
        }
        return arguments;
    }

    static Consumer<ToolResponse> refusedNaming(String argument) {
        return r -> {
            assertTrue(r.isError(), text(r));
            assertEquals(1, text(r).lines().count(), text(r));
            assertTrue(text(r).contains(argument), text(r));
        };
    }

    @Test
    void aNullOptionalArgumentIsNotGiven() {
        try (var client = McpAssured.newStreamableClient().setAdditionalHeaders(bearer(memberKey("mcp-nulls"))).build()
                .connect()) {
            client.when()
                    .toolsCall("run_code", withNulls(Map.of("language", "bash", "code", "echo ran"), "packages", "env",
                            "stdin", "timeout", "workspace", "profile", "session", "files", "writable_files"), r -> {
                                assertFalse(r.isError(), text(r));
                                assertTrue(text(r).startsWith("Exit code: 0\n--- stdout ---\nran\n"), text(r));
                            })
                    .toolsCall("submit_job", withNulls(Map.of("language", "bash", "code", "echo x"), "stdin", "timeout"),
                            r -> {
                                assertFalse(r.isError(), text(r));
                                assertTrue(text(r).startsWith("Job "), text(r));
                            })
                    .toolsCall("get_job", withNulls(Map.of("job_id", UUID.randomUUID().toString()), "wait"), r -> {
                        assertTrue(r.isError(), text(r));
                        assertTrue(text(r).startsWith("no job "), text(r));
                    })
                    .toolsCall("list_jobs", withNulls(Map.of(), "status", "limit"), r -> assertFalse(r.isError(), text(r)))
                    .thenAssertResults();
        }
    }

    @Test
    void aNullRequiredArgumentIsRefusedInOneLineNamingIt() {
        try (var client = McpAssured.newStreamableClient().setAdditionalHeaders(bearer(memberKey("mcp-nulls"))).build()
                .connect()) {
            client.when()
                    .toolsCall("submit_job", withNulls(Map.of("code", "echo x"), "language", "stdin"),
                            refusedNaming("language"))
                    .toolsCall("run_code", withNulls(Map.of("language", "bash"), "code"), refusedNaming("code"))
                    .toolsCall("get_job", withNulls(Map.of(), "job_id", "wait"), refusedNaming("job_id"))
                    .toolsCall("cancel_job", withNulls(Map.of(), "job_id"), refusedNaming("job_id"))
                    .thenAssertResults();
        }
    }

    /** Leaving a required argument out is refused the same way. */
    @Test
    void aMissingRequiredArgumentIsRefusedInOneLineNamingIt() {
        try (var client = McpAssured.newStreamableClient().setAdditionalHeaders(bearer(memberKey("mcp-nulls"))).build()
                .connect()) {
            client.when()
                    .toolsCall("submit_job", Map.of("code", "echo x"), refusedNaming("language"))
                    .toolsCall("get_job", Map.of(), refusedNaming("job_id"))
                    .toolsCall("cancel_job", Map.of(), refusedNaming("job_id"))
                    .thenAssertResults();
        }
    }

    /** A body Vert.x cannot decode (a member named twice) is left to the extension to refuse, as before: no 500. */
    @Test
    void aBodyVertxCannotDecodeIsTheExtensionsToRefuse() {
        var response = given().header("Authorization", "Bearer " + memberKey("mcp-nulls"))
                .header("Accept", "application/json, text/event-stream").contentType("application/json")
                .body("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"list_jobs\"},\"id\":2}")
                .post("/mcp").then().extract();
        assertTrue(response.statusCode() < 500 && response.asString().contains("\"error\""),
                response.statusCode() + " " + response.asString());
    }
}
