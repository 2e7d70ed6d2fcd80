package dev.nixexec.testing;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * A node whose environment builds give up after 4 s (BuildFailureIT: the fixture's slow build
 * outlasts it) and whose MCP {@code run_code} answers after 10 s with the output so far
 * (McpRunWaitIT). One profile for both: each distinct profile is one more application Quarkus
 * prepares before the first test runs (~10 s on a 2-core machine), and neither test meets the
 * other's setting (the one builds through the engine, not MCP; the other runs cached bash).
 */
public class ShortWaits implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("nixexec.executor.build-timeout", "4s", "nixexec.mcp.run-wait", "10s");
    }
}
