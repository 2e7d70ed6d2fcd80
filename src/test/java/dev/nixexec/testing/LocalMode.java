package dev.nixexec.testing;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/**
 * Local mode: no keys ({@code nixexec.auth.enabled=false}), loopback callers only. One profile, one
 * start. Attached shells idle out after 3s, so the test of that ends quickly (no other test of
 * this profile leaves a shell idle).
 */
public class LocalMode implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("nixexec.auth.enabled", "false", "nixexec.attach.idle-timeout", "3s");
    }
}
