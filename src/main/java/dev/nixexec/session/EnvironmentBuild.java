package dev.nixexec.session;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.nixexec.job.JobStatus;
import dev.nixexec.job.JobView;
import java.util.List;
import java.util.UUID;

/**
 * An environment built ahead: {@code building}, then {@code ready} with its store path, or
 * {@code failed} with the build's reason. Its id is the id of the job that built it.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record EnvironmentBuild(UUID id, String status, String language, List<String> packages,
        String storePath, String nixpkgsRevision, Long buildMs, Boolean cacheHit, JobView.ErrorView error) {

    /** The values {@link #of} gives {@code status} (the OpenAPI document's enum). */
    public static final List<String> STATUSES = List.of("building", "ready", "failed");

    static EnvironmentBuild of(JobView job) {
        String status = !job.terminal() ? "building"
                : JobStatus.SUCCEEDED.id().equals(job.status()) ? "ready" : "failed";
        JobView.EnvironmentView env = job.environment();
        JobView.ErrorView error = "failed".equals(status) ? (job.error() != null ? job.error()
                : new JobView.ErrorView("build_failed", "the build job ended " + job.status())) : null;
        return new EnvironmentBuild(job.id(), status, job.language(), job.packages(),
                env == null ? null : env.storePath(), env == null ? null : env.nixpkgsRevision(),
                env == null ? null : env.buildMs(), env == null ? null : env.cacheHit(), error);
    }
}
