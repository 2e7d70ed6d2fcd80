package dev.nixexec.workspace;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.Query;
import jakarta.persistence.Tuple;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * All SQL of workspaces, their files, versions and contents, of jobs' input files and of
 * artifacts: read here as SQL (named parameters), rows mapped to records by column name. Callers
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

    /** A workspace as clients see it; appended a WHERE over {@code w}. */
    private static final String VIEW = """
            SELECT w.id, w.name, w.quota_bytes, w.quota_files,
                   (SELECT coalesce(sum(f.size), 0) FROM workspace_files f WHERE f.workspace_id = w.id) AS bytes,
                   (SELECT count(*) FROM workspace_files f WHERE f.workspace_id = w.id) AS files,
                   w.version,
                   (SELECT v.job_id FROM workspace_versions v
                     WHERE v.workspace_id = w.id AND v.version = w.version) AS version_job_id,
                   w.created_at, w.updated_at
              FROM workspaces w
            """;

    /** Id before name: a workspace named like another's id is found by its name only. */
    private static final String BY_ID_OR_NAME = """
            w.tenant_id = :tenant AND (w.id = :id OR w.name = :name) AND %s
            ORDER BY (w.id = :id) DESC LIMIT 1
            """;

    /** A workspace the reader may see: not another key's MCP session's, unless the reader reviews. */
    private static final String SEEN = "(w.owner_key_id IS NULL OR w.owner_key_id = :key OR :reviewer)";

    /** A workspace the key may change or run a job on: not another key's MCP session's. */
    private static final String CHANGEABLE = "(w.owner_key_id IS NULL OR w.owner_key_id = :key)";

    /** Not referred to by a workspace file or an artifact, and not touched by a write for an hour. */
    private static final String UNREFERENCED_AND_IDLE = """
            b.created_at < now() - interval '1 hour'
            AND NOT EXISTS (SELECT 1 FROM workspace_files f WHERE f.tenant_id = b.tenant_id AND f.sha256 = b.sha256)
            AND NOT EXISTS (SELECT 1 FROM job_artifacts a WHERE a.tenant_id = b.tenant_id AND a.sha256 = b.sha256)
            """;

    /** Salt of the tenants' change locks: keeps them apart from other advisory locks of the same tenant. */
    private static final long CHANGE_LOCK = 0x6e69786578656373L;
    private static final long SWEEP_LOCK = 0x6e697865_78706972L;

    private final EntityManager em;

    WorkspaceRepository(EntityManager em) {
        this.em = em;
    }

    // ---- workspaces

    /** Creates an ordinary workspace of the tenant in one statement; false if the tenant has one of that name. */
    boolean insert(UUID id, UUID tenant, String name, Quota quota) {
        return em.createNativeQuery("""
                INSERT INTO workspaces (id, tenant_id, name, quota_bytes, quota_files)
                VALUES (:id, :tenant, :name, :quota_bytes, :quota_files)
                ON CONFLICT (tenant_id, name) DO NOTHING
                """).setParameter("id", id).setParameter("tenant", tenant).setParameter("name", name)
                .setParameter("quota_bytes", quota.bytes()).setParameter("quota_files", quota.files())
                .executeUpdate() == 1;
    }

    /**
     * The id of the MCP session workspace of this name, made (with {@code quota}, belonging to
     * {@code owner}, none in local mode) or marked used, in one statement.
     */
    UUID upsertSession(UUID tenant, String name, Quota quota, Optional<UUID> owner) {
        return (UUID) em.createNativeQuery("""
                INSERT INTO workspaces (id, tenant_id, name, quota_bytes, quota_files, mcp_session, owner_key_id)
                VALUES (:id, :tenant, :name, :quota_bytes, :quota_files, true, CAST(:owner AS uuid))
                ON CONFLICT (tenant_id, name) DO UPDATE SET used_at = now()
                RETURNING id
                """, UUID.class).setParameter("id", UUID.randomUUID()).setParameter("tenant", tenant)
                .setParameter("name", name).setParameter("quota_bytes", quota.bytes())
                .setParameter("quota_files", quota.files()).setParameter("owner", owner.map(UUID::toString).orElse(null))
                .getSingleResult();
    }

    Optional<WorkspaceView> view(Reader reader, UUID id) {
        return views(seen(em.createNativeQuery(VIEW + "WHERE w.tenant_id = :tenant AND w.id = :id AND " + SEEN,
                Tuple.class), reader).setParameter("id", id).getResultList()).stream().findFirst();
    }

    List<WorkspaceView> views(Reader reader) {
        return views(seen(em.createNativeQuery(VIEW + "WHERE w.tenant_id = :tenant AND " + SEEN + " ORDER BY w.name",
                Tuple.class), reader).getResultList());
    }

    /** The reader's workspace with this id, or else this name, in one query. */
    Optional<WorkspaceView> viewByIdOrName(Reader reader, UUID id, String name) {
        return views(seen(em.createNativeQuery(VIEW + "WHERE " + BY_ID_OR_NAME.formatted(SEEN), Tuple.class), reader)
                .setParameter("id", id).setParameter("name", name).getResultList()).stream().findFirst();
    }

    /** The tenant's workspace {@code id}'s owner, if the tenant has it; empty if it has not. */
    Optional<Ownership> ownership(UUID tenant, UUID id) {
        List<?> rows = em.createNativeQuery("""
                SELECT coalesce(CAST(owner_key_id AS text), '') FROM workspaces WHERE id = :id AND tenant_id = :tenant
                """).setParameter("id", id).setParameter("tenant", tenant).getResultList();
        return rows.stream().map(String.class::cast).findFirst().map(owner -> new Ownership(
                owner.isEmpty() ? Optional.empty() : Optional.of(UUID.fromString(owner))));
    }

    Optional<UUID> idByName(UUID tenant, String name) {
        List<?> ids = em.createNativeQuery("SELECT id FROM workspaces WHERE tenant_id = :tenant AND name = :name",
                UUID.class).setParameter("tenant", tenant).setParameter("name", name).getResultList();
        return ids.stream().map(UUID.class::cast).findFirst();
    }

    /** Deletes these workspaces of the tenant (files and versions go with them), then its unreferenced contents. */
    void delete(UUID tenant, List<UUID> ids) {
        for (UUID id : ids) {
            em.createNativeQuery("DELETE FROM workspaces WHERE id = :id AND tenant_id = :tenant")
                    .setParameter("id", id).setParameter("tenant", tenant).executeUpdate();
        }
        collectContents(tenant);
    }

    /**
     * Records a use of the workspace now (a job submitted for it, a change, a session's lookup);
     * false if it is gone. Waits for an expiry that holds the row, so it never marks one being
     * deleted.
     */
    boolean markUsed(UUID tenant, UUID id) {
        return em.createNativeQuery("UPDATE workspaces SET used_at = now() WHERE id = :id AND tenant_id = :tenant")
                .setParameter("id", id).setParameter("tenant", tenant).executeUpdate() == 1;
    }

    /**
     * Records a read of the workspace's files, at most once a minute: concurrent readers do not
     * queue for the row's lock, and a minute does not matter to an idle time of hours.
     */
    void markRead(UUID id) {
        em.createNativeQuery("""
                UPDATE workspaces SET used_at = now()
                 WHERE id = :id AND used_at < now() - interval '1 minute'
                """).setParameter("id", id).executeUpdate();
    }

    Quota quota(UUID id) {
        Tuple row = (Tuple) em.createNativeQuery("SELECT quota_bytes, quota_files FROM workspaces WHERE id = :id",
                Tuple.class).setParameter("id", id).getSingleResult();
        return new Quota(int64(row, "quota_bytes"), int32(row, "quota_files"));
    }

    Usage tenantUsage(UUID tenant) {
        Tuple row = (Tuple) em.createNativeQuery("""
                SELECT coalesce(sum(size), 0) AS bytes, count(*) AS files
                  FROM workspace_files WHERE tenant_id = :tenant
                """, Tuple.class).setParameter("tenant", tenant).getSingleResult();
        return new Usage(int64(row, "bytes"), int64(row, "files"));
    }

    /** Serialises changes of one tenant's workspaces (so the tenant quota holds under concurrency), and locks the workspace's row. */
    void lockForChange(UUID tenant, UUID workspace) {
        em.createNativeQuery("SELECT pg_advisory_xact_lock(:key)")
                .setParameter("key", tenant.getMostSignificantBits() ^ CHANGE_LOCK).getSingleResult();
        em.createNativeQuery("SELECT id FROM workspaces WHERE id = :id FOR UPDATE").setParameter("id", workspace)
                .getResultList();
    }

    /** A new version of the workspace, made by {@code job} (null: an upload), with what it changed. */
    int newVersion(UUID id, UUID job, int created, int modified, int deleted) {
        int version = ((Number) em.createNativeQuery("""
                UPDATE workspaces SET version = version + 1, updated_at = now()
                 WHERE id = :id RETURNING version
                """).setParameter("id", id).getSingleResult()).intValue();
        em.createNativeQuery("""
                INSERT INTO workspace_versions (workspace_id, version, job_id, created, modified, deleted)
                VALUES (:id, :version, :job, :created, :modified, :deleted)
                """).setParameter("id", id).setParameter("version", version).setParameter("job", job)
                .setParameter("created", created).setParameter("modified", modified).setParameter("deleted", deleted)
                .executeUpdate();
        return version;
    }

    // ---- files

    /** A workspace of the tenant and its files, in one statement (one snapshot); empty if there is none. */
    Optional<WorkspaceListing> listing(Reader reader, UUID id) {
        List<Tuple> rows = tuples(seen(em.createNativeQuery("""
                SELECT w.id, w.name, w.quota_bytes, w.quota_files, w.version,
                       (SELECT v.job_id FROM workspace_versions v
                         WHERE v.workspace_id = w.id AND v.version = w.version) AS version_job_id,
                       w.created_at, w.updated_at,
                       f.path, f.size, f.sha256, f.updated_at AS file_updated_at
                  FROM workspaces w LEFT JOIN workspace_files f ON f.workspace_id = w.id
                 WHERE w.id = :id AND w.tenant_id = :tenant AND %s
                 ORDER BY f.path
                """.formatted(SEEN), Tuple.class), reader).setParameter("id", id).getResultList());
        if (rows.isEmpty()) {
            return Optional.empty();
        }
        List<WorkspaceFile> files = rows.stream().filter(r -> r.get("path") != null)
                .map(r -> new WorkspaceFile(text(r, "path"), int64(r, "size"), text(r, "sha256"),
                        ContentTypes.of(text(r, "path")), time(r, "file_updated_at"))).toList();
        Tuple w = rows.get(0);
        WorkspaceView view = new WorkspaceView(uuid(w, "id"), text(w, "name"), int64(w, "quota_bytes"),
                int32(w, "quota_files"), files.stream().mapToLong(WorkspaceFile::size).sum(), files.size(),
                int32(w, "version"), uuid(w, "version_job_id"), time(w, "created_at"), time(w, "updated_at"));
        return Optional.of(new WorkspaceListing(view, files));
    }

    /** The workspace's files, by path. */
    Map<String, FileEntry> files(UUID id) {
        Map<String, FileEntry> files = new LinkedHashMap<>();
        tuples(em.createNativeQuery("""
                SELECT path, sha256, size, executable FROM workspace_files WHERE workspace_id = :id
                """, Tuple.class).setParameter("id", id).getResultList())
                .forEach(r -> files.put(text(r, "path"), entry(r)));
        return files;
    }

    /** The workspace's version and files in one statement; empty when it was deleted. */
    Optional<Manifest> manifest(UUID id) {
        return snapshot(id).map(Snapshot::manifest);
    }

    /** The workspace's files as of now with its tenant and quotas, in one statement; empty when it was deleted. */
    Optional<Snapshot> snapshot(UUID id) {
        List<Tuple> rows = tuples(em.createNativeQuery("""
                SELECT w.tenant_id, w.version, w.quota_bytes, w.quota_files, f.path, f.sha256, f.size, f.executable
                  FROM workspaces w LEFT JOIN workspace_files f ON f.workspace_id = w.id
                 WHERE w.id = :id
                """, Tuple.class).setParameter("id", id).getResultList());
        if (rows.isEmpty()) {
            return Optional.empty();
        }
        Map<String, FileEntry> files = new LinkedHashMap<>();
        rows.stream().filter(r -> r.get("path") != null).forEach(r -> files.put(text(r, "path"), entry(r)));
        Tuple w = rows.get(0);
        return Optional.of(new Snapshot(id, uuid(w, "tenant_id"),
                new Quota(int64(w, "quota_bytes"), int32(w, "quota_files")), new Manifest(int32(w, "version"), files)));
    }

    void upsertFile(UUID id, UUID tenant, String path, FileEntry entry) {
        em.createNativeQuery("""
                INSERT INTO workspace_files (workspace_id, path, tenant_id, sha256, size, executable)
                VALUES (:id, :path, :tenant, :sha256, :size, :executable)
                ON CONFLICT (workspace_id, path) DO UPDATE
                   SET sha256 = excluded.sha256, size = excluded.size, executable = excluded.executable,
                       updated_at = now()
                """).setParameter("id", id).setParameter("path", path).setParameter("tenant", tenant)
                .setParameter("sha256", entry.sha256()).setParameter("size", entry.size())
                .setParameter("executable", entry.executable()).executeUpdate();
    }

    /** False if the workspace has no file of that path. */
    boolean deleteFile(UUID id, String path) {
        return em.createNativeQuery("DELETE FROM workspace_files WHERE workspace_id = :id AND path = :path")
                .setParameter("id", id).setParameter("path", path).executeUpdate() == 1;
    }

    // ---- contents

    /**
     * Stores the content unless the tenant has it already. A content it has is touched: that locks
     * the row against a concurrent {@link #collectContents} and restarts its grace period, so a
     * write that has not committed yet never finds its content collected.
     */
    void putContent(UUID tenant, String sha256, byte[] content) {
        em.createNativeQuery("""
                INSERT INTO workspace_blobs (tenant_id, sha256, size, content)
                VALUES (:tenant, :sha256, :size, :content)
                ON CONFLICT (tenant_id, sha256) DO UPDATE SET created_at = now()
                """).setParameter("tenant", tenant).setParameter("sha256", sha256)
                .setParameter("size", (long) content.length).setParameter("content", content).executeUpdate();
    }

    Optional<byte[]> content(UUID tenant, String sha256) {
        List<?> rows = em.createNativeQuery("""
                SELECT content FROM workspace_blobs WHERE tenant_id = :tenant AND sha256 = :sha256
                """).setParameter("tenant", tenant).setParameter("sha256", sha256).getResultList();
        return rows.stream().map(byte[].class::cast).findFirst();
    }

    /**
     * Deletes the tenant's contents no workspace file and no artifact refers to any more and that
     * no write touched in the last hour (one may be about to refer to it).
     */
    int collectContents(UUID tenant) {
        return em.createNativeQuery("DELETE FROM workspace_blobs b WHERE b.tenant_id = :tenant AND "
                + UNREFERENCED_AND_IDLE).setParameter("tenant", tenant).executeUpdate();
    }

    /** {@link #collectContents} for every tenant. */
    int collectAllContents() {
        return em.createNativeQuery("DELETE FROM workspace_blobs b WHERE " + UNREFERENCED_AND_IDLE).executeUpdate();
    }

    // ---- jobs' files and artifacts

    /**
     * A job's files, with the tenant's workspace of this id or else this name, in one statement;
     * false if there is none the key may run a job on ({@link #CHANGEABLE}). Marks the workspace
     * used, which also holds its row until the submission commits: an expiry of an idle session
     * workspace skips it meanwhile and afterwards sees the job.
     */
    boolean insertJobFiles(UUID jobId, UUID tenant, UUID key, UUID workspaceId, String workspaceName, String inputs,
            String artifactPaths) {
        return em.createNativeQuery("""
                WITH used AS (
                    UPDATE workspaces SET used_at = now()
                     WHERE tenant_id = :tenant
                       AND id = (SELECT w.id FROM workspaces w WHERE %s)
                    RETURNING id)
                INSERT INTO job_files (job_id, workspace_id, inputs, artifact_paths)
                SELECT :job, used.id, CAST(:inputs AS jsonb), CAST(:artifact_paths AS jsonb) FROM used
                """.formatted(BY_ID_OR_NAME.formatted(CHANGEABLE).strip())).setParameter("tenant", tenant)
                .setParameter("key", key).setParameter("id", workspaceId)
                .setParameter("name", workspaceName).setParameter("job", jobId).setParameter("inputs", inputs)
                .setParameter("artifact_paths", artifactPaths).executeUpdate() == 1;
    }

    /** A job's files without a workspace. */
    void insertJobFiles(UUID jobId, String inputs, String artifactPaths) {
        em.createNativeQuery("""
                INSERT INTO job_files (job_id, inputs, artifact_paths)
                VALUES (:job, CAST(:inputs AS jsonb), CAST(:artifact_paths AS jsonb))
                """).setParameter("job", jobId).setParameter("inputs", inputs)
                .setParameter("artifact_paths", artifactPaths).executeUpdate();
    }

    Optional<JobFilesRow> jobFiles(UUID jobId) {
        return tuples(em.createNativeQuery("""
                SELECT workspace_id, CAST(inputs AS text) AS inputs, CAST(artifact_paths AS text) AS artifact_paths
                  FROM job_files WHERE job_id = :job
                """, Tuple.class).setParameter("job", jobId).getResultList()).stream()
                .map(r -> new JobFilesRow(Optional.ofNullable(uuid(r, "workspace_id")), text(r, "inputs"),
                        text(r, "artifact_paths"))).findFirst();
    }

    /** A job's artifact, if the job is the tenant's. */
    Optional<ArtifactRow> artifact(UUID tenant, UUID jobId, String path) {
        return tuples(em.createNativeQuery("""
                SELECT sha256, content_type FROM job_artifacts
                 WHERE job_id = :job AND path = :path AND tenant_id = :tenant
                """, Tuple.class).setParameter("job", jobId).setParameter("path", path).setParameter("tenant", tenant)
                .getResultList()).stream().map(r -> new ArtifactRow(text(r, "sha256"), text(r, "content_type")))
                .findFirst();
    }

    /** Replaces the job's artifacts (a retried job's are its last attempt's, as its result is); their contents are stored. */
    void replaceArtifacts(UUID jobId, UUID tenant, List<Artifact> artifacts) {
        em.createNativeQuery("DELETE FROM job_artifacts WHERE job_id = :job").setParameter("job", jobId).executeUpdate();
        for (Artifact a : artifacts) {
            em.createNativeQuery("""
                    INSERT INTO job_artifacts (job_id, path, tenant_id, sha256, size, content_type)
                    VALUES (:job, :path, :tenant, :sha256, :size, :content_type)
                    """).setParameter("job", jobId).setParameter("path", a.name()).setParameter("tenant", tenant)
                    .setParameter("sha256", a.sha256()).setParameter("size", a.size())
                    .setParameter("content_type", a.contentType()).executeUpdate();
        }
    }

    // ---- session workspaces' expiry

    /** Whether this transaction may sweep: one node at a time, the others skip. */
    boolean trySweepLock() {
        return (Boolean) em.createNativeQuery("SELECT pg_try_advisory_xact_lock(:key)")
                .setParameter("key", SWEEP_LOCK).getSingleResult();
    }

    /**
     * Up to {@code limit} session workspaces idle for {@code ttl}, their rows locked. A job counts
     * while it is open and for the TTL after it ended. Rows locked by a use in progress (a
     * submission, a session's lookup) are skipped; one used since this statement began is re-read
     * with its new used_at and so left alone.
     */
    List<IdleWorkspace> idleSessionWorkspaces(Duration ttl, int limit) {
        return tuples(em.createNativeQuery("""
                SELECT w.id, w.tenant_id, w.name,
                       greatest(w.used_at, (SELECT max(j.finished_at) FROM job_files f JOIN jobs j ON j.id = f.job_id
                                             WHERE f.workspace_id = w.id)) AS idle_since
                  FROM workspaces w
                 WHERE w.mcp_session AND w.used_at < now() - make_interval(secs => :ttl)
                   AND NOT EXISTS (SELECT 1 FROM job_files f JOIN jobs j ON j.id = f.job_id
                                    WHERE f.workspace_id = w.id
                                      AND (j.status IN ('queued', 'building', 'running')
                                           OR j.finished_at >= now() - make_interval(secs => :ttl)))
                 ORDER BY w.used_at LIMIT :limit
                   FOR UPDATE OF w SKIP LOCKED
                """, Tuple.class).setParameter("ttl", ttl.toMillis() / 1000.0).setParameter("limit", limit)
                .getResultList()).stream()
                .map(r -> new IdleWorkspace(uuid(r, "id"), uuid(r, "tenant_id"), text(r, "name"), time(r, "idle_since")))
                .toList();
    }

    // ---- rows

    private static Query seen(Query query, Reader reader) {
        return query.setParameter("tenant", reader.tenant()).setParameter("key", reader.key())
                .setParameter("reviewer", reader.reviewer());
    }

    private static List<WorkspaceView> views(List<?> rows) {
        return tuples(rows).stream().map(r -> new WorkspaceView(uuid(r, "id"), text(r, "name"), int64(r, "quota_bytes"),
                int32(r, "quota_files"), int64(r, "bytes"), int32(r, "files"), int32(r, "version"),
                uuid(r, "version_job_id"), time(r, "created_at"), time(r, "updated_at"))).toList();
    }

    private static FileEntry entry(Tuple row) {
        return new FileEntry(text(row, "sha256"), int64(row, "size"), (Boolean) row.get("executable"));
    }

    @SuppressWarnings("unchecked")
    private static List<Tuple> tuples(List<?> rows) {
        return (List<Tuple>) rows;
    }

    private static UUID uuid(Tuple row, String column) {
        return (UUID) row.get(column);
    }

    private static String text(Tuple row, String column) {
        return (String) row.get(column);
    }

    private static long int64(Tuple row, String column) {
        return ((Number) row.get(column)).longValue();
    }

    private static int int32(Tuple row, String column) {
        return ((Number) row.get(column)).intValue();
    }

    private static OffsetDateTime time(Tuple row, String column) {
        return switch (row.get(column)) {
            case null -> null;
            case OffsetDateTime odt -> odt;
            case Instant instant -> instant.atOffset(ZoneOffset.UTC);
            case java.sql.Timestamp ts -> ts.toInstant().atOffset(ZoneOffset.UTC);
            case Object other -> OffsetDateTime.parse(other.toString());
        };
    }
}
