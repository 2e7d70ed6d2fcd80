package dev.nixexec.attach;

import io.quarkus.test.junit.QuarkusTestProfile;
import java.util.Map;
import java.util.Set;

/** Sessions from {@link FixtureSessionShells}; a short idle timeout, so its test ends quickly. */
public class AttachProfile implements QuarkusTestProfile {
    @Override
    public Set<Class<?>> getEnabledAlternatives() {
        return Set.of(FixtureSessionShells.class);
    }

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("nixexec.attach.idle-timeout", "3s");
    }
}
