package dev.nixexec.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.mcp.McpRootsIT;
import dev.nixexec.testing.CommandLine;
import dev.nixexec.testing.CommandLine.Outcome;
import dev.nixexec.testing.NixSpy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.junit.TestProfile;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * nixo's command lines, verbatim, through {@code target/nixo} against the packaged service in local
 * mode with an allowed prefix (the profile and test resource of {@link McpRootsIT}, so the two can
 * share an application start):
 * {@code create --workspace DIR} and {@code --network off|full}, {@code catalog --json} keyed by
 * name, catalog names resolved to attributes, {@code status}, {@code --help} and {@code help COMMAND}
 * for every command, and the client options before the command's name.
 */
@QuarkusIntegrationTest
@TestProfile(McpRootsIT.LocalRoots.class)
@WithTestResource(NixSpy.class)
class NixoCommandLineIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TestHTTPResource("/")
    URL base;

    private CommandLine local() {
        return CommandLine.against(base.toString(), null);
    }

    /** Local mode is one tenant with a cap on live sessions: each test starts with none. */
    @BeforeEach
    void destroyEverySession() throws Exception {
        for (JsonNode session : JSON.readTree(local().nixo("list", "--json").stdout())) {
            assertEquals(0, local().nixo("destroy", session.path("id").asText()).exit());
        }
    }

    @Test
    void createMountsAHostDirectoryAtTheWorkspaceOnlyInsideTheAllowedPrefix() throws Exception {
        Path project = shared(McpRootsIT.BASE.resolve("allowed/nixo-project"));
        Files.writeString(project.resolve("notes.txt"), "needle in the host file\n");
        Outcome created = local().nixo("create", "--workspace", project.toString(), "--with", "ripgrep,fd,coreutils",
                "--network", "off", "--name", "nixo-work", "--agent", "claude-code");
        assertEquals(0, created.exit(), created.toString());

        // the host's files are the session's /workspace, and what the session writes lands on the host
        Outcome search = local().nixo("exec", "nixo-work", "--", "rg", "-l", "needle", "/workspace");
        assertEquals(new Outcome(0, "/workspace/notes.txt\n", ""), search);
        assertEquals(new Outcome(0, "", ""), local().nixo("exec", "nixo-work", "--", "sh", "-c",
                "echo from-the-session > /workspace/made.txt"));
        assertEquals("from-the-session\n", Files.readString(project.resolve("made.txt")));
        // and so is the shell's
        Outcome shell = local().runWithInput("echo from-the-shell > /workspace/shell.txt\nexit 3\n", "enter", "nixo-work");
        assertEquals(3, shell.exit(), shell.toString());
        assertEquals("from-the-shell\n", Files.readString(project.resolve("shell.txt")));
        assertEquals(new Outcome(0, "made.txt\nnotes.txt\nshell.txt\n", ""),
                local().nixo("exec", "nixo-work", "--", "sh", "-c", "fd --type f --base-directory /workspace | sort"));

        JsonNode status = JSON.readTree(local().nixo("status", "--json", "nixo-work").stdout());
        assertEquals(project.toRealPath().toString(), status.path("host_workspace").asText(), status.toString());
        assertEquals("off", status.path("network").asText(), status.toString());
        Outcome shown = local().nixo("status", "nixo-work");
        assertTrue(shown.stdout().contains("packages: ripgrep, fd, coreutils\n"), shown.toString());
        assertTrue(shown.stdout().contains("host_workspace: " + project.toRealPath() + "\n"), shown.toString());
        assertTrue(shown.stdout().contains("agent: claude-code\n"), shown.toString());

        // outside the prefix: refused in one line, nothing stored
        Path outside = shared(McpRootsIT.BASE.resolve("outside/nixo-project"));
        Outcome refused = local().nixo("create", "--workspace", outside.toString(), "--name", "nixo-outside");
        assertEquals(Exit.REFUSED.code, refused.exit(), refused.toString());
        assertEquals(1, refused.stderr().lines().count(), refused.toString());
        assertTrue(refused.stderr().contains("host_workspace") && refused.stderr().contains("allowed-prefixes"),
                refused.toString());
        assertEquals(Exit.NOT_FOUND.code, local().nixo("status", "nixo-outside").exit());
        assertEquals(0, local().nixo("destroy", "nixo-work").exit());
        assertTrue(Files.exists(project.resolve("made.txt")), "destroying the session leaves the host directory");
    }

    @Test
    void networkTakesOffOrFull() throws Exception {
        // build-install asks for the network; --network off takes it away, and rust is there
        Outcome created = local().nixo("create", "--profile", "build-install", "--network", "off", "--json");
        assertEquals(0, created.exit(), created.toString());
        JsonNode session = JSON.readTree(created.stdout());
        assertEquals("off", session.path("network").asText(), created.stdout());
        String id = session.path("id").asText();
        Outcome rust = local().nixo("exec", id, "--", "sh", "-c",
                "printf 'fn main() { println!(\"{}\", 6 * 7); }' > /tmp/m.rs && rustc -o /tmp/m /tmp/m.rs && /tmp/m && cargo --version");
        assertEquals(0, rust.exit(), rust.toString());
        assertTrue(rust.stdout().startsWith("42\ncargo "), rust.toString());

        // full, spelt out or bare, asks for the network, which this tenant's policy (the default) does not grant
        for (Outcome full : List.of(local().nixo("create", "--with", "jq", "--network", "full"),
                local().nixo("create", "--with", "jq", "--network", "--name", "nixo-net"),
                local().nixo("run", "-l", "bash", "--network", "echo net"))) {
            assertEquals(Exit.REFUSED.code, full.exit(), full.toString());
            assertTrue(full.stderr().contains("network \"full\" is not allowed"), full.toString());
        }
        Outcome wrong = local().nixo("create", "--with", "jq", "--network", "sometimes");
        assertEquals(Exit.USAGE.code, wrong.exit(), wrong.toString());
        assertTrue(wrong.stderr().startsWith("nix-exec: --network: 'sometimes' is neither off nor full"), wrong.toString());
        assertEquals(new Outcome(0, "off\n", ""), local().nixo("run", "-l", "bash", "--network", "off", "echo off"));
    }

    @Test
    void theCatalogIsKeyedByNameAndItsNamesAreAttributes() throws Exception {
        JsonNode catalog = JSON.readTree(local().nixo("catalog", "--json").stdout());
        List<String> agents = new ArrayList<>();
        catalog.path("agents").fieldNames().forEachRemaining(agents::add);
        assertTrue(agents.containsAll(List.of("claude-code", "codex", "gemini-cli", "amp", "aider", "opencode", "goose")),
                catalog.toString());
        assertEquals("amp-cli", catalog.path("agents").path("amp").path("attribute").asText(), catalog.toString());
        List<String> tools = new ArrayList<>();
        catalog.path("tools").fieldNames().forEachRemaining(tools::add);
        assertEquals(List.of("python312", "nodejs_22", "rustc", "cargo", "go", "git", "coreutils", "bash", "findutils",
                "gnugrep", "gnused", "gawk", "gnumake", "gcc", "gnutar", "gzip", "curl", "cacert", "ripgrep", "fd", "jq",
                "less", "zsh", "nix"), tools);

        JsonNode grouped = JSON.readTree(local().nixo("catalog", "--json", "--grouped").stdout());
        assertTrue(grouped.path("agentCategories").path("vendor").has("claude-code"), grouped.toString());
        assertFalse(grouped.has("agent_categories") || grouped.has("agents"), grouped.toString());

        // a catalog name is its attribute: amp is amp-cli (which the offline fixture lacks, so the build names it)
        Outcome amp = local().nixo("create", "--with", "amp", "--name", "nixo-amp", "--json");
        assertEquals(Exit.COULD_NOT_RUN.code, amp.exit(), amp.toString());
        assertEquals("[\"amp-cli\"]", JSON.readTree(amp.stdout()).path("packages").toString(), amp.toString());
        assertTrue(amp.stderr().contains("amp-cli"), amp.toString());
    }

    @Test
    void everyCommandHasHelpWithItsOptionsAndAnExample() throws Exception {
        Outcome bare = local().nixo();
        assertEquals(0, bare.exit(), bare.toString());
        assertTrue(bare.stdout().startsWith("Usage: nixo "), bare.toString());
        Set<String> commands = NixExecCommand.commandLine().getSubcommands().keySet();
        assertTrue(commands.containsAll(List.of("run", "create", "exec", "enter", "list", "status", "destroy", "build",
                "catalog", "jobs", "logs", "completion", "serve", "help")), commands.toString());
        for (String command : commands) {
            picocli.CommandLine spec = NixExecCommand.commandLine().getSubcommands().get(command);
            for (Outcome help : List.of(local().nixo("help", command), local().nixo(command, "--help"))) {
                assertEquals(0, help.exit(), command + ": " + help);
                assertTrue(help.stdout().contains("Usage: nixo " + command + " "), command + ": " + help);
                for (var option : spec.getCommandSpec().options()) {
                    assertTrue(help.stdout().contains(option.longestName()), command + " lists " + option.longestName()
                            + ": " + help);
                }
                assertTrue(help.stdout().contains("Example"), command + " has an example: " + help);
            }
        }
    }

    @Test
    void clientOptionsGoBeforeOrAfterTheCommand() throws Exception {
        // the variable names a closed port: only the option reaches the server
        CommandLine wrongServer = CommandLine.against("http://127.0.0.1:" + closedPort(), null);
        for (Outcome listed : List.of(wrongServer.nixo("--json", "--server", base.toString(), "list"),
                wrongServer.nixo("--server", base.toString(), "list", "--json"),
                wrongServer.run("--server", base.toString(), "--json", "list"))) {
            assertEquals(0, listed.exit(), listed.toString());
            assertTrue(JSON.readTree(listed.stdout()).isArray(), listed.toString());
        }
        Outcome unreachable = wrongServer.nixo("list");
        assertEquals(Exit.UNREACHABLE.code, unreachable.exit(), unreachable.toString());
        // given twice, the one after the command wins
        Outcome both = CommandLine.against(base.toString(), null).nixo("--server", "http://127.0.0.1:" + closedPort(),
                "list", "--server", base.toString());
        assertEquals(0, both.exit(), both.toString());
    }

    /** A directory the sandbox's per-run uid may write (the service runs as root in the tests). */
    private static Path shared(Path dir) throws IOException {
        Files.createDirectories(dir);
        for (Path d = dir; d.startsWith(McpRootsIT.BASE); d = d.getParent()) {
            Files.setPosixFilePermissions(d, PosixFilePermissions.fromString(d.equals(dir) ? "rwxrwxrwx" : "rwxr-xr-x"));
        }
        return dir;
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
