package dev.nixexec.security;

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

import dev.nixexec.security.McpWire.Session;
import dev.nixexec.security.McpWire.ToolResult;
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URL;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 36, item 2: an MCP session's workspace is the /workspace (and so the HOME) of that
 * session's every run_code. Another member of the tenant that could write there would plant
 * {@code ~/.local/lib/python3.11/site-packages/usercustomize.py} and run inside the victim's next
 * run, with its env. So the workspace belongs to the key that opened the session: other members
 * do not see it at all (404, as for an unknown one), over REST and MCP, by id and by name, as a
 * job's workspace and in a rerun; reviewers (auditor, admin) read it, and never change it (403).
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class SessionWorkspaceOwnerTest {

    private static final Pattern WORKSPACE = Pattern.compile("^Workspace (mcp-session-\\S+) \\(([0-9a-f-]{36})\\)");
    private static final String PLANTED = ".local/lib/python3.11/site-packages/usercustomize.py";

    @TestHTTPResource("/")
    URL base;

    McpWire wire;
    String victim;
    String attacker;
    String auditor;
    String admin;
    Session session;
    String id;
    String name;

    @BeforeEach
    void aVictimsSessionWorkspace() throws Exception {
        wire = new McpWire(base.toURI());
        String tenant = tenant("owner");
        victim = key(tenant, "member");
        attacker = key(tenant, "member");
        auditor = key(tenant, "auditor");
        admin = key(tenant, "admin");
        session = wire.open(victim);
        ToolResult wrote = wire.call(session, 1, "write_workspace_file", Map.of("path", "notes.txt", "content", "mine\n"));
        assertFalse(wrote.isError(), wrote.text());
        ToolResult listed = wire.call(session, 2, "list_workspace_files", Map.of());
        Matcher m = WORKSPACE.matcher(listed.text());
        assertTrue(m.find(), listed.text());
        name = m.group(1);
        id = m.group(2);
    }

    @Test
    void anotherMemberNeitherSeesNorChangesItOverRest() {
        String listing = as(attacker).get("/v1/workspaces").then().statusCode(200).extract().asString();
        assertFalse(listing.contains(id), "listed to another member: " + listing);
        as(attacker).get("/v1/workspaces/" + id).then().statusCode(404).contentType("application/problem+json");
        as(attacker).get("/v1/workspaces/" + id + "/files").then().statusCode(404);
        as(attacker).get("/v1/workspaces/" + id + "/files/notes.txt").then().statusCode(404);
        as(attacker).contentType("application/octet-stream").body("import os\n".getBytes())
                .put("/v1/workspaces/" + id + "/files/" + PLANTED).then().statusCode(404)
                .contentType("application/problem+json");
        as(attacker).delete("/v1/workspaces/" + id + "/files/notes.txt").then().statusCode(404);
        as(attacker).delete("/v1/workspaces/" + id).then().statusCode(404);
        for (String named : List.of(id, name)) {
            as(attacker).body(Map.of("language", "bash", "code", "echo planted > usercustomize.py", "workspace", named))
                    .post("/v1/jobs").then().statusCode(404).body(json("detail", equalTo("no workspace " + named)));
        }
        assertEquals(List.of("notes.txt"), read(as(victim).get("/v1/workspaces/" + id + "/files").then().statusCode(200)
                .extract().asString(), "items.path"), "the owner's workspace is as it was");
    }

    @Test
    void anotherMembersSessionCannotNameIt() {
        Session other = wire.open(attacker);
        for (String named : List.of(id, name)) {
            ToolResult write = wire.call(other, 10, "write_workspace_file",
                    Map.of("path", PLANTED, "content", "import os\n", "workspace", named));
            assertTrue(write.isError(), write.text());
            assertEquals("no workspace " + named, write.text());
            assertTrue(wire.call(other, 11, "read_workspace_file", Map.of("path", "notes.txt", "workspace", named)).isError());
            assertTrue(wire.call(other, 12, "list_workspace_files", Map.of("workspace", named)).isError());
            ToolResult run = wire.call(other, 13, "run_code", Map.of("language", "bash", "code", "echo x > planted",
                    "workspace", named));
            assertTrue(run.isError(), run.text());
        }
        ToolResult own = wire.call(session, 14, "list_workspace_files", Map.of());
        assertFalse(own.text().contains("usercustomize") || own.text().contains("planted"), own.text());
    }

    @Test
    void reviewersReadItButNeverWriteIt() {
        for (String reviewer : List.of(auditor, admin)) {
            as(reviewer).get("/v1/workspaces").then().statusCode(200).body(containsString(id));
            as(reviewer).get("/v1/workspaces/" + id + "/files/notes.txt").then().statusCode(200)
                    .body(equalTo("mine\n"));
        }
        as(admin).contentType("application/octet-stream").body("import os\n".getBytes())
                .put("/v1/workspaces/" + id + "/files/" + PLANTED).then().statusCode(403)
                .contentType("application/problem+json").body(json("detail", containsString("MCP session's own")));
        as(admin).delete("/v1/workspaces/" + id + "/files/notes.txt").then().statusCode(403);
        as(admin).delete("/v1/workspaces/" + id).then().statusCode(403);
        as(admin).body(Map.of("language", "bash", "code", "echo x > planted", "workspace", name)).post("/v1/jobs")
                .then().statusCode(403).contentType("application/problem+json");
        Session adminSession = wire.open(admin);
        ToolResult write = wire.call(adminSession, 20, "write_workspace_file",
                Map.of("path", PLANTED, "content", "import os\n", "workspace", id));
        assertTrue(write.isError(), write.text());
        assertFalse(write.text().contains("\n"), write.text());
        ToolResult read = wire.call(adminSession, 21, "read_workspace_file", Map.of("path", "notes.txt", "workspace", name));
        assertFalse(read.isError(), read.text());
        assertEquals(List.of("notes.txt"), read(as(victim).get("/v1/workspaces/" + id + "/files").then().statusCode(200)
                .extract().asString(), "items.path"));
    }

    @Test
    void aRerunOfTheSessionsJobIsTheOwnersOnly() {
        ToolResult ran = wire.call(session, 30, "run_code", Map.of("language", "bash", "code", "echo ran"));
        assertFalse(ran.isError(), ran.text());
        String job = read(as(victim).get("/v1/jobs").then().statusCode(200).extract().asString(), "items[0].id");
        as(attacker).post("/v1/jobs/" + job + "/rerun").then().statusCode(404).contentType("application/problem+json")
                .body(json("detail", equalTo("no workspace " + id)));
        as(admin).post("/v1/jobs/" + job + "/rerun").then().statusCode(403).contentType("application/problem+json");
        as(victim).post("/v1/jobs/" + job + "/rerun").then().statusCode(201);
    }
}
