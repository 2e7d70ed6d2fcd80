package dev.nixexec.workspace;

import dev.nixexec.config.ExecutableLookup;
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
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jboss.logging.Logger;

/**
 * One job's materialised /workspace on this node (a sized tmpfs when {@link WorkspaceTmpfs} can
 * mount one). While the code runs, a watcher measures the directory and stops the run when it
 * passes the quota. When the code has ended, {@link #finish} reads the directory back without
 * following any link, stores the contents, then the changes and the artifacts in one
 * transaction (only while the job is still this node's), and unmounts and deletes the directory.
 */
public final class WorkspaceRun {

    private static final Logger LOG = Logger.getLogger(WorkspaceRun.class);
    /** How often the watcher measures; a run can outgrow its quota by at most what it writes in this time. */
    static final Duration WATCH_INTERVAL = Duration.ofMillis(200);
    /** A regular file found after the run. */
    record Found(WorkspacePath path, Path file, long size, String sha256, boolean executable) {
    }

    /** An artifact read for storing. */
    record Collected(String path, String sha256, byte[] content) {
    }

    /** Whose run this is: its changes are stored only while the job is still claimed so. */
    record Claim(UUID jobId, String nodeId, int attempt) {
    }

    private final WorkspaceRuns runs;
    private final Claim claim;
    private final UUID tenantId;
    private final Path dir;
    private final boolean mounted;
    private final Optional<WorkspaceStore.Snapshot> base;
    private final List<WorkspacePath> artifactRoots;
    private final long maxBytes;
    private final int maxFiles;
    private final AtomicBoolean closed = new AtomicBoolean();

    WorkspaceRun(WorkspaceRuns runs, Claim claim, UUID tenantId, Path dir, boolean mounted,
            Optional<WorkspaceStore.Snapshot> base, List<WorkspacePath> artifactRoots, long maxBytes, int maxFiles) {
        this.runs = runs;
        this.claim = claim;
        this.tenantId = tenantId;
        this.dir = dir;
        this.mounted = mounted;
        this.base = base;
        this.artifactRoots = artifactRoots;
        this.maxBytes = maxBytes;
        this.maxFiles = maxFiles;
    }

    /** The directory to mount at /workspace. */
    public Path dir() {
        return dir;
    }

    /** Why a run's workspace cannot be kept: {@code code} is the job's error code. */
    public record Problem(String code, String message) {
        static final String QUOTA = "workspace_quota_exceeded";
        static final String UNSTORABLE = "workspace_unstorable";

        /** A quota overrun (the job's {@code limit_hit} is {@code workspace}), not a tree that cannot be stored. */
        public boolean quota() {
            return code.equals(QUOTA);
        }
    }

    /** Measures the directory while the run lasts; calls {@code stop} once if it passes the quota or cannot be kept. */
    public void watch(java.util.function.Consumer<Problem> stop) {
        Thread.ofVirtual().name("workspace-watch-" + claim.jobId()).start(() -> {
            while (!closed.get()) {
                try {
                    Thread.sleep(WATCH_INTERVAL);
                } catch (InterruptedException e) {
                    return;
                }
                Optional<Problem> problem = closed.get() ? Optional.empty() : measure();
                if (problem.isPresent()) {
                    stop.accept(problem.get());
                    return;
                }
            }
        });
    }

    /**
     * Why the directory cannot be kept, if so: past the quota, or deeper than any workspace path
     * (nothing below could be stored, and the walk stops there rather than fail at PATH_MAX), or
     * unreadable (what cannot be measured could hold anything: fail closed).
     */
    private Optional<Problem> measure() {
        long[] totals = new long[2];
        Problem[] problem = new Problem[1];
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) {
                    problem[0] = tooDeep(d).orElse(null);
                    return problem[0] == null ? FileVisitResult.CONTINUE : FileVisitResult.TERMINATE;
                }

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
                    problem[0] = UNREADABLE;
                    return FileVisitResult.TERMINATE;
                }
            });
        } catch (IOException e) {
            problem[0] = UNREADABLE;
        }
        if (problem[0] != null) {
            return Optional.of(problem[0]);
        }
        return totals[0] > maxBytes || totals[1] > maxFiles
                ? Optional.of(new Problem(Problem.QUOTA, "the job wrote past the workspace quota of " + maxBytes
                        + " bytes and " + maxFiles + " files"))
                : Optional.empty();
    }

    private static final Problem UNREADABLE = new Problem(Problem.UNSTORABLE,
            "the job made part of its workspace unreadable to the service, so it cannot be measured or stored");

    /** A directory whose own path is already longer than a workspace path may be: nothing in it can be stored. */
    private Optional<Problem> tooDeep(Path d) {
        String relative = dir.relativize(d).toString();
        if (relative.getBytes(java.nio.charset.StandardCharsets.UTF_8).length <= WorkspacePath.MAX_BYTES) {
            return Optional.empty();
        }
        return Optional.of(new Problem(Problem.UNSTORABLE, "the job made a directory tree deeper than a workspace "
                + "path may be long (" + WorkspacePath.MAX_BYTES + " bytes): " + shown(relative)));
    }

    /** A path for a message: quoted, control characters escaped, at most 100 characters. */
    private static String shown(String path) {
        StringBuilder b = new StringBuilder("'");
        path.codePoints().limit(100).forEach(c -> {
            if (c < 0x20 || c == 0x7f) {
                b.append(String.format("\\x%02x", c));
            } else {
                b.appendCodePoint(c);
            }
        });
        return b.append(path.codePointCount(0, path.length()) > 100 ? "...'" : "'").toString();
    }

    /**
     * Deals with the workspace at the end of a run: when the job's code ran to an end its changes
     * are stored (or, on a quota or conflict, nothing is stored and the store-back is refused);
     * otherwise the directory is dropped.
     */
    public StoreBack finish(boolean codeRanToAnEnd) {
        closed.set(true);
        try {
            return codeRanToAnEnd ? store() : new StoreBack.Kept();
        } catch (IOException | RuntimeException e) {
            LOG.errorf(e, "could not store the workspace of job %s", claim.jobId());
            return new StoreBack.Refused("workspace_store_failed", "the job's files could not be stored: " + e.getMessage());
        } finally {
            runs.discard(dir, mounted);
        }
    }

    /** A stop from outside (cancel, shutdown, quota): the run may still be dying, so the directory goes a little later. */
    public void abandon() {
        closed.set(true);
        Thread.ofVirtual().name("workspace-drop-" + claim.jobId()).start(() -> {
            try {
                Thread.sleep(Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            runs.discard(dir, mounted);
        });
    }

    private StoreBack store() throws IOException {
        Optional<Problem> over = measure();
        if (over.isPresent()) {
            return new StoreBack.Refused(over.get().code(), over.get().message() + "; the workspace keeps its previous version");
        }
        List<String> skipped = new ArrayList<>();
        Problem[] unstorable = new Problem[1];
        Map<String, Found> found = scan(skipped, unstorable);
        if (unstorable[0] != null) {
            return new StoreBack.Refused(unstorable[0].code(), unstorable[0].message()
                    + "; nothing of this run was stored and the workspace keeps its previous version");
        }
        if (!skipped.isEmpty()) {
            // bounded: a run can leave millions of links behind
            LOG.debugf("job %s: %d entries not stored (not regular files), e.g. %s", claim.jobId(), skipped.size(),
                    skipped.subList(0, Math.min(10, skipped.size())));
        }
        List<Collected> artifacts = artifacts(found);
        Map<String, WorkspaceStore.Entry> mine = new LinkedHashMap<>();
        found.forEach((path, f) -> mine.put(path, new WorkspaceStore.Entry(f.sha256(), f.size(), f.executable())));
        List<String> changed = base.map(b -> changes(b.files(), mine)).orElse(List.of());
        if (changed.isEmpty() && artifacts.isEmpty() && claim.attempt() == 1) {
            // nothing to store, and no earlier attempt's artifacts to clear
            return new StoreBack.Kept();
        }
        // Contents first, without the tenant's lock: reading and hashing a large run's files must
        // not hold up the tenant's other uploads and store-backs.
        runs.inTransaction(() -> {
            changed.stream().map(found::get).filter(java.util.Objects::nonNull)
                    .forEach(f -> runs.putBlob(tenantId, f.sha256(), readVerified(f)));
            artifacts.forEach(a -> runs.putBlob(tenantId, a.sha256(), a.content()));
        });
        String[] problem = new String[2];
        runs.inTransaction(() -> {
            Optional<String[]> refused = changed.isEmpty() ? takenBack() : storeBack(mine, changed);
            if (refused.isPresent()) {
                problem[0] = refused.get()[0];
                problem[1] = refused.get()[1];
                return; // nothing was written: the transaction only held the locks
            }
            runs.recordArtifacts(claim.jobId(), tenantId, artifacts);
        });
        return problem[0] == null ? new StoreBack.Kept() : new StoreBack.Refused(problem[0], problem[1]);
    }

    /** The paths the job created, modified or deleted against the version it started from. */
    private static List<String> changes(Map<String, WorkspaceStore.Entry> before, Map<String, WorkspaceStore.Entry> mine) {
        List<String> changed = new ArrayList<>();
        mine.forEach((path, entry) -> {
            if (!entry.equals(before.get(path))) {
                changed.add(path);
            }
        });
        before.keySet().stream().filter(path -> !mine.containsKey(path)).forEach(changed::add);
        return changed;
    }

    /**
     * Applies the job's changes (their contents already stored) to the workspace under the
     * tenant's lock; the refusal (code, message) if they cannot be.
     */
    private Optional<String[]> storeBack(Map<String, WorkspaceStore.Entry> mine, List<String> changed) {
        WorkspaceStore store = runs.store;
        WorkspaceStore.Snapshot snapshot = base.orElseThrow();
        UUID id = snapshot.id();
        store.lockForChange(tenantId, id);
        Optional<String[]> takenBack = takenBack();
        if (takenBack.isPresent()) {
            return takenBack;
        }
        Optional<WorkspaceStore.Manifest> current = store.current(id);
        if (current.isEmpty()) {
            return Optional.of(new String[] {"workspace_gone", "the workspace was deleted while the job ran"});
        }
        int version = current.get().version();
        Map<String, WorkspaceStore.Entry> before = snapshot.files();
        Map<String, WorkspaceStore.Entry> now = current.get().files();
        if (version != snapshot.version()) {
            List<String> clashes = changed.stream()
                    .filter(path -> !java.util.Objects.equals(now.get(path), before.get(path))).toList();
            if (!clashes.isEmpty()) {
                return Optional.of(conflict("another job or upload changed "
                        + String.join(", ", clashes.subList(0, Math.min(5, clashes.size())))
                        + (clashes.size() > 5 ? " and " + (clashes.size() - 5) + " more" : ""), version));
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
        // The job's own files can never clash (one directory tree); merged with another version's they can.
        Optional<String[]> clash = WorkspaceStore.fileFolderClash(after.keySet());
        if (clash.isPresent()) {
            return Optional.of(conflict("another job or upload made '" + clash.get()[0] + "' a file while this job used '"
                    + clash.get()[1] + "' (or the other way round)", version));
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
            WorkspaceStore.Entry entry = mine.get(path);
            if (entry == null) {
                store.remove(id, path);
                deleted++;
                continue;
            }
            store.upsert(id, tenantId, path, entry);
            if (now.containsKey(path)) {
                modified++;
            } else {
                created++;
            }
        }
        store.bump(id, claim.jobId(), created, modified, deleted);
        Blobs.collect(runs.em, tenantId);
        return Optional.empty();
    }

    /** The refusal when the reaper took the job back: it may run again elsewhere, so nothing of this run lands. */
    private Optional<String[]> takenBack() {
        return runs.stillClaimed(claim) ? Optional.empty() : Optional.of(new String[] {"worker_lost",
                "the job was taken back from this node before its files were stored; nothing of this run was stored"});
    }

    private static String[] conflict(String what, int version) {
        return new String[] {"workspace_conflict", what + " while this job ran; its changes were not stored "
                + "(the workspace is at version " + version + ")"};
    }

    /**
     * Every regular file, by path; anything else (links, fifos, sockets) is skipped. A regular file
     * that no workspace path can name (not UTF-8, too long, a control character) is never dropped
     * or renamed: the scan stops and {@code unstorable} says why (two names differing only in
     * invalid bytes would otherwise decode to one path, and one file would be lost).
     */
    private Map<String, Found> scan(List<String> skipped, Problem[] unstorable) throws IOException {
        Map<String, Found> found = new java.util.TreeMap<>();
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) throws IOException {
                unstorable[0] = tooDeep(d).orElse(null);
                if (unstorable[0] != null) {
                    return FileVisitResult.TERMINATE;
                }
                // code may have taken its own permissions away; the service (its owner or root) restores them
                Files.setPosixFilePermissions(d, EnumSet.of(PosixFilePermission.OWNER_READ,
                        PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Path relativePath = dir.relativize(file);
                String relative = relativePath.toString();
                if (!attrs.isRegularFile()) {
                    skipped.add(relative);
                    return FileVisitResult.CONTINUE;
                }
                // A name's bytes that do not decode (not UTF-8) come back as another path from its text.
                if (!relativePath.equals(relativePath.getFileSystem().getPath(relative))) {
                    unstorable[0] = new Problem(Problem.UNSTORABLE, "the job wrote a file whose name is not valid "
                            + "UTF-8 (shown with replacement characters: " + shown(relative)
                            + "); workspace paths are UTF-8 text");
                    return FileVisitResult.TERMINATE;
                }
                Optional<String> bad = WorkspacePath.problem(relative);
                if (bad.isPresent()) {
                    unstorable[0] = new Problem(Problem.UNSTORABLE, "the job wrote a file no workspace path can name ("
                            + shown(relative) + "): " + bad.get());
                    return FileVisitResult.TERMINATE;
                }
                // the run's owner bit is what a file's mode means to the next run (its uid owns the file)
                boolean executable = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS)
                        .contains(PosixFilePermission.OWNER_EXECUTE);
                Files.setPosixFilePermissions(file, EnumSet.of(PosixFilePermission.OWNER_READ,
                        PosixFilePermission.OWNER_WRITE));
                found.put(relative, new Found(new WorkspacePath(relative), file, attrs.size(), hash(file), executable));
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
                LOG.debugf("job %s: artifact %s over the caps, not returned", claim.jobId(), f.path());
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

    /**
     * Deletes a run's directory, whatever the run left in it. One warning at most, with the top
     * directory only: a run can leave thousands of entries, and a line per entry would flood the log.
     */
    static void delete(Path path) {
        try {
            deleteTree(path);
        } catch (IOException e) {
            // Java names every entry by its full path, which fails past PATH_MAX in a deep tree;
            // rm walks by descriptors and reaches any depth.
            try {
                removeWithRm(path);
            } catch (IOException again) {
                LOG.warnf("cannot delete %s: %s", path, again.getMessage());
            }
        }
    }

    private static void deleteTree(Path path) throws IOException {
        if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
            Files.setPosixFilePermissions(path, EnumSet.of(PosixFilePermission.OWNER_READ,
                    PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE));
            try (var children = Files.list(path)) {
                for (Path child : children.toList()) {
                    deleteTree(child);
                }
            }
        }
        Files.deleteIfExists(path);
    }

    private static void removeWithRm(Path path) throws IOException {
        for (String tool : List.of("chmod", "rm")) {
            Path executable = ExecutableLookup.find(tool).orElseThrow(() -> new IOException(tool + " is not on the PATH"));
            // chmod first: the run may have taken the service's own permissions away (rm as non-root needs them)
            List<String> argv = tool.equals("chmod") ? List.of(executable.toString(), "-R", "u+rwx", "--", path.toString())
                    : List.of(executable.toString(), "-rf", "--", path.toString());
            Process process = new ProcessBuilder(argv).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            try {
                if (!process.waitFor(5, java.util.concurrent.TimeUnit.MINUTES)) {
                    process.destroyForcibly();
                    throw new IOException(tool + " did not finish");
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while deleting", e);
            }
        }
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException("still there after rm -rf");
        }
    }
}
