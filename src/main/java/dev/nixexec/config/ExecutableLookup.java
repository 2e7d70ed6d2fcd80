package dev.nixexec.config;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Finds host executables once, so the sandbox and nix run with an empty environment and absolute paths. */
public final class ExecutableLookup {

    private ExecutableLookup() {
    }

    /** An absolute name is taken as is; a bare name is searched on the service's PATH. */
    public static Optional<Path> find(String name) {
        if (name.contains("/")) {
            Path path = Path.of(name);
            return Files.isExecutable(path) ? Optional.of(path.toAbsolutePath()) : Optional.empty();
        }
        String pathVariable = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        for (String dir : pathVariable.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate.toAbsolutePath());
            }
        }
        return Optional.empty();
    }
}
