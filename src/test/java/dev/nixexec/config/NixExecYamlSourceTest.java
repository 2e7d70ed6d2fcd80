package dev.nixexec.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.nixexec.database.EmbeddedDatabaseSource;
import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The YAML file as a real SmallRye configuration source: above application.properties, below
 * environment variables and system properties, and seen by the embedded-database decision.
 */
class NixExecYamlSourceTest {

    @TempDir
    Path dir;

    @Test
    void fileBeatsApplicationPropertiesAndLosesToEnvironmentAndSystemProperties() throws IOException {
        Path file = Files.writeString(dir.resolve("config.yaml"), """
                sandbox: {timeout: 45s, max_output_bytes: 4096}
                executor: {build_timeout: 20m}
                node: {concurrency: 7}
                """);
        Map<String, String> applicationProperties = Map.of(
                "nixexec.sandbox.timeout", "30s", "nixexec.sandbox.max-output-bytes", "1",
                "nixexec.executor.build-timeout", "1m", "nixexec.node.concurrency", "1");
        NixExecConfig fileOnly = config(file, applicationProperties, Map.of(), Map.of());
        assertEquals(Duration.ofSeconds(45), fileOnly.sandbox().timeout());
        assertEquals(4096, fileOnly.sandbox().maxOutputBytes());
        assertEquals(Duration.ofMinutes(20), fileOnly.executor().buildTimeout());
        assertEquals(7, fileOnly.node().concurrency());

        NixExecConfig overridden = config(file, applicationProperties,
                Map.of("NIXEXEC_SANDBOX_TIMEOUT", "5s", "NIXEXEC_NODE_CONCURRENCY", "3"),
                Map.of("nixexec.node.concurrency", "9"));
        assertEquals(Duration.ofSeconds(5), overridden.sandbox().timeout(), "env var beats the file");
        assertEquals(9, overridden.node().concurrency(), "system property beats env var and file");
        assertEquals(4096, overridden.sandbox().maxOutputBytes(), "untouched keys still come from the file");
    }

    @Test
    void databaseUrlFromTheFileReplacesTheEmbeddedDatabase() throws IOException {
        Path file = Files.writeString(dir.resolve("config.yaml"), "db_url: jdbc:postgresql://db.internal/nix-exec\n");
        assertEquals("jdbc:postgresql://db.internal/nix-exec",
                build(file, Map.of(), Map.of(), Map.of()).getRawValue("quarkus.datasource.jdbc.url"));
        assertEquals("jdbc:postgresql://from-env/nix-exec",
                build(file, Map.of(), Map.of("NIXEXEC_DB_URL", "jdbc:postgresql://from-env/nix-exec"), Map.of())
                        .getRawValue("quarkus.datasource.jdbc.url"));
    }

    @Test
    void aBadFileStopsTheConfigurationFromBuilding() throws IOException {
        Path file = Files.writeString(dir.resolve("config.yaml"), "executor:\n  nixpkgs_urll: x\n");
        Throwable e = assertThrows(RuntimeException.class, () -> build(file, Map.of(), Map.of(), Map.of()));
        String messages = messages(e);
        assertTrue(messages.contains("nix-exec config " + file + ": executor.nixpkgs_urll: unknown key"), messages);
    }

    @Test
    void aValueOutOfBoundsStopsTheConfigurationFromBuilding() throws IOException {
        Path file = Files.writeString(dir.resolve("config.yaml"), "node:\n  role: banana\n  concurrency: 4\n");
        String messages = messages(assertThrows(RuntimeException.class, () -> build(file, Map.of(), Map.of(), Map.of())));
        assertTrue(messages.contains("nix-exec config " + file + ": node.role: 'banana' is not one of all, api, worker"), messages);

        Path idle = Files.writeString(dir.resolve("idle.yaml"), "node:\n  concurrency: 0\n");
        messages = messages(assertThrows(RuntimeException.class, () -> build(idle, Map.of(), Map.of(), Map.of())));
        assertTrue(messages.contains("nix-exec config " + idle + ": node.concurrency: '0' is not a whole number >= 1"), messages);
    }

    static NixExecConfig config(Path file, Map<String, String> applicationProperties, Map<String, String> env,
            Map<String, String> systemProperties) {
        return build(file, applicationProperties, env, systemProperties).getConfigMapping(NixExecConfig.class);
    }

    static SmallRyeConfig build(Path file, Map<String, String> applicationProperties, Map<String, String> env,
            Map<String, String> systemProperties) {
        Map<String, String> system = new HashMap<>(systemProperties);
        system.put("nixexec.config", file.toString());
        return new SmallRyeConfigBuilder()
                .withSources(new PropertiesConfigSource(applicationProperties, "application.properties", 250))
                .withSources(new EnvConfigSource(env, 300))
                .withSources(new PropertiesConfigSource(system, "system properties", 400))
                .withSources(new NixExecYamlSource(), new EmbeddedDatabaseSource())
                .withConverter(Duration.class, 200, new DurationConverter())
                .withMapping(NixExecConfig.class)
                .build();
    }

    private static String messages(Throwable e) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append('\n');
        }
        List.of(e.getSuppressed()).forEach(s -> all.append(s.getMessage()).append('\n'));
        return all.toString();
    }
}
