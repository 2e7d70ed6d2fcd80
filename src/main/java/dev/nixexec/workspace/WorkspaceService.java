package dev.nixexec.workspace;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.refusal.FieldError;
import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.refusal.Refusal;
import dev.nixexec.tenant.Caller;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
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
 * Workspaces and their files as REST and MCP use them: every call scoped to the caller's tenant
 * (another tenant's workspace is "not found"), an MCP session's workspace to the key that opened
 * the session (other keys do not see it; reviewers read it, never change it: a planted file would
 * run in that session's next run_code, with its env), roles, names and paths checked, and every change
 * of a workspace's files one transaction that checks the workspace's and the tenant's quotas
 * ({@link #quotaProblem}, which the store-back of a run uses too) and makes a new version.
 */
@ApplicationScoped
public class WorkspaceService {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");
    /** No workspace has it as its id: stands for "no id" where a name was given. */
    private static final UUID NIL = new UUID(0, 0);

    private final NixExecConfig config;
    private final WorkspaceRepository repository;

    WorkspaceService(NixExecConfig config, WorkspaceRepository repository) {
        this.config = config;
        this.repository = repository;
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
        if (!repository.insert(id, caller.tenantId(), name, new WorkspaceRepository.Quota(bytes, files))) {
            throw new Refusal(Refusal.Kind.CONFLICT, "a workspace named '" + name + "' exists");
        }
        return repository.view(reader(caller), id).orElseThrow();
    }

    @Transactional
    public List<WorkspaceView> list(Caller caller) {
        return repository.views(reader(caller));
    }

    @Transactional
    public WorkspaceView get(Caller caller, UUID id) {
        return repository.view(reader(caller), id).orElseThrow(() -> notFound(id));
    }

    /**
     * The caller's workspace with this id or name, in one query; an id wins over a name that
     * spells another workspace's id. 404 if there is none.
     */
    @Transactional
    public WorkspaceView find(Caller caller, String idOrName) {
        String wanted = idOrName == null ? "" : idOrName.strip();
        return repository.viewByIdOrName(reader(caller), parseId(wanted).orElse(NIL), wanted)
                .orElseThrow(() -> new Refusal(Refusal.Kind.NOT_FOUND, "no workspace " + idOrName));
    }

    /**
     * Records a job's files with the caller's workspace of this id or name, in one statement (see
     * {@link WorkspaceRepository#insertJobFiles}); 404 if there is none the caller sees, 403 if it
     * is another key's MCP session's that the caller reviews. {@code inputs} and
     * {@code artifactPaths} are JSON.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    void attach(Caller caller, String idOrName, UUID jobId, String inputs, String artifactPaths) {
        String wanted = idOrName == null ? "" : idOrName.strip();
        UUID id = parseId(wanted).orElse(NIL);
        if (!repository.insertJobFiles(jobId, caller.tenantId(), key(caller), id, wanted, inputs, artifactPaths)) {
            repository.viewByIdOrName(reader(caller), id, wanted).ifPresent(seen -> {
                throw notYours(seen.name());
            });
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
        return repository.upsertSession(caller.tenantId(), name, defaultQuota(), Optional.ofNullable(caller.keyId()));
    }

    /**
     * An MCP session's own workspace, by the name the session derives from its id: the existing
     * one (marked used), or a new one with the default quotas, the caller's key's, marked as a
     * session's so that it expires when idle ({@link SessionWorkspaceExpiry}). A session whose
     * workspace expired gets a fresh one here.
     */
    @Transactional
    public WorkspaceView session(Caller caller, String name) {
        Optional<UUID> existing = repository.idByName(caller.tenantId(), name);
        // not marked: the expiry deleted it meanwhile (it held the row), so make a new one
        if (existing.isPresent() && repository.markUsed(caller.tenantId(), existing.get())) {
            return repository.view(reader(caller), existing.get()).orElseThrow();
        }
        requireWriter(caller);
        UUID id = repository.upsertSession(caller.tenantId(), name, defaultQuota(), Optional.ofNullable(caller.keyId()));
        return repository.view(reader(caller), id).orElseThrow();
    }

    /** Deletes the workspace with its files and versions; its contents go with the clean-up. */
    @Transactional
    public void delete(Caller caller, UUID id) {
        requireWriter(caller);
        requireChangeable(caller, id);
        repository.delete(caller.tenantId(), List.of(id));
    }

    /**
     * Deletes a workspace that belongs to something of the tenant's that is gone (a destroyed or
     * expired session); the owner checked who may, and there may be no caller (an expiry).
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void deleteOwned(UUID tenantId, UUID id) {
        repository.delete(tenantId, List.of(id));
    }

    /**
     * The workspace with its files, read in one statement (one snapshot), so the version shown is
     * the one the files make up.
     */
    @Transactional
    public WorkspaceListing files(Caller caller, UUID id) {
        WorkspaceListing listing = repository.listing(reader(caller), id).orElseThrow(() -> notFound(id));
        repository.markRead(id);
        return listing;
    }

    @Transactional
    public FileContent read(Caller caller, UUID id, WorkspacePath path) {
        get(caller, id);
        FileEntry entry = repository.files(id).get(path.value());
        if (entry == null) {
            throw new Refusal(Refusal.Kind.NOT_FOUND, "no file " + path + " in workspace " + id);
        }
        byte[] content = repository.content(caller.tenantId(), entry.sha256()).orElseThrow();
        repository.markRead(id);
        return new FileContent(path.value(), content, entry.sha256(), ContentTypes.of(path.value()));
    }

    /** Creates or replaces one file; returns its entry. */
    @Transactional
    public WorkspaceFile write(Caller caller, UUID id, WorkspacePath path, byte[] content) {
        requireWriter(caller);
        requireChangeable(caller, id);
        repository.lockForChange(caller.tenantId(), id);
        Map<String, FileEntry> files = repository.files(id);
        FileEntry entry = new FileEntry(ContentHash.of(content), content.length, false);
        Map<String, FileEntry> after = new LinkedHashMap<>(files);
        after.put(path.value(), entry);
        FileFolderClash.in(after.keySet()).ifPresent(clash -> {
            throw new Refusal(Refusal.Kind.CONFLICT, "'" + clash.folder() + "' and '" + clash.file()
                    + "' cannot both be files: one is the other's folder");
        });
        quotaProblem(id, caller.tenantId(), files, after, content.length).ifPresent(p -> {
            throw new InvalidRequestException(List.of(new FieldError("content", p)), true);
        });
        repository.putContent(caller.tenantId(), entry.sha256(), content);
        repository.upsertFile(id, caller.tenantId(), path.value(), entry);
        repository.markUsed(caller.tenantId(), id);
        boolean replaced = files.containsKey(path.value());
        repository.newVersion(id, null, replaced ? 0 : 1, replaced ? 1 : 0, 0);
        return new WorkspaceFile(path.value(), content.length, entry.sha256(), ContentTypes.of(path.value()),
                OffsetDateTime.now(ZoneOffset.UTC));
    }

    @Transactional
    public void deleteFile(Caller caller, UUID id, WorkspacePath path) {
        requireWriter(caller);
        requireChangeable(caller, id);
        repository.lockForChange(caller.tenantId(), id);
        if (!repository.deleteFile(id, path.value())) {
            throw new Refusal(Refusal.Kind.NOT_FOUND, "no file " + path + " in workspace " + id);
        }
        repository.markUsed(caller.tenantId(), id);
        repository.newVersion(id, null, 0, 0, 1);
        repository.collectContents(caller.tenantId());
    }

    /** A job's artifact, if the job is the caller's tenant's. */
    @Transactional
    public FileContent artifact(Caller caller, UUID jobId, WorkspacePath path) {
        WorkspaceRepository.ArtifactRow row = repository.artifact(caller.tenantId(), jobId, path.value())
                .orElseThrow(() -> new Refusal(Refusal.Kind.NOT_FOUND, "no artifact " + path + " of job " + jobId));
        return new FileContent(path.value(), repository.content(caller.tenantId(), row.sha256()).orElseThrow(),
                row.sha256(), row.contentType());
    }

    /**
     * Why replacing {@code before} by {@code after} in workspace {@code id} would break its quota,
     * the tenant's or the per-file cap ({@code largestNew} being the largest file written), if it
     * would. Called under {@link WorkspaceRepository#lockForChange}, so the tenant's usage holds.
     */
    Optional<String> quotaProblem(UUID id, UUID tenant, Map<String, FileEntry> before, Map<String, FileEntry> after,
            long largestNew) {
        NixExecConfig.Workspaces limits = config.workspaces();
        if (largestNew > limits.maxFileBytes()) {
            return Optional.of("a file of " + largestNew + " bytes is larger than the " + limits.maxFileBytes()
                    + "-byte cap per file");
        }
        WorkspaceRepository.Quota quota = repository.quota(id);
        long bytes = after.values().stream().mapToLong(FileEntry::size).sum();
        if (bytes > quota.bytes() || after.size() > quota.files()) {
            return Optional.of("the workspace would hold " + bytes + " bytes in " + after.size() + " files; its quota is "
                    + quota.bytes() + " bytes and " + quota.files() + " files");
        }
        WorkspaceRepository.Usage used = repository.tenantUsage(tenant);
        long tenantBytes = used.bytes() + bytes - before.values().stream().mapToLong(FileEntry::size).sum();
        long tenantFiles = used.files() + after.size() - before.size();
        if (tenantBytes > limits.tenantBytes() || tenantFiles > limits.tenantFiles()) {
            return Optional.of("the tenant's workspaces would hold " + tenantBytes + " bytes in " + tenantFiles
                    + " files; its quota is " + limits.tenantBytes() + " bytes and " + limits.tenantFiles() + " files");
        }
        return Optional.empty();
    }

    /**
     * Contents nothing refers to any more (left by expired jobs' artifacts, among others) are
     * deleted hourly, with the same hour of grace as {@link WorkspaceRepository#collectContents}:
     * a store-back puts its contents a transaction before the files that refer to them.
     */
    @Scheduled(every = "1h", delayed = "10m", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    @Transactional
    void collectGarbage() {
        repository.collectAllContents();
    }

    private WorkspaceRepository.Quota defaultQuota() {
        return new WorkspaceRepository.Quota(config.workspaces().quotaBytes(), config.workspaces().quotaFiles());
    }

    private static Optional<UUID> parseId(String text) {
        try {
            return Optional.of(UUID.fromString(text));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * 404 unless the caller's tenant has the workspace and the caller sees it; 403 if it is
     * another key's MCP session's, which a reviewer sees but may not change.
     */
    private void requireChangeable(Caller caller, UUID id) {
        WorkspaceRepository.Ownership ownership = repository.ownership(caller.tenantId(), id)
                .orElseThrow(() -> notFound(id));
        if (ownership.ownerKey().isEmpty() || ownership.ownerKey().get().equals(caller.keyId())) {
            return;
        }
        if (!caller.role().reviews()) {
            throw notFound(id);
        }
        throw notYours(id.toString());
    }

    private static WorkspaceRepository.Reader reader(Caller caller) {
        return new WorkspaceRepository.Reader(caller.tenantId(), key(caller), caller.role().reviews());
    }

    /** The caller's key; in local mode, which has none, the nil id, which owns nothing. */
    private static UUID key(Caller caller) {
        return caller.keyId() == null ? NIL : caller.keyId();
    }

    private static Refusal notYours(String workspace) {
        return new Refusal(Refusal.Kind.FORBIDDEN, "workspace " + workspace + " is an MCP session's own: only the key "
                + "that opened the session writes it or runs jobs on it; others may only read it for review");
    }

    private static void requireWriter(Caller caller) {
        if (!caller.role().canSubmit()) {
            throw new Refusal(Refusal.Kind.FORBIDDEN, "an " + caller.role().id() + " key cannot change workspaces");
        }
    }

    private static InvalidRequestException invalid(String field, String message) {
        return new InvalidRequestException(List.of(new FieldError(field, message)), false);
    }

    private static Refusal notFound(UUID id) {
        return new Refusal(Refusal.Kind.NOT_FOUND, "no workspace " + id);
    }
}
