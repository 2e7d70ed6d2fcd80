package dev.nixexec.api;

import dev.nixexec.config.NixExecConfig;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Locale;
import java.util.Set;

/**
 * In the single-user local mode (no keys) the service answers only requests addressed to this
 * machine by a loopback name. Same-origin CORS alone does not protect it: a web page whose own
 * domain is re-pointed at 127.0.0.1 (DNS rebinding) is "same origin" by its Host header, and
 * could otherwise run code through /mcp and /v1 or read /ui as the admin. With keys on, any host
 * name is served: every request needs a key then.
 */
@ApplicationScoped
public class LocalModeHostCheck {

    private static final Set<String> LOOPBACK = Set.of("localhost", "127.0.0.1", "[::1]", "::1");

    private final NixExecConfig config;

    public LocalModeHostCheck(NixExecConfig config) {
        this.config = config;
    }

    void install(@Observes Router router) {
        if (!config.auth().enabled()) {
            router.route().order(-20).handler(this::check);
        }
    }

    private void check(RoutingContext context) {
        String path = context.request().path();
        if (path == null || path.startsWith("/q/health") || LOOPBACK.contains(hostName(context.request().getHeader("Host")))) {
            context.next();
            return;
        }
        context.response().setStatusCode(421).putHeader("Content-Type", "application/problem+json")
                .end("{\"type\":\"about:blank\",\"title\":\"Misdirected Request\",\"status\":421,\"detail\":"
                        + "\"in local mode (no keys) the service answers only requests to localhost\"}");
    }

    /** The host part of a Host header, lower-case: {@code [::1]:8080} → {@code [::1]}, {@code a:80} → {@code a}. */
    static String hostName(String header) {
        if (header == null) {
            return "";
        }
        String host = header.strip().toLowerCase(Locale.ROOT);
        if (host.startsWith("[")) {
            int end = host.indexOf(']');
            return end < 0 ? host : host.substring(0, end + 1);
        }
        int colon = host.indexOf(':');
        return colon < 0 ? host : host.substring(0, colon);
    }
}
