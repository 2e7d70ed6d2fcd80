package dev.nixexec.api;

import dev.nixexec.job.JobProblem;
import dev.nixexec.tenant.Caller;
import jakarta.enterprise.context.RequestScoped;

/** The authenticated caller of the current request, set by {@link Authentication}. */
@RequestScoped
public class CallerContext {

    private Caller caller;

    void set(Caller caller) {
        this.caller = caller;
    }

    public Caller get() {
        if (caller == null) {
            throw new JobProblem(JobProblem.Kind.UNAUTHENTICATED, "an API key is required: Authorization: Bearer <key>");
        }
        return caller;
    }
}
