package dev.nixexec.job;

import io.quarkus.hibernate.orm.panache.PanacheEntityBase;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.hibernate.annotations.JdbcTypeCode;
import org.hibernate.type.SqlTypes;

/** A submitted job, its lease while a worker holds it, and its result. */
@Entity
@Table(name = "jobs")
public class Job extends PanacheEntityBase {

    @Id
    public UUID id;
    @Column(name = "tenant_id")
    public UUID tenantId;
    @Column(name = "key_id")
    public UUID keyId;
    /** The submitting key's name and role as they were at submission (migration V65). */
    @Column(name = "key_name")
    public String keyName;
    @Column(name = "key_role")
    public String keyRole;
    public String status;
    public String language;
    public String code;
    @JdbcTypeCode(SqlTypes.JSON)
    public String packages;
    @JdbcTypeCode(SqlTypes.JSON)
    public String env;
    public String stdin;
    @Column(name = "timeout_ms")
    public long timeoutMs;
    public boolean network;
    @Column(name = "host_workspace")
    public String hostWorkspace;
    /** The host paths mounted at their own paths (local mode; JSON list), or null. */
    @Column(name = "host_mounts")
    @JdbcTypeCode(SqlTypes.JSON)
    public String hostMounts;
    @JdbcTypeCode(SqlTypes.JSON)
    public String metadata;
    /** The artifacts the run returned (JSON list), set by the worker before the result. */
    @JdbcTypeCode(SqlTypes.JSON)
    public String artifacts;
    @Column(name = "idempotency_key")
    public String idempotencyKey;
    @Column(name = "request_hash")
    public String requestHash;
    public int attempt;
    @Column(name = "max_attempts")
    public int maxAttempts;
    @Column(name = "node_id")
    public String nodeId;
    @Column(name = "lease_until")
    public OffsetDateTime leaseUntil;
    @Column(name = "run_after")
    public OffsetDateTime runAfter;
    @Column(name = "cancel_requested")
    public boolean cancelRequested;
    @Column(name = "cancelled_by")
    public UUID cancelledBy;
    @Column(name = "created_at")
    public OffsetDateTime createdAt;
    @Column(name = "claimed_at")
    public OffsetDateTime claimedAt;
    @Column(name = "started_at")
    public OffsetDateTime startedAt;
    @Column(name = "finished_at")
    public OffsetDateTime finishedAt;
    @Column(name = "exit_code")
    public Integer exitCode;
    public Integer signal;
    @Column(name = "timed_out")
    public boolean timedOut;
    @Column(name = "limit_hit")
    public String limitHit;
    @Column(name = "duration_ms")
    public Long durationMs;
    public String stdout;
    public String stderr;
    @Column(name = "stdout_bytes")
    public long stdoutBytes;
    @Column(name = "stderr_bytes")
    public long stderrBytes;
    @Column(name = "stdout_truncated")
    public boolean stdoutTruncated;
    @Column(name = "stderr_truncated")
    public boolean stderrTruncated;
    @Column(name = "store_path")
    public String storePath;
    @Column(name = "nixpkgs_revision")
    public String nixpkgsRevision;
    @Column(name = "cache_hit")
    public Boolean cacheHit;
    @Column(name = "build_ms")
    public Long buildMs;
    @Column(name = "error_code")
    public String errorCode;
    @Column(name = "error_message")
    public String errorMessage;
    /** The limits the job asked for (JSON, {@code RequestedLimits}), or null: the defaults. */
    @JdbcTypeCode(SqlTypes.JSON)
    public String limits;
    /** What the sandbox measured of the run; null where it measured nothing. */
    @Column(name = "cpu_ms")
    public Long cpuMs;
    @Column(name = "max_rss_bytes")
    public Long maxRssBytes;
    /** The session the job builds or runs in, if any. */
    @Column(name = "session_id")
    public UUID sessionId;
    /** The program's arguments (JSON list). */
    @JdbcTypeCode(SqlTypes.JSON)
    public String args;
    /** {@code utf-8} or {@code base64}: how stdout and stderr appear in the job's JSON. */
    public String encoding;
    /** The exact bytes of the kept output, for a base64 job (the text columns show them as text). */
    @Column(name = "stdout_exact")
    public byte[] stdoutExact;
    @Column(name = "stderr_exact")
    public byte[] stderrExact;
    /** The job this one reruns. */
    @Column(name = "rerun_of")
    public UUID rerunOf;
    /** The nixpkgs revision this job must run on (a rerun's): a worker that pins another ends it nixpkgs_changed. */
    @Column(name = "required_nixpkgs_revision")
    public String requiredNixpkgsRevision;
    /** {@code session} for a session's environment build (migration V67), else null. */
    public String build;

    public JobStatus jobStatus() {
        return JobStatus.byId(status).orElseThrow();
    }
}
