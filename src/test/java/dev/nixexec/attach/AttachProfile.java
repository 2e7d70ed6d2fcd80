package dev.nixexec.attach;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;

/** A short idle timeout for attached shells, so the test of it ends quickly. */
public class AttachProfile implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("nixexec.attach.idle-timeout", "3s");
    }
}
