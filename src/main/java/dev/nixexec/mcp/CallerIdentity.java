package dev.nixexec.mcp;

import dev.nixexec.job.JobProblem;
import dev.nixexec.tenant.Caller;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;

/** The {@link Caller} travels inside the MCP request's {@link SecurityIdentity} as an attribute. */
final class CallerIdentity {

    static final String CALLER = "nixexec.caller";

    private CallerIdentity() {
    }

    static SecurityIdentity of(Caller caller) {
        String name = caller.keyId() == null ? "local" : caller.keyId().toString();
        return QuarkusSecurityIdentity.builder()
                .setPrincipal(new QuarkusPrincipal(name))
                .addRole(caller.role().id())
                .addAttribute(CALLER, caller)
                .build();
    }

    static Caller caller(SecurityIdentity identity) {
        Caller caller = identity.getAttribute(CALLER);
        if (caller == null) {
            throw new JobProblem(JobProblem.Kind.UNAUTHENTICATED, "an API key is required: Authorization: Bearer <key>");
        }
        return caller;
    }
}
