package dev.nixexec.api;

import dev.nixexec.config.NixExecConfig;
import io.quarkus.runtime.configuration.ConfigurationException;
import io.quarkus.vertx.http.ManagementInterface;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;
import org.jboss.logging.Logger;

/**
 * Local mode (no keys) is for one user on this machine: a request whose TCP peer is not a
 * loopback address gets 403 on every path, whatever its Host or forwarding headers claim. The
 * peer is read off the connection ({@code remoteAddress(true)}), never off the request, whose
 * remote address Quarkus replaces with a forwarded one when {@code quarkus.http.proxy.*} trusts a
 * proxy (as Vert.x does with a PROXY-protocol header). Before an interface listens, a non-loopback
 * listening address is refused unless {@value #FORCE} is set. The Host check (421,
 * {@link LocalModeHostCheck}) is a separate defence, against DNS rebinding by a local browser.
 */
@ApplicationScoped
public class LocalModePeerCheck {

    static final String FORCE = "nixexec.auth.local-mode-allow-non-loopback-bind";

    private static final Logger LOG = Logger.getLogger(LocalModePeerCheck.class);

    private final NixExecConfig config;
    private final Config settings;

    public LocalModePeerCheck(NixExecConfig config, Config settings) {
        this.config = config;
        this.settings = settings;
    }

    void install(@Observes Router router) {
        guard(router, "quarkus.http.host");
    }

    void installOnManagement(@Observes ManagementInterface management) {
        guard(management.router(), "quarkus.management.host");
    }

    private void guard(Router router, String hostSetting) {
        if (config.auth().enabled()) {
            return;
        }
        String host = settings.getValue(hostSetting, String.class);
        boolean forced = config.auth().localModeAllowNonLoopbackBind();
        Optional<String> refusal = refusal(hostSetting, host, forced);
        if (refusal.isPresent()) {
            throw new ConfigurationException(refusal.get());
        }
        if (!loopbackHost(host)) {
            LOG.warnf("%s=true: local mode (no keys) listens on %s=%s; only loopback peers are answered, any other gets 403",
                    FORCE, hostSetting, host);
        }
        router.route().order(-30).handler(LocalModePeerCheck::check);
        config.auth().localModeSecret().filter(secret -> !secret.isBlank())
                .ifPresent(secret -> router.route().order(-29).handler(context -> checkSecret(context, secret)));
    }

    /**
     * With {@code nixexec.auth.local-mode-secret} set, a loopback peer is not enough: any local
     * process may reach a loopback port, so each request must also prove it was given the secret.
     */
    private static void checkSecret(RoutingContext context, String secret) {
        String header = context.request().getHeader("Authorization");
        byte[] given = header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)
                ? header.substring(7).strip().getBytes(StandardCharsets.UTF_8) : new byte[0];
        if (MessageDigest.isEqual(given, secret.getBytes(StandardCharsets.UTF_8))) {
            context.next();
            return;
        }
        context.response().setStatusCode(401).putHeader("Content-Type", Problems.MEDIA_TYPE)
                .end("{\"type\":\"https://nix-exec.dev/problems/unauthorized\",\"title\":\"Unauthorized\",\"status\":401,"
                        + "\"detail\":\"this local service answers only its nix-exec stdio server: Authorization: Bearer <its secret>\"}");
    }

    /** Why local mode must not listen on {@code host}, if it must not. */
    static Optional<String> refusal(String hostSetting, String host, boolean forced) {
        if (forced || loopbackHost(host)) {
            return Optional.empty();
        }
        return Optional.of("nixexec.auth.enabled=false (local mode, no keys) refuses to listen on non-loopback "
                + hostSetting + "=" + host + ": leave " + hostSetting + " unset (127.0.0.1), turn authentication on, or set "
                + FORCE + "=true (only loopback peers are answered even then)");
    }

    /** Whether every address {@code host} (a Quarkus host setting) stands for is a loopback address. */
    static boolean loopbackHost(String host) {
        String name = host == null ? "" : host.strip();
        if (name.startsWith("[") && name.endsWith("]")) {
            name = name.substring(1, name.length() - 1);
        }
        if (name.isEmpty()) {
            return false;
        }
        if (name.equalsIgnoreCase("localhost")) {
            return true;
        }
        try {
            return Arrays.stream(InetAddress.getAllByName(name)).allMatch(InetAddress::isLoopbackAddress);
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** Whether the connection's real peer is on this machine: a loopback address or a Unix socket. */
    static boolean loopbackPeer(SocketAddress peer) {
        if (peer == null) {
            return false;
        }
        if (peer.isDomainSocket()) {
            return true;
        }
        String address = peer.hostAddress();
        if (address == null || address.isEmpty()) {
            return false;
        }
        try {
            // A literal from the socket: parsed, never looked up.
            return InetAddress.getByName(address).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static void check(RoutingContext context) {
        if (loopbackPeer(context.request().connection().remoteAddress(true))) {
            context.next();
            return;
        }
        context.response().setStatusCode(403).putHeader("Content-Type", Problems.MEDIA_TYPE)
                .end("{\"type\":\"https://nix-exec.dev/problems/forbidden\",\"title\":\"Forbidden\",\"status\":403,"
                        + "\"detail\":\"in local mode (no keys) the service answers only connections from this machine\"}");
    }
}
