package dev.nixexec.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a production start listens, as the real SmallRye configuration decides it with Quarkus'
 * production default ({@code 0.0.0.0}, as VertxConfigBuilder sets it): loopback in local mode
 * (however local mode is switched on), 0.0.0.0 with keys, and a configured address always wins.
 */
class LocalModeListenSourceTest {

    @TempDir
    Path dir;

    @Test
    void localModeListensOnLoopbackByDefault() throws IOException {
        SmallRyeConfig env = build("", Map.of("NIXEXEC_AUTH_ENABLED", "false"), Map.of());
        assertEquals("127.0.0.1", env.getRawValue("quarkus.http.host"));
        assertEquals("127.0.0.1", env.getRawValue("quarkus.management.host"));
        assertEquals("127.0.0.1", build("auth: {enabled: false}\n", Map.of(), Map.of()).getRawValue("quarkus.http.host"),
                "local mode from the YAML file");
        assertEquals("127.0.0.1", build("", Map.of(), Map.of("nixexec.auth.enabled", "false")).getRawValue("quarkus.http.host"));
    }

    @Test
    void withKeysTheQuarkusDefaultStays() throws IOException {
        assertEquals("0.0.0.0", build("", Map.of(), Map.of()).getRawValue("quarkus.http.host"));
        assertEquals("0.0.0.0", build("auth: {enabled: false}\n", Map.of("NIXEXEC_AUTH_ENABLED", "true"), Map.of())
                .getRawValue("quarkus.http.host"), "the environment beats the file");
    }

    @Test
    void aConfiguredAddressWinsAndIsJudgedAtStartUp() throws IOException {
        assertEquals("0.0.0.0", build("", Map.of("NIXEXEC_AUTH_ENABLED", "false", "QUARKUS_HTTP_HOST", "0.0.0.0"), Map.of())
                .getRawValue("quarkus.http.host"));
        assertEquals("::1", build("", Map.of(), Map.of("nixexec.auth.enabled", "false", "quarkus.http.host", "::1"))
                .getRawValue("quarkus.http.host"));
    }

    private SmallRyeConfig build(String yaml, Map<String, String> env, Map<String, String> systemProperties) throws IOException {
        Path file = Files.writeString(Files.createTempFile(dir, "config", ".yaml"), yaml.isEmpty() ? "{}\n" : yaml);
        Map<String, String> system = new java.util.HashMap<>(systemProperties);
        system.put("nixexec.config", file.toString());
        return new SmallRyeConfigBuilder()
                .withDefaultValue("quarkus.http.host", "0.0.0.0")
                .withDefaultValue("quarkus.management.host", "0.0.0.0")
                .withSources(new EnvConfigSource(env, 300))
                .withSources(new PropertiesConfigSource(system, "system properties", 400))
                .withSources(new NixExecYamlSource(), new LocalModeListenSource())
                .build();
    }
}
