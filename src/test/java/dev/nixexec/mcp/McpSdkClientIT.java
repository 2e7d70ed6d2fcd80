package dev.nixexec.mcp;

import static dev.nixexec.testing.Api.memberKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.testing.NodeProject;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import java.net.URL;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The official TypeScript SDK client (src/test/js/mcp/client-check.mjs) against the running
 * service over both transports: tools, python with a package, bash, a failing job, a refused
 * package, progress and log notifications, cancellation through notifications/cancelled, a
 * client that leaves without cancelling (the job runs on), and tenant isolation. The script
 * asserts; this test requires that every check ran and passed.
 */
@QuarkusIntegrationTest
class McpSdkClientIT {

    private static final int CHECKS = 9;

    @TestHTTPResource("/")
    URL base;

    @ParameterizedTest
    @ValueSource(strings = {"streamable", "sse"})
    void officialClient(String transport) throws Exception {
        String keyA = memberKey("sdk-a");
        String keyB = memberKey("sdk-b");
        NodeProject.Outcome outcome = new NodeProject("mcp").run("client-check.mjs", 300, base.toString(), transport,
                keyA, keyB);
        assertEquals(0, outcome.exitCode(), outcome.output());
        assertEquals(CHECKS, outcome.output().lines().filter(line -> line.startsWith("ok " + transport + " ")).count(),
                outcome.output());
        assertTrue(outcome.output().contains("all " + transport + " checks passed"), outcome.output());
    }
}
