package dev.nixexec.job;

import java.time.OffsetDateTime;
import java.util.UUID;

/**
 * A row of {@code jobs}: a submitted job, its lease while a worker holds it, and its result. Read
 * by column name ({@link JobRows#job}); a submission fills in the fields it stores. JSON columns
 * are held as their text.
 */
public class Job {

    public UUID id;
    public UUID tenantId;
    public UUID keyId;
    /** The submitting key's name and role as they were at submission (migration V65). */
    public String keyName;
    public String keyRole;
    public String status;
    public String language;
    public String code;
    public String packages;
    public String env;
    public String stdin;
    public long timeoutMs;
    public boolean network;
    public String hostWorkspace;
    /** The host paths mounted at their own paths (local mode; JSON list), or null. */
    public String hostMounts;
    public String metadata;
    /** The artifacts the run returned (JSON list), set by the worker before the result. */
    public String artifacts;
    public String idempotencyKey;
    public String requestHash;
    public int attempt;
    public int maxAttempts;
    public String nodeId;
    public OffsetDateTime runAfter;
    public boolean cancelRequested;
    public OffsetDateTime createdAt;
    public OffsetDateTime claimedAt;
    public OffsetDateTime startedAt;
    public OffsetDateTime finishedAt;
    public Integer exitCode;
    public Integer signal;
    public boolean timedOut;
    public String limitHit;
    public Long durationMs;
    public String stdout;
    public String stderr;
    public long stdoutBytes;
    public long stderrBytes;
    public boolean stdoutTruncated;
    public boolean stderrTruncated;
    public String storePath;
    public String nixpkgsRevision;
    public Boolean cacheHit;
    public Long buildMs;
    public String errorCode;
    public String errorMessage;
    /** The limits the job asked for (JSON, {@code RequestedLimits}), or null: the defaults. */
    public String limits;
    /** What the sandbox measured of the run; null where it measured nothing. */
    public Long cpuMs;
    public Long maxRssBytes;
    /** The session the job builds or runs in, if any. */
    public UUID sessionId;
    /** The program's arguments (JSON list). */
    public String args;
    /** {@code utf-8} or {@code base64}: how stdout and stderr appear in the job's JSON. */
    public String encoding;
    /** The exact bytes of the kept output, for a base64 job (the text columns show them as text). */
    public byte[] stdoutExact;
    public byte[] stderrExact;
    /** The job this one reruns. */
    public UUID rerunOf;
    /** The nixpkgs revision this job must run on (a rerun's): a worker that pins another ends it nixpkgs_changed. */
    public String requiredNixpkgsRevision;
    /** {@code session} for a session's environment build (migration V67), else null. */
    public String build;

    public JobStatus jobStatus() {
        return JobStatus.byId(status).orElseThrow();
    }
}
