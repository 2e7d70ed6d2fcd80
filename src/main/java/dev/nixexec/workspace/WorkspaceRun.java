package dev.nixexec.workspace;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.workspace.RunDirectory.Found;
import dev.nixexec.workspace.WorkspaceStoreBack.Collected;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.jboss.logging.Logger;

/**
 * One job's materialised /workspace on this node (a sized tmpfs when {@link WorkspaceTmpfs} can
 * mount one). While the code runs, a watcher measures the directory and stops the run when it
 * passes the quota. When the code has ended, {@link #finish} reads the directory back without
 * following any link ({@link RunDirectory}), has {@link WorkspaceStoreBack} store the changes and
 * the artifacts (only while the job is still this node's), and unmounts and deletes the directory.
 */
public final class WorkspaceRun {

    private static final Logger LOG = Logger.getLogger(WorkspaceRun.class);
    /** How often the watcher measures; a run can outgrow its quota by at most what it writes in this time. */
    static final Duration WATCH_INTERVAL = Duration.ofMillis(200);
    /** How long a stopped run may take to die before its directory goes. */
    private static final Duration ABANDONED_GRACE = Duration.ofSeconds(10);

    private final RunClaim claim;
    private final UUID tenantId;
    private final RunDirectory directory;
    private final Optional<WorkspaceRepository.Snapshot> base;
    private final List<WorkspacePath> artifactRoots;
    private final NixExecConfig.Workspaces limits;
    private final WorkspaceStoreBack storeBack;
    /** Deletes the directory (or gives its tmpfs back). */
    private final Runnable discard;
    private final AtomicBoolean closed = new AtomicBoolean();

    WorkspaceRun(RunClaim claim, UUID tenantId, RunDirectory directory, Optional<WorkspaceRepository.Snapshot> base,
            List<WorkspacePath> artifactRoots, NixExecConfig.Workspaces limits, WorkspaceStoreBack storeBack,
            Runnable discard) {
        this.claim = claim;
        this.tenantId = tenantId;
        this.directory = directory;
        this.base = base;
        this.artifactRoots = artifactRoots;
        this.limits = limits;
        this.storeBack = storeBack;
        this.discard = discard;
    }

    /** The directory to mount at /workspace. */
    public Path dir() {
        return directory.path();
    }

    /** Measures the directory while the run lasts; calls {@code stop} once if it passes the quota or cannot be kept. */
    public void watch(Consumer<WorkspaceProblem> stop) {
        Thread.ofVirtual().name("workspace-watch-" + claim.jobId()).start(() -> {
            while (!closed.get()) {
                try {
                    Thread.sleep(WATCH_INTERVAL);
                } catch (InterruptedException e) {
                    return;
                }
                Optional<WorkspaceProblem> problem = closed.get() ? Optional.empty() : directory.measure();
                if (problem.isPresent()) {
                    stop.accept(problem.get());
                    return;
                }
            }
        });
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
            discard.run();
        }
    }

    /** A stop from outside (cancel, shutdown, quota): the run may still be dying, so the directory goes a little later. */
    public void abandon() {
        closed.set(true);
        Thread.ofVirtual().name("workspace-drop-" + claim.jobId()).start(() -> {
            try {
                Thread.sleep(ABANDONED_GRACE);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            discard.run();
        });
    }

    private StoreBack store() throws IOException {
        if (base.isEmpty() && claim.attempt() == 1 && artifactRoots.stream()
                .noneMatch(root -> Files.exists(directory.path().resolve(root.value()), LinkOption.NOFOLLOW_LINKS))) {
            // no workspace to store into and nothing where artifacts come from: a plain job's usual end costs no scan
            return new StoreBack.Kept();
        }
        Optional<WorkspaceProblem> over = directory.measure();
        if (over.isPresent()) {
            return new StoreBack.Refused(over.get().code(), over.get().message() + "; the workspace keeps its previous version");
        }
        RunDirectory.Scan scan = directory.scan();
        if (scan.unstorable().isPresent()) {
            WorkspaceProblem unstorable = scan.unstorable().get();
            return new StoreBack.Refused(unstorable.code(), unstorable.message()
                    + "; nothing of this run was stored and the workspace keeps its previous version");
        }
        List<String> skipped = scan.skipped();
        if (!skipped.isEmpty()) {
            // bounded: a run can leave millions of links behind
            LOG.debugf("job %s: %d entries not stored (not regular files), e.g. %s", claim.jobId(), skipped.size(),
                    skipped.subList(0, Math.min(10, skipped.size())));
        }
        return storeBack.store(claim, tenantId, base, scan.files(), artifacts(scan.files()));
    }

    /**
     * The files under the artifact paths that the run created or changed (a file it found there and
     * left as it was is not returned again: an agent's every later call would pay for it), within
     * the caps (count, size of one, size of all), read for storing.
     */
    private List<Collected> artifacts(Map<String, Found> found) {
        Map<String, FileEntry> before = base.map(snapshot -> snapshot.manifest().files()).orElse(Map.of());
        List<Collected> artifacts = new ArrayList<>();
        long total = 0;
        for (Found f : found.values()) {
            if (artifactRoots.stream().noneMatch(f.path()::within) || unchanged(before.get(f.path().value()), f)) {
                continue;
            }
            if (artifacts.size() >= limits.maxArtifacts() || f.size() > limits.maxArtifactBytes()
                    || total + f.size() > limits.maxArtifactsBytes()) {
                LOG.debugf("job %s: artifact %s over the caps, not returned", claim.jobId(), f.path());
                continue;
            }
            total += f.size();
            artifacts.add(new Collected(f.path().value(), f.sha256(), RunDirectory.readVerified(f)));
        }
        return artifacts;
    }

    private static boolean unchanged(FileEntry before, Found after) {
        return before != null && before.sha256().equals(after.sha256());
    }
}
