package dev.nixexec.job;

import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * A row of {@code jobs}: a submitted job, its lease while a worker holds it, and its result. Read
 * by column name ({@link JobRows#job}); what a submission stores comes first. JSON columns are held
 * as their text.
 *
 * @param keyName the submitting key's name at submission (migration V65); {@code keyRole} its role
 * @param hostMounts the host paths mounted at their own paths (local mode; JSON list), or null
 * @param limits the limits the job asked for (JSON, {@code RequestedLimits}), or null: the defaults
 * @param sessionId the session the job builds or runs in, if any
 * @param args the program's arguments (JSON list)
 * @param encoding {@code utf-8} or {@code base64}: how stdout and stderr appear in the job's JSON
 * @param rerunOf the job this one reruns
 * @param requiredNixpkgsRevision the nixpkgs revision this job must run on (a rerun's): a worker
 *     that pins another ends it nixpkgs_changed
 * @param build {@code session} for a session's environment build (migration V67), else null
 * @param stdoutExact the exact bytes of the kept output, for a base64 job (the text columns show
 *     them as text), as {@code stderrExact}
 * @param cpuMs what the sandbox measured of the run, as {@code maxRssBytes}: null where it measured nothing
 * @param artifacts the artifacts the run returned (JSON list), set by the worker before the result
 */
public record Job(UUID id, UUID tenantId, UUID keyId, String keyName, String keyRole, String language, String code,
        String packages, String env, String stdin, long timeoutMs, boolean network, String hostWorkspace,
        String hostMounts, String metadata, String idempotencyKey, String requestHash, int maxAttempts,
        OffsetDateTime createdAt, OffsetDateTime runAfter, UUID sessionId, String limits, String args,
        String encoding, UUID rerunOf, String requiredNixpkgsRevision,
        String status, String nodeId, int attempt, OffsetDateTime claimedAt, boolean cancelRequested, String build,
        OffsetDateTime startedAt, OffsetDateTime finishedAt, Integer exitCode, Integer signal, boolean timedOut,
        String limitHit, Long durationMs, String stdout, String stderr, long stdoutBytes, long stderrBytes,
        boolean stdoutTruncated, boolean stderrTruncated, byte[] stdoutExact, byte[] stderrExact, String storePath,
        String nixpkgsRevision, Boolean cacheHit, Long buildMs, String errorCode, String errorMessage, Long cpuMs,
        Long maxRssBytes, String artifacts) {

    /**
     * The row as a submission stores it, created at {@code createdAt} (and due then): queued, or
     * claimed by node {@code claimedBy} (attempt 1) when not null; nothing has run yet.
     */
    static Job submitted(UUID id, UUID tenantId, UUID keyId, String keyName, String keyRole, String language,
            String code, String packages, String env, String stdin, long timeoutMs, boolean network,
            String hostWorkspace, String hostMounts, String metadata, String idempotencyKey, String requestHash,
            int maxAttempts, OffsetDateTime createdAt, UUID sessionId, String limits, String args, String encoding,
            UUID rerunOf, String requiredNixpkgsRevision, String claimedBy) {
        boolean claimed = claimedBy != null;
        return new Job(id, tenantId, keyId, keyName, keyRole, language, code, packages, env, stdin, timeoutMs, network,
                hostWorkspace, hostMounts, metadata, idempotencyKey, requestHash, maxAttempts, createdAt, createdAt,
                sessionId, limits, args, encoding, rerunOf, requiredNixpkgsRevision,
                (claimed ? JobStatus.BUILDING : JobStatus.QUEUED).id(), claimedBy, claimed ? 1 : 0,
                claimed ? createdAt : null, false, null,
                null, null, null, null, false, null, null, null, null, 0, 0, false, false, null, null, null,
                null, null, null, null, null, null, null, null);
    }

    public JobStatus jobStatus() {
        return JobStatus.byId(status).orElseThrow();
    }

    /** Its id and status only: a record's own text would show env values, which only some roles may read. */
    @Override
    public String toString() {
        return "Job[" + id + ", " + status + "]";
    }
}
