package dev.nixexec.config;

import java.nio.file.Path;

/**
 * A host file or directory mounted into one run at its own path (nix-exec's run_code
 * {@code files} read-only, {@code writable_files} read-write), as {@link HostWorkspaces} checked it.
 */
public record HostMount(Path path, boolean writable) {
}
