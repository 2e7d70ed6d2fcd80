package dev.nixexec.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
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

    @Test
    void hostFilesAreCheckedRealPathsInsideThePrefixNeverTheSandboxsOwn() throws Exception {
        Path allowed = Files.createDirectories(dir.resolve("allowed")).toRealPath();
        Path file = Files.writeString(allowed.resolve("data.csv"), "x");
        Path sub = Files.createDirectories(allowed.resolve("sub"));
        HostWorkspaces local = policy(false, false, allowed);
        // roots need not be on: files are their own feature, bounded by the same prefixes
        assertEquals(List.of(new HostMount(file, false), new HostMount(sub, true)),
                local.mounts(List.of(file.toString()), List.of(sub.toString())));
        assertEquals(List.of(), local.mounts(null, List.of()));
        local.recheck(List.of(new HostMount(file, false)));

        assertRefused("files", "is a symlink or lies under one", () -> local.mounts(List.of(
                Files.createSymbolicLink(allowed.resolve("link"), file).toString()), null));
        assertRefused("writable_files", "has a '.' part", () -> local.mounts(null, List.of(allowed + "/./data.csv")));
        assertRefused("files", "is named twice", () -> local.mounts(List.of(file.toString(), file.toString()), null));
        assertRefused("files", "at most 32", () -> local.mounts(Collections.nCopies(33, file.toString()), null));
        assertRefused("files", "/ would cover the sandbox's own /nix", () -> policy(false, false, Path.of("/"))
                .mounts(List.of("/"), null));
        assertRefused("files", "/proc would cover the sandbox's own /proc", () -> policy(false, false, Path.of("/"))
                .mounts(List.of("/proc"), null));
        assertRefused("files", "would cover the sandbox's own /nix", () -> policy(false, false, Path.of("/nix"))
                .mounts(List.of("/nix/store"), null));
        assertRefused("files", "need nixexec.mcp.roots.allowed-prefixes", () -> policy(false, false, dir.resolve("none"))
                .mounts(List.of(file.toString()), null));
        assertRefused("files", "keys are on here", () -> policy(true, true, allowed).mounts(List.of(file.toString()), null));
        // swapped for a symlink after the call: the worker's second check refuses it
        Files.delete(file);
        Files.createSymbolicLink(file, sub);
        assertRefused("files", "is a symlink", () -> local.recheck(List.of(new HostMount(file, false))));
    }

    private interface Check {
        void run() throws HostWorkspaces.Refused, IOException;
    }

    private static void assertRefused(String field, String mentions, Check check) {
        HostWorkspaces.Refused refused = assertThrows(HostWorkspaces.Refused.class, check::run);
        assertEquals(field, refused.field());
        assertTrue(refused.getMessage().contains(mentions), refused.getMessage());
        assertFalse(refused.getMessage().contains("\n"), refused.getMessage());
    }
}
