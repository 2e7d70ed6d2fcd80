package dev.nixexec.security;

import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.key;
import static dev.nixexec.testing.Api.tenant;
import static dev.nixexec.testing.JsonBody.json;
import static dev.nixexec.testing.JsonBody.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.security.McpWire.Session;
import dev.nixexec.security.McpWire.SseSession;
import dev.nixexec.security.McpWire.ToolResult;
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An MCP session belongs to the key that opened it. Two members and an auditor of one tenant, over
 * real HTTP: another key that knows a session's id (Mcp-Session-Id, or the SSE transport's
 * /mcp/messages/&lt;id&gt;) gets 404 for everything it sends there, so it can neither cancel the
 * owner's running call, answer in its place, open its stream nor end the session. Session ids
 * appear in no workspace name; auditors get the read tools only; tools refuse arguments they do not
 * know; a refused key is told so in plain words.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class McpSessionBindingTest {
    static final List<String> WRITE_TOOLS = List.of("cancel_job", "run_code", "submit_job", "write_workspace_file");

    @TestHTTPResource("/")
    URL base;

    McpWire wire;
    String memberA;
    String memberB;
    String auditorC;

    @BeforeEach
    void oneTenantThreeKeys() throws Exception {
        wire = new McpWire(base.toURI());
        String tenant = tenant("bind");
        memberA = key(tenant, "member");
        memberB = key(tenant, "member");
        auditorC = key(tenant, "auditor");
    }

    /** The id of A's job once it runs, polled through REST. */
    String runningJobOf(String key) {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(120));
        while (Instant.now().isBefore(deadline)) {
            List<String> running = read(as(key).get("/v1/jobs?status=running").then().statusCode(200)
                    .extract().asString(), "items.id");
            if (!running.isEmpty()) {
                return running.get(0);
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no job of the key came to run");
    }

    @Test
    void anotherKeyCannotCancelAnswerOrWatchARunningCall() throws Exception {
        Session a = wire.open(memberA);
        CompletableFuture<HttpResponse<String>> running = wire.postAsync(a.key(), a.id(), McpWire.toolCall(7, "run_code",
                Map.of("language", "bash", "code", "sleep 3; echo survived")));
        String jobId = runningJobOf(memberA);

        for (String intruder : List.of(memberB, auditorC)) {
            HttpResponse<String> cancel = wire.post(intruder, a.id(), McpWire.notification("notifications/cancelled",
                    new JsonObject().put("requestId", 7).put("reason", "hijack")));
            assertEquals(404, cancel.statusCode(), "cancel into another key's session: " + cancel.body());
            HttpResponse<String> injected = wire.post(intruder, a.id(), McpWire.toolCall(7, "list_languages", Map.of()));
            assertEquals(404, injected.statusCode(), "tools/call into another key's session: " + injected.body());
            HttpResponse<Stream<String>> watch = McpWire.HTTP.send(wire.mcp(intruder, a.id()).GET().build(),
                    HttpResponse.BodyHandlers.ofLines());
            watch.body().close();
            assertEquals(404, watch.statusCode(), "another key's GET opens the session's stream");
        }

        ToolResult result = ToolResult.of(McpWire.answer(running.get(), 7));
        assertFalse(result.isError(), result.text());
        assertTrue(result.text().contains("survived"), result.text());
        as(memberA).get("/v1/jobs/" + jobId).then().statusCode(200)
                .body(json("status", org.hamcrest.Matchers.equalTo("succeeded")));
    }

    @Test
    void anotherKeyCannotEndASession() {
        Session a = wire.open(memberA);
        assertEquals(404, wire.delete(memberB, a.id()).statusCode());
        assertEquals(404, wire.delete(auditorC, a.id()).statusCode());
        assertFalse(wire.call(a, 2, "list_languages", Map.of()).isError(), "the session lives on");
        assertEquals(200, wire.delete(memberA, a.id()).statusCode());
        assertEquals(404, wire.post(memberA, a.id(), McpWire.toolCall(3, "list_languages", Map.of())).statusCode());
    }

    @Test
    void anUnknownSessionIsNotFound() {
        assertEquals(404, wire.post(memberA, UUID.randomUUID().toString(),
                McpWire.toolCall(1, "list_languages", Map.of())).statusCode());
        assertEquals(404, wire.delete(memberA, UUID.randomUUID().toString()).statusCode());
    }

    @Test
    void sseMessagesOfASessionAreItsOpenersOnly() {
        try (SseSession a = wire.openSse(memberA)) {
            JsonObject initialize = McpWire.request(1, "initialize", new JsonObject()
                    .put("protocolVersion", "2024-11-05").put("capabilities", new JsonObject())
                    .put("clientInfo", new JsonObject().put("name", "intruder").put("version", "1")));
            for (String intruder : List.of(memberB, auditorC)) {
                assertEquals(404, wire.postSse(a.endpoint(), intruder, initialize).statusCode(),
                        "initialize into another key's SSE session");
            }
            assertTrue(wire.postSse(a.endpoint(), memberA, initialize.put("params", initialize.getJsonObject("params")
                    .put("clientInfo", new JsonObject().put("name", "owner").put("version", "1")))).statusCode() < 300);
            assertEquals("2024-11-05", McpWire.sseAnswer(a, 1).getJsonObject("result").getString("protocolVersion"));
            assertTrue(wire.postSse(a.endpoint(), memberA,
                    McpWire.notification("notifications/initialized", new JsonObject())).statusCode() < 300);
            for (String intruder : List.of(memberB, auditorC)) {
                assertEquals(404, wire.postSse(a.endpoint(), intruder,
                        McpWire.toolCall(2, "list_languages", Map.of())).statusCode(), "tools/call into another's session");
                assertEquals(404, wire.postSse(a.endpoint(), intruder, McpWire.notification("notifications/cancelled",
                        new JsonObject().put("requestId", 2))).statusCode(), "cancel into another's session");
            }
            assertTrue(wire.postSse(a.endpoint(), memberA, McpWire.toolCall(2, "list_languages", Map.of()))
                    .statusCode() < 300);
            ToolResult languages = ToolResult.of(McpWire.sseAnswer(a, 2));
            assertTrue(languages.text().contains("python"), languages.text());
        }
    }

    @Test
    void sessionIdsAppearInNoWorkspaceName() {
        Session a = wire.open(memberA);
        ToolResult wrote = wire.call(a, 2, "write_workspace_file", Map.of("path", "notes.txt", "content", "x\n"));
        assertFalse(wrote.isError(), wrote.text());
        ToolResult listed = wire.call(a, 3, "list_workspace_files", Map.of());
        assertFalse(listed.raw().encode().contains(a.id()), listed.raw().encode());
        assertTrue(listed.text().startsWith("Workspace mcp-session-"), listed.text());
        for (String reader : List.of(memberA, auditorC)) {
            String workspaces = as(reader).get("/v1/workspaces").then().statusCode(200).extract().asString();
            assertTrue(workspaces.contains("mcp-session-"), workspaces);
            assertFalse(workspaces.contains(a.id()), "the session id is listed: " + workspaces);
        }
        // another member does not even see it (SessionWorkspaceOwnerTest)
        assertFalse(as(memberB).get("/v1/workspaces").then().statusCode(200).extract().asString().contains("mcp-session-"));
        // the name stays the session's own: a second call finds the same workspace
        ToolResult again = wire.call(a, 4, "read_workspace_file", Map.of("path", "notes.txt"));
        assertFalse(again.isError(), again.text());
    }

    @Test
    void anAuditorGetsTheReadToolsOnly() {
        String jobId = read(as(memberA).body(Map.of("language", "bash", "code", "sleep 60")).post("/v1/jobs")
                .then().statusCode(201).extract().asString(), "id");
        Session c = wire.open(auditorC);
        JsonObject tools = McpWire.answer(wire.post(c.key(), c.id(), McpWire.request(2, "tools/list", new JsonObject())), 2);
        List<String> names = tools.getJsonObject("result").getJsonArray("tools").stream()
                .map(t -> ((JsonObject) t).getString("name")).sorted().toList();
        assertEquals(List.of("get_job", "list_jobs", "list_languages", "list_profiles", "list_sessions",
                "list_workspace_files", "read_workspace_file", "search_packages"), names);
        Map<String, Map<String, Object>> calls = Map.of(
                "run_code", Map.of("language", "bash", "code", "echo audited"),
                "submit_job", Map.of("language", "bash", "code", "echo audited"),
                "cancel_job", Map.of("job_id", jobId),
                "write_workspace_file", Map.of("path", "a.txt", "content", "x"));
        int id = 10;
        for (String tool : WRITE_TOOLS) {
            ToolResult refused = wire.call(c, id++, tool, calls.get(tool));
            assertTrue(refused.isError(), tool + ": " + refused.text());
            assertEquals("an auditor key may only read: " + tool + " is refused", refused.text());
        }
        assertFalse(wire.call(c, id++, "get_job", Map.of("job_id", jobId)).isError());
        assertEquals(List.of(jobId), read(as(memberA).get("/v1/jobs").then().extract().asString(), "items.id"),
                "the auditor submitted nothing");
        as(memberA).get("/v1/jobs/" + jobId).then().body(json("status", org.hamcrest.Matchers.not("cancelled")));
        as(memberA).post("/v1/jobs/" + jobId + "/cancel").then().statusCode(202);
    }

    @Test
    void toolsRefuseArgumentsTheyDoNotKnow() {
        Session a = wire.open(memberA);
        ToolResult run = wire.call(a, 2, "run_code", Map.of("language", "bash", "code", "echo hi", "timeuot", 5));
        assertTrue(run.isError(), run.text());
        assertEquals("timeuot: unknown argument", run.text());
        ToolResult languages = wire.call(a, 3, "list_languages", Map.of("verbose", true));
        assertTrue(languages.isError(), languages.text());
        assertEquals("verbose: unknown argument", languages.text());
        ToolResult get = wire.call(a, 4, "get_job", Map.of("job_id", UUID.randomUUID().toString(), "wiat", 5));
        assertEquals("wiat: unknown argument", get.text());
        assertEquals(List.of(), read(as(memberA).get("/v1/jobs").then().extract().asString(), "items"), "nothing was submitted");
        assertFalse(wire.call(a, 5, "list_jobs", Map.of("limit", 5)).isError(), "known arguments still pass");
        JsonObject withoutArguments = McpWire.request(6, "tools/call", new JsonObject().put("name", "list_languages"));
        assertFalse(ToolResult.of(McpWire.answer(wire.post(a.key(), a.id(), withoutArguments), 6)).isError(),
                "a call may leave arguments out");
    }

    @Test
    void aRefusedKeyIsToldInPlainWords() {
        URI root = URI.create(base.toString());
        List<HttpResponse<String>> refused = List.of(
                wire.post("nx_not_a_key", null, McpWire.request(1, "initialize", new JsonObject())),
                wire.post(null, null, McpWire.request(1, "initialize", new JsonObject())),
                McpWire.send(HttpRequest.newBuilder(root.resolve("/mcp/sse")).header("Authorization", "Bearer nx_not_a_key")
                        .GET().build()),
                McpWire.send(HttpRequest.newBuilder(root.resolve("/mcp/messages/x")).header("Authorization",
                        "Bearer nx_not_a_key").POST(HttpRequest.BodyPublishers.ofString("{}")).build()));
        for (HttpResponse<String> r : refused) {
            assertEquals(401, r.statusCode(), r.uri() + ": " + r.body());
            assertEquals("Bearer", r.headers().firstValue("WWW-Authenticate").orElse(null), r.uri().toString());
            assertFalse(r.body().matches("(?s).*(Exception|io\\.quarkus|java\\.|\\bat [a-z]+\\.).*"),
                    r.uri() + ": " + r.body());
        }
    }
}
