package dev.nixexec.job;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.execution.RequestedLimits;
import dev.nixexec.tenant.Caller;
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
        return JobRows.view(job, json);
    }

    /** What was submitted and how it went, for review; env values only for roles that may see them. */
    public JobDetail detail(Job job, Caller caller) {
        Map<String, String> stored = read(job.env(), JobRows.STRING_MAP);
        Map<String, String> env = new TreeMap<>(stored);
        return new JobDetail(view(job), job.keyId(), job.code(), job.stdin(), List.copyOf(env.keySet()),
                caller.role().seesEnvValues() ? Optional.of(env) : Optional.empty(), job.timeoutMs(), job.network(),
                job.maxAttempts(), job.claimedAt(), job.cancelRequested(), job.limits() == null ? RequestedLimits.NONE
                        : JobRows.read(json, job.limits(), json.constructType(RequestedLimits.class)));
    }

    /** The mapper the JSON columns are read with. */
    ObjectMapper json() {
        return json;
    }

    /** A value as JSON, for a jsonb column or an event's data. */
    public String write(Object value) {
        return JobRows.write(json, value);
    }

    private <T> T read(String text, JavaType type) {
        return JobRows.read(json, text, type);
    }
}
