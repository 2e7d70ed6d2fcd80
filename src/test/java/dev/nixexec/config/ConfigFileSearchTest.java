package dev.nixexec.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The search order: -Dnixexec.config, NIX_EXEC_CONFIG, XDG, ~/.nix-exec.yaml, /etc. */
class ConfigFileSearchTest {

    @TempDir
    Path root;

    Path home;
    Path etc;
    Path xdg;
    Path explicit;
    Path fromEnv;

    @BeforeEach
    void files() throws IOException {
        home = Files.createDirectories(root.resolve("home"));
        etc = Files.createDirectories(root.resolve("etc"));
        xdg = Files.createDirectories(root.resolve("xdg"));
        explicit = touch(root.resolve("explicit.yaml"));
        fromEnv = touch(root.resolve("env.yaml"));
        touch(xdg.resolve("nix-exec/config.yaml"));
        touch(home.resolve(".nix-exec.yaml"));
        touch(etc.resolve("nix-exec/config.yaml"));
    }

    @Test
    void eachPlaceWinsOverTheOnesAfterIt() throws IOException {
        Map<String, String> env = Map.of("NIX_EXEC_CONFIG", fromEnv.toString(), "XDG_CONFIG_HOME", xdg.toString());
        assertEquals(explicit, search(Optional.of(explicit.toString()), env).find().orElseThrow());
        assertEquals(fromEnv, search(Optional.empty(), env).find().orElseThrow());
        Map<String, String> xdgOnly = Map.of("XDG_CONFIG_HOME", xdg.toString());
        assertEquals(xdg.resolve("nix-exec/config.yaml"), search(Optional.empty(), xdgOnly).find().orElseThrow());
        Files.delete(xdg.resolve("nix-exec/config.yaml"));
        assertEquals(home.resolve(".nix-exec.yaml"), search(Optional.empty(), xdgOnly).find().orElseThrow());
        Files.delete(home.resolve(".nix-exec.yaml"));
        assertEquals(etc.resolve("nix-exec/config.yaml"), search(Optional.empty(), xdgOnly).find().orElseThrow());
        Files.delete(etc.resolve("nix-exec/config.yaml"));
        assertEquals(Optional.empty(), search(Optional.empty(), xdgOnly).find());
    }

    @Test
    void withoutXdgConfigHomeTheDotConfigDirectoryIsUsed() throws IOException {
        Path dotConfig = touch(home.resolve(".config/nix-exec/config.yaml"));
        assertEquals(dotConfig, search(Optional.empty(), Map.of()).find().orElseThrow());
    }

    @Test
    void aNamedFileMustExist() {
        Path missing = root.resolve("missing.yaml");
        var fromProperty = assertThrows(ConfigFileException.class,
                () -> search(Optional.of(missing.toString()), Map.of()).find());
        assertEquals("nix-exec config " + missing + ": nixexec.config: names a file that does not exist",
                fromProperty.getMessage());
        var fromEnvironment = assertThrows(ConfigFileException.class,
                () -> search(Optional.empty(), Map.of("NIX_EXEC_CONFIG", missing.toString())).find());
        assertTrue(fromEnvironment.getMessage().contains("NIX_EXEC_CONFIG: names a file that does not exist"));
    }

    private ConfigFileSearch search(Optional<String> property, Map<String, String> env) {
        return new ConfigFileSearch(property, env, home, etc);
    }

    private static Path touch(Path file) throws IOException {
        Files.createDirectories(file.getParent());
        return Files.writeString(file, "{}\n");
    }
}
