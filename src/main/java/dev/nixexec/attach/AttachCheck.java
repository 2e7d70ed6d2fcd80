package dev.nixexec.attach;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.nixexec.config.NixExecConfig;
import dev.nixexec.limits.KeyLimits;
import dev.nixexec.refusal.InvalidRequestException;
import dev.nixexec.refusal.Refusal;
import dev.nixexec.session.SessionShell;
import dev.nixexec.session.SessionShells;
import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.Tenants;
import io.quarkus.runtime.StartupEvent;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * Everything an attach is checked for, before the connection is upgraded, so that a refusal is a
 * plain HTTP answer with a problem body: the bearer key (401), the key's request rate (429), the
 * role (403: auditors never exec), the tenant's open shells (429), the session (404 when the
 * caller's tenant has none by that id or name, 409 when it cannot take a shell). In local mode
 * (no keys) the caller is the local operator, and a page of another origin is refused (403): a
 * browser sends any site's WebSocket to 127.0.0.1, and after DNS rebinding with a Host that
 * passes {@code api.LocalModeHostCheck}. An accepted request goes on to the WebSocket endpoint with
 * its session opened ({@link AttachedShells#hold}).
 */
@ApplicationScoped
public class AttachCheck {

    static final String PATH = "/v1/sessions/:id/attach";
    private static final Logger LOG = Logger.getLogger(AttachCheck.class);
    private static final Set<String> LOOPBACK = Set.of("localhost", "127.0.0.1", "[::1]");

    private final NixExecConfig config;
    private final Tenants tenants;
    private final KeyLimits limits;
    private final Instance<SessionShells> sessions;
    private final AttachedShells shells;
    private final ObjectMapper json;
    private volatile Caller localCaller;

    public AttachCheck(NixExecConfig config, Tenants tenants, KeyLimits limits, Instance<SessionShells> sessions,
            AttachedShells shells, ObjectMapper json) {
        this.config = config;
        this.tenants = tenants;
        this.limits = limits;
        this.sessions = sessions;
        this.shells = shells;
        this.json = json;
    }

    void localMode(@Observes StartupEvent event) {
        if (!config.auth().enabled()) {
            localCaller = tenants.localOperator();
        }
    }

    /** After the local-mode peer and Host checks (orders -30, -20), before the WebSocket upgrade. */
    void install(@Observes Router router) {
        router.route(HttpMethod.GET, PATH).order(-10).blockingHandler(this::check, false);
    }

    private void check(RoutingContext context) {
        String sessionId = context.pathParam("id");
        Caller caller;
        if (!config.auth().enabled()) {
            String origin = context.request().getHeader(HttpHeaders.ORIGIN);
            if (origin != null && !loopbackOrigin(origin)) {
                refuse(context, 403, "Forbidden", "in local mode (no keys) a WebSocket is accepted only from a page of "
                        + "this machine (Origin http://localhost, http://127.0.0.1 or http://[::1]), not from " + origin);
                return;
            }
            caller = localCaller;
        } else {
            String header = context.request().getHeader(HttpHeaders.AUTHORIZATION);
            if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
                unauthorized(context, "an API key is required: Authorization: Bearer <key>");
                return;
            }
            Optional<Caller> known = tenants.authenticate(header.substring(7).strip());
            if (known.isEmpty()) {
                unauthorized(context, "the API key is unknown or revoked");
                return;
            }
            caller = known.get();
            Optional<Refusal> tooMany = limits.request(caller);
            if (tooMany.isPresent()) {
                context.response().putHeader("Retry-After",
                        Long.toString(tooMany.get().retryAfter().orElseThrow().toSeconds()));
                refuse(context, 429, "Too Many Requests", tooMany.get().getMessage());
                return;
            }
        }
        if (!caller.role().canSubmit()) {
            refuse(context, 403, "Forbidden", "an " + caller.role().id() + " key may read sessions, never run a shell in one");
            return;
        }
        if (!sessions.isResolvable()) {
            refuse(context, 404, "Not Found", "no session " + sessionId + " (sessions are not served by this node)");
            return;
        }
        Optional<AttachedShells.Seat> seat = shells.seat(caller.tenantId());
        if (seat.isEmpty()) {
            context.response().putHeader("Retry-After", "1");
            refuse(context, 429, "Too Many Requests", "this tenant has " + config.attach().maxShellsPerTenant()
                    + " shells open on this node, its cap (nixexec.attach.max-shells-per-tenant); close one first");
            return;
        }
        Optional<SessionShell> session;
        try {
            session = sessions.get().open(caller, sessionId);
        } catch (InvalidRequestException e) {
            seat.get().close();
            refuse(context, 409, "Conflict", e.getMessage());
            return;
        } catch (Refusal e) {
            seat.get().close();
            refuse(context, e.kind().status, e.kind().title, e.getMessage());
            return;
        } catch (RuntimeException e) {
            seat.get().close();
            LOG.errorf(e, "opening session %s for a shell failed", sessionId);
            refuse(context, 500, "Internal Server Error", "the session could not be opened: " + e.getMessage());
            return;
        }
        if (session.isEmpty()) {
            seat.get().close();
            refuse(context, 404, "Not Found", "no session " + sessionId);
            return;
        }
        // the header carries the hand-off to the endpoint; one a client sent is replaced here
        String ticket = shells.hold(new AttachedShells.Accepted(caller, session.get(), seat.get()));
        context.request().headers().set(AttachedShells.TICKET_HEADER, ticket);
        context.next();
    }

    /** Whether an Origin header names this machine by a loopback name: {@code http://localhost:8080}. */
    static boolean loopbackOrigin(String origin) {
        try {
            URI uri = URI.create(origin.strip());
            String host = uri.getHost();
            if (host == null || uri.getScheme() == null) {
                return false;
            }
            host = host.toLowerCase(Locale.ROOT);
            return LOOPBACK.contains(host) || LOOPBACK.contains("[" + host + "]");
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private void unauthorized(RoutingContext context, String detail) {
        context.response().putHeader("WWW-Authenticate", "Bearer");
        refuse(context, 401, "Unauthorized", detail);
    }

    private void refuse(RoutingContext context, int status, String title, String detail) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", "about:blank");
        body.put("title", title);
        body.put("status", status);
        body.put("detail", detail);
        try {
            context.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/problem+json")
                    .end(json.writeValueAsString(body));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
