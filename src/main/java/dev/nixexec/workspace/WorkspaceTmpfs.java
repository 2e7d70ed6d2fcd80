package dev.nixexec.workspace;

import dev.nixexec.config.ExecutableLookup;
import dev.nixexec.config.StatePaths;
import dev.nixexec.logging.JobLogContext;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jboss.logging.Logger;

/**
 * Sized tmpfs mounts for materialised workspaces, so the kernel bounds what a run puts there:
 * files it deleted but keeps open count too, and no measuring of the directory sees those. The
 * tmpfs is mounted on the host (not inside the sandbox, where it would vanish with the run before
 * its files are stored back), which needs a root service on Linux; elsewhere the directory stays a
 * plain one and only the watcher bounds it.
 *
 * <p>Mounting and unmounting each start a process (a few milliseconds), so neither is on a run's
 * path: for each size in use a couple of mounts wait ready. A run gets a new directory inside one
 * (never the tmpfs's own root, so nothing a run sets on its directory outlives it); after the run,
 * a moment later (so as not to compete with storing its result), that directory is deleted and
 * the mount waits for the next run if it is then empty to the last block, else it is detached and
 * replaced. Whatever is still mounted when the service stops is detached then.
 *
 * <p>A service that crashed cannot detach its mounts, and several services may share the jobs
 * directory. So each service names its mounts after itself ({@code ws-<owner>-…}) and holds a
 * lock on {@code ws-<owner>.lock} while it runs; at start-up a service detaches the mounts of
 * every owner whose lock nobody holds any more.
 */
@ApplicationScoped
public class WorkspaceTmpfs {

    private static final Logger LOG = Logger.getLogger(WorkspaceTmpfs.class);
    /** tmpfs counts whole pages: a file of one byte takes one. */
    static final long PAGE = 4096;
    private static final int READY_PER_SIZE = 2;
    /**
     * Emptied mounts kept waiting, above those mounted ahead: runs that end together give back
     * more than were mounted ahead, and detaching those to mount again for the next runs costs two
     * processes each.
     */
    private static final int KEPT_PER_SIZE = 4;
    /** The run's directory inside a mount. */
    private static final String RUN_DIRECTORY = "w";
    /** About what storing a run's result and answering its caller take, on a small machine. */
    private static final Duration AFTER_RUN = Duration.ofMillis(30);
    private static final int SIZES_KEPT_READY = 4;
    private static final Pattern LOCK_NAME = Pattern.compile(
            "ws-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\\.lock");

    private final StatePaths paths;
    private final Optional<Path> mount;
    private final Optional<Path> umount;
    /** Mount points of this service. */
    private final Map<Path, Mount> mounted = new ConcurrentHashMap<>();
    private final Map<Long, Deque<Path>> ready = new ConcurrentHashMap<>();
    private final Map<Long, AtomicInteger> mounting = new ConcurrentHashMap<>();
    private final String owner = UUID.randomUUID().toString();
    /** Held from the first mount until the service stops: while it is, this service is alive. */
    private FileChannel ownerLock;
    private volatile boolean stopped;

    public WorkspaceTmpfs(StatePaths paths) {
        this.paths = paths;
        boolean rootOnLinux = "root".equals(System.getProperty("user.name"))
                && System.getProperty("os.name", "").toLowerCase().contains("linux");
        this.mount = rootOnLinux ? ExecutableLookup.find("mount") : Optional.empty();
        this.umount = rootOnLinux ? ExecutableLookup.find("umount") : Optional.empty();
    }

    /** True when workspaces get a tmpfs of their own. */
    public boolean available() {
        return mount.isPresent() && umount.isPresent();
    }

    /**
     * The tmpfs size for a quota: its bytes plus a page per file it allows, so every workspace
     * within its quota fits, whatever its files' sizes.
     */
    static long sizeFor(long quotaBytes, int quotaFiles) {
        return quotaBytes + quotaFiles * PAGE;
    }

    /**
     * A new, empty directory (private to the service) alone on a tmpfs of {@code bytes}: in one
     * waiting when there is one. A size seen for the first time gets mounts ahead at once.
     */
    Path take(long bytes) throws IOException {
        Deque<Path> waiting = ready.get(bytes);
        Path root = waiting == null ? null : waiting.pollFirst();
        if (root == null) {
            mountAhead(bytes);
            root = mountNew(bytes);
        }
        return Files.createDirectory(root.resolve(RUN_DIRECTORY),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }

    /** After the run, in the background: deletes its directory and keeps or replaces the mount. */
    void release(Path dir) {
        Path root = dir.getParent();
        // the pool's work, not the job's: it refills mounts for whichever run comes next
        Thread.ofVirtual().name("workspace-release").start(JobLogContext.detached(() -> {
            try {
                Thread.sleep(AFTER_RUN);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            RunDirectory.delete(dir);
            Mount mount = mounted.get(root);
            if (mount == null) {
                return;
            }
            long bytes = mount.bytes();
            Deque<Path> waiting = ready.computeIfAbsent(bytes, b -> new ConcurrentLinkedDeque<>());
            if (!stopped && waiting.size() < KEPT_PER_SIZE && empty(root, mount.store())) {
                waiting.add(root);
                if (stopped && waiting.remove(root)) {
                    detach(root);
                }
                return;
            }
            detach(root);
            mountAhead(bytes);
        }));
    }

    /**
     * No entry and no block in use: nothing of the last run is left, not even a deleted file that
     * some process still holds open.
     */
    private static boolean empty(Path root, FileStore store) {
        try (var entries = Files.list(root)) {
            if (entries.findAny().isPresent()) {
                return false;
            }
            return store.getTotalSpace() == store.getUnallocatedSpace();
        } catch (IOException e) {
            return false;
        }
    }

    /** The mounts waiting for a run. */
    Set<Path> readyAhead() {
        return ready.values().stream().flatMap(Deque::stream).collect(java.util.stream.Collectors.toSet());
    }

    @PreDestroy
    void stop() {
        stopped = true;
        ready.clear();
        mounted.keySet().forEach(this::detach);
        synchronized (this) {
            if (ownerLock != null) {
                try {
                    Files.deleteIfExists(lockFile(owner));
                    ownerLock.close();
                } catch (IOException e) {
                    LOG.warnf("cannot remove the workspace mounts' lock: %s", e.getMessage());
                }
                ownerLock = null;
            }
        }
        paths.releaseJobsDir();
    }

    void reclaimAtStartUp(@Observes StartupEvent event) {
        if (available()) {
            reclaimLeftovers();
        }
    }

    /**
     * Detaches the mounts of services that are gone: their lock is not held. Two services starting
     * together cannot both take one lock, so each leftover is handled once.
     */
    void reclaimLeftovers() {
        List<Path> entries;
        try (var list = Files.list(paths.jobsDir())) {
            entries = list.toList();
        } catch (NoSuchFileException e) {
            return;
        } catch (IOException e) {
            LOG.warnf("cannot look for workspace mounts left by stopped services: %s", e.getMessage());
            return;
        }
        for (Path lock : entries) {
            Matcher name = LOCK_NAME.matcher(lock.getFileName().toString());
            if (!name.matches() || name.group(1).equals(owner)) {
                continue;
            }
            try (FileChannel channel = FileChannel.open(lock, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
                    FileLock gone = channel.tryLock()) {
                if (gone == null) {
                    continue;
                }
                String prefix = "ws-" + name.group(1) + "-";
                List<Path> left = entries.stream().filter(e -> e.getFileName().toString().startsWith(prefix)).toList();
                left.forEach(this::detach);
                Files.delete(lock);
                LOG.infof("detached %d workspace mounts of a service that stopped without doing so", left.size());
            } catch (OverlappingFileLockException alive) {
                // held by another service in this process
            } catch (IOException e) {
                LOG.warnf("cannot reclaim the workspace mounts of %s: %s", lock, e.getMessage());
            }
        }
    }

    /**
     * Takes this service's lock on first use. It is made under another name and renamed into place
     * once held, so no other service ever sees it unheld and takes this one for gone.
     */
    private synchronized void markAlive() throws IOException {
        if (ownerLock != null) {
            return;
        }
        Path making = paths.jobsDir().resolve(".ws-" + owner + ".lock");
        FileChannel channel = FileChannel.open(making, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        try {
            channel.lock();
            Files.move(making, lockFile(owner), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            channel.close();
            Files.deleteIfExists(making);
            throw e;
        }
        ownerLock = channel;
    }

    private Path lockFile(String id) {
        return paths.jobsDir().resolve("ws-" + id + ".lock");
    }

    private void mountAhead(long bytes) {
        if (stopped || (!ready.containsKey(bytes) && ready.size() >= SIZES_KEPT_READY)) {
            return;
        }
        Deque<Path> waiting = ready.computeIfAbsent(bytes, b -> new ConcurrentLinkedDeque<>());
        AtomicInteger inFlight = mounting.computeIfAbsent(bytes, b -> new AtomicInteger());
        while (inFlight.get() + waiting.size() < READY_PER_SIZE) {
            inFlight.incrementAndGet();
            mountAheadInBackground(bytes, waiting, inFlight);
        }
    }

    private void mountAheadInBackground(long bytes, Deque<Path> waiting, AtomicInteger inFlight) {
        Thread.ofVirtual().name("workspace-mount").start(JobLogContext.detached(() -> {
            try {
                Path dir = mountNew(bytes);
                waiting.add(dir);
                if (stopped && waiting.remove(dir)) {
                    detach(dir);
                }
            } catch (IOException e) {
                LOG.warnf("cannot mount a workspace tmpfs ahead: %s", e.getMessage());
            } finally {
                inFlight.decrementAndGet();
            }
        }));
    }

    /** The root may be passed through (by the run's uid, to its directory), not listed. */
    private Path mountNew(long bytes) throws IOException {
        markAlive();
        Path dir = paths.jobsDir().resolve("ws-" + owner + "-" + UUID.randomUUID());
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        try {
            run(List.of(mount.orElseThrow().toString(), "-t", "tmpfs", "-o",
                    "size=" + bytes + ",mode=0711,nosuid,nodev", "nix-exec-workspace", dir.toString()));
        } catch (IOException e) {
            Files.deleteIfExists(dir);
            throw e;
        }
        FileStore store;
        try {
            // found once: finding a path's file store reads the whole mount table
            store = Files.getFileStore(dir);
        } catch (IOException e) {
            detach(dir);
            throw e;
        }
        mounted.put(dir, new Mount(bytes, store));
        return dir;
    }

    private record Mount(long bytes, FileStore store) {
    }

    /**
     * Lazily, so a run still dying keeps nothing mounted on the host, and the memory goes with its
     * last open file.
     */
    private void detach(Path dir) {
        try {
            run(List.of(umount.orElseThrow().toString(), "--lazy", dir.toString()));
            mounted.remove(dir);
        } catch (IOException e) {
            LOG.warnf("cannot unmount the workspace tmpfs %s: %s", dir, e.getMessage());
        }
        RunDirectory.delete(dir);
    }

    private static void run(List<String> argv) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(true);
        builder.environment().clear();
        Process process = builder.start();
        try {
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException(argv.get(0) + " did not finish");
            }
            if (process.exitValue() != 0) {
                throw new IOException(argv.get(0) + " exited " + process.exitValue() + ": " + output);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running " + argv.get(0), e);
        }
    }
}
