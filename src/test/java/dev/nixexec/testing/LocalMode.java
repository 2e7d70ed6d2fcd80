package dev.nixexec.testing;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/** Local mode: no keys ({@code nixexec.auth.enabled=false}), loopback callers only. One profile, one start. */
public class LocalMode implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("nixexec.auth.enabled", "false");
    }
}
