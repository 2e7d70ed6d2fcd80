package dev.nixexec.job;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.audit.KeyRef;
import dev.nixexec.workspace.Artifact;
import java.time.OffsetDateTime;
import java.util.Base64;
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

    /** The job as clients see it (the contract's Job object). */
    static JobView of(Job job, ObjectMapper json) {
        EnvironmentView environment = job.storePath() == null && job.cacheHit() == null ? null
                : new EnvironmentView(job.storePath(), job.nixpkgsRevision(), job.cacheHit(), job.buildMs());
        ErrorView error = job.errorCode() == null ? null
                : new ErrorView(job.errorCode(), job.errorMessage());
        Submission request = job.request();
        String build = job.build() != null ? job.build()
                : Boolean.TRUE.equals(request.metadata().get(ENVIRONMENT_BUILD_MARK)) ? "environment" : null;
        return new JobView(job.id(), job.status(), job.language(), request.run().packages(),
                request.metadata(), job.createdAt(), job.startedAt(),
                job.finishedAt(), job.exitCode(), job.signal(), job.timedOut(), job.limitHit(), job.durationMs(),
                output(request.encoding(), job.stdout(), job.stdoutExact()),
                output(request.encoding(), job.stderr(), job.stderrExact()),
                job.stdoutBytes(), job.stderrBytes(), job.stdoutTruncated(), job.stderrTruncated(), environment,
                error, job.attempt(), job.nodeId(),
                job.artifacts() == null ? List.of() : JobRows.read(json, job.artifacts(), JobRows.ARTIFACTS), request.session().orElse(null),
                job.cpuMs() == null && job.maxRssBytes() == null ? null : new Usage(job.cpuMs(), job.maxRssBytes()),
                request.run().args(), request.encoding().id(),
                request.rerunOf().map(Submission.RerunOf::job).orElse(null), key(job), build);
    }

    /** The submitting key, or null for a job of local mode (no key). */
    private static KeyRef key(Job job) {
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
        return new String(Base64.getDecoder().decode(output), java.nio.charset.StandardCharsets.UTF_8)
                .replace('\0', '\uFFFD');
    }

    public boolean terminal() {
        return JobStatus.byId(status).map(JobStatus::terminal).orElse(false);
    }
}
