package dev.nixexec.mcp;

import static dev.nixexec.testing.Api.memberKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.NixSpy;
import dev.nixexec.testing.NodeProject;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URL;
import org.junit.jupiter.api.Test;

/**
 * The official TypeScript SDK client (src/test/js/mcp/workspace-check.mjs): the job tools' output
 * schemas (the SDK validates every later structured result against them), a session's workspace
 * across run_code calls, a PNG plot returned as image content and not again by the next call, the
 * workspace tools, a second
 * session's own workspace, and another tenant kept out. The script asserts; this test requires
 * that every check ran and passed.
 */
@QuarkusTest
@WithTestResource(NixSpy.class)
class McpWorkspaceTest {

    private static final int CHECKS = 6;

    @TestHTTPResource("/")
    URL base;

    @Test
    void officialClientUsesWorkspacesAndSeesThePlot() throws Exception {
        String keyA = memberKey("ws-a");
        String keyB = memberKey("ws-b");
        NodeProject.Outcome outcome = new NodeProject("mcp").run("workspace-check.mjs", 300, base.toString(), keyA, keyB);
        assertEquals(0, outcome.exitCode(), outcome.output());
        assertEquals(CHECKS, outcome.output().lines().filter(line -> line.startsWith("ok ")).count(), outcome.output());
        assertTrue(outcome.output().contains("all workspace checks passed"), outcome.output());
    }
}
