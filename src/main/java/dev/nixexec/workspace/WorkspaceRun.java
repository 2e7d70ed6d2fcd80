package dev.nixexec.workspace;

import dev.nixexec.job.JobQueue;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jboss.logging.Logger;

/**
 * One job's materialised /workspace on this node. While the code runs, a watcher measures the
 * directory and stops the run when it passes the quota (a bind-mounted directory has no size of
 * its own, unlike the tmpfs it replaces). When the code has ended, {@link #finish} reads the
 * directory back without following any link, stores the changes in one transaction and the
 * artifacts with them, and deletes the directory.
 */
public final class WorkspaceRun {

    private static final Logger LOG = Logger.getLogger(WorkspaceRun.class);
    /** How often the watcher measures; a run can outgrow its quota by at most what it writes in this time. */
    static final Duration WATCH_INTERVAL = Duration.ofMillis(200);
    private static final Set<String> CODE_RAN = Set.of("succeeded", "failed", "timed_out");

    /** A regular file found after the run. */
    record Found(WorkspacePath path, Path file, long size, String sha256) {
    }

    /** An artifact read for storing. */
    record Collected(String path, String sha256, byte[] content) {
    }

    private final WorkspaceRuns runs;
    private final UUID jobId;
    private final UUID tenantId;
    private final Path dir;
    private final Optional<WorkspaceStore.Snapshot> base;
    private final List<WorkspacePath> artifactRoots;
    private final long maxBytes;
    private final int maxFiles;
    private final AtomicBoolean closed = new AtomicBoolean();

    WorkspaceRun(WorkspaceRuns runs, UUID jobId, UUID tenantId, Path dir, Optional<WorkspaceStore.Snapshot> base,
            List<WorkspacePath> artifactRoots, long maxBytes, int maxFiles) {
        this.runs = runs;
        this.jobId = jobId;
        this.tenantId = tenantId;
        this.dir = dir;
        this.base = base;
        this.artifactRoots = artifactRoots;
        this.maxBytes = maxBytes;
        this.maxFiles = maxFiles;
    }

    /** The directory to mount at /workspace. */
    public Path dir() {
        return dir;
    }

    /** Measures the directory while the run lasts; calls {@code overQuota} once if it grows past the quota. */
    public void watch(Runnable overQuota) {
        Thread.ofVirtual().name("workspace-watch-" + jobId).start(() -> {
            while (!closed.get()) {
                try {
                    Thread.sleep(WATCH_INTERVAL);
                } catch (InterruptedException e) {
                    return;
                }
                if (!closed.get() && overQuota().isPresent()) {
                    overQuota.run();
                    return;
                }
            }
        });
    }

    /** Why the directory is over its quota, if it is. */
    private Optional<String> overQuota() {
        long[] totals = new long[2];
        boolean[] unreadable = new boolean[1];
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    totals[0] += attrs.size();
                    totals[1]++;
                    return totals[0] > maxBytes || totals[1] > maxFiles ? FileVisitResult.TERMINATE : FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) {
                    if (e instanceof java.nio.file.NoSuchFileException) {
                        return FileVisitResult.CONTINUE;
                    }
                    // What cannot be measured could hold anything: fail closed.
                    unreadable[0] = true;
                    return FileVisitResult.TERMINATE;
                }
            });
        } catch (IOException e) {
            unreadable[0] = true;
        }
        if (unreadable[0]) {
            return Optional.of("the job made part of its workspace unreadable to the service, so it cannot be measured");
        }
        return totals[0] > maxBytes || totals[1] > maxFiles
                ? Optional.of("the job wrote past the workspace quota of " + maxBytes + " bytes and " + maxFiles + " files")
                : Optional.empty();
    }

    /**
     * The job's outcome once its workspace is dealt with: when its code ran to an end, the changes
     * are stored (or, on a quota or conflict, the outcome becomes an error and nothing is stored);
     * otherwise the directory is dropped.
     */
    public JobQueue.Outcome finish(JobQueue.Outcome outcome) {
        closed.set(true);
        try {
            if (!CODE_RAN.contains(outcome.status())) {
                return outcome;
            }
            return store(outcome);
        } catch (IOException | RuntimeException e) {
            LOG.errorf(e, "could not store the workspace of job %s", jobId);
            return failed(outcome, "workspace_store_failed", "the job's files could not be stored: " + e.getMessage());
        } finally {
            delete(dir);
        }
    }

    /** A stop from outside (cancel, shutdown, quota): the run may still be dying, so the directory goes a little later. */
    public void abandon() {
        closed.set(true);
        Thread.ofVirtual().name("workspace-drop-" + jobId).start(() -> {
            try {
                Thread.sleep(Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            delete(dir);
        });
    }

    private JobQueue.Outcome store(JobQueue.Outcome outcome) throws IOException {
        Optional<String> over = overQuota();
        if (over.isPresent()) {
            return failed(outcome, "workspace_quota_exceeded", over.get() + "; the workspace keeps its previous version");
        }
        List<String> skipped = new ArrayList<>();
        Map<String, Found> found = scan(skipped);
        if (!skipped.isEmpty()) {
            LOG.debugf("job %s: not stored (not regular files or bad names): %s", jobId, skipped);
        }
        List<Collected> artifacts = artifacts(found);
        String[] problem = new String[2];
        runs.inTransaction(() -> {
            if (base.isPresent()) {
                Optional<String[]> refused = storeBack(found);
                if (refused.isPresent()) {
                    problem[0] = refused.get()[0];
                    problem[1] = refused.get()[1];
                    return; // nothing was written: the transaction only held the locks
                }
            }
            runs.recordArtifacts(jobId, tenantId, artifacts);
        });
        return problem[0] == null ? outcome : failed(outcome, problem[0], problem[1]);
    }

    /** Applies the job's changes to the workspace; the refusal (code, message) if they cannot be. */
    private Optional<String[]> storeBack(Map<String, Found> found) {
        WorkspaceStore store = runs.store;
        WorkspaceStore.Snapshot snapshot = base.orElseThrow();
        UUID id = snapshot.id();
        store.lockForChange(tenantId, id);
        int version = store.version(id);
        if (version < 0) {
            return Optional.of(new String[] {"workspace_gone", "the workspace was deleted while the job ran"});
        }
        Map<String, WorkspaceStore.Entry> before = snapshot.files();
        Map<String, WorkspaceStore.Entry> mine = new LinkedHashMap<>();
        found.forEach((path, f) -> mine.put(path, new WorkspaceStore.Entry(f.sha256(), f.size())));
        List<String> changed = new ArrayList<>();
        mine.forEach((path, entry) -> {
            if (!entry.equals(before.get(path))) {
                changed.add(path);
            }
        });
        before.keySet().stream().filter(path -> !mine.containsKey(path)).forEach(changed::add);
        if (changed.isEmpty()) {
            return Optional.empty();
        }
        Map<String, WorkspaceStore.Entry> now = store.manifest(id);
        if (version != snapshot.version()) {
            List<String> clashes = changed.stream()
                    .filter(path -> !java.util.Objects.equals(now.get(path), before.get(path))).toList();
            if (!clashes.isEmpty()) {
                return Optional.of(new String[] {"workspace_conflict", "another job or upload changed "
                        + String.join(", ", clashes.subList(0, Math.min(5, clashes.size())))
                        + (clashes.size() > 5 ? " and " + (clashes.size() - 5) + " more" : "")
                        + " while this job ran; its changes were not stored (the workspace is at version " + version + ")"});
            }
        }
        Map<String, WorkspaceStore.Entry> after = new LinkedHashMap<>(now);
        for (String path : changed) {
            if (mine.containsKey(path)) {
                after.put(path, mine.get(path));
            } else {
                after.remove(path);
            }
        }
        long largest = changed.stream().filter(mine::containsKey).mapToLong(p -> mine.get(p).size()).max().orElse(0);
        Optional<String> quota = store.quotaProblem(id, tenantId, now, after, largest);
        if (quota.isPresent()) {
            return Optional.of(new String[] {"workspace_quota_exceeded", quota.get()
                    + "; the workspace keeps its previous version"});
        }
        int created = 0;
        int modified = 0;
        int deleted = 0;
        for (String path : changed) {
            Found f = found.get(path);
            if (f == null) {
                store.remove(id, path);
                deleted++;
                continue;
            }
            byte[] content = readVerified(f);
            Blobs.put(runs.em, tenantId, f.sha256(), content);
            store.upsert(id, tenantId, path, new WorkspaceStore.Entry(f.sha256(), f.size()));
            if (now.containsKey(path)) {
                modified++;
            } else {
                created++;
            }
        }
        store.bump(id, jobId, created, modified, deleted);
        Blobs.collect(runs.em, tenantId);
        return Optional.empty();
    }

    /** Every regular file, by path; anything else (links, fifos, sockets, bad names) is skipped. */
    private Map<String, Found> scan(List<String> skipped) throws IOException {
        Map<String, Found> found = new java.util.TreeMap<>();
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) throws IOException {
                // code may have taken its own permissions away; the service (its owner or root) restores them
                Files.setPosixFilePermissions(d, EnumSet.of(PosixFilePermission.OWNER_READ,
                        PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                String relative = dir.relativize(file).toString();
                if (!attrs.isRegularFile() || WorkspacePath.problem(relative).isPresent()) {
                    skipped.add(relative);
                    return FileVisitResult.CONTINUE;
                }
                Files.setPosixFilePermissions(file, EnumSet.of(PosixFilePermission.OWNER_READ,
                        PosixFilePermission.OWNER_WRITE));
                found.put(relative, new Found(new WorkspacePath(relative), file, attrs.size(), hash(file)));
                return FileVisitResult.CONTINUE;
            }
        });
        return found;
    }

    private List<Collected> artifacts(Map<String, Found> found) throws IOException {
        var limits = runs.config.workspaces();
        List<Collected> artifacts = new ArrayList<>();
        long total = 0;
        for (Found f : found.values()) {
            if (artifactRoots.stream().noneMatch(f.path()::within)) {
                continue;
            }
            if (artifacts.size() >= limits.maxArtifacts() || f.size() > limits.maxArtifactBytes()
                    || total + f.size() > limits.maxArtifactsBytes()) {
                LOG.debugf("job %s: artifact %s over the caps, not returned", jobId, f.path());
                continue;
            }
            total += f.size();
            artifacts.add(new Collected(f.path().value(), f.sha256(), readVerified(f)));
        }
        return artifacts;
    }

    /** The file's bytes, read without following a link; must still match the hash taken when scanning. */
    private static byte[] readVerified(Found f) {
        try (InputStream in = Files.newInputStream(f.file(), StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            byte[] content = in.readAllBytes();
            if (!Blobs.sha256(content).equals(f.sha256())) {
                throw new IllegalStateException(f.path() + " changed after the run ended");
            }
            return content;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String hash(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[64 * 1024];
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                digest.update(buffer, 0, n);
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static JobQueue.Outcome failed(JobQueue.Outcome o, String code, String message) {
        return new JobQueue.Outcome("error", o.exitCode(), o.signal(), o.timedOut(), o.limitHit(), o.durationMs(),
                o.stdout(), o.stderr(), o.stdoutBytes(), o.stderrBytes(), o.stdoutTruncated(), o.stderrTruncated(), code,
                message);
    }

    static void delete(Path path) {
        try {
            if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
                Files.setPosixFilePermissions(path, EnumSet.allOf(PosixFilePermission.class).stream()
                        .filter(p -> p.name().startsWith("OWNER")).collect(java.util.stream.Collectors.toSet()));
                try (var children = Files.list(path)) {
                    children.toList().forEach(WorkspaceRun::delete);
                }
            }
            Files.deleteIfExists(path);
        } catch (IOException e) {
            LOG.warnf("cannot delete %s: %s", path, e.getMessage());
        }
    }
}
