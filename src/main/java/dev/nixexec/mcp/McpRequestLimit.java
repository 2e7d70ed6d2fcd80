package dev.nixexec.mcp;

import dev.nixexec.refusal.Refusal;
import dev.nixexec.limits.KeyLimits;
import dev.nixexec.tenant.Caller;
import io.quarkus.vertx.http.runtime.security.QuarkusHttpUser;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Optional;

/**
 * Each {@code /mcp} request within its key's and its tenant's request rates ({@link KeyLimits}), as on {@code /v1}:
 * over it, 429 with Retry-After and a problem+json body before the MCP extension sees the request.
 * It runs after authentication (the security handlers run before routes), so the key is known.
 */
@ApplicationScoped
public class McpRequestLimit {

    private final KeyLimits limits;

    public McpRequestLimit(KeyLimits limits) {
        this.limits = limits;
    }

    void install(@Observes Router router) {
        // before McpBodyGuard (-10): a refused request's body is not read
        router.route().order(-11).handler(this::check);
    }

    private void check(RoutingContext ctx) {
        String path = ctx.normalizedPath();
        Optional<Refusal> refused = Optional.empty();
        if ((path.equals("/mcp") || path.startsWith("/mcp/")) && ctx.user() instanceof QuarkusHttpUser user
                && user.getSecurityIdentity().getAttribute(CallerIdentity.CALLER) instanceof Caller caller) {
            refused = limits.request(caller);
        }
        if (refused.isEmpty()) {
            ctx.next();
            return;
        }
        Refusal problem = refused.get();
        JsonObject body = new JsonObject().put("type", "https://nix-exec.dev/problems/too-many-requests")
                .put("title", "Too Many Requests").put("status", 429).put("detail", problem.getMessage());
        ctx.response().setStatusCode(429).putHeader("Content-Type", "application/problem+json")
                .putHeader("Retry-After", Long.toString(problem.retryAfter().orElseThrow().toSeconds()))
                .end(body.toBuffer());
    }
}
