package dev.nixexec.workspace;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.refusal.Refusal;
import dev.nixexec.tenant.Caller;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Workspaces and their files in PostgreSQL, every call scoped to the caller's tenant (another
 * tenant's workspace is "not found"). Every change of a workspace's files is one transaction that
 * checks the workspace's and the tenant's quotas and bumps the workspace's version.
 */
@ApplicationScoped
public class WorkspaceStore {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");

    /** A stored file's hash, size and executable bit: what a manifest maps a path to. */
    public record Entry(String sha256, long size, boolean executable) {
    }

    /** A workspace's version and the files that make it up, read together. */
    record Manifest(int version, Map<String, Entry> files) {
    }

    /** A workspace and its files as one consistent listing. */
    public record Listing(WorkspaceView workspace, List<WorkspaceFile> files) {
    }

    /** A workspace's files at one version, for a worker to materialise. */
    public record Snapshot(UUID id, UUID tenantId, int version, long quotaBytes, int quotaFiles,
            Map<String, Entry> files) {
    }

    private final NixExecConfig config;
    private final EntityManager em;

    public WorkspaceStore(NixExecConfig config, EntityManager em) {
        this.config = config;
        this.em = em;
    }

    @Transactional
    public WorkspaceView create(Caller caller, String name, Long quotaBytes, Integer quotaFiles) {
        requireWriter(caller);
        if (name == null || !NAME.matcher(name).matches()) {
            throw invalid("name", "1 to 100 letters, digits, '.', '_' or '-', starting with a letter or digit");
        }
        NixExecConfig.Workspaces limits = config.workspaces();
        long bytes = quotaBytes == null ? limits.quotaBytes() : quotaBytes;
        int files = quotaFiles == null ? limits.quotaFiles() : quotaFiles;
        if (bytes < 1 || bytes > limits.tenantBytes()) {
            throw invalid("quota_bytes", "must be 1 to " + limits.tenantBytes());
        }
        if (files < 1 || files > limits.tenantFiles()) {
            throw invalid("quota_files", "must be 1 to " + limits.tenantFiles());
        }
        UUID id = UUID.randomUUID();
        // One statement, so two creates of one name at once give one workspace and one 409.
        int created = em.createNativeQuery("INSERT INTO workspaces (id, tenant_id, name, quota_bytes, quota_files) "
                        + "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (tenant_id, name) DO NOTHING")
                .setParameter(1, id).setParameter(2, caller.tenantId()).setParameter(3, name)
                .setParameter(4, bytes).setParameter(5, files).executeUpdate();
        if (created == 0) {
            throw new Refusal(Refusal.Kind.CONFLICT, "a workspace named '" + name + "' exists");
        }
        return view(caller.tenantId(), id).orElseThrow();
    }

    @Transactional
    public List<WorkspaceView> list(Caller caller) {
        return views("w.tenant_id = ?1 ORDER BY w.name", caller.tenantId());
    }

    @Transactional
    public WorkspaceView get(Caller caller, UUID id) {
        return view(caller.tenantId(), id).orElseThrow(() -> notFound(id));
    }

    /**
     * Records a job's files with the caller's workspace of this id or name, in one statement; 404
     * if there is none. Marks the workspace used, which also holds its row until the submission
     * commits: an expiry of an idle session workspace skips it meanwhile and afterwards sees the
     * job. {@code inputs} and {@code artifactPaths} are JSON.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    void attach(Caller caller, String idOrName, UUID jobId, String inputs, String artifactPaths) {
        String wanted = idOrName == null ? "" : idOrName.strip();
        UUID asId = parseId(wanted).orElse(new UUID(0, 0)); // the nil UUID is no workspace's id
        int attached = em.createNativeQuery("WITH used AS (UPDATE workspaces SET used_at = now() WHERE tenant_id = ?1 "
                        + "AND id = (SELECT w.id FROM workspaces w WHERE w.tenant_id = ?1 AND (w.id = ?2 OR w.name = ?3) "
                        + "ORDER BY (w.id = ?2) DESC LIMIT 1) RETURNING id) "
                        + "INSERT INTO job_files (job_id, workspace_id, inputs, artifact_paths) "
                        + "SELECT ?4, used.id, CAST(?5 AS jsonb), CAST(?6 AS jsonb) FROM used")
                .setParameter(1, caller.tenantId()).setParameter(2, asId).setParameter(3, wanted).setParameter(4, jobId)
                .setParameter(5, inputs).setParameter(6, artifactPaths).executeUpdate();
        if (attached == 0) {
            throw new Refusal(Refusal.Kind.NOT_FOUND, "no workspace " + idOrName);
        }
    }

    /**
     * The id of an MCP session's own workspace, for a job the session submits: as {@link #session},
     * in one statement.
     */
    @Transactional
    public UUID sessionId(Caller caller, String name) {
        requireWriter(caller);
        return (UUID) em.createNativeQuery("INSERT INTO workspaces (id, tenant_id, name, quota_bytes, quota_files, mcp_session) "
                        + "VALUES (?1, ?2, ?3, ?4, ?5, true) ON CONFLICT (tenant_id, name) DO UPDATE SET used_at = now() "
                        + "RETURNING id", UUID.class)
                .setParameter(1, UUID.randomUUID()).setParameter(2, caller.tenantId()).setParameter(3, name)
                .setParameter(4, config.workspaces().quotaBytes()).setParameter(5, config.workspaces().quotaFiles())
                .getSingleResult();
    }

    /**
     * The caller's workspace with this id or name, in one query; an id wins over a name that
     * spells another workspace's id. 404 if there is none.
     */
    @Transactional
    public WorkspaceView find(Caller caller, String idOrName) {
        String wanted = idOrName == null ? "" : idOrName.strip();
        UUID asId = parseId(wanted).orElse(new UUID(0, 0)); // the nil UUID is no workspace's id
        List<WorkspaceView> found = views("w.tenant_id = ?1 AND (w.id = ?2 OR w.name = ?3) "
                + "ORDER BY (w.id = ?2) DESC LIMIT 1", caller.tenantId(), asId, wanted);
        return found.stream().findFirst()
                .orElseThrow(() -> new Refusal(Refusal.Kind.NOT_FOUND, "no workspace " + idOrName));
    }

    /**
     * An MCP session's own workspace, by the name the session derives from its id: the existing
     * one (marked used), or a new one with the default quotas, marked as a session's so that it
     * expires when idle ({@link SessionWorkspaceExpiry}). A session whose workspace expired gets
     * a fresh one here.
     */
    @Transactional
    public WorkspaceView session(Caller caller, String name) {
        Optional<UUID> existing = byName(caller.tenantId(), name);
        // not marked: the expiry deleted it meanwhile (it held the row), so make a new one
        if (existing.isPresent() && markUsed(caller.tenantId(), existing.get())) {
            return view(caller.tenantId(), existing.get()).orElseThrow();
        }
        requireWriter(caller);
        em.createNativeQuery("INSERT INTO workspaces (id, tenant_id, name, quota_bytes, quota_files, mcp_session) "
                        + "VALUES (?1, ?2, ?3, ?4, ?5, true) ON CONFLICT (tenant_id, name) DO NOTHING")
                .setParameter(1, UUID.randomUUID()).setParameter(2, caller.tenantId()).setParameter(3, name)
                .setParameter(4, config.workspaces().quotaBytes()).setParameter(5, config.workspaces().quotaFiles())
                .executeUpdate();
        return view(caller.tenantId(), byName(caller.tenantId(), name).orElseThrow()).orElseThrow();
    }

    @Transactional
    public void delete(Caller caller, UUID id) {
        requireWriter(caller);
        get(caller, id);
        delete(caller.tenantId(), List.of(id));
    }

    /**
     * Deletes these workspaces of the tenant with their files and versions, then the tenant's
     * contents nothing refers to any more (past their grace, {@link Blobs#collect}).
     */
    void delete(UUID tenant, List<UUID> ids) {
        for (UUID id : ids) {
            em.createNativeQuery("DELETE FROM workspaces WHERE id = ?1 AND tenant_id = ?2")
                    .setParameter(1, id).setParameter(2, tenant).executeUpdate();
        }
        Blobs.collect(em, tenant);
    }

    /**
     * The workspace with its files, read in one statement (one snapshot), so the version shown is
     * the one the files make up.
     */
    @Transactional
    public Listing files(Caller caller, UUID id) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("SELECT w.id, w.name, w.quota_bytes, w.quota_files, w.version, "
                        + "(SELECT v.job_id FROM workspace_versions v WHERE v.workspace_id = w.id AND v.version = w.version), "
                        + "w.created_at, w.updated_at, f.path, f.size, f.sha256, f.updated_at "
                        + "FROM workspaces w LEFT JOIN workspace_files f ON f.workspace_id = w.id "
                        + "WHERE w.id = ?1 AND w.tenant_id = ?2 ORDER BY f.path")
                .setParameter(1, id).setParameter(2, caller.tenantId()).getResultList();
        if (rows.isEmpty()) {
            throw notFound(id);
        }
        markRead(id);
        List<WorkspaceFile> files = rows.stream().filter(r -> r[8] != null)
                .map(r -> new WorkspaceFile((String) r[8], ((Number) r[9]).longValue(), (String) r[10],
                        ContentTypes.of((String) r[8]), toOffset(r[11]))).toList();
        Object[] r = rows.get(0);
        WorkspaceView view = new WorkspaceView((UUID) r[0], (String) r[1], ((Number) r[2]).longValue(),
                ((Number) r[3]).intValue(), files.stream().mapToLong(WorkspaceFile::size).sum(), files.size(),
                ((Number) r[4]).intValue(), (UUID) r[5], toOffset(r[6]), toOffset(r[7]));
        return new Listing(view, files);
    }

    @Transactional
    public FileContent read(Caller caller, UUID id, WorkspacePath path) {
        get(caller, id);
        Entry entry = manifest(id).get(path.value());
        if (entry == null) {
            throw new Refusal(Refusal.Kind.NOT_FOUND, "no file " + path + " in workspace " + id);
        }
        byte[] content = Blobs.get(em, caller.tenantId(), entry.sha256()).orElseThrow();
        markRead(id);
        return new FileContent(path.value(), content, entry.sha256(), ContentTypes.of(path.value()));
    }

    /** Creates or replaces one file; returns its entry. */
    @Transactional
    public WorkspaceFile write(Caller caller, UUID id, WorkspacePath path, byte[] content) {
        requireWriter(caller);
        get(caller, id);
        lockForChange(caller.tenantId(), id);
        Map<String, Entry> files = manifest(id);
        String sha = Blobs.sha256(content);
        Map<String, Entry> after = new LinkedHashMap<>(files);
        after.put(path.value(), new Entry(sha, content.length, false));
        fileFolderClash(after.keySet()).ifPresent(clash -> {
            throw new Refusal(Refusal.Kind.CONFLICT, "'" + clash[0] + "' and '" + clash[1]
                    + "' cannot both be files: one is the other's folder");
        });
        quotaProblem(id, caller.tenantId(), files, after, content.length).ifPresent(p -> {
            throw new InvalidRequestException(List.of(new FieldError("content", p)), true);
        });
        Blobs.put(em, caller.tenantId(), sha, content);
        upsert(id, caller.tenantId(), path.value(), new Entry(sha, content.length, false));
        markUsed(caller.tenantId(), id);
        bump(id, null, files.containsKey(path.value()) ? 0 : 1, files.containsKey(path.value()) ? 1 : 0, 0);
        return new WorkspaceFile(path.value(), content.length, sha, ContentTypes.of(path.value()),
                OffsetDateTime.now(ZoneOffset.UTC));
    }

    @Transactional
    public void deleteFile(Caller caller, UUID id, WorkspacePath path) {
        requireWriter(caller);
        get(caller, id);
        lockForChange(caller.tenantId(), id);
        int deleted = em.createNativeQuery("DELETE FROM workspace_files WHERE workspace_id = ?1 AND path = ?2")
                .setParameter(1, id).setParameter(2, path.value()).executeUpdate();
        if (deleted == 0) {
            throw new Refusal(Refusal.Kind.NOT_FOUND, "no file " + path + " in workspace " + id);
        }
        markUsed(caller.tenantId(), id);
        bump(id, null, 0, 0, 1);
        Blobs.collect(em, caller.tenantId());
    }

    /** The workspace's files as of now, for a worker; empty when it was deleted. */
    @Transactional
    public Optional<Snapshot> snapshot(UUID id) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("SELECT tenant_id, version, quota_bytes, quota_files FROM workspaces "
                + "WHERE id = ?1").setParameter(1, id).getResultList();
        if (rows.isEmpty()) {
            return Optional.empty();
        }
        Object[] r = rows.get(0);
        return Optional.of(new Snapshot(id, (UUID) r[0], ((Number) r[1]).intValue(), ((Number) r[2]).longValue(),
                ((Number) r[3]).intValue(), manifest(id)));
    }

    /**
     * A path that is a file and also, for another path of the list, a folder (the two paths),
     * if the list has one: such a list cannot be laid out as a directory tree.
     */
    static Optional<String[]> fileFolderClash(java.util.Set<String> paths) {
        for (String path : paths) {
            for (int slash = path.indexOf('/'); slash > 0; slash = path.indexOf('/', slash + 1)) {
                String folder = path.substring(0, slash);
                if (paths.contains(folder)) {
                    return Optional.of(new String[] {folder, path});
                }
            }
        }
        return Optional.empty();
    }

    @Transactional
    public byte[] blob(UUID tenant, String sha) {
        return Blobs.get(em, tenant, sha).orElseThrow(() -> new IllegalStateException("missing blob " + sha));
    }

    /** A job's artifact, if the job is the caller's tenant's. */
    @Transactional
    public FileContent artifact(Caller caller, UUID jobId, WorkspacePath path) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("SELECT a.sha256, a.content_type FROM job_artifacts a "
                        + "JOIN jobs j ON j.id = a.job_id WHERE a.job_id = ?1 AND a.path = ?2 AND j.tenant_id = ?3")
                .setParameter(1, jobId).setParameter(2, path.value()).setParameter(3, caller.tenantId()).getResultList();
        if (rows.isEmpty()) {
            throw new Refusal(Refusal.Kind.NOT_FOUND, "no artifact " + path + " of job " + jobId);
        }
        String sha = (String) rows.get(0)[0];
        return new FileContent(path.value(), Blobs.get(em, caller.tenantId(), sha).orElseThrow(), sha,
                (String) rows.get(0)[1]);
    }

    /**
     * Content of orphaned blobs (left by expired jobs' artifacts) is deleted hourly, with the same
     * hour of grace as {@link Blobs#collect}: a store-back puts its contents a transaction before
     * the files that refer to them.
     */
    @Scheduled(every = "1h", delayed = "10m", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    @Transactional
    void collectGarbage() {
        Blobs.collectAll(em);
    }

    // ---- shared with WorkspaceRuns (same transaction)

    /** Serialises changes of one tenant's workspaces, so the tenant quota holds under concurrency. */
    void lockForChange(UUID tenant, UUID workspace) {
        em.createNativeQuery("SELECT pg_advisory_xact_lock(?1)")
                .setParameter(1, tenant.getMostSignificantBits() ^ 0x6e69786578656373L).getSingleResult();
        em.createNativeQuery("SELECT id FROM workspaces WHERE id = ?1 FOR UPDATE").setParameter(1, workspace)
                .getResultList();
    }

    /** The workspace's version and files in one statement; empty when it was deleted. */
    Optional<Manifest> current(UUID id) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("SELECT w.version, f.path, f.sha256, f.size, f.executable FROM workspaces w "
                + "LEFT JOIN workspace_files f ON f.workspace_id = w.id WHERE w.id = ?1").setParameter(1, id).getResultList();
        if (rows.isEmpty()) {
            return Optional.empty();
        }
        Map<String, Entry> files = new LinkedHashMap<>();
        rows.stream().filter(r -> r[1] != null)
                .forEach(r -> files.put((String) r[1], new Entry((String) r[2], ((Number) r[3]).longValue(), (Boolean) r[4])));
        return Optional.of(new Manifest(((Number) rows.get(0)[0]).intValue(), files));
    }

    Map<String, Entry> manifest(UUID id) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("SELECT path, sha256, size, executable FROM workspace_files WHERE workspace_id = ?1")
                .setParameter(1, id).getResultList();
        Map<String, Entry> files = new LinkedHashMap<>();
        rows.forEach(r -> files.put((String) r[0], new Entry((String) r[1], ((Number) r[2]).longValue(), (Boolean) r[3])));
        return files;
    }

    /**
     * Why replacing {@code before} by {@code after} would break the workspace's or the tenant's
     * quota or the per-file cap, if it would.
     */
    Optional<String> quotaProblem(UUID id, UUID tenant, Map<String, Entry> before, Map<String, Entry> after,
            long largestNew) {
        NixExecConfig.Workspaces limits = config.workspaces();
        if (largestNew > limits.maxFileBytes()) {
            return Optional.of("a file of " + largestNew + " bytes is larger than the " + limits.maxFileBytes()
                    + "-byte cap per file");
        }
        Object[] quota = (Object[]) em.createNativeQuery("SELECT quota_bytes, quota_files FROM workspaces WHERE id = ?1")
                .setParameter(1, id).getSingleResult();
        long bytes = after.values().stream().mapToLong(Entry::size).sum();
        if (bytes > ((Number) quota[0]).longValue() || after.size() > ((Number) quota[1]).intValue()) {
            return Optional.of("the workspace would hold " + bytes + " bytes in " + after.size() + " files; its quota is "
                    + quota[0] + " bytes and " + quota[1] + " files");
        }
        Object[] used = (Object[]) em.createNativeQuery("SELECT coalesce(sum(size), 0), count(*) FROM workspace_files "
                + "WHERE tenant_id = ?1").setParameter(1, tenant).getSingleResult();
        long tenantBytes = ((Number) used[0]).longValue() + bytes - before.values().stream().mapToLong(Entry::size).sum();
        long tenantFiles = ((Number) used[1]).longValue() + after.size() - before.size();
        if (tenantBytes > limits.tenantBytes() || tenantFiles > limits.tenantFiles()) {
            return Optional.of("the tenant's workspaces would hold " + tenantBytes + " bytes in " + tenantFiles
                    + " files; its quota is " + limits.tenantBytes() + " bytes and " + limits.tenantFiles() + " files");
        }
        return Optional.empty();
    }

    void upsert(UUID id, UUID tenant, String path, Entry entry) {
        em.createNativeQuery("INSERT INTO workspace_files (workspace_id, path, tenant_id, sha256, size, executable) "
                        + "VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (workspace_id, path) "
                        + "DO UPDATE SET sha256 = excluded.sha256, size = excluded.size, "
                        + "executable = excluded.executable, updated_at = now()")
                .setParameter(1, id).setParameter(2, path).setParameter(3, tenant).setParameter(4, entry.sha256())
                .setParameter(5, entry.size()).setParameter(6, entry.executable()).executeUpdate();
    }

    void remove(UUID id, String path) {
        em.createNativeQuery("DELETE FROM workspace_files WHERE workspace_id = ?1 AND path = ?2")
                .setParameter(1, id).setParameter(2, path).executeUpdate();
    }

    /** A new version of the workspace, made by {@code job} (null: an upload). */
    int bump(UUID id, UUID job, int created, int modified, int deleted) {
        int version = ((Number) em.createNativeQuery("UPDATE workspaces SET version = version + 1, updated_at = now() "
                + "WHERE id = ?1 RETURNING version").setParameter(1, id).getSingleResult()).intValue();
        em.createNativeQuery("INSERT INTO workspace_versions (workspace_id, version, job_id, created, modified, deleted) "
                        + "VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
                .setParameter(1, id).setParameter(2, version).setParameter(3, job).setParameter(4, created)
                .setParameter(5, modified).setParameter(6, deleted).executeUpdate();
        return version;
    }

    /**
     * Records a use of the workspace now (a job submitted for it, a change, a session's lookup);
     * false if it is gone. Waits for an expiry that holds the row, so it never marks one being
     * deleted.
     */
    private boolean markUsed(UUID tenant, UUID id) {
        return em.createNativeQuery("UPDATE workspaces SET used_at = now() WHERE id = ?1 AND tenant_id = ?2")
                .setParameter(1, id).setParameter(2, tenant).executeUpdate() == 1;
    }

    /**
     * Records a read of the workspace's files, at most once a minute: concurrent readers do not
     * queue for the row's lock, and a minute does not matter to an idle time of hours.
     */
    private void markRead(UUID id) {
        em.createNativeQuery("UPDATE workspaces SET used_at = now() WHERE id = ?1 AND used_at < now() - interval '1 minute'")
                .setParameter(1, id).executeUpdate();
    }

    private Optional<WorkspaceView> view(UUID tenant, UUID id) {
        return views("w.tenant_id = ?1 AND w.id = ?2", tenant, id).stream().findFirst();
    }

    /** The workspaces matching {@code where} (over {@code w}, parameters ?1, ?2, ...), in one query. */
    private List<WorkspaceView> views(String where, Object... parameters) {
        var query = em.createNativeQuery("SELECT w.id, w.name, w.quota_bytes, w.quota_files, "
                + "(SELECT coalesce(sum(size), 0) FROM workspace_files f WHERE f.workspace_id = w.id), "
                + "(SELECT count(*) FROM workspace_files f WHERE f.workspace_id = w.id), "
                + "w.version, (SELECT v.job_id FROM workspace_versions v WHERE v.workspace_id = w.id "
                + "AND v.version = w.version), w.created_at, w.updated_at "
                + "FROM workspaces w WHERE " + where);
        for (int i = 0; i < parameters.length; i++) {
            query.setParameter(i + 1, parameters[i]);
        }
        @SuppressWarnings("unchecked")
        List<Object[]> rows = query.getResultList();
        return rows.stream().map(r -> new WorkspaceView((UUID) r[0], (String) r[1],
                ((Number) r[2]).longValue(), ((Number) r[3]).intValue(), ((Number) r[4]).longValue(),
                ((Number) r[5]).intValue(), ((Number) r[6]).intValue(), (UUID) r[7], toOffset(r[8]), toOffset(r[9])))
                .toList();
    }

    private Optional<UUID> byName(UUID tenant, String name) {
        @SuppressWarnings("unchecked")
        List<UUID> ids = em.createNativeQuery("SELECT id FROM workspaces WHERE tenant_id = ?1 AND name = ?2", UUID.class)
                .setParameter(1, tenant).setParameter(2, name).getResultList();
        return ids.stream().findFirst();
    }

    private static Optional<UUID> parseId(String text) {
        try {
            return Optional.of(UUID.fromString(text));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    private static void requireWriter(Caller caller) {
        if (!caller.role().canSubmit()) {
            throw new Refusal(Refusal.Kind.FORBIDDEN, "an " + caller.role().id() + " key cannot change workspaces");
        }
    }

    private static InvalidRequestException invalid(String field, String message) {
        return new InvalidRequestException(List.of(new FieldError(field, message)), false);
    }

    public static Refusal notFound(UUID id) {
        return new Refusal(Refusal.Kind.NOT_FOUND, "no workspace " + id);
    }

    static OffsetDateTime toOffset(Object value) {
        return switch (value) {
            case OffsetDateTime odt -> odt;
            case java.time.Instant instant -> instant.atOffset(ZoneOffset.UTC);
            case java.sql.Timestamp ts -> ts.toInstant().atOffset(ZoneOffset.UTC);
            default -> OffsetDateTime.parse(value.toString());
        };
    }
}
