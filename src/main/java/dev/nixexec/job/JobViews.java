package dev.nixexec.job;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.database.JsonColumns;
import dev.nixexec.execution.ExecutionRequest;
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
        return JobView.of(job, json);
    }

    /** What was submitted and how it went, for review; env values only for roles that may see them. */
    public JobDetail detail(Job job, Caller caller) {
        ExecutionRequest run = job.request().run();
        Map<String, String> env = new TreeMap<>(run.env());
        return new JobDetail(view(job), job.keyId(), run.code(), run.stdin(), List.copyOf(env.keySet()),
                caller.role().seesEnvValues() ? Optional.of(env) : Optional.empty(),
                run.timeout().orElseThrow().toMillis(), run.network(), job.maxAttempts(), job.claimedAt(),
                job.cancelRequested(), run.limits());
    }

    /** The mapper the JSON columns are read with. */
    ObjectMapper json() {
        return json;
    }

    /** A value as JSON, for a jsonb column or an event's data. */
    public String write(Object value) {
        return JsonColumns.write(json, value);
    }
}
