package dev.nixexec.config;

import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Set;

/** Where the service keeps its state; created on first use. */
@ApplicationScoped
public class StatePaths {

    private static final Set<PosixFilePermission> PRIVATE = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> PASS_THROUGH = PosixFilePermissions.fromString("rwx--x--x");
    private static final int S_IFMT = 0170000;
    private static final int S_IFDIR = 0040000;
    private static final int GROUP_OR_OTHERS_WRITE = 0022;
    private static final long OWN_UID = new com.sun.security.auth.module.UnixSystem().getUid();

    private final Path stateDir;
    private final Path cacheDir;
    private final Path jobsDir;
    /** The jobs directory is this instance's own under /run (not configured, not in the state directory). */
    private final boolean jobsDirIsRunTime;

    public StatePaths(NixExecConfig config) {
        this.stateDir = config.stateDir().orElseGet(StatePaths::defaultStateDir).toAbsolutePath();
        this.cacheDir = config.executor().cacheDir().orElse(stateDir.resolve("cache")).toAbsolutePath();
        this.jobsDir = config.executor().tempDir().orElseGet(() -> defaultJobsDir(stateDir)).toAbsolutePath();
        this.jobsDirIsRunTime = config.executor().tempDir().isEmpty() && jobsDir.startsWith(privateRunDir());
    }

    /** Settles the state directory's mode at start-up, whatever this node goes on to use. */
    void onStart(@Observes StartupEvent event) {
        stateDir();
    }

    /**
     * A root service drops to an unprivileged uid for the sandbox, which must traverse the path to
     * its job directory; root's own home is not traversable, so jobs then live under /run, where
     * only root can create anything (unlike /var/tmp, where another user could plant it first).
     * There each instance has a directory of its own, named after its state directory: instances
     * never see each other's runs, and a restarted one finds what it left behind.
     */
    static Path defaultJobsDir(Path stateDir) {
        Path jobs = stateDir.resolve("jobs");
        if (!"root".equals(System.getProperty("user.name")) || traversableByOthers(stateDir)) {
            return jobs;
        }
        return privateRunDir().resolve("jobs-" + HexFormat.of().formatHex(sha256(stateDir.toString()), 0, 8));
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Host-wide runtime directory of the service: /run/nix-exec as root, else under the temp dir.
     * Shared by every instance on the host: what goes in is per instance (jobs-, postgres-) or
     * coordinates instances (uids).
     */
    public static Path privateRunDir() {
        return "root".equals(System.getProperty("user.name"))
                ? Path.of("/run/nix-exec")
                : Path.of(System.getProperty("java.io.tmpdir"), "nix-exec-" + System.getProperty("user.name"));
    }

    /**
     * Creates the directory (traversable, not listable, by others) or checks an existing one: it
     * must be a real directory owned by this service and writable by nobody else, since the service
     * writes files there that a root launcher reads back.
     */
    public static Path ensurePrivate(Path dir) throws IOException {
        if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            if (dir.getParent() != null) {
                Files.createDirectories(dir.getParent());
            }
            try {
                Files.createDirectory(dir);
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
            } catch (java.nio.file.FileAlreadyExistsException raced) {
                // checked below like any existing directory
            }
        }
        // by number: a directory checked on every run's way must not cost a read of the user database
        var checked = Files.readAttributes(dir, "unix:uid,mode", LinkOption.NOFOLLOW_LINKS);
        int mode = (Integer) checked.get("mode");
        if ((mode & S_IFMT) == S_IFDIR && (Integer) checked.get("uid") == OWN_UID && (mode & GROUP_OR_OTHERS_WRITE) == 0) {
            return dir;
        }
        var attributes = Files.readAttributes(dir, java.nio.file.attribute.PosixFileAttributes.class,
                LinkOption.NOFOLLOW_LINKS);
        throw new IOException(dir + " must be a directory owned by " + System.getProperty("user.name")
                + " and writable by no one else (it is " + (attributes.isSymbolicLink() ? "a symbolic link"
                : "owned by " + attributes.owner().getName() + " with "
                + PosixFilePermissions.toString(attributes.permissions())) + ")");
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

    /**
     * Mode of a state directory about to be made: private, unless a root service will keep its
     * jobs inside (see {@link #defaultJobsDir}), whose runs, under other uids, pass through it.
     */
    static Set<PosixFilePermission> newStateDirMode(Path stateDir) {
        return "root".equals(System.getProperty("user.name")) && traversableByOthers(stateDir.getParent())
                ? PASS_THROUGH : PRIVATE;
    }

    /** Creates the state directory if missing; it holds the embedded database's data and password. */
    public static void createStateDir(Path stateDir) throws IOException {
        if (Files.exists(stateDir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        Files.createDirectories(stateDir.getParent());
        try {
            Files.createDirectory(stateDir, PosixFilePermissions.asFileAttribute(PRIVATE));
            Files.setPosixFilePermissions(stateDir, newStateDirMode(stateDir));
        } catch (FileAlreadyExistsException raced) {
            // checked by ensurePrivate like any existing directory
        }
    }

    /**
     * The state directory, neither listable nor writable by others (an older version left it
     * 0755). A service that is not root makes it 0700. A root service's runs, under other uids,
     * pass through it to a jobs directory inside, so root adds the execute bits then and takes
     * none away: another configuration of this service on the directory may need them.
     */
    public Path stateDir() {
        try {
            createStateDir(stateDir);
            ensurePrivate(stateDir);
            Set<PosixFilePermission> now = Files.getPosixFilePermissions(stateDir, LinkOption.NOFOLLOW_LINKS);
            Set<PosixFilePermission> mode = EnumSet.copyOf(PRIVATE);
            if ("root".equals(System.getProperty("user.name"))) {
                now.stream().filter(p -> p == PosixFilePermission.GROUP_EXECUTE || p == PosixFilePermission.OTHERS_EXECUTE)
                        .forEach(mode::add);
                if (jobsDir.startsWith(stateDir)) {
                    mode.addAll(PASS_THROUGH);
                }
            }
            if (!now.equals(mode)) {
                Files.setPosixFilePermissions(stateDir, mode);
            }
            return stateDir;
        } catch (IOException e) {
            throw new UncheckedIOException("unusable state directory: " + e.getMessage(), e);
        }
    }

    /** GC roots and environment metadata. */
    public Path cacheDir() {
        return ensure(cacheDir);
    }

    /** Per-job directories; traversable (not listable) so an unprivileged sandbox can reach its own. */
    public Path jobsDir() {
        return ensure(jobsDir);
    }

    /**
     * Prepared closure views (sandbox.StoreViews). They are hard links into the store, so they
     * live beside it, on its filesystem: a root service keeps them under /nix/var/nix-exec (its
     * runs, under other uids, pass through there), one directory per instance, named after its
     * state directory as the jobs directory under /run is, removed at stop; a service that is not
     * root keeps them in its state directory.
     */
    public Path storeViewsDir() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return ensure(stateDir.resolve("store-views"));
        }
        try {
            Path views = Path.of("/nix/var/nix-exec");
            Files.createDirectories(views);
            return ensurePrivate(views.resolve("store-views-" + HexFormat.of().formatHex(sha256(stateDir.toString()), 0, 8)));
        } catch (IOException e) {
            throw new UncheckedIOException("unusable store views directory: " + e.getMessage(), e);
        }
    }

    /**
     * Called by each user of the jobs directory as it stops: the last one out removes the
     * instance's directory under /run once nothing is left in it. A configured directory, or one
     * in the state directory, stays.
     */
    public void releaseJobsDir() {
        if (!jobsDirIsRunTime) {
            return;
        }
        try {
            Files.deleteIfExists(jobsDir);
        } catch (DirectoryNotEmptyException stillInUse) {
            // another user has not stopped yet, or a run's directory outlived it: kept for the next start
        } catch (IOException e) {
            // a leftover empty directory under /run costs nothing
        }
    }

    private Path ensure(Path dir) {
        if (dir.startsWith(stateDir)) {
            stateDir();
        }
        try {
            return ensurePrivate(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("unusable state directory: " + e.getMessage(), e);
        }
    }
}
