package dev.nixexec.workspace;

import dev.nixexec.database.NamedStatement;
import dev.nixexec.database.SqlFile;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * All SQL of workspaces, their files, versions and contents, of jobs' input files and of
 * artifacts: the named statements of {@code workspaces.sql}, rows read by column name. Callers
 * hold the transaction; nothing here checks roles or quotas ({@link WorkspaceService} does).
 */
@ApplicationScoped
class WorkspaceRepository {

    /** A workspace's quotas. */
    record Quota(long bytes, int files) {
    }

    /** What all of a tenant's workspaces hold together. */
    record Usage(long bytes, long files) {
    }

    /** A workspace's files at one version, with its tenant and quotas, for a worker to materialise. */
    record Snapshot(UUID id, UUID tenantId, Quota quota, Manifest manifest) {
    }

    /** A job's row of input files: its workspace (if any), inputs and artifact paths as JSON. */
    record JobFilesRow(Optional<UUID> workspace, String inputs, String artifactPaths) {
    }

    /** A session workspace the expiry deletes. */
    record IdleWorkspace(UUID id, UUID tenantId, String name, OffsetDateTime idleSince) {
    }

    /** A stored artifact's content address and media type. */
    record ArtifactRow(String sha256, String contentType) {
    }

    /**
     * Who looks at a tenant's workspaces: its key (the nil id in local mode, which has none) and
     * whether it reviews, so that it reads every workspace of the tenant, other keys' MCP
     * sessions' too.
     */
    record Reader(UUID tenant, UUID key, boolean reviewer) {
    }

    /** The key a workspace belongs to: an MCP session's; none for an ordinary workspace of the tenant. */
    record Ownership(Optional<UUID> ownerKey) {
    }

    private static final SqlFile SQL = SqlFile.of(WorkspaceRepository.class, "workspaces.sql");

    /** Salt of the tenants' change locks: keeps them apart from other advisory locks of the same tenant. */
    private static final long CHANGE_LOCK = 0x6e69786578656373L;
    private static final long SWEEP_LOCK = 0x6e697865_78706972L;

    private final DataSource db;

    WorkspaceRepository(AgroalDataSource db) {
        this.db = db;
    }

    // ---- workspaces

    /** Creates an ordinary workspace of the tenant in one statement; false if the tenant has one of that name. */
    boolean insert(UUID id, UUID tenant, String name, Quota quota) {
        return SQL.update(db, "Insert", Map.of("id", id, "tenant", tenant, "name", name,
                "quota_bytes", quota.bytes(), "quota_files", quota.files())) == 1;
    }

    /**
     * The id of the MCP session workspace of this name, made (with {@code quota}, belonging to
     * {@code owner}, none in local mode) or marked used, in one statement.
     */
    UUID upsertSession(UUID tenant, String name, Quota quota, Optional<UUID> owner) {
        return SQL.single(db, "UpsertSession", NamedStatement.values().set("id", UUID.randomUUID())
                .set("tenant", tenant).set("name", name).set("quota_bytes", quota.bytes())
                .set("quota_files", quota.files()).set("owner", owner.orElse(null)).map(), rs -> uuid(rs, "id"));
    }

    Optional<WorkspaceView> view(Reader reader, UUID id) {
        return SQL.query(db, "ViewById", seen(reader).set("id", id).map(), WorkspaceRepository::view).stream()
                .findFirst();
    }

    List<WorkspaceView> views(Reader reader) {
        return SQL.query(db, "Views", seen(reader).map(), WorkspaceRepository::view);
    }

    /** The reader's workspace with this id, or else this name, in one query. */
    Optional<WorkspaceView> viewByIdOrName(Reader reader, UUID id, String name) {
        return SQL.query(db, "ViewByIdOrName", seen(reader).set("id", id).set("name", name).map(),
                WorkspaceRepository::view).stream().findFirst();
    }

    /** The tenant's workspace {@code id}'s owner, if the tenant has it; empty if it has not. */
    Optional<Ownership> ownership(UUID tenant, UUID id) {
        return SQL.query(db, "Ownership", Map.of("id", id, "tenant", tenant),
                rs -> new Ownership(Optional.ofNullable(uuid(rs, "owner_key_id")))).stream().findFirst();
    }

    Optional<UUID> idByName(UUID tenant, String name) {
        return SQL.query(db, "IdByName", Map.of("tenant", tenant, "name", name), rs -> uuid(rs, "id")).stream()
                .findFirst();
    }

    /** Deletes these workspaces of the tenant (files and versions go with them), then its unreferenced contents. */
    void delete(UUID tenant, List<UUID> ids) {
        for (UUID id : ids) {
            SQL.update(db, "Delete", Map.of("id", id, "tenant", tenant));
        }
        collectContents(tenant);
    }

    /**
     * Records a use of the workspace now (a job submitted for it, a change, a session's lookup);
     * false if it is gone. Waits for an expiry that holds the row, so it never marks one being
     * deleted.
     */
    boolean markUsed(UUID tenant, UUID id) {
        return SQL.update(db, "MarkUsed", Map.of("id", id, "tenant", tenant)) == 1;
    }

    /**
     * Records a read of the workspace's files, at most once a minute: concurrent readers do not
     * queue for the row's lock, and a minute does not matter to an idle time of hours.
     */
    void markRead(UUID id) {
        SQL.update(db, "MarkRead", Map.of("id", id));
    }

    Quota quota(UUID id) {
        return SQL.single(db, "Quota", Map.of("id", id),
                rs -> new Quota(rs.getLong("quota_bytes"), rs.getInt("quota_files")));
    }

    Usage tenantUsage(UUID tenant) {
        return SQL.single(db, "TenantUsage", Map.of("tenant", tenant),
                rs -> new Usage(rs.getLong("bytes"), rs.getLong("files")));
    }

    /** Serialises changes of one tenant's workspaces (so the tenant quota holds under concurrency), and locks the workspace's row. */
    void lockForChange(UUID tenant, UUID workspace) {
        SQL.single(db, "LockTenant", Map.of("key", tenant.getMostSignificantBits() ^ CHANGE_LOCK), rs -> true);
        SQL.query(db, "LockWorkspace", Map.of("id", workspace), rs -> true);
    }

    /** A new version of the workspace, made by {@code job} (null: an upload), with what it changed. */
    int newVersion(UUID id, UUID job, int created, int modified, int deleted) {
        int version = SQL.single(db, "NextVersion", Map.of("id", id), rs -> rs.getInt("version"));
        SQL.update(db, "InsertVersion", NamedStatement.values().set("id", id).set("version", version).set("job", job)
                .set("created", created).set("modified", modified).set("deleted", deleted).map());
        return version;
    }

    // ---- files

    /** A workspace of the tenant and its files, in one statement (one snapshot); empty if there is none. */
    Optional<WorkspaceListing> listing(Reader reader, UUID id) {
        // a row: the workspace without its sums, and one of its files (none when it has none)
        record Row(WorkspaceView workspace, WorkspaceFile file) {
        }
        List<Row> rows = SQL.query(db, "Listing", seen(reader).set("id", id).map(), rs -> {
            String path = rs.getString("path");
            return new Row(new WorkspaceView(uuid(rs, "id"), rs.getString("name"), rs.getLong("quota_bytes"),
                    rs.getInt("quota_files"), 0, 0, rs.getInt("version"), uuid(rs, "version_job_id"),
                    time(rs, "created_at"), time(rs, "updated_at")),
                    path == null ? null : new WorkspaceFile(path, rs.getLong("size"), rs.getString("sha256"),
                            ContentTypes.of(path), time(rs, "file_updated_at")));
        });
        if (rows.isEmpty()) {
            return Optional.empty();
        }
        List<WorkspaceFile> files = rows.stream().map(Row::file).filter(Objects::nonNull).toList();
        WorkspaceView w = rows.get(0).workspace();
        return Optional.of(new WorkspaceListing(new WorkspaceView(w.id(), w.name(), w.quotaBytes(), w.quotaFiles(),
                files.stream().mapToLong(WorkspaceFile::size).sum(), files.size(), w.version(), w.versionJobId(),
                w.createdAt(), w.updatedAt()), files));
    }

    /** The workspace's files, by path. */
    Map<String, FileEntry> files(UUID id) {
        Map<String, FileEntry> files = new LinkedHashMap<>();
        SQL.query(db, "Files", Map.of("id", id), rs -> Map.entry(rs.getString("path"), entry(rs)))
                .forEach(e -> files.put(e.getKey(), e.getValue()));
        return files;
    }

    /** The workspace's version and files in one statement; empty when it was deleted. */
    Optional<Manifest> manifest(UUID id) {
        return snapshot(id).map(Snapshot::manifest);
    }

    /** The workspace's files as of now with its tenant and quotas, in one statement; empty when it was deleted. */
    Optional<Snapshot> snapshot(UUID id) {
        record Row(UUID tenantId, Quota quota, int version, String path, FileEntry entry) {
        }
        List<Row> rows = SQL.query(db, "Snapshot", Map.of("id", id), rs -> new Row(uuid(rs, "tenant_id"),
                new Quota(rs.getLong("quota_bytes"), rs.getInt("quota_files")), rs.getInt("version"),
                rs.getString("path"), entry(rs)));
        if (rows.isEmpty()) {
            return Optional.empty();
        }
        Map<String, FileEntry> files = new LinkedHashMap<>();
        rows.stream().filter(r -> r.path() != null).forEach(r -> files.put(r.path(), r.entry()));
        Row w = rows.get(0);
        return Optional.of(new Snapshot(id, w.tenantId(), w.quota(), new Manifest(w.version(), files)));
    }

    void upsertFile(UUID id, UUID tenant, String path, FileEntry entry) {
        SQL.update(db, "UpsertFile", Map.of("id", id, "path", path, "tenant", tenant, "sha256", entry.sha256(),
                "size", entry.size(), "executable", entry.executable()));
    }

    /** False if the workspace has no file of that path. */
    boolean deleteFile(UUID id, String path) {
        return SQL.update(db, "DeleteFile", Map.of("id", id, "path", path)) == 1;
    }

    // ---- contents

    /**
     * Stores the content unless the tenant has it already. A content it has is touched: that locks
     * the row against a concurrent {@link #collectContents} and restarts its grace period, so a
     * write that has not committed yet never finds its content collected.
     */
    void putContent(UUID tenant, String sha256, byte[] content) {
        SQL.update(db, "PutContent", Map.of("tenant", tenant, "sha256", sha256, "size", (long) content.length,
                "content", content));
    }

    Optional<byte[]> content(UUID tenant, String sha256) {
        return SQL.query(db, "Content", Map.of("tenant", tenant, "sha256", sha256), rs -> rs.getBytes("content"))
                .stream().findFirst();
    }

    /**
     * Deletes the tenant's contents no workspace file and no artifact refers to any more and that
     * no write touched in the last hour (one may be about to refer to it).
     */
    int collectContents(UUID tenant) {
        return SQL.update(db, "CollectContents", Map.of("tenant", tenant));
    }

    /** {@link #collectContents} for every tenant. */
    int collectAllContents() {
        return SQL.update(db, "CollectAllContents", Map.of());
    }

    // ---- jobs' files and artifacts

    /**
     * A job's files, with the tenant's workspace of this id or else this name, in one statement;
     * false if there is none the key may run a job on. Marks the workspace used, which also holds
     * its row until the submission commits: an expiry of an idle session workspace skips it
     * meanwhile and afterwards sees the job.
     */
    boolean insertJobFiles(UUID jobId, UUID tenant, UUID key, UUID workspaceId, String workspaceName, String inputs,
            String artifactPaths) {
        return SQL.update(db, "InsertJobFiles", NamedStatement.values().set("tenant", tenant).set("key", key)
                .set("id", workspaceId).set("name", workspaceName).set("job", jobId).set("inputs", inputs)
                .set("artifact_paths", artifactPaths).map()) == 1;
    }

    /** A job's files without a workspace. */
    void insertJobFiles(UUID jobId, String inputs, String artifactPaths) {
        SQL.update(db, "InsertJobFilesAlone", Map.of("job", jobId, "inputs", inputs, "artifact_paths", artifactPaths));
    }

    Optional<JobFilesRow> jobFiles(UUID jobId) {
        return SQL.query(db, "JobFiles", Map.of("job", jobId), rs -> new JobFilesRow(
                Optional.ofNullable(uuid(rs, "workspace_id")), rs.getString("inputs"), rs.getString("artifact_paths")))
                .stream().findFirst();
    }

    /** A job's artifact, if the job is the tenant's. */
    Optional<ArtifactRow> artifact(UUID tenant, UUID jobId, String path) {
        return SQL.query(db, "Artifact", Map.of("job", jobId, "path", path, "tenant", tenant),
                rs -> new ArtifactRow(rs.getString("sha256"), rs.getString("content_type"))).stream().findFirst();
    }

    /** Replaces the job's artifacts (a retried job's are its last attempt's, as its result is); their contents are stored. */
    void replaceArtifacts(UUID jobId, UUID tenant, List<Artifact> artifacts) {
        SQL.update(db, "DeleteArtifacts", Map.of("job", jobId));
        for (Artifact a : artifacts) {
            SQL.update(db, "InsertArtifact", Map.of("job", jobId, "path", a.name(), "tenant", tenant,
                    "sha256", a.sha256(), "size", a.size(), "content_type", a.contentType()));
        }
    }

    // ---- session workspaces' expiry

    /** Whether this transaction may sweep: one node at a time, the others skip. */
    boolean trySweepLock() {
        return SQL.single(db, "TrySweepLock", Map.of("key", SWEEP_LOCK), rs -> rs.getBoolean("locked"));
    }

    /**
     * Up to {@code limit} session workspaces idle for {@code ttl}, their rows locked. A job counts
     * while it is open and for the TTL after it ended. Rows locked by a use in progress (a
     * submission, a session's lookup) are skipped; one used since this statement began is re-read
     * with its new used_at and so left alone.
     */
    List<IdleWorkspace> idleSessionWorkspaces(Duration ttl, int limit) {
        return SQL.query(db, "IdleSessionWorkspaces", Map.of("ttl", ttl.toMillis() / 1000.0, "limit", limit),
                rs -> new IdleWorkspace(uuid(rs, "id"), uuid(rs, "tenant_id"), rs.getString("name"),
                        time(rs, "idle_since")));
    }

    // ---- rows

    private static NamedStatement.Values seen(Reader reader) {
        return NamedStatement.values().set("tenant", reader.tenant()).set("key", reader.key())
                .set("reviewer", reader.reviewer());
    }

    private static WorkspaceView view(ResultSet rs) throws SQLException {
        return new WorkspaceView(uuid(rs, "id"), rs.getString("name"), rs.getLong("quota_bytes"),
                rs.getInt("quota_files"), rs.getLong("bytes"), rs.getInt("files"), rs.getInt("version"),
                uuid(rs, "version_job_id"), time(rs, "created_at"), time(rs, "updated_at"));
    }

    private static FileEntry entry(ResultSet rs) throws SQLException {
        return new FileEntry(rs.getString("sha256"), rs.getLong("size"), rs.getBoolean("executable"));
    }

    private static UUID uuid(ResultSet rs, String column) throws SQLException {
        return rs.getObject(column, UUID.class);
    }

    private static OffsetDateTime time(ResultSet rs, String column) throws SQLException {
        return rs.getObject(column, OffsetDateTime.class);
    }
}
