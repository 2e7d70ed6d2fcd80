package dev.nixexec.config;

import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Which host directories may be mounted at {@code /workspace}: only in the single-user local mode
 * with MCP roots enabled, only existing directories whose real path (symlinks resolved) lies
 * inside a configured prefix. And which host paths a run_code call's {@code files} and
 * {@code writable_files} may mount at their own paths: only in local mode, only existing files
 * and directories inside a prefix, named by their real path (no symlink on the way, no
 * {@code ..}). Asked twice: when a job is submitted and again by the worker right before it
 * mounts, so a path swapped for a symlink in between is still caught.
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

    /** At most this many host paths per run. */
    public static final int MAX_MOUNTS = 32;

    /**
     * Sandbox paths a host path may not be mounted over or under: the store, the kernel's and
     * bubblewrap's file systems, the run's code, workspace and session paths, the synthetic /etc
     * and the /bin/sh and /usr/bin/env links.
     */
    private static final List<Path> RESERVED = List.of("/nix", "/proc", "/dev", "/code", "/workspace", "/etc",
            "/bin", "/usr", "/home/sandbox", "/cache").stream().map(Path::of).toList();

    /** Why a host path may not be mounted: one line naming it, and the argument it came in. */
    public static final class Refused extends Exception {
        private final String field;

        Refused(String field, String message) {
            super(message);
            this.field = field;
        }

        /** {@code files} or {@code writable_files}. */
        public String field() {
            return field;
        }
    }

    /**
     * The host paths {@code readOnly} and {@code writable} as mounts, every one checked, or the
     * first that may not be mounted: with keys on; with no allowed prefix; not absolute, with a
     * {@code .} or {@code ..} part, through a symlink, missing, neither a file nor a directory,
     * outside the prefixes, over a sandbox path, or named twice.
     */
    public List<HostMount> mounts(List<String> readOnly, List<String> writable) throws Refused {
        List<String> ro = readOnly == null ? List.of() : readOnly;
        List<String> rw = writable == null ? List.of() : writable;
        if (ro.isEmpty() && rw.isEmpty()) {
            return List.of();
        }
        String named = ro.isEmpty() ? "writable_files" : "files";
        if (config.auth().enabled()) {
            throw new Refused(named, "files and writable_files mount host paths, which only the single-user local mode does "
                    + "(keys are on here): put the files in a workspace instead (write_workspace_file)");
        }
        if (prefixes().isEmpty()) {
            throw new Refused(named, "files and writable_files need nixexec.mcp.roots.allowed-prefixes, the host "
                    + "directories they may come from (none are set)");
        }
        if (ro.size() + rw.size() > MAX_MOUNTS) {
            throw new Refused(named, "at most " + MAX_MOUNTS + " host paths in files and writable_files together");
        }
        List<HostMount> mounts = new ArrayList<>();
        Set<Path> seen = new HashSet<>();
        for (int i = 0; i < ro.size() + rw.size(); i++) {
            boolean isWritable = i >= ro.size();
            String given = isWritable ? rw.get(i - ro.size()) : ro.get(i);
            String field = isWritable ? "writable_files" : "files";
            HostMount mount = new HostMount(checked(field, given), isWritable);
            if (!seen.add(mount.path())) {
                throw new Refused(field, given + " is named twice");
            }
            mounts.add(mount);
        }
        return List.copyOf(mounts);
    }

    /** {@code mounts} (as {@link #mounts} gave them) checked again: the worker, right before it mounts them. */
    public void recheck(List<HostMount> mounts) throws Refused {
        List<String> ro = mounts.stream().filter(m -> !m.writable()).map(m -> m.path().toString()).toList();
        List<String> rw = mounts.stream().filter(HostMount::writable).map(m -> m.path().toString()).toList();
        if (!mounts(ro, rw).equals(mounts)) {
            throw new Refused("files", "the host paths changed since the job was submitted");
        }
    }

    private Path checked(String field, String given) throws Refused {
        if (given == null || given.isEmpty() || given.indexOf('\0') >= 0) {
            throw new Refused(field, "an empty path or one with a NUL character");
        }
        if (!given.startsWith("/")) {
            throw new Refused(field, given + " is not an absolute path");
        }
        for (String part : given.split("/")) {
            if (part.equals(".") || part.equals("..")) {
                throw new Refused(field, given + " has a '" + part + "' part; give the path itself");
            }
        }
        Path path = Path.of(given);
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            throw new Refused(field, given + " does not exist");
        }
        Path real;
        try {
            real = path.toRealPath();
        } catch (IOException e) {
            throw new Refused(field, given + " cannot be read (" + e.getMessage() + ")");
        }
        if (!real.equals(path)) {
            throw new Refused(field, given + " is a symlink or lies under one (it is " + real
                    + "); give the real path");
        }
        if (!Files.isRegularFile(real, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(real, LinkOption.NOFOLLOW_LINKS)) {
            throw new Refused(field, given + " is neither a file nor a directory");
        }
        if (prefixes().stream().noneMatch(real::startsWith)) {
            throw new Refused(field, given + " is outside nixexec.mcp.roots.allowed-prefixes");
        }
        for (Path reserved : RESERVED) {
            if (real.startsWith(reserved) || reserved.startsWith(real)) {
                throw new Refused(field, given + " would cover the sandbox's own " + reserved);
            }
        }
        return real;
    }

    /** The allowed prefixes that exist, as real paths. */
    private List<Path> prefixes() {
        List<Path> real = new ArrayList<>();
        for (Path prefix : config.mcp().roots().allowedPrefixes().orElse(List.of())) {
            try {
                if (prefix.isAbsolute() && Files.isDirectory(prefix)) {
                    real.add(prefix.toRealPath());
                }
            } catch (IOException e) {
                // an unreadable prefix allows nothing
            }
        }
        return real;
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
