package dev.nixexec.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The nix-exec YAML keys and the platform's own, mapped onto configuration properties. */
class NixExecYamlTest {

    @TempDir
    Path dir;

    @Test
    void nixExecFileMapsOntoTheSettings() throws IOException {
        Path file = write("""
                server:
                  name: my-runner
                sandbox:
                  timeout: 45
                  max_output_bytes: 65536
                  workspace_path: /workspace
                  package_denylist: [nixos, "nixosTests."]
                executor:
                  cache_dir: /srv/nix-exec/cache
                  temp_dir: /srv/nix-exec/tmp
                  nixpkgs_url: github:NixOS/nixpkgs/nixos-24.11
                  substituters: [https://cache.nixos.org, http://cache.internal]
                  build_timeout: 15m
                logging:
                  level: warning
                  format: json
                """);
        Map<String, String> expected = Map.ofEntries(
                Map.entry("quarkus.mcp.server.server-info.name", "my-runner"),
                Map.entry("nixexec.sandbox.timeout", "45"),
                Map.entry("nixexec.sandbox.max-output-bytes", "65536"),
                Map.entry("nixexec.sandbox.package-denylist", "nixos,nixosTests."),
                Map.entry("nixexec.executor.cache-dir", "/srv/nix-exec/cache"),
                Map.entry("nixexec.executor.temp-dir", "/srv/nix-exec/tmp"),
                Map.entry("nixexec.executor.nixpkgs-url", "github:NixOS/nixpkgs/nixos-24.11"),
                Map.entry("nixexec.executor.substituters", "https://cache.nixos.org http://cache.internal"),
                Map.entry("nixexec.executor.build-timeout", "15m"),
                Map.entry("quarkus.log.level", "WARN"),
                Map.entry("quarkus.log.category.\"dev.nixexec\".level", "WARN"),
                Map.entry("quarkus.log.console.json.enabled", "true"));
        assertEquals(expected, NixExecYaml.read(file));
    }

    /** nix-exec's documented defaults, written out, mean what they meant there. */
    @Test
    void nixExecDefaultsMeanTheDefaults() throws IOException {
        Path file = write("""
                server:
                  name: nix-exec
                sandbox:
                  timeout: 30s
                  max_output_bytes: 1048576
                  workspace_path: ""
                  package_denylist: []
                executor:
                  cache_dir: ~/.cache/nix-exec
                  temp_dir: ""
                  nixpkgs_url: github:NixOS/nixpkgs/nixos-unstable
                  substituters: null
                logging:
                  level: info
                  format: text
                """);
        Map<String, String> read = NixExecYaml.read(file);
        assertEquals(System.getProperty("user.home") + "/.cache/nix-exec", read.get("nixexec.executor.cache-dir"));
        assertFalse(read.containsKey("nixexec.executor.substituters"), read.toString());
        assertFalse(read.containsKey("nixexec.executor.temp-dir"), read.toString());
        assertEquals("", read.get("nixexec.sandbox.package-denylist"));
        assertEquals("30s", read.get("nixexec.sandbox.timeout"));
        assertEquals(Map.of(), NixExecYaml.read(write("executor:\n  nixpkgs_url: ~\n")), "YAML's ~ is null: the default");
        assertEquals(System.getProperty("user.home"), NixExecYaml.read(write("state_dir: \"~\"\n")).get("nixexec.state-dir"));
    }

    @Test
    void platformKeysUseTheSameShape() throws IOException {
        Path file = write("""
                state_dir: /var/lib/nix-exec
                db_url: jdbc:postgresql://db/nix-exec
                node: {role: worker, concurrency: 8}
                jobs: {max_queued_per_tenant: 50, lease: 45s}
                auth: {enabled: false}
                sandbox: {memory_bytes: 1073741824, store_view: closure}
                logging: {format: text}
                """);
        Map<String, String> properties = NixExecYaml.read(file);
        assertEquals("/var/lib/nix-exec", properties.get("nixexec.state-dir"));
        assertEquals("jdbc:postgresql://db/nix-exec", properties.get("nixexec.db-url"));
        assertEquals("worker", properties.get("nixexec.node.role"));
        assertEquals("8", properties.get("nixexec.node.concurrency"));
        assertEquals("50", properties.get("nixexec.jobs.max-queued-per-tenant"));
        assertEquals("45s", properties.get("nixexec.jobs.lease"));
        assertEquals("false", properties.get("nixexec.auth.enabled"));
        assertEquals("1073741824", properties.get("nixexec.sandbox.memory-bytes"));
        assertEquals("closure", properties.get("nixexec.sandbox.store-view"));
        assertEquals("false", properties.get("quarkus.log.console.json.enabled"));
    }

    @Test
    void emptyFileSetsNothing() throws IOException {
        assertEquals(Map.of(), NixExecYaml.read(write("# nothing yet\n")));
    }

    @Test
    void unknownKeyNamesKeyAndFile() throws IOException {
        Path file = write("sandbox:\n  timeout: 30s\n  max_outptu_bytes: 10\n");
        var e = assertThrows(ConfigFileException.class, () -> NixExecYaml.read(file));
        assertEquals("nix-exec config " + file + ": sandbox.max_outptu_bytes: unknown key", e.getMessage());
    }

    @Test
    void unknownSectionAndMisplacedKeyAreRefused() throws IOException {
        assertRefused("sandbx:\n  timeout: 30s\n", "sandbx.timeout: unknown key");
        assertRefused("executor:\n  name: x\n", "executor.name: unknown key");
        assertRefused("server:\n  port: 8080\n", "server.port: unknown key");
        assertRefused("config: /etc/other.yaml\n", "config: unknown key");
        assertRefused("sandbox: 30s\n", "sandbox: unknown key");
        assertRefused("logging:\n  colour: true\n", "logging.colour: unknown key");
    }

    @Test
    void badValuesNameKeyAndFile() throws IOException {
        assertRefused("sandbox:\n  timeout: soon\n", "sandbox.timeout: 'soon' is not a duration");
        assertRefused("sandbox:\n  timeout: -5s\n", "sandbox.timeout: '-5s' is not a duration");
        assertRefused("sandbox:\n  max_output_bytes: lots\n", "sandbox.max_output_bytes: 'lots' is not a whole number");
        assertRefused("sandbox:\n  max_output_bytes: -1\n", "sandbox.max_output_bytes: '-1' is not a whole number");
        assertRefused("node:\n  concurrency: 99999999999\n", "node.concurrency: '99999999999' is not a whole number");
        assertRefused("auth:\n  enabled: maybe\n", "auth.enabled: 'maybe' is not true or false");
        assertRefused("logging:\n  level: loud\n", "logging.level: 'loud' is not one of debug, info, warning, error");
        assertRefused("logging:\n  format: xml\n", "logging.format: 'xml' is not one of text, json");
        assertRefused("sandbox:\n  workspace_path: /home/me/ws\n",
                "sandbox.workspace_path: '/home/me/ws' is not \"\" or /workspace");
        assertRefused("sandbox:\n  timeot: null\n", "sandbox.timeot: unknown key");
        assertRefused("sandbox:\n  timeout: [1, 2]\n", "sandbox.timeout: must be a single value");
        assertRefused("sandbox:\n  package_denylist: [[a]]\n", "sandbox.package_denylist: items must be plain names");
        assertRefused("sandbox:\n  package_denylist: ['a,b']\n", "sandbox.package_denylist: items must be plain names");
        assertRefused("executor:\n  nixpkgs_url: ''\n", "executor.nixpkgs_url: is empty");
    }

    @Test
    void valuesOutsideTheirBoundsNameKeyAndFile() throws IOException {
        assertRefused("node:\n  role: banana\n", "node.role: 'banana' is not one of all, api, worker");
        assertRefused("node:\n  role: Worker\n", "node.role: 'Worker' is not one of all, api, worker");
        assertRefused("sandbox:\n  store_view: x\n", "sandbox.store_view: 'x' is not one of whole-store, closure");
        assertRefused("node:\n  concurrency: 0\n", "node.concurrency: '0' is not a whole number >= 1");
        assertRefused("node:\n  concurrency: -2\n", "node.concurrency: '-2' is not a whole number >= 1");
        assertRefused("jobs:\n  max_attempts: 0\n", "jobs.max_attempts: '0' is not a whole number >= 1");
        assertRefused("jobs:\n  lease: 0s\n", "jobs.lease: '0s' must be longer than 0");
        assertRefused("jobs:\n  poll: 0\n", "jobs.poll: '0' must be longer than 0");
        assertRefused("sandbox:\n  timeout: PT0S\n", "sandbox.timeout: 'PT0S' must be longer than 0");
        assertRefused("sandbox:\n  host_uid_base: 0\n", "sandbox.host_uid_base: '0' is not a whole number >= 1");
        assertRefused("sandbox:\n  tmp_bytes: 0\n", "sandbox.tmp_bytes: '0' is not a whole number >= 1");
    }

    @Test
    void zeroStaysAllowedWhereItMeansSomething() throws IOException {
        Map<String, String> properties = NixExecYaml.read(write("""
                auth: {cache_ttl: 0s}
                workspaces: {session_idle_ttl: 0}
                sandbox: {cpu_seconds: 0, warm_launchers: 0}
                node: {role: api, concurrency: 1}
                """));
        assertEquals("0s", properties.get("nixexec.auth.cache-ttl"));
        assertEquals("0", properties.get("nixexec.workspaces.session-idle-ttl"));
        assertEquals("0", properties.get("nixexec.sandbox.cpu-seconds"));
        assertEquals("0", properties.get("nixexec.sandbox.warm-launchers"));
        assertEquals("api", properties.get("nixexec.node.role"));
        assertEquals("1", properties.get("nixexec.node.concurrency"));
    }

    /** Every bound NixExecConfig declares is enforced: each default passes, 0 or a made-up value does not. */
    @Test
    void everyDeclaredBoundIsChecked() throws IOException {
        List<SettingsCatalog.Setting> bounded = SettingsCatalog.nixexec().stream()
                .filter(s -> s.nonZero() || !s.allowed().isEmpty()).toList();
        assertTrue(bounded.stream().map(SettingsCatalog.Setting::property).toList().containsAll(List.of(
                "nixexec.node.role", "nixexec.node.concurrency", "nixexec.sandbox.store-view")), bounded.toString());
        for (SettingsCatalog.Setting setting : bounded) {
            String key = ConfigurationDocTest.yamlKey(setting.property());
            for (String value : setting.allowed().isEmpty() ? List.of(setting.defaultValue().orElseThrow())
                    : setting.allowed()) {
                assertEquals(1, NixExecYaml.read(write(flow(key, value))).size(), key + ": " + value);
            }
            assertRefused(flow(key, setting.nonZero() ? "0" : "not-a-choice"), key + ": ");
        }
    }

    @Test
    void malformedDocumentsAreRefused() throws IOException {
        assertRefused("- a\n- b\n", "(document): must be a mapping");
        assertRefused("sandbox: {timeout: 30s\n", "(file): is not valid YAML");
        assertRefused("sandbox:\n  timeout: 1s\nsandbox:\n  timeout: 2s\n", "(file): is not valid YAML");
    }

    private void assertRefused(String yaml, String expected) throws IOException {
        Path file = write(yaml);
        var e = assertThrows(ConfigFileException.class, () -> NixExecYaml.read(file), yaml);
        assertTrue(e.getMessage().startsWith("nix-exec config " + file + ": "), e.getMessage());
        assertTrue(e.getMessage().contains(expected), e.getMessage() + " should contain " + expected);
    }

    /** {@code a.b.c} and {@code v} as {@code a: {b: {c: 'v'}}}. */
    private static String flow(String key, String value) {
        String[] path = key.split("\\.");
        StringBuilder yaml = new StringBuilder();
        for (int i = 0; i < path.length; i++) {
            yaml.append(i == 0 ? "" : "{").append(path[i]).append(": ");
        }
        return yaml.append("'").append(value).append("'").append("}".repeat(path.length - 1)).append('\n').toString();
    }

    private Path write(String yaml) throws IOException {
        Path file = Files.createTempFile(dir, "config", ".yaml");
        Files.writeString(file, yaml);
        return file;
    }
}
