package dev.nixexec.workspace;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.database.JsonColumns;
import dev.nixexec.workspace.RunDirectory.Found;
import dev.nixexec.workspace.StoreBackMerge.Changes;
import io.quarkus.narayana.jta.QuarkusTransaction;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Stores what a run left in its workspace: first the contents of the changed files and of the
 * artifacts (a transaction of their own, without the tenant's lock: content-addressed, and the
 * clean-up spares contents touched within its hour of grace), then, in one transaction under the
 * tenant's lock and only while the job is still this node's claim, the changes merged onto the
 * workspace's current version ({@link StoreBackMerge}) as a new version, and the artifacts.
 */
@ApplicationScoped
class WorkspaceStoreBack {

    /** An artifact read for storing. */
    record Collected(String path, String sha256, byte[] content) {
    }

    private final WorkspaceRepository repository;
    private final WorkspaceService workspaces;
    private final RunClaims claims;
    private final ObjectMapper json;

    WorkspaceStoreBack(WorkspaceRepository repository, WorkspaceService workspaces, RunClaims claims, ObjectMapper json) {
        this.repository = repository;
        this.claims = claims;
        this.workspaces = workspaces;
        this.json = json;
    }

    /**
     * Stores the run's files ({@code found}, against the version it started from, {@code base})
     * and its artifacts; a refusal leaves the workspace and the job's artifacts as they were.
     */
    StoreBack store(RunClaim claim, UUID tenant, Optional<WorkspaceRepository.Snapshot> base,
            Map<String, Found> found, List<Collected> artifacts) {
        Changes changes = StoreBackMerge.changes(base.map(b -> b.manifest().files()).orElse(Map.of()),
                base.isPresent() ? entries(found) : Map.of());
        if (changes.isEmpty() && artifacts.isEmpty() && claim.attempt() == 1) {
            return new StoreBack.Kept(); // nothing to store, and no earlier attempt's artifacts to clear
        }
        // Contents first, without the tenant's lock: reading and hashing a large run's files must
        // not hold up the tenant's other uploads and store-backs.
        QuarkusTransaction.requiringNew().run(() -> {
            changes.written().keySet().forEach(path -> {
                Found file = found.get(path);
                repository.putContent(tenant, file.sha256(), RunDirectory.readVerified(file));
            });
            artifacts.forEach(a -> repository.putContent(tenant, a.sha256(), a.content()));
        });
        return QuarkusTransaction.requiringNew().call(() -> {
            Optional<StoreBack.Refused> refused = changes.isEmpty() ? takenBack(claim)
                    : apply(claim, tenant, base.orElseThrow(), changes);
            if (refused.isPresent()) {
                return refused.get(); // nothing was written: the transaction only held the locks
            }
            if (!claim.ofAJob()) {
                return new StoreBack.Kept();
            }
            List<Artifact> stored = artifacts.stream()
                    .map(a -> Artifact.of(claim.jobId(), a.path(), a.content().length, a.sha256())).toList();
            repository.replaceArtifacts(claim.jobId(), tenant, stored);
            claims.showArtifacts(claim.jobId(), JsonColumns.write(json, stored));
            return new StoreBack.Kept();
        });
    }

    /** Merges the run's changes onto the workspace under the tenant's lock; the refusal if they cannot land. */
    private Optional<StoreBack.Refused> apply(RunClaim claim, UUID tenant, WorkspaceRepository.Snapshot base,
            Changes changes) {
        UUID id = base.id();
        repository.lockForChange(tenant, id);
        Optional<StoreBack.Refused> takenBack = takenBack(claim);
        if (takenBack.isPresent()) {
            return takenBack;
        }
        Optional<Manifest> current = repository.manifest(id);
        if (current.isEmpty()) {
            return Optional.of(new StoreBack.Refused("workspace_gone", "the workspace was deleted while the job ran"));
        }
        return switch (StoreBackMerge.merge(base.manifest(), changes, current.get())) {
            case StoreBackMerge.Conflict conflict ->
                    Optional.of(new StoreBack.Refused(StoreBackMerge.CONFLICT, conflict.message()));
            case StoreBackMerge.Merged merged -> {
                long largest = merged.written().values().stream().mapToLong(FileEntry::size).max().orElse(0);
                Optional<String> quota = workspaces.quotaProblem(id, tenant, current.get().files(), merged.files(),
                        largest);
                if (quota.isPresent()) {
                    yield Optional.of(new StoreBack.Refused(WorkspaceProblem.QUOTA,
                            quota.get() + "; the workspace keeps its previous version"));
                }
                merged.deleted().forEach(path -> repository.deleteFile(id, path));
                merged.written().forEach((path, entry) -> repository.upsertFile(id, tenant, path, entry));
                repository.newVersion(id, claim.jobId(), merged.created(), merged.modified(), merged.deleted().size());
                repository.collectContents(tenant);
                yield Optional.empty();
            }
        };
    }

    /** The refusal when the reaper took the job back: it may run again elsewhere, so nothing of this run lands. */
    private Optional<StoreBack.Refused> takenBack(RunClaim claim) {
        if (!claim.ofAJob()) {
            return Optional.empty();
        }
        return claims.holdIfStillClaimed(claim.jobId(), claim.nodeId(), claim.attempt()) ? Optional.empty()
                : Optional.of(new StoreBack.Refused("worker_lost", "the job was taken back from this node before its "
                        + "files were stored; nothing of this run was stored"));
    }

    private static Map<String, FileEntry> entries(Map<String, Found> found) {
        Map<String, FileEntry> entries = new java.util.TreeMap<>();
        found.forEach((path, file) -> entries.put(path, file.entry()));
        return entries;
    }
}
