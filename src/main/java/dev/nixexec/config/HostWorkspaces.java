package dev.nixexec.config;

import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Which host directories may be mounted at {@code /workspace}: only in the single-user local mode
 * with MCP roots enabled, only existing directories whose real path (symlinks resolved) lies
 * inside a configured prefix. Asked twice: when a job is submitted and again by the worker right
 * before it mounts, so a directory swapped for a symlink in between is still caught.
 */
@ApplicationScoped
public class HostWorkspaces {

    private final NixExecConfig config;

    public HostWorkspaces(NixExecConfig config) {
        this.config = config;
    }

    /** Whether any host directory can be mounted on this node. */
    public boolean enabled() {
        return !config.auth().enabled() && config.mcp().roots().enabled()
                && !config.mcp().roots().allowedPrefixes().orElse(List.of()).isEmpty();
    }

    /** The real path of a {@code file://} root if it may be mounted. */
    public Optional<Path> fromRoot(String uri) {
        if (!enabled() || uri == null) {
            return Optional.empty();
        }
        try {
            URI parsed = URI.create(uri);
            if (!"file".equals(parsed.getScheme()) || (parsed.getHost() != null && !parsed.getHost().isEmpty()
                    && !parsed.getHost().equals("localhost"))) {
                return Optional.empty();
            }
            return permit(Path.of(parsed.getPath()));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** The real path of {@code directory} if it may be mounted. */
    public Optional<Path> permit(Path directory) {
        if (!enabled() || !directory.isAbsolute()) {
            return Optional.empty();
        }
        try {
            Path real = directory.toRealPath();
            if (!Files.isDirectory(real, LinkOption.NOFOLLOW_LINKS)) {
                return Optional.empty();
            }
            for (Path prefix : config.mcp().roots().allowedPrefixes().orElse(List.of())) {
                if (prefix.isAbsolute() && Files.isDirectory(prefix) && real.startsWith(prefix.toRealPath())) {
                    return Optional.of(real);
                }
            }
            return Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
