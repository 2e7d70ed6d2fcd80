package dev.nixexec.api;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.limits.KeyLimits;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.Tenants;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.util.Optional;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

/**
 * Bearer API keys on every {@code /v1} request, each within its key's and its tenant's request
 * rates ({@link KeyLimits}). With {@code nixexec.auth.enabled=false} (local single-user mode) every
 * request acts as the operator of the default tenant.
 */
@ApplicationScoped
public class Authentication {

    private final NixExecConfig config;
    private final Tenants tenants;
    private final CallerContext callers;
    private final KeyLimits limits;
    private volatile Caller localCaller;

    public Authentication(NixExecConfig config, Tenants tenants, CallerContext callers, KeyLimits limits) {
        this.config = config;
        this.tenants = tenants;
        this.callers = callers;
        this.limits = limits;
    }

    void bootstrap(@Observes StartupEvent event) {
        config.auth().bootstrapAdminKey().ifPresent(tenants::ensureOperatorKey);
        if (!config.auth().enabled()) {
            localCaller = tenants.localOperator();
        }
    }

    @ServerRequestFilter
    public Optional<Response> authenticate(ContainerRequestContext request) {
        if (!request.getUriInfo().getPath().startsWith("/v1")) {
            return Optional.empty();
        }
        if (!config.auth().enabled()) {
            callers.set(localCaller);
            return Optional.empty();
        }
        String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
        if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return Optional.of(Problems.response(401, "Unauthorized",
                    "an API key is required: Authorization: Bearer <key>", null));
        }
        Optional<Caller> caller = tenants.authenticate(header.substring(7).strip());
        if (caller.isEmpty()) {
            return Optional.of(Problems.response(401, "Unauthorized", "the API key is unknown or revoked", null));
        }
        callers.set(caller.get());
        return limits.request(caller.get()).map(Problems::of);
    }
}
