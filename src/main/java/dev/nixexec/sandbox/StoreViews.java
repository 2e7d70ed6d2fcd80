package dev.nixexec.sandbox;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.config.StatePaths;
import dev.nixexec.logging.JobLogContext;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.jboss.logging.Logger;

/**
 * Each run's {@code /nix/store} under {@code store-view=closure}: a view of exactly its closure,
 * prepared once per closure and then bound with one {@code --ro-bind}, so that start-up costs what
 * the whole store's one bind costs, whatever the closure's size (bubblewrap re-reads the mount
 * table for every bind: one bind per path grows as the square of the closure).
 *
 * <p>A view is a directory holding the closure's paths rebuilt: directories made anew (with the
 * store's modes and times), regular files hard-linked to the store's own inodes (a file linked as
 * often as the filesystem allows is copied), symbolic links copied. It is built under a temporary
 * name and renamed into place whole, so that a run sees a complete view or none; it belongs to the
 * service, is writable by nobody (the files are the store's, root's and read-only) and is bound
 * read-only. Where links cannot be made (the views directory on another mount than the store:
 * link(2) fails with EXDEV; or the store's files not the service's to link), that closure's runs get
 * one bind per path instead: slower, never less strict. A view in use is never removed; one unused
 * for {@link #UNUSED_FOR}, or of which a store path is gone (collected), is, and at stop every
 * view nobody holds.
 */
@ApplicationScoped
public class StoreViews {

    private static final Logger LOG = Logger.getLogger(StoreViews.class);
    static final String STORE = "/nix/store";
    /** How long a view may go unused before it is removed (preparing it again costs a fraction of a second). */
    static final Duration UNUSED_FOR = Duration.ofDays(1);
    private static final Duration SWEEP_EVERY = Duration.ofMinutes(10);
    private static final String BUILDING = ".building-";
    /** What an earlier start left half-built or half-removed is this old at least. */
    private static final Duration LEFT_BEHIND = Duration.ofHours(1);
    private static final String REMOVING = ".removing-";

    private final StoreView setting;
    private final StatePaths paths;
    private final Map<String, View> views = new ConcurrentHashMap<>();
    private final AtomicBoolean sweeping = new AtomicBoolean();
    private final long created = System.nanoTime();
    private volatile long lastSweep = created;
    /** Whether this instance made (or found) its views directory, which its stop then clears. */
    private volatile boolean used;

    public StoreViews(NixExecConfig config, StatePaths paths) {
        this.setting = StoreView.parse(config.sandbox().storeView());
        this.paths = paths;
    }

    /** A run's hold on its store mount: the view stays until every lease on it is closed. */
    public static final class Lease implements AutoCloseable {
        private final StoreMount mount;
        private final View view;
        private final AtomicBoolean closed = new AtomicBoolean();

        private Lease(StoreMount mount, View view) {
            this.mount = mount;
            this.view = view;
        }

        public StoreMount mount() {
            return mount;
        }

        @Override
        public void close() {
            if (view != null && closed.compareAndSet(false, true)) {
                view.release();
            }
        }
    }

    /** The store mount for this run, its view prepared first if this is its closure's first run. */
    public Lease lease(SandboxSpec spec) throws IOException {
        if (setting == StoreView.WHOLE_STORE) {
            return new Lease(StoreMount.WHOLE_STORE, null);
        }
        List<String> closure = closureOf(spec);
        String name = nameOf(closure);
        while (true) {
            View view = views.computeIfAbsent(name, View::new);
            StoreMount mount = view.acquire(closure);
            if (mount != null) {
                sweepSometimes();
                return new Lease(mount, view);
            }
            // removed by a sweep between the look-up and the acquire: look again
        }
    }

    /** The closure, sorted, with the environment itself; each a top-level store path. */
    static List<String> closureOf(SandboxSpec spec) {
        TreeSet<String> closure = new TreeSet<>(spec.closure());
        closure.add(spec.environmentPath());
        for (String path : closure) {
            String name = path.startsWith(STORE + "/") ? path.substring(STORE.length() + 1) : "";
            if (name.isEmpty() || name.contains("/") || name.startsWith(".")) {
                throw new SandboxException("not a store path: " + path);
            }
        }
        return List.copyOf(closure);
    }

    private static String nameOf(List<String> closure) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            closure.forEach(p -> sha.update((p + "\n").getBytes(StandardCharsets.UTF_8)));
            return HexFormat.of().formatHex(sha.digest(), 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One closure's view: prepared by the first run that needs it; the runs holding it counted. */
    private final class View {
        private final String name;
        private StoreMount mount;
        private int users;
        private long lastUsed = created;
        private boolean removed;

        View(String name) {
            this.name = name;
        }

        /** Null when a sweep removed this view meanwhile. */
        synchronized StoreMount acquire(List<String> closure) throws IOException {
            if (removed) {
                return null;
            }
            if (mount == null) {
                mount = prepare(name, closure);
            }
            users++;
            lastUsed = System.nanoTime();
            return mount;
        }

        synchronized void release() {
            users--;
            lastUsed = System.nanoTime();
        }

        /**
         * If nobody holds the view and it is stale, renames its directory out of the way (a run
         * that comes for it now waits, then prepares it anew) and returns where it went, for the
         * caller to delete.
         */
        synchronized Optional<Path> detachIf(boolean stale, long now, Path dir) throws IOException {
            if (users > 0 || !(stale || now - lastUsed > UNUSED_FOR.toNanos())) {
                return Optional.empty();
            }
            Optional<Path> detached = detach(dir);
            removed = true;
            views.remove(name, this);
            return detached;
        }
    }

    /** Reuses a view a previous start left, or builds one; one bind per path where no view can be made. */
    private StoreMount prepare(String name, List<String> closure) throws IOException {
        used = true;
        Path root = paths.storeViewsDir();
        Path dir = root.resolve(name);
        if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return new StoreMount.ClosureView(dir);
        }
        Path building = root.resolve(BUILDING + UUID.randomUUID());
        try {
            build(building, closure);
            try {
                Files.move(building, dir, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileAlreadyExistsException | DirectoryNotEmptyException another) {
                // another instance on this directory built it first: the same closure, the same view
                deleteTree(building);
            }
            return new StoreMount.ClosureView(dir);
        } catch (FileSystemException e) {
            if (Files.exists(building, LinkOption.NOFOLLOW_LINKS)) {
                deleteTree(building);
            }
            LOG.warnf("cannot prepare a store view of %d paths in %s (%s): runs of this closure bind each path, "
                    + "which is as strict but starts more slowly", closure.size(), root, e.getMessage());
            return new StoreMount.EachPath(closure);
        }
    }

    /** Rebuilds each closure path under {@code view}: directories, hard links, symbolic links. */
    static void build(Path view, List<String> closure) throws IOException {
        Files.createDirectory(view, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        for (String path : closure) {
            Path source = Path.of(path);
            Path target = view.resolve(source.getFileName().toString());
            Files.walkFileTree(source, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) throws IOException {
                    Files.createDirectory(mirror(dir));
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                    Path copy = mirror(file);
                    if (attributes.isSymbolicLink()) {
                        Files.createSymbolicLink(copy, Files.readSymbolicLink(file));
                    } else if (attributes.isRegularFile()) {
                        link(copy, file);
                    } else {
                        throw new FileSystemException(file.toString(), null, "neither a file, a directory nor a link");
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException failed) throws IOException {
                    if (failed != null) {
                        throw failed;
                    }
                    Path copy = mirror(dir);
                    Files.setPosixFilePermissions(copy, Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS));
                    Files.setLastModifiedTime(copy, Files.getLastModifiedTime(dir, LinkOption.NOFOLLOW_LINKS));
                    return FileVisitResult.CONTINUE;
                }

                private Path mirror(Path inStore) {
                    return target.resolve(source.relativize(inStore).toString());
                }
            });
        }
        // the view is /nix/store inside: read-only like the store (bound read-only besides)
        Files.setPosixFilePermissions(view, PosixFilePermissions.fromString("r-xr-xr-x"));
    }

    /** A hard link to the store's file; a copy when the file has as many links as the filesystem allows. */
    private static void link(Path copy, Path file) throws IOException {
        try {
            Files.createLink(copy, file);
        } catch (FileSystemException e) {
            if (!"Too many links".equals(e.getReason())) {
                throw e;
            }
            Files.copy(file, copy, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
        }
    }

    private void sweepSometimes() {
        long now = System.nanoTime();
        if (now - lastSweep < SWEEP_EVERY.toNanos() || !sweeping.compareAndSet(false, true)) {
            return;
        }
        lastSweep = now;
        Thread.ofVirtual().name("store-view-sweep").start(JobLogContext.detached(() -> {
            try {
                sweep();
            } catch (IOException | RuntimeException e) {
                LOG.warnf("cannot sweep the store views: %s", e.getMessage());
            } finally {
                sweeping.set(false);
            }
        }));
    }

    /**
     * Removes the views nobody holds that went unused for {@link #UNUSED_FOR} or lost a store path
     * (collected by Nix: its files live on in the view's links until then), and what an earlier
     * start left half-built or half-removed.
     */
    void sweep() throws IOException {
        sweep(false);
    }

    /**
     * At stop, every view nobody holds goes, and the views directory with them when empty: views
     * last as long as the service (an instance's directory is its own, and an instance that
     * never starts again would otherwise leave it, holding collected paths' files, for good).
     */
    @PreDestroy
    void close() {
        if (!used) {
            return;
        }
        try {
            Path root = sweep(true);
            Files.deleteIfExists(root);
        } catch (DirectoryNotEmptyException held) {
            // a view still held by a run that outlived the stop: the next start's sweep removes it
        } catch (IOException | RuntimeException e) {
            LOG.warnf("cannot remove the store views at stop: %s", e.getMessage());
        }
    }

    private Path sweep(boolean all) throws IOException {
        Path root = paths.storeViewsDir();
        List<Path> entries;
        try (Stream<Path> list = Files.list(root)) {
            entries = list.toList();
        }
        long now = System.nanoTime();
        for (Path entry : entries) {
            String name = entry.getFileName().toString();
            if (name.startsWith(BUILDING) || name.startsWith(REMOVING)) {
                // one still being built has been written to within the hour
                if (Files.getLastModifiedTime(entry, LinkOption.NOFOLLOW_LINKS).toMillis()
                        < System.currentTimeMillis() - LEFT_BEHIND.toMillis()) {
                    deleteTree(entry);
                }
                continue;
            }
            View view = views.computeIfAbsent(name, View::new);
            Optional<Path> detached = view.detachIf(all || storePathGone(entry), now, entry);
            if (detached.isPresent()) {
                deleteTree(detached.get());
            }
        }
        return root;
    }

    private static boolean storePathGone(Path view) throws IOException {
        try (Stream<Path> list = Files.list(view)) {
            return list.anyMatch(p -> !Files.exists(Path.of(STORE, p.getFileName().toString()), LinkOption.NOFOLLOW_LINKS));
        }
    }

    /** Renames a view out of the way, so that nobody finds it half-removed; empty if it is gone already. */
    private static Optional<Path> detach(Path view) throws IOException {
        if (!Files.exists(view, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        Path removing = view.resolveSibling(REMOVING + UUID.randomUUID());
        Files.move(view, removing, StandardCopyOption.ATOMIC_MOVE);
        return Optional.of(removing);
    }

    /**
     * Deletes a view's tree. Only its directories, which the service made, are made writable:
     * never a file, which is the store's own inode.
     */
    static void deleteTree(Path top) throws IOException {
        Files.walkFileTree(top, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) throws IOException {
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException failed) throws IOException {
                if (failed != null) {
                    throw failed;
                }
                Files.delete(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
