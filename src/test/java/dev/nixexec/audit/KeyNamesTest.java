package dev.nixexec.audit;

import static dev.nixexec.testing.Api.ADMIN;
import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.tenant;
import static dev.nixexec.testing.JsonBody.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.NixSpy;
import dev.nixexec.ui.AuditUiTest;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkiverse.mcp.server.test.McpAssured;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.vertx.core.json.JsonObject;
import io.vertx.core.MultiMap;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A job names the key that submitted it by id, name and role wherever an auditor meets it: the
 * REST job and list, an MCP result's structured content, the audit log, the UI's pages and exports.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class KeyNamesTest {

    private String tenantId;
    private String keyName;

    @BeforeEach
    void aTenant() {
        tenantId = tenant("keynames");
        keyName = "ci-bot-" + UUID.randomUUID().toString().substring(0, 6);
    }

    /** A named member key of the test's tenant: its id and secret. */
    private String[] namedKey() {
        String created = as(ADMIN).body(Map.of("role", "member", "name", keyName))
                .post("/v1/admin/tenants/" + tenantId + "/keys").then().statusCode(201).extract().asString();
        return new String[] {read(created, "id"), read(created, "key")};
    }

    @Test
    void restJobsListsAndTheAuditLogNameTheKey() {
        String[] key = namedKey();
        String submitted = as(key[1]).body(Map.of("language", "bash", "code", "echo hi")).post("/v1/jobs?wait=60")
                .then().statusCode(200).extract().asString();
        JsonPath job = JsonPath.from(submitted);
        assertEquals(Map.of("id", key[0], "name", keyName, "role", "member"), job.getMap("key"), submitted);
        String id = job.getString("id");

        JsonPath read = JsonPath.from(as(key[1]).get("/v1/jobs/" + id).then().statusCode(200).extract().asString());
        assertEquals(keyName, read.getString("key.name"));
        JsonPath list = JsonPath.from(as(key[1]).get("/v1/jobs").then().statusCode(200).extract().asString());
        assertEquals(keyName, list.getString("items.find { it.id == '" + id + "' }.key.name"));

        String auditor = dev.nixexec.testing.Api.key(tenantId, "auditor");
        JsonPath trail = JsonPath.from(as(auditor).queryParam("job_id", id).get("/v1/audit").then().statusCode(200)
                .extract().asString());
        Map<String, Object> submittedRecord = trail.getMap("items.find { it.kind == 'submitted' }");
        assertEquals(Map.of("id", key[0], "name", keyName, "role", "member"), submittedRecord.get("key"), trail.prettify());
    }

    @Test
    void anMcpResultNamesItsKeyInStructuredContent() {
        String[] key = namedKey();
        Awaitility.setDefaultTimeout(Duration.ofSeconds(120));
        try (var client = McpAssured.newStreamableClient()
                .setAdditionalHeaders(m -> MultiMap.caseInsensitiveMultiMap().add("Authorization", "Bearer " + key[1]))
                .build().connect()) {
            AtomicReference<ToolResponse> response = new AtomicReference<>();
            client.when().toolsCall("run_code", Map.of("language", "bash", "code", "echo hi"),
                    (Consumer<ToolResponse>) response::set).thenAssertResults();
            Object content = response.get().structuredContent();
            JsonObject structured = content instanceof JsonObject o ? o : JsonObject.mapFrom(content);
            assertEquals(new JsonObject(Map.of("id", key[0], "name", keyName, "role", "member")),
                    structured.getJsonObject("key"), structured.encodePrettily());
        } finally {
            Awaitility.reset();
        }
    }

    @Test
    void theUiNamesTheKeyOnTheJobPageTheListTheTrailAndTheExports() {
        String[] key = namedKey();
        String id = read(as(key[1]).body(Map.of("language", "bash", "code", "echo hi")).post("/v1/jobs?wait=60")
                .then().statusCode(200).extract().asString(), "id");
        AuditUiTest.Browser auditor = AuditUiTest.signIn(dev.nixexec.testing.Api.key(tenantId, "auditor"));
        String label = keyName + " (member)";

        String page = auditor.request().get("/ui/jobs/" + id).then().statusCode(200).extract().asString();
        assertTrue(page.contains(label + " · id " + key[0]), page);
        String trail = page.substring(page.indexOf("id=\"audit-trail\""));
        assertTrue(trail.contains("<td class=\"mono\">" + label + "</td>"), trail);
        assertTrue(page.contains("auditor)"), "the header names the signed-in key's role");

        String list = auditor.request().get("/ui/jobs").then().statusCode(200).extract().asString();
        assertTrue(list.contains("<td>" + label + "</td>"), list);

        String csv = auditor.request().get("/ui/jobs/export.csv").then().statusCode(200).extract().asString();
        List<String> lines = csv.lines().toList();
        assertTrue(lines.get(0).startsWith("id,tenant,key_id,key_name,key_role,"), lines.get(0));
        assertTrue(lines.stream().anyMatch(l -> l.startsWith(id + ",") && l.contains("," + key[0] + "," + keyName + ",member,")),
                csv);
        JsonPath json = JsonPath.from(auditor.request().get("/ui/jobs/export.json").then().statusCode(200).extract().asString());
        assertEquals(keyName, json.getString("items.find { it.id == '" + id + "' }.key_name"));
        assertEquals("member", json.getString("items.find { it.id == '" + id + "' }.key_role"));
    }
}
