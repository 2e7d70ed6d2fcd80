package dev.nixexec.job;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.tenant.Caller;
import dev.nixexec.workspace.Artifact;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** A stored job as clients see it, and the JSON columns of a job written and read back. */
@ApplicationScoped
public class JobViews {

    private final ObjectMapper json;

    public JobViews(ObjectMapper json) {
        this.json = json;
    }

    public JobView view(Job job) {
        JobView.EnvironmentView environment = job.storePath == null && job.cacheHit == null ? null
                : new JobView.EnvironmentView(job.storePath, job.nixpkgsRevision, job.cacheHit, job.buildMs);
        JobView.ErrorView error = job.errorCode == null ? null : new JobView.ErrorView(job.errorCode, job.errorMessage);
        return new JobView(job.id, job.status, job.language, read(job.packages, new TypeReference<List<String>>() { }),
                read(job.metadata, new TypeReference<Map<String, Object>>() { }), job.createdAt, job.startedAt,
                job.finishedAt, job.exitCode, job.signal, job.timedOut, job.limitHit, job.durationMs, job.stdout,
                job.stderr, job.stdoutBytes, job.stderrBytes, job.stdoutTruncated, job.stderrTruncated, environment,
                error, job.attempt, job.nodeId,
                job.artifacts == null ? List.of() : read(job.artifacts, new TypeReference<List<Artifact>>() { }));
    }

    /** What was submitted and how it went, for review; env values only for roles that may see them. */
    public JobDetail detail(Job job, Caller caller) {
        Map<String, String> env = new TreeMap<>(read(job.env, new TypeReference<Map<String, String>>() { }));
        return new JobDetail(view(job), job.keyId, job.code, job.stdin, List.copyOf(env.keySet()),
                caller.role().seesEnvValues() ? Optional.of(env) : Optional.empty(), job.timeoutMs, job.network,
                job.maxAttempts, job.claimedAt, job.cancelRequested);
    }

    /** A value as JSON, for a jsonb column or an event's data. */
    public String write(Object value) {
        try {
            return json.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private <T> T read(String text, TypeReference<T> type) {
        try {
            return json.readValue(text, type);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
