package dev.nixexec.config;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/** The whole service started with a nix-exec YAML file: its settings are the ones in force. */
@QuarkusTest
@TestProfile(ConfigFileStartupIT.WithConfigFile.class)
public class ConfigFileStartupIT {

    public static class WithConfigFile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Path repo = Path.of(System.getProperty("nixexec-test.repo-dir", "."));
            return Map.of("nixexec.config", repo.resolve("src/test/resources/config/startup.yaml").toString());
        }
    }

    @Inject
    NixExecConfig config;

    @Test
    void settingsFromTheFileAreInForce() {
        assertEquals(2048, config.sandbox().maxOutputBytes());
        assertEquals(List.of("hello", "cowsay."), config.sandbox().packageDenylist().orElseThrow());
        assertEquals("api", config.node().role());
        assertEquals(2, config.jobs().maxQueued());
        assertEquals(77, config.jobs().maxQueuedPerTenant());
        assertEquals("nix-exec-under-test",
                ConfigProvider.getConfig().getValue("quarkus.mcp.server.server-info.name", String.class));
    }

    @Test
    void theDenylistFromTheFileRefusesSubmissions() {
        given().header("Authorization", "Bearer nx_test_bootstrap_admin_secret").contentType("application/json")
                .body(Map.of("language", "bash", "code", "hello", "packages", List.of("hello")))
                .post("/v1/jobs")
                .then().statusCode(400).body(containsString("hello"));
        given().header("Authorization", "Bearer nx_test_bootstrap_admin_secret").contentType("application/json")
                .body(Map.of("language", "bash", "code", "cowsay hi", "packages", List.of("cowsay.extra")))
                .post("/v1/jobs")
                .then().statusCode(400).body(containsString("cowsay.extra"));
    }
}
