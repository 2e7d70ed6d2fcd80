package dev.nixexec.mcp;

import static dev.nixexec.testing.Api.memberKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.NixSpy;
import dev.nixexec.workspace.SessionWorkspaceExpiry;
import io.quarkiverse.mcp.server.ToolResponse;
import io.quarkiverse.mcp.server.test.McpAssured;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * An MCP session whose own workspace expired while it was idle gets a fresh, empty one on its
 * next call (no error), over Streamable HTTP with a real key, nix and bubblewrap. Idleness is
 * simulated by moving the workspace's last use back past the 24h default TTL.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class McpWorkspaceExpiryTest {

    private static final Pattern WORKSPACE = Pattern.compile("^Workspace (mcp-session-\\S+) \\(([0-9a-f-]{36})\\)");

    @Inject
    SessionWorkspaceExpiry expiry;

    @Inject
    EntityManager em;

    static String[] workspace(ToolResponse response) {
        Matcher m = WORKSPACE.matcher(McpToolsTest.text(response));
        assertTrue(m.find(), McpToolsTest.text(response));
        return new String[] {m.group(1), m.group(2)};
    }

    @Test
    void aSessionWhoseWorkspaceExpiredGetsAFreshOne() {
        String key = memberKey("ttl");
        try (var client = McpAssured.newStreamableClient().setAdditionalHeaders(McpToolsTest.bearer(key)).build().connect()) {
            AtomicReference<String[]> first = new AtomicReference<>();
            client.when()
                    .toolsCall("write_workspace_file", Map.of("path", "notes.txt", "content", "before\n"),
                            r -> assertFalse(r.isError(), McpToolsTest.text(r)))
                    .thenAssertResults();
            // one call at a time: the test client does not wait for an answer before its next request
            client.when()
                    .toolsCall("run_code", Map.of("language", "bash", "code", "cat notes.txt"), r -> {
                        assertFalse(r.isError(), McpToolsTest.text(r));
                        assertTrue(McpToolsTest.text(r).contains("--- stdout ---\nbefore\n"), McpToolsTest.text(r));
                    })
                    .thenAssertResults();
            client.when()
                    .toolsCall("list_workspace_files", Map.of(), r -> {
                        first.set(workspace(r));
                        assertTrue(McpToolsTest.text(r).contains("notes.txt"), McpToolsTest.text(r));
                    })
                    .thenAssertResults();
            UUID expired = UUID.fromString(first.get()[1]);
            QuarkusTransaction.requiringNew().run(() -> {
                em.createNativeQuery("UPDATE workspaces SET used_at = now() - interval '2 days' WHERE id = ?1")
                        .setParameter(1, expired).executeUpdate();
                em.createNativeQuery("UPDATE jobs SET finished_at = now() - interval '2 days' "
                        + "WHERE id IN (SELECT job_id FROM job_files WHERE workspace_id = ?1)")
                        .setParameter(1, expired).executeUpdate();
            });

            expiry.expire("test-node");

            long left = QuarkusTransaction.requiringNew().call(() -> ((Number) em.createNativeQuery(
                    "SELECT count(*) FROM workspaces WHERE id = ?1").setParameter(1, expired).getSingleResult()).longValue());
            assertEquals(0, left, "the idle session workspace expired");
            client.when()
                    .toolsCall("run_code", Map.of("language", "bash",
                            "code", "test -e notes.txt && echo found || echo fresh; echo after > notes.txt"), r -> {
                                assertFalse(r.isError(), McpToolsTest.text(r));
                                assertTrue(McpToolsTest.text(r).contains("--- stdout ---\nfresh\n"), McpToolsTest.text(r));
                            })
                    .thenAssertResults();
            client.when()
                    .toolsCall("list_workspace_files", Map.of(), r -> {
                        assertFalse(r.isError(), McpToolsTest.text(r));
                        String[] again = workspace(r);
                        assertEquals(first.get()[0], again[0], "the session's name again");
                        assertNotEquals(first.get()[1], again[1], "a new workspace");
                    })
                    .thenAssertResults();
            client.when()
                    .toolsCall("read_workspace_file", Map.of("path", "notes.txt"), r -> {
                        assertFalse(r.isError(), () -> McpToolsTest.text(r));
                        assertEquals("after\n", r.content().get(0).asResource().resource().asText().text());
                    })
                    .thenAssertResults();
        }
    }
}
