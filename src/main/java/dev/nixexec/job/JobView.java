package dev.nixexec.job;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.nixexec.audit.KeyRef;
import dev.nixexec.workspace.Artifact;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * A job as clients see it (the contract's Job object; {@code session_id} only for a session's job,
 * {@code rerun_of} only for a rerun; {@code usage} null until the sandbox measured a run, and where
 * it cannot; {@code key} null only in local mode: the submitting key, by id, name and role; {@code build}
 * only for an environment build: {@code session} for a session's, {@code environment} for one built ahead). {@code stdout}/{@code stderr} are text, or base64 of the exact bytes when
 * {@code encoding} is {@code base64}.
 */
public record JobView(UUID id, String status, String language, List<String> packages, Map<String, Object> metadata,
        OffsetDateTime createdAt, OffsetDateTime startedAt, OffsetDateTime finishedAt, Integer exitCode,
        Integer signal, boolean timedOut, String limitHit, Long durationMs, String stdout, String stderr,
        long stdoutBytes, long stderrBytes, boolean stdoutTruncated, boolean stderrTruncated,
        EnvironmentView environment, ErrorView error, int attempt, String nodeId, List<Artifact> artifacts,
        @JsonInclude(JsonInclude.Include.NON_NULL) UUID sessionId, Usage usage, List<String> args, String encoding,
        @JsonInclude(JsonInclude.Include.NON_NULL) UUID rerunOf, KeyRef key,
        @JsonInclude(JsonInclude.Include.NON_NULL) String build) {

    /** The metadata mark of a build ahead of use ({@code POST /v1/environments}). */
    public static final String ENVIRONMENT_BUILD_MARK = "environment_build";

    /** What the run used, as the sandbox measured it (docs/api.md); a field it could not measure is null. */
    public record Usage(Long cpuMs, Long maxRssBytes) {
    }

    @Schema(name = "JobEnvironment")
    public record EnvironmentView(String storePath, String nixpkgsRevision, Boolean cacheHit, Long buildMs) {
    }

    public record ErrorView(String code, String message) {
    }

    /** stdout as text whatever the encoding (NUL and bytes that are not UTF-8 as U+FFFD), as a page shows it. */
    public String stdoutText() {
        return text(stdout);
    }

    /** stderr as text whatever the encoding, as {@link #stdoutText()}. */
    public String stderrText() {
        return text(stderr);
    }

    private String text(String output) {
        if (output == null || !OutputEncoding.BASE64.id().equals(encoding)) {
            return output;
        }
        return new String(java.util.Base64.getDecoder().decode(output), java.nio.charset.StandardCharsets.UTF_8)
                .replace('\0', '\uFFFD');
    }

    public boolean terminal() {
        return JobStatus.byId(status).map(JobStatus::terminal).orElse(false);
    }
}
