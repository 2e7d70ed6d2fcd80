package dev.nixexec.job;

import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * A row of {@code jobs}: a submitted job, its lease while a worker holds it, and its result. Read
 * by column name ({@link JobRows#job}); what a submission stores comes first.
 *
 * @param keyName the submitting key's name at submission (migration V65); {@code keyRole} its role
 * @param request what was asked, as stored: the {@code request} document (what to run, its output's
 *     encoding, host paths; migration V70) with the metadata, session and rerun of their own columns;
 *     files and callback are intake's and not read back
 * @param build {@code session} for a session's environment build (migration V67), else null
 * @param stdoutExact the exact bytes of the kept output, for a base64 job (the text columns show
 *     them as text), as {@code stderrExact}
 * @param cpuMs what the sandbox measured of the run, as {@code maxRssBytes}: null where it measured nothing
 * @param artifacts the artifacts the run returned (JSON list), set by the worker before the result
 */
public record Job(UUID id, UUID tenantId, UUID keyId, String keyName, String keyRole, Submission request,
        String idempotencyKey, String requestHash, int maxAttempts, OffsetDateTime createdAt, OffsetDateTime runAfter,
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
    static Job submitted(UUID id, UUID tenantId, UUID keyId, String keyName, String keyRole, Submission request,
            String idempotencyKey, String requestHash, int maxAttempts, OffsetDateTime createdAt, String claimedBy) {
        boolean claimed = claimedBy != null;
        return new Job(id, tenantId, keyId, keyName, keyRole, request, idempotencyKey, requestHash, maxAttempts,
                createdAt, createdAt, (claimed ? JobStatus.BUILDING : JobStatus.QUEUED).id(), claimedBy,
                claimed ? 1 : 0, claimed ? createdAt : null, false, null,
                null, null, null, null, false, null, null, null, null, 0, 0, false, false, null, null, null,
                null, null, null, null, null, null, null, null);
    }

    public JobStatus jobStatus() {
        return JobStatus.byId(status).orElseThrow();
    }

    /** The language it runs, as stored (lower case). */
    public String language() {
        return request.run().language();
    }

    /** Its id and status only: a record's own text would show env values, which only some roles may read. */
    @Override
    public String toString() {
        return "Job[" + id + ", " + status + "]";
    }
}
