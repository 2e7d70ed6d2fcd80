package dev.nixexec.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where the nix-exec YAML file is looked for, first match wins: {@code -Dnixexec.config},
 * {@code NIX_EXEC_CONFIG}, {@code $XDG_CONFIG_HOME/nix-exec/config.yaml},
 * {@code ~/.nix-exec.yaml}, {@code /etc/nix-exec/config.yaml}. A file named explicitly (the first
 * two) must exist; the well-known places are skipped when absent.
 *
 * @param explicit the value of {@code nixexec.config}, if set
 * @param env      the process environment
 * @param home     the user's home directory
 * @param etc      the system configuration directory ({@code /etc}; a parameter for tests)
 */
public record ConfigFileSearch(Optional<String> explicit, Map<String, String> env, Path home, Path etc) {

    public static ConfigFileSearch ofProcess(Optional<String> explicit) {
        return new ConfigFileSearch(explicit, System.getenv(), Path.of(System.getProperty("user.home")), Path.of("/etc"));
    }

    /** The file to read, or empty when there is none. */
    public Optional<Path> find() {
        Optional<Path> named = explicit.filter(v -> !v.isBlank()).map(Path::of);
        String source = "nixexec.config";
        if (named.isEmpty()) {
            named = Optional.ofNullable(env.get("NIX_EXEC_CONFIG")).filter(v -> !v.isBlank()).map(Path::of);
            source = "NIX_EXEC_CONFIG";
        }
        if (named.isPresent()) {
            if (!Files.isRegularFile(named.get())) {
                throw new ConfigFileException(named.get(), source, "names a file that does not exist");
            }
            return named;
        }
        return candidates().stream().filter(Files::isRegularFile).findFirst();
    }

    /** The well-known places, in order. */
    public List<Path> candidates() {
        List<Path> places = new ArrayList<>();
        String xdg = env.get("XDG_CONFIG_HOME");
        places.add((xdg != null && !xdg.isBlank() ? Path.of(xdg) : home.resolve(".config")).resolve("nix-exec/config.yaml"));
        places.add(home.resolve(".nix-exec.yaml"));
        places.add(etc.resolve("nix-exec/config.yaml"));
        return places;
    }
}
