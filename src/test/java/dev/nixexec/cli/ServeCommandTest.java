package dev.nixexec.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** What serve's flags set, before anything starts (the service itself: {@code ServeFlagsIT}). */
class ServeCommandTest {

    private static Map<String, String> properties(String... flags) {
        CommandLine line = new CommandLine(ServeCommand.spec());
        return ServeCommand.properties(line.parseArgs(flags));
    }

    @Test
    void flagsBecomeWhatTheirYamlKeysSet() {
        assertEquals(Map.of("nixexec.sandbox.timeout", "45s", "quarkus.mcp.server.server-info.name", "fleet",
                        "nixexec.sandbox.max-output-bytes", "4096", "quarkus.log.level", "DEBUG",
                        "quarkus.log.category.\"dev.nixexec\".level", "DEBUG", "nixexec.executor.substituters", "https://a https://b",
                        "nixexec.node.role", "worker", "quarkus.http.port", "9090"),
                properties("-timeout", "45s", "-name", "fleet", "--max-output", "4096", "-log-level", "debug",
                        "-substituters", "https://a,https://b", "-role", "worker", "-port", "9090"));
    }

    @Test
    void nixExecsOwnFlagNamesWorkAndTheShortNamesStayAliases() {
        Map<String, String> expected = Map.of("nixexec.sandbox.max-output-bytes", "4096",
                "nixexec.executor.nixpkgs-url", "path:/srv/nixpkgs", "nixexec.sandbox.package-denylist", "jq,cowsay.",
                "nixexec.executor.cache-dir", "/srv/cache", "nixexec.executor.temp-dir", "/srv/tmp");
        assertEquals(expected, properties("-max-output-bytes", "4096", "-nixpkgs-url", "path:/srv/nixpkgs",
                "-workspace-path", "", "-package-denylist", "jq, cowsay.", "-cache-dir", "/srv/cache", "-temp-dir", "/srv/tmp"));
        assertEquals(expected, properties("--max-output", "4096", "-nixpkgs", "path:/srv/nixpkgs", "--workspace", "/workspace",
                "--package-denylist", "jq,cowsay.", "--cache-dir", "/srv/cache", "--temp-dir", "/srv/tmp"));
        // on nix-exec itself (the stdio server) too, where errors name no command
        CommandLine root = NixExecCommand.commandLine();
        assertEquals(Map.of("nixexec.sandbox.timeout", "60s", "quarkus.log.level", "DEBUG",
                        "quarkus.log.category.\"dev.nixexec\".level", "DEBUG"),
                ServeCommand.properties(root.parseArgs("-log-level", "debug", "-timeout", "60s"), ""));
        assertEquals("-timeout: 'soon' is not a duration (e.g. 30s, 10m, 6h, or seconds)", assertThrows(CommandFailure.class,
                () -> ServeCommand.properties(NixExecCommand.commandLine().parseArgs("-timeout", "soon"), "")).getMessage());
    }

    @Test
    void dashDSetsAnySettingButNotOverAFlag() {
        assertEquals(Map.of("nixexec.jobs.lease", "45s", "nixexec.sandbox.timeout", "3s"),
                properties("-Dnixexec.jobs.lease=45s", "-timeout", "3s", "-Dnixexec.sandbox.timeout=9s"));
    }

    /** What the command prints for {@code args}, run in this JVM (a version or help request starts nothing). */
    private static String printed(String... args) {
        java.io.StringWriter out = new java.io.StringWriter();
        CommandLine line = NixExecCommand.commandLine();
        line.setOut(new java.io.PrintWriter(out));
        line.getSubcommands().get("serve").setOut(new java.io.PrintWriter(out));
        assertEquals(0, line.execute(args));
        return out.toString();
    }

    @Test
    void serveVersionIsTheCommandsVersion() {
        String version = printed("--version");
        assertTrue(version.startsWith("nix-exec "), version);
        assertEquals(version, printed("serve", "--version"));
    }

    @Test
    void aBadValueNamesItsFlag() {
        assertEquals("serve -concurrency: '0' is not a whole number >= 1",
                assertThrows(CommandFailure.class, () -> properties("-concurrency", "0")).getMessage());
        assertEquals("serve -log-format: 'xml' is not one of text, json",
                assertThrows(CommandFailure.class, () -> properties("-log-format", "xml")).getMessage());
        assertEquals("serve -workspace-path: '/work' is not \"\" or /workspace (the sandbox's working directory is fixed)",
                assertThrows(CommandFailure.class, () -> properties("-workspace", "/work")).getMessage());
        assertEquals("serve -port: '70000' is not a port (0 to 65535)",
                assertThrows(CommandFailure.class, () -> properties("-port", "70000")).getMessage());
        assertEquals("serve -config: /no/such/file.yaml is not a file",
                assertThrows(CommandFailure.class, () -> properties("-config", "/no/such/file.yaml")).getMessage());
        assertEquals(Exit.USAGE, assertThrows(CommandFailure.class, () -> properties("-timeout", "soon")).exit);
    }
}
