package dev.nixexec.security;

import static dev.nixexec.testing.Api.ADMIN;
import static dev.nixexec.testing.Api.as;
import static dev.nixexec.testing.Api.key;
import static dev.nixexec.testing.Api.tenant;
import static dev.nixexec.testing.JsonBody.json;
import static dev.nixexec.testing.JsonBody.read;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.NixSpy;
import dev.nixexec.ui.AuditUiTest;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Bytes that are not data: NUL, lone UTF-16 surrogates, control characters in labels, dot segments in
 * paths, metadata nested without end. Each is refused at intake with a 400 naming the field (a
 * one-line error over MCP), and what was stored never breaks a read of the tenant's lists.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class UntrustedBytesTest {

    /** OSC 52 (write the clipboard), OSC 0 (the window title), CSI 2J (clear the screen). */
    static final String TERMINAL_ATTACK = "\u001b]52;c;cm0gLXJmIH4=\u0007\u001b]0;pwned\u0007\u001b[2J";

    @TestHTTPResource("/")
    URL base;

    @Inject
    EntityManager em;

    String tenant;
    String member;
    String admin;

    @BeforeEach
    void keys() {
        tenant = tenant("bytes");
        member = key(tenant, "member");
        admin = key(tenant, "admin");
    }

    @Test
    void nulInABodyIsA400NamingTheField() {
        refused(as(member).body(Map.of("description", "a\u0000b")).post("/v1/sessions"), "description");
        refused(as(member).body(Map.of("agent", "\u0000")).post("/v1/sessions"), "agent");
        refused(as(admin).body(Map.of("description", "x\u0000", "packages", List.of("hello")))
                .put("/v1/profiles/nul-profile"), "description");
        refused(as(admin).body(Map.of("packages", List.of("hello"), "env", Map.of("A", "1\u00002")))
                .put("/v1/profiles/nul-env"), "env.A");
        refused(as(member).body(Map.of("language", "bash", "code", "true", "env", Map.of("A", "x\u0000")))
                .post("/v1/jobs"), "env.A");
        refused(as(member).body(Map.of("jobs", List.of(Map.of("language", "bash", "code", "echo \u0000"))))
                .post("/v1/jobs/batch"), "jobs[0].code");
        as(admin).get("/v1/profiles").then().statusCode(200).body(json("items.name", org.hamcrest.Matchers.not(
                org.hamcrest.Matchers.hasItems("nul-profile", "nul-env"))));
    }

    @Test
    void nulInAQueryParameterOrAPathSegmentIsA400NamingIt() {
        refused(as(member).urlEncodingEnabled(false).get("/v1/jobs?q=a%00b"), "q");
        refused(as(member).urlEncodingEnabled(false).get("/v1/jobs?language=python%00"), "language");
        refused(as(member).urlEncodingEnabled(false).get("/v1/packages?q=jq%00"), "q");
        refused(as(member).urlEncodingEnabled(false).get("/v1/sessions/a%00b"), "path");
        refused(as(member).urlEncodingEnabled(false).get("/v1/jobs/%00"), "path");
        AuditUiTest.Browser browser = AuditUiTest.signIn(member);
        refused(browser.request().urlEncodingEnabled(false).get("/ui/jobs?q=%00"), "q");
        refused(browser.request().urlEncodingEnabled(false).get("/ui/jobs/export.csv?language=%00"), "language");
        refused(browser.request().urlEncodingEnabled(false).get("/ui/jobs?meta.team=%00"), "meta.team");
    }

    @Test
    void loneSurrogatesAreRefusedAtIntakeNotChangedOrFailedLate() {
        String ws = read(as(member).body(Map.of("name", "surrogates")).post("/v1/workspaces").then().statusCode(201)
                .extract().asString(), "id");
        // two names that differ only in their lone surrogate would both be stored as "f?"
        refused(as(member).body("{\"language\":\"bash\",\"code\":\"true\",\"workspace\":\"" + ws + "\",\"files\":["
                + "{\"path\":\"f\\ud800\",\"content\":\"one\"},{\"path\":\"f\\udc00\",\"content\":\"two\"}]}")
                .post("/v1/jobs"), "files[0].path");
        refused(as(member).body("{\"language\":\"bash\",\"code\":\"echo \\ud800\"}").post("/v1/jobs"), "code");
        refused(as(member).body("{\"language\":\"bash\",\"code\":\"cat\",\"stdin\":\"\\udfff\"}").post("/v1/jobs"),
                "stdin");
        refused(as(member).body("{\"language\":\"bash\",\"code\":\"true\",\"env\":{\"A\":\"\\ud83d\"}}")
                .post("/v1/jobs"), "env.A");
        refused(as(member).body("{\"language\":\"bash\",\"code\":\"true\",\"args\":[\"ok\",\"\\ud800x\"]}")
                .post("/v1/jobs"), "args[1]");
        refused(as(member).body("{\"language\":\"bash\",\"code\":\"true\",\"metadata\":{\"k\":[\"\\udbff\"]}}")
                .post("/v1/jobs"), "metadata.k[0]");
        refused(as(member).body("{\"language\":\"bash\",\"code\":\"true\",\"env\":{\"A\\u0000\":\"v\"}}")
                .post("/v1/jobs"), "env");
        // in a member name JSON's reader refuses a lone surrogate itself
        as(member).body("{\"language\":\"bash\",\"code\":\"true\",\"metadata\":{\"k\\udbff\":1}}").post("/v1/jobs")
                .then().statusCode(400).contentType("application/problem+json");
        assertEquals(0, JsonPath.from(as(member).get("/v1/workspaces/" + ws + "/files").then().statusCode(200)
                .extract().asString()).getList("items").size(), "nothing half-stored");
        assertEquals(0, JsonPath.from(as(member).get("/v1/jobs").then().statusCode(200).extract().asString())
                .getList("items").size(), "no job was queued");
        // a pair is a character like any other
        as(member).body("{\"language\":\"bash\",\"code\":\"true\",\"metadata\":{\"face\":\"\\ud83d\\ude00\"}}")
                .post("/v1/jobs").then().statusCode(201);
    }

    @Test
    void controlCharactersInLabelsAreRefusedNamingTheField() {
        refused(as(member).body(Map.of("description", TERMINAL_ATTACK)).post("/v1/sessions"), "description");
        refused(as(member).body(Map.of("agent", "me\nstatus: destroyed")).post("/v1/sessions"), "agent");
        refused(as(member).body(Map.of("name", "box\u009b2J")).post("/v1/sessions"), "name");
        refused(as(member).body(Map.of("spec", Map.of("name", "s\u007f", "packages", List.of()))).post("/v1/sessions"),
                "spec.name");
        refused(as(admin).body(Map.of("description", TERMINAL_ATTACK, "packages", List.of("hello")))
                .put("/v1/profiles/ctl-profile"), "description");
        refused(as(admin).body(Map.of("role", "member", "name", "ci\rkey")).post("/v1/admin/tenants/" + tenant + "/keys"),
                "name");
        refused(as(ADMIN).body(Map.of("name", "acme" + TERMINAL_ATTACK)).post("/v1/admin/tenants"), "name");
        refused(as(member).body(Map.of("name", "ws\tname")).post("/v1/workspaces"), "name");
        // text that is not a label keeps its line breaks and tabs
        as(admin).body(Map.of("description", "a profile – for tests", "packages", List.of("hello"),
                "env", Map.of("A", "two\nlines\tand a tab"))).put("/v1/profiles/ctl-ok").then().statusCode(201);
    }

    @Test
    void mcpRefusesTheSameBytesInOneLine() {
        McpWire wire = new McpWire(URI.create(base.toString()));
        McpWire.Session session = wire.open(member);
        McpWire.ToolResult nul = wire.call(session, 1, "create_session", Map.of("description", "a\u0000b"));
        assertTrue(nul.isError(), nul.raw().encode());
        assertEquals("description: contains a NUL character (U+0000)", nul.text());
        McpWire.ToolResult exec = wire.call(session, 2, "exec_in_session", Map.of("session", "none", "code", "x\u0000"));
        assertTrue(exec.isError(), exec.raw().encode());
        assertTrue(exec.text().startsWith("code: contains a NUL"), exec.text());
        McpWire.ToolResult agent = wire.call(session, 3, "create_session", Map.of("agent", TERMINAL_ATTACK));
        assertTrue(agent.isError(), agent.raw().encode());
        assertTrue(agent.text().startsWith("agent: contains a control character"), agent.text());
        assertFalse(agent.text().contains("\u001b"), "the refusal does not echo the attack");
        McpWire.ToolResult lone = wire.callWithJsonArguments(session, 4, "run_code",
                "{\"language\":\"bash\",\"code\":\"echo \\ud800\"}");
        assertTrue(lone.isError(), lone.raw().encode());
        assertTrue(lone.text().startsWith("code: contains a lone UTF-16 surrogate"), lone.text());
        McpWire.ToolResult env = wire.callWithJsonArguments(session, 5, "submit_job",
                "{\"language\":\"bash\",\"code\":\"true\",\"env\":{\"A\":\"\\udc00\"}}");
        assertTrue(env.isError(), env.raw().encode());
        assertTrue(env.text().startsWith("env.A: contains a lone UTF-16 surrogate"), env.text());
        assertEquals(0, JsonPath.from(as(member).get("/v1/sessions").then().statusCode(200).extract().asString())
                .getList("$").size(), "no session was made");
    }

    @Test
    void dotSegmentsInWorkspacePathsAreRefusedNeverResolved() throws Exception {
        String ws = read(as(member).body(Map.of("name", "dots")).post("/v1/workspaces").then().statusCode(201)
                .extract().asString(), "id");
        assertEquals(200, put(ws, "b", "B").statusCode());
        for (String path : List.of("a/../b", "a/./c", "a//d", "a/%2e%2e/b", "a/%2E/c", "a%2F..%2Fb", "./b", "a/.%2e/b",
                "x/../../" + ws + "/files/b")) {
            HttpResponse<String> r = put(ws, path, "X");
            assertEquals(400, r.statusCode(), path + ": " + r.body());
            assertEquals("application/problem+json", r.headers().firstValue("Content-Type").orElse(""), path);
            assertTrue(r.body().contains("\"field\":\"path\""), path + ": " + r.body());
            assertEquals(400, http(ws, path, "GET", HttpRequest.BodyPublishers.noBody()).statusCode(), path);
            assertEquals(400, http(ws, path, "DELETE", HttpRequest.BodyPublishers.noBody()).statusCode(), path);
        }
        JsonPath files = JsonPath.from(as(member).get("/v1/workspaces/" + ws + "/files").then().statusCode(200)
                .extract().asString());
        assertEquals(List.of("b"), files.getList("items.path"));
        as(member).get("/v1/workspaces/" + ws + "/files/b").then().statusCode(200).body(equalTo("B"));
        // an encoded slash inside a segment is a slash, as JAX-RS reads it
        assertEquals(200, put(ws, "in%2Fdata", "D").statusCode());
        as(member).get("/v1/workspaces/" + ws + "/files/in/data").then().statusCode(200).body(equalTo("D"));
    }

    @Test
    void metadataNestedDeeperThanTheBoundIsRefused() {
        refused(as(member).body(Map.of("language", "bash", "code", "true", "metadata", nested(33))).post("/v1/jobs"),
                "metadata");
        // a batch answers each submission in its place
        as(member).body(Map.of("jobs", List.of(Map.of("language", "bash", "code", "true", "metadata", nested(40)))))
                .post("/v1/jobs/batch").then().statusCode(200).body(json("[0].error.errors[0].field", equalTo("metadata")));
        assertEquals(0, JsonPath.from(as(member).get("/v1/jobs").then().statusCode(200).extract().asString())
                .getList("items").size());
    }

    @Test
    void theDeepestAcceptedMetadataReadsBackInEveryList() {
        String id = read(as(member).body(Map.of("language", "bash", "code", "true", "metadata", nested(32)))
                .post("/v1/jobs").then().statusCode(201).extract().asString(), "id");
        as(member).get("/v1/jobs").then().statusCode(200).body(json("items[0].id", equalTo(id)));
        as(member).get("/v1/jobs?fields=full").then().statusCode(200).body(json("items[0].id", equalTo(id)));
        AuditUiTest.Browser browser = AuditUiTest.signIn(admin);
        browser.request().get("/ui/jobs").then().statusCode(200).body(containsString(id));
        browser.request().get("/ui/jobs/export.csv").then().statusCode(200).body(containsString(id));
        browser.request().get("/ui/jobs/export.json").then().statusCode(200).body(containsString(id));
        McpWire wire = new McpWire(URI.create(base.toString()));
        McpWire.ToolResult listed = wire.call(wire.open(member), 1, "list_jobs", Map.of());
        assertFalse(listed.isError(), listed.text());
        assertTrue(listed.text().contains(id), listed.text());
    }

    /** A value stored before the bound (here by hand) that cannot be written out is the server's error. */
    @Test
    void anAnswerThatCannotBeWrittenIsA500NotTheCallersFault() {
        String id = read(as(member).body(Map.of("language", "bash", "code", "true")).post("/v1/jobs").then()
                .statusCode(201).extract().asString(), "id");
        String deep = "{\"d\":".repeat(998) + "1" + "}".repeat(998);
        QuarkusTransaction.requiringNew().run(() -> em.createNativeQuery("UPDATE jobs SET metadata = CAST(:m AS jsonb) "
                + "WHERE id = :id").setParameter("m", deep).setParameter("id", UUID.fromString(id)).executeUpdate());
        Response list = as(member).get("/v1/jobs");
        assertEquals(500, list.statusCode(), list.asString());
        assertEquals("application/problem+json", list.contentType());
        assertFalse(list.asString().contains("request body"), list.asString());
    }

    private static Map<String, Object> nested(int levels) {
        Map<String, Object> value = Map.of("leaf", "x");
        for (int i = 1; i < levels; i++) {
            value = Map.of("d", value);
        }
        return value;
    }

    private static void refused(Response response, String field) {
        response.then().statusCode(400).contentType("application/problem+json")
                .body(json("errors[0].field", equalTo(field)));
    }

    private HttpResponse<String> put(String ws, String path, String content) throws Exception {
        return http(ws, path, "PUT", HttpRequest.BodyPublishers.ofString(content));
    }

    /** The raw path as written: java.net.http sends it without resolving dot segments. */
    private HttpResponse<String> http(String ws, String path, String method, HttpRequest.BodyPublisher body)
            throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + "v1/workspaces/" + ws + "/files/" + path))
                .header("Authorization", "Bearer " + member).header("Content-Type", "application/octet-stream")
                .method(method, body).build();
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()
                .send(request, HttpResponse.BodyHandlers.ofString());
    }
}
