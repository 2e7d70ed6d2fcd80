package dev.nixexec.testing;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/** A node that takes requests but runs no jobs, so a test's own claimers are the only ones. */
public class ApiOnlyNode implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("nixexec.node.role", "api");
    }
}
