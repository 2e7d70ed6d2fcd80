package dev.nixexec.mcp;

import dev.nixexec.config.NixExecConfig;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.Tenants;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.security.AuthenticationException;
import io.quarkus.security.UnauthorizedException;
import io.quarkus.security.credential.TokenCredential;
import io.quarkus.security.identity.IdentityProviderManager;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.request.AuthenticationRequest;
import io.quarkus.security.identity.request.TokenAuthenticationRequest;
import io.quarkus.vertx.http.runtime.security.ChallengeData;
import io.quarkus.vertx.http.runtime.security.HttpAuthenticationMechanism;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Set;

/**
 * Bearer API keys on {@code /mcp}: the key becomes a {@link SecurityIdentity} carrying the
 * {@link Caller}; the permission policy in application.properties refuses requests without one
 * (401). {@code /v1} keeps its own filter ({@code api.Authentication}), so other paths are left
 * anonymous here. In local mode every MCP request is the operator of the default tenant.
 */
@ApplicationScoped
public class BearerKeyMechanism implements HttpAuthenticationMechanism {

    private static final String BEARER = "Bearer ";

    private final NixExecConfig config;
    private final Tenants tenants;
    private volatile SecurityIdentity localIdentity;

    public BearerKeyMechanism(NixExecConfig config, Tenants tenants) {
        this.config = config;
        this.tenants = tenants;
    }

    void localMode(@Observes StartupEvent event) {
        if (!config.auth().enabled()) {
            localIdentity = CallerIdentity.of(tenants.localOperator());
        }
    }

    @Override
    public Uni<SecurityIdentity> authenticate(RoutingContext context, IdentityProviderManager identities) {
        String path = context.normalizedPath();
        if (!path.equals("/mcp") && !path.startsWith("/mcp/")) {
            return Uni.createFrom().nullItem();
        }
        if (!config.auth().enabled()) {
            return Uni.createFrom().item(localIdentity);
        }
        String header = context.request().getHeader(HttpHeaders.AUTHORIZATION);
        if (header == null || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return Uni.createFrom().nullItem();
        }
        TokenCredential key = new TokenCredential(header.substring(BEARER.length()).strip(), "bearer");
        return identities.authenticate(new TokenAuthenticationRequest(key));
    }

    /**
     * A refused key on /mcp reaches the routes' failure handlers, where the extension (1.13) would
     * answer with the exception's class name; this one, ahead of it, answers in plain words.
     */
    void install(@Observes Router router) {
        router.route("/mcp").order(-30).failureHandler(this::refused);
        router.route("/mcp/*").order(-30).failureHandler(this::refused);
    }

    private void refused(RoutingContext ctx) {
        Throwable failure = ctx.failure();
        boolean unauthenticated = failure instanceof AuthenticationException || failure instanceof UnauthorizedException;
        if (!unauthenticated || ctx.response().headWritten()) {
            ctx.next();
            return;
        }
        answerUnauthenticated(ctx);
    }

    /** A JSON-RPC error an MCP client shows as it is: why the request was refused, and what to send. */
    private static void answerUnauthenticated(RoutingContext ctx) {
        JsonObject error = new JsonObject().put("jsonrpc", "2.0").putNull("id").put("error", new JsonObject()
                .put("code", -32001).put("message", "a valid API key is required: Authorization: Bearer <key>"));
        ctx.response().setStatusCode(401).putHeader("WWW-Authenticate", "Bearer")
                .putHeader(HttpHeaders.CONTENT_TYPE, "application/json").end(error.toBuffer());
    }

    /** A request to /mcp without a key is told why, as one with a wrong key is ({@link #refused}), not with an empty 401. */
    @Override
    public Uni<Boolean> sendChallenge(RoutingContext context) {
        String path = context.normalizedPath();
        if ((path.equals("/mcp") || path.startsWith("/mcp/")) && !context.response().headWritten()) {
            answerUnauthenticated(context);
            return Uni.createFrom().item(true);
        }
        return HttpAuthenticationMechanism.super.sendChallenge(context);
    }

    @Override
    public Uni<ChallengeData> getChallenge(RoutingContext context) {
        return Uni.createFrom().item(new ChallengeData(401, "WWW-Authenticate", "Bearer"));
    }

    @Override
    public Set<Class<? extends AuthenticationRequest>> getCredentialTypes() {
        return Set.of(TokenAuthenticationRequest.class);
    }
}
