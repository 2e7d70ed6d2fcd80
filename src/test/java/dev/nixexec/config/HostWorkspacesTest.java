package dev.nixexec.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which host directories may become /workspace, on real directories and symlinks. */
class HostWorkspacesTest {

    @TempDir
    Path dir;

    private HostWorkspaces policy(boolean authEnabled, boolean rootsEnabled, Path prefix) {
        SmallRyeConfig config = new SmallRyeConfigBuilder().withMapping(NixExecConfig.class)
                .withConverter(Duration.class, 100, new DurationConverter())
                .withSources(new PropertiesConfigSource(Map.of(
                        "nixexec.auth.enabled", Boolean.toString(authEnabled),
                        "nixexec.mcp.roots.enabled", Boolean.toString(rootsEnabled),
                        "nixexec.mcp.roots.allowed-prefixes", prefix.toString()), "test", 500))
                .build();
        return new HostWorkspaces(config.getConfigMapping(NixExecConfig.class));
    }

    @Test
    void aDirectoryInsideThePrefixIsMountedInLocalMode() throws IOException {
        Path allowed = Files.createDirectories(dir.resolve("allowed/project"));
        HostWorkspaces local = policy(false, true, dir.resolve("allowed"));
        assertEquals(Optional.of(allowed.toRealPath()), local.fromRoot(allowed.toUri().toString()));
        assertEquals(Optional.of(allowed.toRealPath()), local.fromRoot("file://localhost" + allowed));
    }

    @Test
    void withAuthenticationOnNoHostPathIsEverMounted() throws IOException {
        Path allowed = Files.createDirectories(dir.resolve("allowed/project"));
        HostWorkspaces shared = policy(true, true, dir.resolve("allowed"));
        assertTrue(shared.fromRoot(allowed.toUri().toString()).isEmpty());
        assertTrue(shared.permit(allowed).isEmpty());
    }

    @Test
    void rootsDisabledMountsNothing() throws IOException {
        Path allowed = Files.createDirectories(dir.resolve("allowed/project"));
        assertTrue(policy(false, false, dir.resolve("allowed")).permit(allowed).isEmpty());
    }

    @Test
    void escapesAreRefused() throws IOException {
        Files.createDirectories(dir.resolve("allowed"));
        Path outside = Files.createDirectories(dir.resolve("outside"));
        Path link = Files.createSymbolicLink(dir.resolve("allowed/link"), outside);
        Path file = Files.writeString(dir.resolve("allowed/file"), "x");
        HostWorkspaces local = policy(false, true, dir.resolve("allowed"));
        assertTrue(local.permit(outside).isEmpty(), "outside the prefix");
        assertTrue(local.permit(link).isEmpty(), "a symlink out of the prefix");
        assertTrue(local.permit(dir.resolve("allowed/../outside")).isEmpty(), "dot-dot out of the prefix");
        assertTrue(local.permit(file).isEmpty(), "not a directory");
        assertTrue(local.permit(Path.of("relative")).isEmpty(), "relative");
        assertTrue(local.permit(dir.resolve("allowed/missing")).isEmpty(), "missing");
        assertTrue(local.fromRoot("file://other-host" + dir.resolve("allowed")).isEmpty(), "another host");
        assertTrue(local.fromRoot("https://example.com" + dir.resolve("allowed")).isEmpty(), "not file:");
        assertTrue(local.fromRoot("not a uri at all").isEmpty(), "garbage");
        Files.createDirectories(dir.resolve("allowedness"));
        assertTrue(local.fromRoot(dir.resolve("allowedness").toUri().toString()).isEmpty(), "a sibling sharing the prefix text");
    }
}
