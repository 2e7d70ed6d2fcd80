package dev.nixexec.job;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.nixexec.workspace.Artifact;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A job as clients see it (the contract's Job object; {@code session_id} only for a session's job;
 * {@code usage} null until the sandbox measured a run, and where it cannot).
 */
public record JobView(UUID id, String status, String language, List<String> packages, Map<String, Object> metadata,
        OffsetDateTime createdAt, OffsetDateTime startedAt, OffsetDateTime finishedAt, Integer exitCode,
        Integer signal, boolean timedOut, String limitHit, Long durationMs, String stdout, String stderr,
        long stdoutBytes, long stderrBytes, boolean stdoutTruncated, boolean stderrTruncated,
        EnvironmentView environment, ErrorView error, int attempt, String nodeId, List<Artifact> artifacts,
        @JsonInclude(JsonInclude.Include.NON_NULL) UUID sessionId, Usage usage) {

    /** What the run used, as the sandbox measured it (docs/api.md); a field it could not measure is null. */
    public record Usage(Long cpuMs, Long maxRssBytes) {
    }

    public record EnvironmentView(String storePath, String nixpkgsRevision, Boolean cacheHit, Long buildMs) {
    }

    public record ErrorView(String code, String message) {
    }

    public boolean terminal() {
        return JobStatus.byId(status).map(JobStatus::terminal).orElse(false);
    }
}
