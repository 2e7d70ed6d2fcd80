package dev.nixexec.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The YAML the NixOS module writes to /etc/nix-exec/config.yaml, produced by the module's own
 * renderer (nixos/render-config.nix, evaluated by a real nix-instantiate) for the sample in
 * nixos/tests/sample-settings.nix, is what src/test/resources/nixos/config.yaml shows and is
 * accepted by the service's loader with the intended values.
 */
class ModuleRenderingTest {

    static final Path REPO = Path.of(System.getProperty("nixexec-test.repo-dir", "."));
    static final Path EXPECTED = REPO.resolve("src/test/resources/nixos/config.yaml");

    @Test
    void moduleRendersTheDocumentedFile() throws Exception {
        assertEquals(Files.readString(EXPECTED).strip(), render());
    }

    @Test
    void renderedFileLoadsWithTheSampleValues() throws Exception {
        Path file = Files.createTempFile("nix-exec-module", ".yaml");
        try {
            Files.writeString(file, render());
            Map<String, String> properties = NixExecYaml.read(file);
            assertEquals("nix-exec-fleet", properties.get("quarkus.mcp.server.server-info.name"));
            assertEquals("true", properties.get("quarkus.log.console.json.enabled"));
            assertEquals("INFO", properties.get("quarkus.log.level"));

            var config = NixExecYamlSourceTest.build(file, Map.of(), Map.of(), Map.of());
            NixExecConfig nixexec = config.getConfigMapping(NixExecConfig.class);
            assertEquals("worker", nixexec.node().role());
            assertEquals(4, nixexec.node().concurrency());
            assertEquals(Path.of("/var/lib/nix-exec"), nixexec.stateDir().orElseThrow());
            assertEquals("jdbc:postgresql://db.internal:5432/nix-exec", config.getRawValue("quarkus.datasource.jdbc.url"));
            assertEquals(Duration.ofSeconds(45), nixexec.sandbox().timeout());
            assertEquals(2097152, nixexec.sandbox().maxOutputBytes());
            assertEquals(1073741824L, nixexec.sandbox().memoryBytes());
            assertEquals(List.of("nixos", "nixosTests."), nixexec.sandbox().packageDenylist().orElseThrow());
            assertEquals("github:NixOS/nixpkgs/nixos-24.11", nixexec.executor().nixpkgsUrl());
            assertEquals("https://cache.nixos.org http://cache.internal:5000", nixexec.executor().substituters().orElseThrow());
            assertEquals(Duration.ofMinutes(15), nixexec.executor().buildTimeout());
            assertEquals(Path.of("/var/lib/nix-exec/cache"), nixexec.executor().cacheDir().orElseThrow());
            assertEquals(Path.of("/var/lib/nix-exec/jobs"), nixexec.executor().tempDir().orElseThrow());
            assertEquals(Duration.ofSeconds(45), nixexec.jobs().lease());
            assertEquals(500, nixexec.jobs().maxQueuedPerTenant());
            assertEquals(true, nixexec.auth().enabled());
            assertEquals(true, nixexec.sandbox().cgroupParent().isEmpty(), "a null in settings keeps the default");
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** The text the module would write, from the module's renderer and the sample settings. */
    static String render() throws IOException, InterruptedException {
        Process nix = new ProcessBuilder("nix-instantiate", "--eval", "--strict", "--json", "--expr",
                "import ./nixos/render-config.nix (import ./nixos/tests/sample-settings.nix)")
                .directory(REPO.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        String json = new String(nix.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!nix.waitFor(60, TimeUnit.SECONDS) || nix.exitValue() != 0) {
            throw new IllegalStateException("nix-instantiate failed: " + json);
        }
        // --json prints the rendered text as one JSON string; decode that string
        Object decoded = new org.yaml.snakeyaml.Yaml().load(json);
        return ((String) decoded).strip();
    }
}
