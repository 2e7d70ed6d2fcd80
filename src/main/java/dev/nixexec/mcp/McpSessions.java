package dev.nixexec.mcp;

import dev.nixexec.tenant.Caller;
import dev.nixexec.tenant.Role;
import io.quarkiverse.mcp.server.http.runtime.SseMcpConnection;
import io.quarkiverse.mcp.server.runtime.ConnectionManager;
import io.quarkiverse.mcp.server.runtime.McpConnectionBase;
import io.quarkus.vertx.http.runtime.security.QuarkusHttpUser;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Binds each MCP session to the key that opened it. The extension (1.13) takes any request that
 * names a live session, whoever sends it: another key of the tenant could cancel the owner's
 * running call, answer in its place, read its stream or end it. This guard runs before the
 * extension's routes (after authentication): it records the opener when a session is made (the
 * Streamable HTTP initialize answer's Mcp-Session-Id; the connection a GET /mcp/sse makes) and
 * answers every later request of the session — Mcp-Session-Id on /mcp, or /mcp/messages/&lt;id&gt;
 * — from another key, or for a session that is not live, with the extension's own 404, so the
 * extension never sees it. Sessions live in one node's memory, and so does this record.
 */
@ApplicationScoped
public class McpSessions {

    static final String SESSION_HEADER = "Mcp-Session-Id";
    private static final String MESSAGES = "/mcp/messages/";
    /** Kept for SSE connections that could not be told apart (not expected): nobody may use them. */
    private static final Caller NOBODY = new Caller(new UUID(0, 0), new UUID(0, 0), Role.AUDITOR);

    private final ConnectionManager connections;
    /** Session id to the caller that opened it; its key (none in local mode, with one caller) owns it. */
    private final Map<String, Caller> owners = new ConcurrentHashMap<>();
    /** Serialises SSE openings, so the one connection each makes is known to be its own. */
    private final Object sseOpening = new Object();
    private int pruneAt = 1024;

    public McpSessions(ConnectionManager connections) {
        this.connections = connections;
    }

    void install(@Observes Router router) {
        router.route("/mcp").order(-20).handler(this::streamable);
        router.route("/mcp/messages/*").order(-20).handler(this::message);
        router.get("/mcp/sse").order(-20).handler(this::openSse);
    }

    /** The caller that opened this live session, if any. */
    Optional<Caller> opener(String sessionId) {
        return Optional.ofNullable(owners.get(sessionId)).filter(owner -> owner != NOBODY);
    }

    private void streamable(RoutingContext ctx) {
        Optional<Caller> caller = caller(ctx);
        String sessionId = ctx.request().getHeader(SESSION_HEADER);
        if (sessionId != null) {
            allowOnly(ctx, sessionId, caller);
        } else if (caller.isPresent() && ctx.request().method() == HttpMethod.POST) {
            // the initialize answer names the new session; nobody else knows its id before it is sent
            ctx.addHeadersEndHandler(v -> {
                String made = ctx.response().headers().get(SESSION_HEADER);
                if (made != null) {
                    record(made, caller.get());
                }
            });
            ctx.next();
        } else {
            ctx.next();
        }
    }

    private void message(RoutingContext ctx) {
        String path = ctx.normalizedPath();
        allowOnly(ctx, path.substring(Math.min(path.length(), MESSAGES.length())), caller(ctx));
    }

    /**
     * The extension makes the SSE connection, adds it to its connections and writes its id on the
     * stream, all within this call of {@code next()}. The owner is recorded when the response's
     * headers go out, just before that id does: recorded after {@code next()} returned, a client
     * could read the id and post to it (on another event loop) before its owner was known, and
     * be refused. Openings one at a time make the one new unowned SSE connection this caller's.
     */
    private void openSse(RoutingContext ctx) {
        Optional<Caller> caller = caller(ctx);
        synchronized (sseOpening) {
            ctx.addHeadersEndHandler(v -> claimNewSse(caller));
            ctx.next();
        }
    }

    private void claimNewSse(Optional<Caller> caller) {
        synchronized (sseOpening) {
            List<String> made = new ArrayList<>();
            for (McpConnectionBase connection : connections) {
                if (connection instanceof SseMcpConnection && !owners.containsKey(connection.id())) {
                    made.add(connection.id());
                }
            }
            for (String id : made) {
                if (made.size() == 1 && caller.isPresent()) {
                    record(id, caller.get());
                } else {
                    owners.put(id, NOBODY);
                }
            }
        }
    }

    private void allowOnly(RoutingContext ctx, String sessionId, Optional<Caller> caller) {
        Caller owner = owners.get(sessionId);
        if (owner == null || owner == NOBODY || caller.isEmpty() || !owner.tenantId().equals(caller.get().tenantId())
                || !Objects.equals(owner.keyId(), caller.get().keyId()) || !connections.has(sessionId)) {
            ctx.fail(404);
            return;
        }
        ctx.next();
    }

    private void record(String sessionId, Caller caller) {
        owners.put(sessionId, caller);
        prune();
    }

    /** Forgets ended sessions once the record has doubled since it was last pruned. */
    private synchronized void prune() {
        if (owners.size() < pruneAt) {
            return;
        }
        owners.keySet().removeIf(id -> !connections.has(id));
        pruneAt = Math.max(1024, owners.size() * 2);
    }

    private static Optional<Caller> caller(RoutingContext ctx) {
        return ctx.user() instanceof QuarkusHttpUser user
                ? CallerIdentity.find(user.getSecurityIdentity())
                : Optional.empty();
    }
}
