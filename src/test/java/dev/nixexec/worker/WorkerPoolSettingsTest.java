package dev.nixexec.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.testing.ConfigOverride;
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Settings that reach the worker pool from the environment, where no YAML check saw them. */
@QuarkusTest
@WithTestResource(NixSpy.class)
class WorkerPoolSettingsTest {

    @Inject
    NixExecConfig config;

    private NixExecConfig with(Map<String, Object> node) {
        return ConfigOverride.of(NixExecConfig.class, config,
                Map.of("node", ConfigOverride.of(NixExecConfig.Node.class, config.node(), node)));
    }

    @Test
    void aNodeWithoutSlotsDoesNotStart() {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> new WorkerPool(with(Map.of("concurrency", 0)), null, null, null, null, null, null));
        assertEquals("nixexec.node.concurrency must be at least 1, not 0", refused.getMessage());
    }

    @Test
    void anUnknownRoleDoesNotStart() {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> new WorkerPool(with(Map.of("role", "banana")), null, null, null, null, null, null));
        assertEquals("nixexec.node.role must be all, api or worker, not banana", refused.getMessage());
    }
}
