package dev.nixexec.mcp;

import static dev.nixexec.testing.Api.memberKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.nixexec.testing.NixSpy;
import io.quarkiverse.mcp.server.Content;
import io.quarkiverse.mcp.server.ResourceContents;
import io.quarkiverse.mcp.server.TextResourceContents;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkiverse.mcp.server.test.McpAssured;
import io.quarkiverse.mcp.server.test.McpAssured.McpStreamableTestClient;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What a job tool call answers, over Streamable HTTP with a real key, nix and bubblewrap: only the
 * artifacts the job itself created or changed, images known by their bytes, the output so far of
 * a job still running with the closing status line after a separator, and structured content that
 * keeps to the tool's advertised {@code outputSchema}.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class McpJobResultsTest {

    /**
     * The test client waits for each answer as long as Awaitility's default (10 s); each call here
     * runs a real job, which on a busy machine can take longer.
     */
    @BeforeAll
    static void patientClient() {
        Awaitility.setDefaultTimeout(Duration.ofSeconds(120));
    }

    @AfterAll
    static void usualClient() {
        Awaitility.reset();
    }

    @Test
    void aCallReturnsOnlyTheFilesItsJobCreatedOrChanged() {
        try (var client = connect()) {
            ToolResponse first = call(client, "run_code", Map.of("language", "bash",
                    "code", "mkdir -p out && echo one > out/a.txt && echo two > out/b.txt"));
            assertEquals(List.of("out/a.txt", "out/b.txt"), artifactNames(first));
            assertEquals(2, resources(first).size(), McpToolsTest.text(first));

            ToolResponse second = call(client, "run_code", Map.of("language", "bash",
                    "code", "echo three > out/c.txt && cat out/a.txt"));
            assertEquals(List.of("out/c.txt"), artifactNames(second));
            assertEquals(List.of("three\n"), resources(second).stream().map(TextResourceContents::text).toList());
            assertTrue(resources(second).getFirst().uri().endsWith("/artifacts/out/c.txt"), resources(second).toString());
            assertFalse(McpToolsTest.text(second).contains("out/a.txt"), McpToolsTest.text(second));

            // a file rewritten with other content is this job's; one rewritten as it was is not
            ToolResponse third = call(client, "run_code", Map.of("language", "bash",
                    "code", "echo ONE > out/a.txt && echo two > out/b.txt"));
            assertEquals(List.of("out/a.txt"), artifactNames(third));

            ToolResponse none = call(client, "run_code", Map.of("language", "bash", "code", "ls out"));
            assertEquals(List.of(), artifactNames(none));
            assertEquals(1, none.content().size(), "the text alone");
        }
    }

    @Test
    void imagesAreKnownByTheirBytesNotTheirNames() {
        String code = String.join("\n",
                "mkdir -p out",
                "printf 'not a picture\\n' > out/fake.png",
                "printf '<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"4\" height=\"4\"/>\\n' > out/chart.svg",
                "printf '\\211PNG\\r\\n\\032\\n\\0\\0\\0\\rIHDR' > out/real.png",
                "printf '\\377\\330\\377\\340\\0\\020JFIF' > out/photo.jpg",
                "printf 'GIF89a\\001\\0\\001\\0' > out/anim.gif",
                "printf 'RIFF\\014\\0\\0\\0WEBPVP8 ' > out/pic.webp",
                "printf '\\211PNG\\r\\n\\032\\n\\0\\0\\0\\rIHDR' > out/plot.dat",
                "printf '\\377\\376binary' > out/fake.jpg");
        try (var client = connect()) {
            ToolResponse result = call(client, "run_code", Map.of("language", "bash", "code", code));
            Map<String, Content> byName = new TreeMap<>();
            List<String> images = new ArrayList<>();
            for (Content content : result.content().subList(1, result.content().size())) {
                if (content.type() == Content.Type.IMAGE) {
                    images.add(content.asImage().mimeType());
                } else {
                    String uri = content.asResource().resource().type() == ResourceContents.Type.TEXT
                            ? content.asResource().resource().asText().uri()
                            : content.asResource().resource().asBlob().uri();
                    byName.put(uri.substring(uri.lastIndexOf('/') + 1), content);
                }
            }
            // real.png, photo.jpg, anim.gif, pic.webp and plot.dat (PNG bytes under another name), in name order
            assertEquals(List.of("image/gif", "image/jpeg", "image/webp", "image/png", "image/png"), images,
                    McpToolsTest.text(result));
            assertEquals(List.of("chart.svg", "fake.jpg", "fake.png"), List.copyOf(byName.keySet()));
            TextResourceContents fake = byName.get("fake.png").asResource().resource().asText();
            assertEquals("not a picture\n", fake.text());
            assertEquals("text/plain", fake.mimeType());
            TextResourceContents svg = byName.get("chart.svg").asResource().resource().asText();
            assertEquals("image/svg+xml", svg.mimeType());
            assertTrue(svg.text().startsWith("<svg "), svg.text());
            assertEquals("application/octet-stream",
                    byName.get("fake.jpg").asResource().resource().asBlob().mimeType());

            // read_workspace_file answers by the same rule
            Map<String, Content.Type> read = new TreeMap<>();
            for (String path : List.of("out/fake.png", "out/chart.svg", "out/plot.dat", "out/pic.webp")) {
                ToolResponse file = call(client, "read_workspace_file", Map.of("path", path));
                assertFalse(file.isError(), path);
                read.put(path, file.content().getFirst().type());
            }
            assertEquals(Map.of("out/fake.png", Content.Type.RESOURCE, "out/chart.svg", Content.Type.RESOURCE,
                    "out/plot.dat", Content.Type.IMAGE, "out/pic.webp", Content.Type.IMAGE), read);
        }
    }

    @Test
    void aJobStillRunningAnswersWithItsOutputSoFar() {
        try (var client = connect()) {
            ToolResponse submitted = call(client, "submit_job", Map.of("language", "bash",
                    "code", "echo started; echo warming >&2; sleep 120"));
            String id = structured(submitted).getString("id");
            assertNotNull(id, McpToolsTest.text(submitted));
            // the output reaches the job's events within a flush; each get_job waits up to 2 s
            String running = null;
            for (int i = 0; i < 60 && running == null; i++) {
                ToolResponse polled = call(client, "get_job", Map.of("job_id", id, "wait", 2));
                assertFalse(polled.isError(), McpToolsTest.text(polled));
                String text = McpToolsTest.text(polled);
                if (text.contains("started\n") && text.contains("warming\n")) {
                    running = text;
                }
            }
            assertNotNull(running, "the output so far never showed");
            assertEquals("Still running: call get_job with this job_id (and a wait) for the result.\n"
                    + "--- stdout so far ---\nstarted\n--- stderr so far ---\nwarming\n---\nJob " + id + ": running",
                    running);
            ToolResponse cancel = call(client, "cancel_job", Map.of("job_id", id));
            assertEquals(id, structured(cancel).getString("id"));
            ToolResponse ended = call(client, "get_job", Map.of("job_id", id, "wait", 30));
            assertTrue(McpToolsTest.text(ended).endsWith("\n---\nJob " + id + ": cancelled"), McpToolsTest.text(ended));
        }
    }

    @Test
    void structuredContentKeepsToTheAdvertisedSchema() {
        try (var client = connect()) {
            AtomicReference<Map<String, JsonObject>> schemas = new AtomicReference<>();
            client.when().toolsList(page -> schemas.set(page.tools().stream()
                    .filter(tool -> tool.outputSchema() != null)
                    .collect(Collectors.toMap(McpAssured.ToolInfo::name, McpAssured.ToolInfo::outputSchema))))
                    .thenAssertResults();
            assertTrue(schemas.get().keySet().containsAll(List.of("run_code", "submit_job", "get_job", "cancel_job",
                    "exec_in_session", "create_session", "list_sessions", "list_workspace_files")),
                    schemas.get().keySet().toString());

            ToolResponse ran = call(client, "run_code", Map.of("language", "bash",
                    "code", "mkdir -p out; echo hi > out/x.txt; echo oops >&2; exit 3"));
            assertTrue(ran.isError());
            conforms(structured(ran), schemas.get().get("run_code"), "run_code");
            assertEquals(3, structured(ran).getInteger("exit_code"));
            String id = structured(ran).getString("id");
            conforms(structured(call(client, "get_job", Map.of("job_id", id))), schemas.get().get("get_job"), "get_job");
            ToolResponse queued = call(client, "submit_job", Map.of("language", "bash", "code", "sleep 60"));
            conforms(structured(queued), schemas.get().get("submit_job"), "submit_job");
            conforms(structured(call(client, "cancel_job", Map.of("job_id", structured(queued).getString("id")))),
                    schemas.get().get("cancel_job"), "cancel_job");
            conforms(structured(call(client, "list_workspace_files", Map.of())), schemas.get().get("list_workspace_files"),
                    "list_workspace_files");
            conforms(structured(call(client, "list_sessions", Map.of())), schemas.get().get("list_sessions"),
                    "list_sessions");

            // the check itself fails on a wrong name or type
            JsonObject wrong = structured(ran).copy();
            wrong.put("exitCode", wrong.remove("exit_code"));
            assertRefused(() -> conforms(wrong, schemas.get().get("run_code"), "renamed"));
            assertRefused(() -> conforms(structured(ran).copy().put("exit_code", "3"), schemas.get().get("run_code"),
                    "retyped"));
        }
    }

    /**
     * {@code value} has the schema's type, its required properties and no others (where the
     * schema allows none), each of them conforming: the JSON Schema keywords the output schemas use.
     */
    static void conforms(Object value, JsonObject schema, String at) {
        Object declared = schema.getValue("type");
        if (declared != null) {
            List<?> types = declared instanceof JsonArray array ? array.getList() : List.of(declared);
            assertTrue(types.contains(jsonType(value)), at + ": " + jsonType(value) + " is not " + types);
        }
        if (value instanceof JsonObject object && schema.containsKey("properties")) {
            JsonObject properties = schema.getJsonObject("properties");
            for (Object required : schema.getJsonArray("required", new JsonArray())) {
                assertTrue(object.containsKey((String) required), at + ": no " + required + " in " + object.fieldNames());
            }
            for (String name : object.fieldNames()) {
                if (!properties.containsKey(name)) {
                    assertTrue(schema.getBoolean("additionalProperties", true), at + ": " + name + " is not in the schema");
                    continue;
                }
                conforms(object.getValue(name), properties.getJsonObject(name), at + "." + name);
            }
        }
        if (value instanceof JsonArray array && schema.containsKey("items")) {
            for (int i = 0; i < array.size(); i++) {
                conforms(array.getValue(i), schema.getJsonObject("items"), at + "[" + i + "]");
            }
        }
    }

    private static String jsonType(Object value) {
        return switch (value) {
            case null -> "null";
            case JsonObject o -> "object";
            case JsonArray a -> "array";
            case String s -> "string";
            case Boolean b -> "boolean";
            case Integer i -> "integer";
            case Long l -> "integer";
            case Number n -> n.doubleValue() == Math.rint(n.doubleValue()) ? "integer" : "number";
            default -> value.getClass().getName();
        };
    }

    private static void assertRefused(Runnable check) {
        try {
            check.run();
        } catch (AssertionError expected) {
            return;
        }
        fail("the schema check let a wrong value through");
    }

    private static McpStreamableTestClient connect() {
        return McpAssured.newStreamableClient().setAdditionalHeaders(McpToolsTest.bearer(memberKey("mcp-results")))
                .build().connect();
    }

    /** One tool call, a round trip of its own. */
    private static ToolResponse call(McpStreamableTestClient client, String tool, Map<String, Object> arguments) {
        AtomicReference<ToolResponse> response = new AtomicReference<>();
        client.when().toolsCall(tool, arguments, (Consumer<ToolResponse>) response::set).thenAssertResults();
        return response.get();
    }

    static JsonObject structured(ToolResponse response) {
        Object content = response.structuredContent();
        assertNotNull(content, "no structured content: " + McpToolsTest.text(response));
        return content instanceof JsonObject object ? object : JsonObject.mapFrom(content);
    }

    private static List<String> artifactNames(ToolResponse response) {
        assertFalse(response.isError(), McpToolsTest.text(response));
        return structured(response).getJsonArray("artifacts").stream().map(a -> ((JsonObject) a).getString("name"))
                .toList();
    }

    private static List<TextResourceContents> resources(ToolResponse response) {
        return response.content().stream().filter(c -> c.type() == Content.Type.RESOURCE)
                .map(c -> c.asResource().resource().asText()).toList();
    }
}
