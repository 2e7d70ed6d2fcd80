package dev.nixexec.workspace;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.config.NixExecConfig;
import dev.nixexec.config.StatePaths;
import dev.nixexec.sandbox.Limits;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Materialises a job's workspace (stored files, then its inline inputs) in a fresh private
 * directory on the node that runs it, and afterwards stores the changes back and keeps its
 * artifacts. Jobs without files get none of this: their /workspace stays a sized tmpfs.
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

    final NixExecConfig config;
    final WorkspaceStore store;
    final EntityManager em;
    final ObjectMapper json;
    private final StatePaths paths;
    private final JobInputs inputs;
    private final WorkspaceTmpfs tmpfs;

    public WorkspaceRuns(NixExecConfig config, StatePaths paths, WorkspaceStore store, JobInputs inputs,
            WorkspaceTmpfs tmpfs, EntityManager em, ObjectMapper json) {
        this.tmpfs = tmpfs;
        this.config = config;
        this.paths = paths;
        this.store = store;
        this.inputs = inputs;
        this.em = em;
        this.json = json;
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
                loaded, loaded.workspace().map(id -> store.snapshot(id).orElseThrow(() -> new Refused("workspace_gone",
                        "the job's workspace " + id + " was deleted before the job ran"))))));
        if (read.isEmpty()) {
            return Optional.empty();
        }
        JobInputs.Loaded job = read.get().job();
        Optional<WorkspaceStore.Snapshot> snapshot = read.get().snapshot();
        long maxBytes = snapshot.map(WorkspaceStore.Snapshot::quotaBytes).orElse(limits.workspaceBytes());
        int maxFiles = snapshot.map(WorkspaceStore.Snapshot::quotaFiles).orElse(config.workspaces().quotaFiles());
        boolean mounted = tmpfs.available();
        Path dir = mounted ? mountedDir(WorkspaceTmpfs.sizeFor(maxBytes, maxFiles))
                : paths.jobsDir().resolve("ws-" + UUID.randomUUID());
        boolean ready = false;
        try {
            if (!mounted) {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
            if (snapshot.isPresent()) {
                for (Map.Entry<String, WorkspaceStore.Entry> file : snapshot.get().files().entrySet()) {
                    place(dir, new WorkspacePath(file.getKey()), store.blob(tenantId, file.getValue().sha256()),
                            file.getValue().executable());
                }
            }
            for (Map.Entry<WorkspacePath, byte[]> file : job.files().entrySet()) {
                place(dir, file.getKey(), file.getValue(), false);
            }
            WorkspaceRun run = new WorkspaceRun(this, new WorkspaceRun.Claim(jobId, nodeId, attempt), tenantId, dir,
                    mounted, snapshot, job.artifactRoots(), maxBytes, maxFiles);
            ready = true;
            return Optional.of(run);
        } catch (IOException | UncheckedIOException e) {
            throw new Refused("invalid_request", "the job's files could not be laid out: " + e.getMessage());
        } finally {
            if (!ready) {
                discard(dir, mounted);
            }
        }
    }

    private Path mountedDir(long bytes) {
        try {
            return tmpfs.take(bytes);
        } catch (IOException e) {
            throw new IllegalStateException("cannot mount the workspace's tmpfs: " + e.getMessage(), e);
        }
    }

    private record Inputs(JobInputs.Loaded job, Optional<WorkspaceStore.Snapshot> snapshot) {
    }

    /** Deletes a workspace directory; a tmpfs is detached (and its directory deleted) in the background. */
    void discard(Path dir, boolean mounted) {
        if (mounted) {
            tmpfs.release(dir);
        } else {
            WorkspaceRun.delete(dir);
        }
    }

    /** Writes one file; an input replaces a stored file of the same path. */
    private static void place(Path dir, WorkspacePath path, byte[] content, boolean executable) throws IOException {
        Path target = dir.resolve(path.value());
        Files.createDirectories(target.getParent());
        Files.write(target, content);
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString(executable ? "rwxr-xr-x" : "rw-r--r--"));
    }

    /** The path with every byte outside the unreserved characters percent-encoded, slashes kept. */
    static String urlPath(String path) {
        StringBuilder out = new StringBuilder();
        for (byte b : path.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || "-._~/".indexOf(c) >= 0) {
                out.append(c);
            } else {
                out.append('%').append(String.format("%02X", b & 0xff));
            }
        }
        return out.toString();
    }

    /** Runs {@code work} in a transaction of its own. */
    void inTransaction(Runnable work) {
        QuarkusTransaction.requiringNew().run(work);
    }

    /**
     * Whether this node still holds the job's claim (same attempt) and the job has not ended: a
     * job taken back by the reaper may run again elsewhere, so its changes must not land. The
     * row is key-share locked to the end of the transaction: the reaper (FOR UPDATE SKIP LOCKED)
     * passes it by meanwhile, while the heartbeat's lease updates are not held up. "building"
     * counts too, in case the start of the run is written after its end is near; a reaped
     * building job has no node or another attempt.
     */
    boolean stillClaimed(WorkspaceRun.Claim claim) {
        return !em.createNativeQuery("SELECT id FROM jobs WHERE id = ?1 AND node_id = ?2 AND attempt = ?3 "
                        + "AND status IN ('building', 'running') FOR KEY SHARE")
                .setParameter(1, claim.jobId()).setParameter(2, claim.nodeId()).setParameter(3, claim.attempt())
                .getResultList().isEmpty();
    }

    /**
     * Stores a content ahead of the file or artifact that will refer to it, in an earlier
     * transaction: the write touches it, so clean-up spares it for an hour.
     */
    void putBlob(UUID tenantId, String sha256, byte[] content) {
        Blobs.put(em, tenantId, sha256, content);
    }

    /** The artifacts' rows and the job's artifact list; their contents are already stored. */
    void recordArtifacts(UUID jobId, UUID tenantId, List<WorkspaceRun.Collected> artifacts) {
        // A retried job's artifacts are its last attempt's, as its result is.
        em.createNativeQuery("DELETE FROM job_artifacts WHERE job_id = ?1").setParameter(1, jobId).executeUpdate();
        for (WorkspaceRun.Collected a : artifacts) {
            em.createNativeQuery("INSERT INTO job_artifacts (job_id, path, tenant_id, sha256, size, content_type) "
                            + "VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
                    .setParameter(1, jobId).setParameter(2, a.path()).setParameter(3, tenantId)
                    .setParameter(4, a.sha256()).setParameter(5, (long) a.content().length)
                    .setParameter(6, ContentTypes.of(a.path())).executeUpdate();
        }
        List<Artifact> views = artifacts.stream().map(a -> new Artifact(a.path(), a.content().length, a.sha256(),
                ContentTypes.of(a.path()), "/v1/jobs/" + jobId + "/artifacts/" + urlPath(a.path()))).toList();
        try {
            em.createNativeQuery("UPDATE jobs SET artifacts = CAST(?2 AS jsonb) WHERE id = ?1")
                    .setParameter(1, jobId).setParameter(2, json.writeValueAsString(views)).executeUpdate();
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
