package dev.nixexec.job;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.type.TypeFactory;
import dev.nixexec.workspace.Artifact;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
    static final JavaType OBJECT_MAP = TypeFactory.defaultInstance().constructMapType(Map.class, String.class,
            Object.class);
    static final JavaType ARTIFACTS = TypeFactory.defaultInstance().constructCollectionType(List.class, Artifact.class);

    private JobRows() {
    }

    /** The row the result set is on, by column name. */
    static Job job(ResultSet rs, ObjectMapper json) throws SQLException {
        Submission request = request(json, rs.getString("request"), read(json, rs.getString("metadata"), OBJECT_MAP),
                rs.getObject("session_id", UUID.class), rs.getObject("rerun_of", UUID.class),
                rs.getString("required_nixpkgs_revision"));
        return new Job(rs.getObject("id", UUID.class), rs.getObject("tenant_id", UUID.class),
                rs.getObject("key_id", UUID.class), rs.getString("key_name"), rs.getString("key_role"), request,
                rs.getString("idempotency_key"), rs.getString("request_hash"), rs.getInt("max_attempts"),
                time(rs, "created_at"), time(rs, "run_after"),
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

    /** A stored {@code request} document with the parts its job's columns hold (none of a rerun: null). */
    static Submission request(ObjectMapper json, String document, Map<String, Object> metadata, UUID session,
            UUID rerunOf, String requiredRevision) {
        return read(json, document, Submission.class).with(metadata, Optional.ofNullable(session),
                Optional.ofNullable(rerunOf).map(job -> new Submission.RerunOf(job, Optional.ofNullable(requiredRevision))));
    }

    /** In UTC, as the entity reads it, so a view handed over equals a later read. */
    private static OffsetDateTime time(ResultSet rs, String column) throws SQLException {
        OffsetDateTime time = rs.getObject(column, OffsetDateTime.class);
        return time == null ? null : time.withOffsetSameInstant(ZoneOffset.UTC);
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
}
