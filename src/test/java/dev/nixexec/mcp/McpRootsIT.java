package dev.nixexec.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.nixexec.testing.NixSpy;
import dev.nixexec.testing.NodeProject;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * MCP roots in local mode, with the official SDK client: a root inside the allowed prefix is the
 * job's read-write /workspace (what the job writes lands on the host); a root outside is ignored.
 * And nix-exec's run_code {@code files} and {@code writable_files}: host paths inside the prefix
 * mounted at their own paths, anything else refused in one line.
 */
@QuarkusIntegrationTest
@TestProfile(McpRootsIT.LocalRoots.class)
@WithTestResource(NixSpy.class)
public class McpRootsIT {

    /**
     * Outside the checkout: the sandbox's per-run uid must reach the root, and a checkout may sit
     * under a directory only its owner can enter (as {@code mktemp -d} makes).
     */
    public static final Path BASE = traversableTempDir();

    public static class LocalRoots implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("nixexec.auth.enabled", "false", "nixexec.mcp.roots.enabled", "true",
                    "nixexec.mcp.roots.allowed-prefixes", BASE.resolve("allowed").toString());
        }
    }

    @TestHTTPResource("/")
    URL base;

    @Test
    void rootBecomesTheWorkspaceOnlyInsideTheAllowedPrefix() throws Exception {
        Path project = shared(BASE.resolve("allowed/project"));
        Path outside = shared(BASE.resolve("outside/project"));
        Files.writeString(project.resolve("input.txt"), "from the host\n");

        NodeProject.Outcome outcome = new NodeProject("mcp").run("roots-check.mjs", 300, base.toString(),
                project.toString(), outside.toString());

        assertEquals(0, outcome.exitCode(), outcome.output());
        assertEquals(2, outcome.output().lines().filter(line -> line.startsWith("ok ")).count(), outcome.output());
        assertEquals("written-by-job\n", Files.readString(project.resolve("output.txt")));
        assertFalse(Files.exists(outside.resolve("pwned")));
    }

    @Test
    void filesAndWritableFilesMountHostPathsInsideTheAllowedPrefix() throws Exception {
        Path allowed = shared(BASE.resolve("allowed/host-files"));
        Path outside = shared(BASE.resolve("outside/host-files"));
        Path data = shared(allowed.resolve("data"));
        Files.writeString(data.resolve("input.txt"), "from the host\n");
        Files.writeString(shared(data.resolve("dir")).resolve("a.txt"), "a\n");
        Path out = allowed.resolve("out.txt");
        Files.writeString(out, "old\n");
        Files.setPosixFilePermissions(out, PosixFilePermissions.fromString("rw-rw-rw-"));
        Files.writeString(outside.resolve("secret.txt"), "secret\n");
        Files.createSymbolicLink(allowed.resolve("link"), outside.resolve("secret.txt"));

        NodeProject.Outcome outcome = new NodeProject("mcp").run("host-files-check.mjs", 300, base.toString(),
                allowed.toString(), outside.toString());

        assertEquals(0, outcome.exitCode(), outcome.output());
        assertEquals(2, outcome.output().lines().filter(line -> line.startsWith("ok ")).count(), outcome.output());
        // the refused calls (each would have written x) left it as the first call wrote it
        assertEquals("new\n", Files.readString(out));
        assertEquals("from the host\n", Files.readString(data.resolve("input.txt")));
        assertFalse(Files.exists(data.resolve("dir/y")));
        assertEquals("secret\n", Files.readString(outside.resolve("secret.txt")));
    }

    private static Path traversableTempDir() {
        try {
            Path dir = Files.createTempDirectory("nixexec-roots-test-");
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @AfterAll
    static void removeBase() throws IOException {
        wipe(BASE);
    }

    /** A directory the sandbox's per-run uid may write (the service runs as root in the tests). */
    private static Path shared(Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        return dir;
    }

    private static void wipe(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> all = Files.walk(dir)) {
                all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
