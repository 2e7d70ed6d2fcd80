package dev.nixexec.job;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.type.TypeFactory;
import dev.nixexec.audit.KeyRef;
import dev.nixexec.config.HostMount;
import dev.nixexec.workspace.Artifact;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Rows of {@code jobs} read over plain JDBC (a transition's {@code RETURNING j.*}) into a
 * {@link Job}, and a stored job as clients see it.
 */
final class JobRows {

    /*
     * The JSON columns' types, resolved once: a TypeReference's generic type was resolved again on
     * every read, and every submission, claimed job and ended job reads several.
     */
    static final JavaType STRINGS = TypeFactory.defaultInstance().constructCollectionType(List.class, String.class);
    static final JavaType STRING_MAP = TypeFactory.defaultInstance().constructMapType(Map.class, String.class,
            String.class);
    static final JavaType OBJECT_MAP = TypeFactory.defaultInstance().constructMapType(Map.class, String.class,
            Object.class);
    static final JavaType ARTIFACTS = TypeFactory.defaultInstance().constructCollectionType(List.class, Artifact.class);
    static final JavaType HOST_MOUNTS = TypeFactory.defaultInstance().constructCollectionType(List.class, HostMount.class);

    private JobRows() {
    }

    /** The row the result set is on, by column name. */
    static Job job(ResultSet rs) throws SQLException {
        return new Job(rs.getObject("id", UUID.class), rs.getObject("tenant_id", UUID.class),
                rs.getObject("key_id", UUID.class), rs.getString("key_name"), rs.getString("key_role"),
                rs.getString("language"), rs.getString("code"), rs.getString("packages"), rs.getString("env"),
                rs.getString("stdin"), rs.getLong("timeout_ms"), rs.getBoolean("network"),
                rs.getString("host_workspace"), rs.getString("host_mounts"), rs.getString("metadata"),
                rs.getString("idempotency_key"), rs.getString("request_hash"), rs.getInt("max_attempts"),
                time(rs, "created_at"), time(rs, "run_after"), rs.getObject("session_id", UUID.class),
                rs.getString("limits"), rs.getString("args"), rs.getString("encoding"),
                rs.getObject("rerun_of", UUID.class), rs.getString("required_nixpkgs_revision"),
                rs.getString("status"), rs.getString("node_id"), rs.getInt("attempt"), time(rs, "claimed_at"),
                rs.getBoolean("cancel_requested"), rs.getString("build"),
                time(rs, "started_at"), time(rs, "finished_at"), rs.getObject("exit_code", Integer.class),
                rs.getObject("signal", Integer.class), rs.getBoolean("timed_out"), rs.getString("limit_hit"),
                rs.getObject("duration_ms", Long.class), rs.getString("stdout"), rs.getString("stderr"),
                rs.getLong("stdout_bytes"), rs.getLong("stderr_bytes"), rs.getBoolean("stdout_truncated"),
                rs.getBoolean("stderr_truncated"), rs.getBytes("stdout_exact"), rs.getBytes("stderr_exact"),
                rs.getString("store_path"), rs.getString("nixpkgs_revision"), rs.getObject("cache_hit", Boolean.class),
                rs.getObject("build_ms", Long.class), rs.getString("error_code"), rs.getString("error_message"),
                rs.getObject("cpu_ms", Long.class), rs.getObject("max_rss_bytes", Long.class),
                rs.getString("artifacts"));
    }

    /** In UTC, as the entity reads it, so a view handed over equals a later read. */
    private static OffsetDateTime time(ResultSet rs, String column) throws SQLException {
        OffsetDateTime time = rs.getObject(column, OffsetDateTime.class);
        return time == null ? null : time.withOffsetSameInstant(ZoneOffset.UTC);
    }

    /** The job as clients see it (the contract's Job object). */
    static JobView view(Job job, ObjectMapper json) {
        JobView.EnvironmentView environment = job.storePath() == null && job.cacheHit() == null ? null
                : new JobView.EnvironmentView(job.storePath(), job.nixpkgsRevision(), job.cacheHit(), job.buildMs());
        JobView.ErrorView error = job.errorCode() == null ? null
                : new JobView.ErrorView(job.errorCode(), job.errorMessage());
        OutputEncoding encoding = job.encoding() == null ? OutputEncoding.UTF_8
                : OutputEncoding.byId(job.encoding()).orElseThrow();
        Map<String, Object> metadata = read(json, job.metadata(), OBJECT_MAP);
        String build = job.build() != null ? job.build()
                : Boolean.TRUE.equals(metadata.get(JobView.ENVIRONMENT_BUILD_MARK)) ? "environment" : null;
        return new JobView(job.id(), job.status(), job.language(), read(json, job.packages(), STRINGS),
                metadata, job.createdAt(), job.startedAt(),
                job.finishedAt(), job.exitCode(), job.signal(), job.timedOut(), job.limitHit(), job.durationMs(),
                output(encoding, job.stdout(), job.stdoutExact()), output(encoding, job.stderr(), job.stderrExact()),
                job.stdoutBytes(), job.stderrBytes(), job.stdoutTruncated(), job.stderrTruncated(), environment,
                error, job.attempt(), job.nodeId(),
                job.artifacts() == null ? List.of() : read(json, job.artifacts(), ARTIFACTS),
                job.sessionId(), job.cpuMs() == null && job.maxRssBytes() == null ? null
                        : new JobView.Usage(job.cpuMs(), job.maxRssBytes()),
                job.args() == null ? List.of() : read(json, job.args(), STRINGS),
                encoding.id(), job.rerunOf(), key(job), build);
    }

    /** The submitting key, or null for a job of local mode (no key). */
    static KeyRef key(Job job) {
        return job.keyId() == null ? null : new KeyRef(job.keyId(), job.keyName(), job.keyRole());
    }

    /**
     * A stream as the job's encoding shows it: its text, or base64 of its exact bytes (none yet
     * while the job has no result; a job ended before its code ran has none: its text is empty).
     */
    private static String output(OutputEncoding encoding, String text, byte[] exact) {
        if (encoding == OutputEncoding.UTF_8 || text == null) {
            return text;
        }
        return Base64.getEncoder().encodeToString(exact == null ? new byte[0] : exact);
    }

    /** A job's stored host mounts; none when the column is null. */
    static List<HostMount> hostMounts(ObjectMapper json, String text) {
        return text == null ? List.of() : read(json, text, HOST_MOUNTS);
    }

    static <T> T read(ObjectMapper json, String text, JavaType type) {
        try {
            return json.readValue(text, type);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static <T> T read(ObjectMapper json, String text, Class<T> type) {
        return read(json, text, json.constructType(type));
    }

    static String write(ObjectMapper json, Object value) {
        try {
            return json.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
