package dev.nixexec.config;

import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/** Where the service keeps its state; created on first use. */
@ApplicationScoped
public class StatePaths {

    private final Path stateDir;
    private final Path cacheDir;
    private final Path jobsDir;

    public StatePaths(NixExecConfig config) {
        this.stateDir = config.stateDir().orElseGet(StatePaths::defaultStateDir).toAbsolutePath();
        this.cacheDir = config.executor().cacheDir().orElse(stateDir.resolve("cache")).toAbsolutePath();
        this.jobsDir = config.executor().tempDir().orElseGet(() -> defaultJobsDir(stateDir)).toAbsolutePath();
    }

    /**
     * A root service drops to an unprivileged uid for the sandbox, which must traverse the path to
     * its job directory; root's own home is not traversable, so jobs then live under /var/tmp.
     */
    private static Path defaultJobsDir(Path stateDir) {
        Path jobs = stateDir.resolve("jobs");
        if (!"root".equals(System.getProperty("user.name")) || traversableByOthers(stateDir)) {
            return jobs;
        }
        return Path.of("/var/tmp/nix-exec-jobs");
    }

    private static boolean traversableByOthers(Path dir) {
        for (Path p = dir; p != null; p = p.getParent()) {
            if (Files.isDirectory(p)) {
                try {
                    if (!Files.getPosixFilePermissions(p).contains(java.nio.file.attribute.PosixFilePermission.OTHERS_EXECUTE)) {
                        return false;
                    }
                } catch (IOException e) {
                    return false;
                }
            }
        }
        return true;
    }

    /** $XDG_DATA_HOME/nix-exec, or ~/.local/share/nix-exec. */
    public static Path defaultStateDir() {
        String xdg = System.getenv("XDG_DATA_HOME");
        Path base = xdg != null && !xdg.isBlank()
                ? Path.of(xdg)
                : Path.of(System.getProperty("user.home"), ".local", "share");
        return base.resolve("nix-exec");
    }

    public Path stateDir() {
        return ensure(stateDir);
    }

    /** GC roots and environment metadata. */
    public Path cacheDir() {
        return ensure(cacheDir);
    }

    /** Per-job directories; traversable (not listable) so an unprivileged sandbox can reach its own. */
    public Path jobsDir() {
        return ensure(jobsDir);
    }

    private static Path ensure(Path dir) {
        try {
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir);
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create state directory " + dir, e);
        }
    }
}
