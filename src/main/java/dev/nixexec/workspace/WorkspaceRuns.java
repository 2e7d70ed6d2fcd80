package dev.nixexec.workspace;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.config.StatePaths;
import dev.nixexec.sandbox.Limits;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Materialises a job's workspace (stored files, then its inline inputs) in a fresh private
 * directory on the node that runs it, as a {@link WorkspaceRun} that afterwards stores the
 * changes back and keeps its artifacts. A job without files gets an empty directory of the same
 * kind, from which only what it leaves under {@code out} is kept, as its artifacts.
 */
@ApplicationScoped
public class WorkspaceRuns {

    /** The job cannot run as asked (its workspace is gone, or its files cannot be written). */
    public static final class Refused extends RuntimeException {
        private final String code;

        Refused(String code, String message) {
            super(message);
            this.code = code;
        }

        public String code() {
            return code;
        }
    }

    private final NixExecConfig config;
    private final StatePaths paths;
    private final WorkspaceRepository repository;
    private final JobInputs inputs;
    private final WorkspaceTmpfs tmpfs;
    private final WorkspaceStoreBack storeBack;

    WorkspaceRuns(NixExecConfig config, StatePaths paths, WorkspaceRepository repository, JobInputs inputs,
            WorkspaceTmpfs tmpfs, WorkspaceStoreBack storeBack) {
        this.config = config;
        this.paths = paths;
        this.repository = repository;
        this.inputs = inputs;
        this.tmpfs = tmpfs;
        this.storeBack = storeBack;
    }

    /**
     * The job's materialised workspace, or empty when the job has no files. The directory is
     * private to the service (a sized tmpfs when {@link WorkspaceTmpfs#available}); the sandbox
     * gives it to the run's uid when it mounts it. Whatever fails before the run has it, the
     * directory is gone again.
     */
    public Optional<WorkspaceRun> prepare(UUID jobId, int attempt, String nodeId, UUID tenantId, Limits limits) {
        // the job's inputs and its workspace's files, read in one transaction
        Optional<Inputs> read = QuarkusTransaction.requiringNew().call(() -> inputs.load(jobId).map(loaded -> new Inputs(
                loaded, loaded.workspace().map(id -> repository.snapshot(id).orElseThrow(() -> new Refused(
                        "workspace_gone", "the job's workspace " + id + " was deleted before the job ran"))))));
        if (read.isEmpty()) {
            return Optional.empty();
        }
        JobInputs.Loaded job = read.get().job();
        return Optional.of(materialise(new RunClaim(jobId, nodeId, attempt), tenantId, read.get().snapshot(),
                job.files(), job.artifactRoots(), limits));
    }

    /**
     * A plain job's /workspace (no workspace, files or artifact paths named): empty, and nothing of it
     * is kept but the files it leaves under {@code out}, its artifacts. Reads nothing from the database.
     */
    public WorkspaceRun prepareEmpty(UUID jobId, int attempt, String nodeId, UUID tenantId, Limits limits) {
        return materialise(new RunClaim(jobId, nodeId, attempt), tenantId, Optional.empty(), Map.of(),
                java.util.List.of(new WorkspacePath(JobFiles.OUT)), limits);
    }

    /**
     * A workspace of the tenant's materialised for no job (a session's interactive shell): its
     * changes are stored back when it is finished, merged as a job's are, with no artifacts.
     */
    public WorkspaceRun prepareUnclaimed(UUID tenantId, UUID workspaceId, Limits limits) {
        Optional<WorkspaceRepository.Snapshot> snapshot = QuarkusTransaction.requiringNew().call(() ->
                repository.snapshot(workspaceId).filter(s -> s.tenantId().equals(tenantId)));
        if (snapshot.isEmpty()) {
            throw new Refused("workspace_gone", "the workspace " + workspaceId + " was deleted");
        }
        return materialise(RunClaim.NONE, tenantId, snapshot, Map.of(), java.util.List.of(), limits);
    }

    private WorkspaceRun materialise(RunClaim claim, UUID tenantId,
            Optional<WorkspaceRepository.Snapshot> snapshot, Map<WorkspacePath, byte[]> inputs,
            java.util.List<WorkspacePath> artifactRoots, Limits limits) {
        long maxBytes = snapshot.map(s -> s.quota().bytes()).orElse(limits.workspaceBytes());
        int maxFiles = snapshot.map(s -> s.quota().files()).orElse(config.workspaces().quotaFiles());
        boolean mounted = tmpfs.available();
        Path dir = mounted ? mountedDir(WorkspaceTmpfs.sizeFor(maxBytes, maxFiles))
                : paths.jobsDir().resolve("ws-" + UUID.randomUUID());
        boolean ready = false;
        try {
            if (!mounted) {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
            if (snapshot.isPresent()) {
                for (Map.Entry<String, FileEntry> file : snapshot.get().manifest().files().entrySet()) {
                    place(dir, new WorkspacePath(file.getKey()), content(tenantId, file.getValue().sha256()),
                            file.getValue().executable());
                }
            }
            for (Map.Entry<WorkspacePath, byte[]> file : inputs.entrySet()) {
                place(dir, file.getKey(), file.getValue(), false);
            }
            WorkspaceRun run = new WorkspaceRun(claim, tenantId, new RunDirectory(dir, maxBytes, maxFiles), snapshot,
                    artifactRoots, config.workspaces(), storeBack, () -> discard(dir, mounted));
            ready = true;
            return run;
        } catch (IOException | UncheckedIOException e) {
            throw new Refused("invalid_request", "the job's files could not be laid out: " + e.getMessage());
        } finally {
            if (!ready) {
                discard(dir, mounted);
            }
        }
    }

    private record Inputs(JobInputs.Loaded job, Optional<WorkspaceRepository.Snapshot> snapshot) {
    }

    /** A stored file's content, each in a transaction of its own: a workspace's files need not fit in memory together. */
    private byte[] content(UUID tenant, String sha256) {
        return QuarkusTransaction.joiningExisting().call(() -> repository.content(tenant, sha256)
                .orElseThrow(() -> new IllegalStateException("missing blob " + sha256)));
    }

    private Path mountedDir(long bytes) {
        try {
            return tmpfs.take(bytes);
        } catch (IOException e) {
            throw new IllegalStateException("cannot mount the workspace's tmpfs: " + e.getMessage(), e);
        }
    }

    /** Deletes a workspace directory; a tmpfs is detached (and its directory deleted) in the background. */
    private void discard(Path dir, boolean mounted) {
        if (mounted) {
            tmpfs.release(dir);
        } else {
            RunDirectory.delete(dir);
        }
    }

    /** Writes one file; an input replaces a stored file of the same path. */
    private static void place(Path dir, WorkspacePath path, byte[] content, boolean executable) throws IOException {
        Path target = dir.resolve(path.value());
        Files.createDirectories(target.getParent());
        Files.write(target, content);
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString(executable ? "rwxr-xr-x" : "rw-r--r--"));
    }
}
